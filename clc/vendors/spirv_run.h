/*
 * spirv_run.h — SPIR-V modules of a program (docs/vendors/SPIRV.md):
 * clang (clang-15) compiles the OpenCL C for spir64 to LLVM bitcode and
 * llvm-spirv (llvm-spirv-15) translates it, with no device and no vendor's
 * compiler involved. The module is SPIR-V 1.0 (--spirv-max-version=1.0),
 * the version every driver that takes IL accepts. Nothing here prints; it
 * forks.
 */
#ifndef CLC_SPIRV_RUN_H
#define CLC_SPIRV_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "tool_run.h"

#define SPIRV_PACKAGES "clang-15 and llvm-spirv-15"
#define SPIRV_VERSION_WORD 0x00010000u
#define SPIRV_TARGET "SPIR-V_1.0"

typedef struct spirv_tools {
    char clang[TOOL_PATH_MAX];
    char llvm_spirv[TOOL_PATH_MAX];
} spirv_tools;

/* 0, or -1 with msg naming the packages. */
int spirv_find(spirv_tools *t, char *msg, size_t cap);

/* "clang 15.0.6; llvm-spirv 15.0.6". 0, or -1 with msg. */
int spirv_version(const spirv_tools *t, char *buf, size_t buf_cap, char *msg, size_t cap);

/* The module of the program text with the build options (offline_opts.h).
 * 0 with *spv (malloc'd), or -1 with msg. */
int spirv_compile(const spirv_tools *t, const char *source, size_t size, const char *options,
                  unsigned char **spv, size_t *spv_size, char *msg, size_t cap);

#endif /* CLC_SPIRV_RUN_H */
