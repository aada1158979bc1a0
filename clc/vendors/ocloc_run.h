/*
 * ocloc_run.h — Intel's offline compiler (docs/vendors/INTEL.md): found,
 * asked its version and the IP version of a target name, and run on one
 * program for one target, no Intel GPU or driver needed. Debian's
 * intel-opencl-icd ships it (/usr/bin/ocloc, with libllvmspirvlib14).
 * Nothing here prints; every function forks (tool_run.h).
 */
#ifndef CLC_OCLOC_RUN_H
#define CLC_OCLOC_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "tool_run.h"

#define OCLOC_PACKAGE "intel-opencl-icd"
#define OCLOC_MAX_IDS 64

/* ocloc on $PATH. 0, or -1 with msg naming the package. */
int ocloc_find(char out[TOOL_PATH_MAX], char *msg, size_t cap);

/* "22.43.24595" (ocloc query OCL_DRIVER_VERSION). 0, or -1 with msg. */
int ocloc_version(const char *ocloc, char *buf, size_t buf_cap, char *msg, size_t cap);

/* The IP versions (cl_version) `ocloc ids ITEM` matches: one for a target
 * name, several for a family or release ("xe-hpg"). 0, or -1 with msg. */
int ocloc_ids(const char *ocloc, const char *item, uint32_t ids[OCLOC_MAX_IDS], size_t *n,
              char *msg, size_t cap);

/* The target names `ocloc compile --help` lists (malloc'd, *n of them;
 * free each and the array). 0, or -1. */
int ocloc_names(const char *ocloc, char ***names, size_t *n);

/* Builds the program text for one -device value with the build options
 * (checked as offline_opts.h says); with exclude_ir, ocloc leaves the
 * program's SPIR-V out of the binary (-exclude_ir, docs/vendors/INTEL.md).
 * 0 with *bin (malloc'd), or -1 with msg: ocloc's first lines of output. */
int ocloc_compile(const char *ocloc, const char *source, size_t size, const char *options,
                  const char *device, int exclude_ir, unsigned char **bin, size_t *bin_size,
                  char *msg, size_t cap);

#endif /* CLC_OCLOC_RUN_H */
