/*
 * roundtrip.h — the generic check every variant gets, whatever its kernels
 * compute: the program is made again from its own binary on the device,
 * built, every kernel created, and its kernels' names, argument counts and
 * argument info (CL_KERNEL_ARG_*, where the driver gives it for both) must
 * match the build from source. It catches a binary the driver cannot load
 * back, a binary of another program, and a canonicalization that lost a
 * kernel. Nothing here prints.
 */
#ifndef CLC_ROUNDTRIP_H
#define CLC_ROUNDTRIP_H

#include <stddef.h>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#define ROUNDTRIP_MSG_MAX 1024

/* The kernels of a built program, one "name(args...)" line per kernel in
 * name order, as a malloc'd string (NULL with msg on an error). */
char *roundtrip_signature(cl_program prog, char msg[ROUNDTRIP_MSG_MAX]);

/* The program made from bin on (ctx, dev) and built with options, or NULL
 * with msg saying why the driver refused it. */
cl_program roundtrip_program_from_binary(cl_context ctx, cl_device_id dev, const char *options,
                                  const unsigned char *bin, size_t size, char msg[ROUNDTRIP_MSG_MAX]);

/* Compares the signature of prog (made from a binary) with expect
 * (roundtrip_signature of the source build): 0 when they match, 1 when they
 * differ (msg names the first kernel that differs) or prog's cannot be
 * read. A field one side gives as "?" (a driver that gives argument info
 * for a source build and not for a binary) matches anything. */
int roundtrip_compare(const char *expect, cl_program prog, char msg[ROUNDTRIP_MSG_MAX]);

/* The kernel names of a built program (CL_PROGRAM_KERNEL_NAMES split at
 * ';'), sorted, as a malloc'd array of malloc'd strings; *n their count.
 * 0, or -1 with msg. */
int roundtrip_kernel_names(cl_program prog, char ***names, size_t *n, char msg[ROUNDTRIP_MSG_MAX]);

#endif /* CLC_ROUNDTRIP_H */
