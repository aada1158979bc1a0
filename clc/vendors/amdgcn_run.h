/*
 * amdgcn_run.h — AMD GPU code objects without an AMD GPU
 * (docs/vendors/AMD.md): clang (clang-15) compiles OpenCL C for
 * amdgcn-amd-amdhsa and one gfx target ID, with the ROCm device libraries
 * of Debian's rocm-device-libs linked in as builtin bitcode (opencl, ocml,
 * ockl and the oclc_* control libraries the options choose), and links the
 * code object with ld.lld (lld-15). Nothing here prints; it forks.
 */
#ifndef CLC_AMDGCN_RUN_H
#define CLC_AMDGCN_RUN_H

#include <stddef.h>

#include "tool_run.h"

#define AMDGCN_PACKAGES "clang-15, lld-15 and rocm-device-libs"
#define AMDGCN_BITCODE_DIR "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"

typedef struct amdgcn_tools {
    char clang[TOOL_PATH_MAX];
    char bitcode[TOOL_PATH_MAX]; /* the device libraries' folder */
} amdgcn_tools;

/* clang-15 on $PATH (or /usr/lib/llvm-15/bin/clang), ld.lld beside it or on
 * $PATH, and the device libraries. 0, or -1 with msg naming the packages. */
int amdgcn_find(amdgcn_tools *t, char *msg, size_t cap);

/* "clang 15.0.6; rocm-device-libs ockl crc32 1a2b3c4d": what identifies
 * the code these tools make. 0, or -1 with msg. */
int amdgcn_version(const amdgcn_tools *t, char *buf, size_t buf_cap, char *msg, size_t cap);

/* 1 when the device libraries hold oclc_isa_version_<gfx digits>.bc. */
int amdgcn_has_isa_library(const amdgcn_tools *t, const char *target);

/* Builds the program text for one target ID ("gfx90a:xnack-") with the
 * build options (offline_opts.h). A target whose ISA library the device
 * libraries lack gets __oclc_ISA_version from a one-line library made
 * here (docs/vendors/AMD.md says why that is the library's whole
 * content). 0 with *bin (malloc'd), or -1 with msg. */
int amdgcn_compile(const amdgcn_tools *t, const char *source, size_t size, const char *options,
                   const char *target, unsigned char **bin, size_t *bin_size, char *msg,
                   size_t cap);

#endif /* CLC_AMDGCN_RUN_H */
