/*
 * startup_measure.h — one pass of the start-up benchmark (tests/bench/
 * startup.c), run in a child process so that nothing a driver keeps in
 * memory from an earlier pass (a compiled program, a work-group function)
 * can make a later one faster: each pass starts as an application does.
 *
 * For each selected key, on one device, a pass measures (all in ms):
 *  - per binary form the pack holds for this device (native; on NVIDIA
 *    cubin and PTX): the loader's decode alone (clcpack_find +
 *    clcpack_read_binary: lookup, inflate, CRC-32); the bare driver path
 *    on those bytes (clCreateProgramWithBinary + clBuildProgram +
 *    clCreateKernel); the loader path (clcpack_create_kernel forced to
 *    that form); and, on the first program of the pass,
 *    the first and second launch (host clock, enqueue to finish);
 *  - from source, unless skipped: clCreateProgramWithSource of the stored
 *    text + clBuildProgram with the stored options + clCreateKernel, then
 *    the first launch.
 * Binary forms come first, so the source build cannot warm anything they
 * use. Every launch is checked against the CPU reference, but with
 * large_grid (a grid too wide for a quick reference).
 */
#ifndef STARTUP_MEASURE_H
#define STARTUP_MEASURE_H

#include <stddef.h>
#include <stdint.h>

#include "clcpack.h"
#include "manifest.h"

typedef enum su_form {
    SU_NATIVE = 0,
    SU_CUBIN = 1,
    SU_PTX = 2,
    SU_SOURCE = 3,
    SU_NFORMS = 4
} su_form;

typedef enum su_metric {
    SU_READY_BARE = 0,  /* binary forms: bare driver path to a cl_kernel */
    SU_READY_LOADER,    /* binary forms: through the loader; source: the JIT */
    SU_FIRST,           /* first launch after the program was made */
    SU_SECOND,          /* second launch (binary forms) */
    SU_DECODE,          /* binary forms: lookup + inflate + CRC-32 */
    SU_FAILED,          /* the form could not be measured (ms unused) */
    SU_CONTEXT,         /* process-wide: clCreateContext, key SU_KEY_PROCESS */
    SU_DEVQUERY,        /* process-wide: one clcpack_device_query, the queries an
                           open pack makes on its first load for a device */
    SU_NMETRICS
} su_metric;

#define SU_KEY_PROCESS UINT32_MAX

/* What the child sends back through the pipe, one record per sample. */
typedef struct su_record {
    uint32_t key;
    uint16_t form;
    uint16_t metric;
    double ms;
} su_record;

typedef struct su_plan {
    const clcpack *pack;
    const manifest_file *manifest;
    size_t n;                   /* selected keys */
    const size_t *entry;        /* the first entry of each key */
    const unsigned char *skip_source; /* per key: 1 = no source build this pass */
    const char *device_spec, *platform;
    int inner;                  /* bare/loader pairs per form, at most */
    double budget_ms;           /* ... and no more once a form took this long */
    int large_grid;             /* launch over kernel_run_large_problem, unchecked */
} su_plan;

/* "native", "cubin", "ptx", "source". */
const char *su_form_name(su_form f);

/* Runs one pass, writing records to fd. Diagnostics go to stderr. Returns
 * 0, or 1 when the device could not be opened (nothing was measured). */
int su_measure(const su_plan *plan, int fd);

#endif /* STARTUP_MEASURE_H */
