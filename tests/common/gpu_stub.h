/*
 * stub_icd.h — using the stub OpenCL driver (tests/stubs/gpu_driver/README.md) from
 * a C test: pointing the ICD loader at it with a given identity, and
 * reading its log of what each device was handed.
 *
 * Typical use, before the process's first OpenCL call:
 *
 *   char log[PATH_MAX];
 *   stub_icd_use(tmpdir, "intel:tgllp,amd:gfx90a:xnack-", log, sizeof log, 0);
 *   ... load a pack through the library on the stub's devices ...
 *   // "device intel:tgllp got exactly entry 3's bytes, once":
 *   CHECK(stub_log_count_entry(log, "binary", "intel:tgllp", pack, 3, "CL_SUCCESS") == 1, ...);
 *   // "no AMD device was handed any binary":
 *   CHECK(stub_log_count(log, "binary", "amd:gfx90a:xnack-", NULL, 0, NULL) == 0, ...);
 *
 * The ICD loader reads OCL_ICD_VENDORS once per process, at the first
 * OpenCL call: a test that needs two identities runs a child process for
 * the second (tests/device/test_stub_loader.c shows how).
 */
#ifndef CLC_TEST_STUB_ICD_H
#define CLC_TEST_STUB_ICD_H

#include <stddef.h>

#include "clcpack.h"

/* The stub library: libclcstub.so beside the running test program
 * (build/tests/). 0, or -1 when it is not there. */
int stub_icd_path(char *out, size_t cap);

/* Makes dir/vendors holding an .icd file naming the stub (and, with
 * with_pocl, the machine's PoCL .icd files from /etc/OpenCL/vendors, so
 * PoCL's CPU device is there too), and sets OCL_ICD_VENDORS to it,
 * CLCSTUB_DEVICES to devices (NULL: the stub's default) and CLCSTUB_LOG to
 * dir/stub.log, emptied (its path into log when log is not NULL). Clears
 * the behaviour switches (CLCSTUB_REFUSE_BINARIES, ...). 0, or -1 when the
 * stub is not built or a file cannot be written. */
int stub_icd_use(const char *dir, const char *devices, char *log, size_t log_cap, int with_pocl);

/* One line of the log, split into its fields. */
typedef struct stub_log_line {
    long pid;
    unsigned seq;
    char call[16];        /* source, binary, il, build */
    char dev[96];         /* "intel:tgllp" */
    int idx;
    unsigned prog;
    unsigned long long bytes;
    char sha256[65];
    char result[48];      /* "CL_SUCCESS", "CL_INVALID_BINARY", ... */
    char how[16];         /* binary, ir, source, il, or "-" */
    char why[512];
    char options[4096];
} stub_log_line;

/* Parses one line (without its newline). 0, or -1 when malformed. */
int stub_log_parse(const char *line, stub_log_line *out);

/* The lines of the log at path that match every non-NULL criterion: the
 * call, the device label, the SHA-256 of bytes[0..n) (bytes NULL: any) and
 * the result; -1 when the log cannot be read. When out is not NULL the last
 * matching line is copied there. */
int stub_log_find(const char *path, const char *call, const char *dev, const void *bytes,
                  size_t n, const char *result, stub_log_line *out);
int stub_log_count(const char *path, const char *call, const char *dev, const void *bytes,
                   size_t n, const char *result);

/* The same with the bytes of entry i of pack p (clcpack_read_binary);
 * -1 when the entry cannot be read. */
int stub_log_count_entry(const char *path, const char *call, const char *dev, const clcpack *p,
                         size_t entry, const char *result);

#endif /* CLC_TEST_STUB_ICD_H */
