/*
 * build_variant.h — building one kernel variant for one device the way a
 * pack stores it: from its program source with its exact build options,
 * launched once on random data and checked against the CPU reference (on
 * PoCL that launch also puts the compiled work-group function into the
 * binary, so the first launch after loading it compiles nothing), then its
 * CL_PROGRAM_BINARIES taken. On NVIDIA the binary is PTX: stored without
 * its NUL and, when ptxas is known, in its most portable form and also
 * assembled into a cubin for the device and each --nv-arch (nv_forms.h).
 *
 * Used by clc-pack's worker processes (one bv_target per device and
 * process) and by the benchmarks. Nothing here prints.
 */
#ifndef CLC_BUILD_VARIANT_H
#define CLC_BUILD_VARIANT_H

#include <stddef.h>
#include <stdint.h>

#include "clcpack.h"
#include "manifest.h"
#include "nv_forms.h"
#include "tune_variant.h"

/* PTX and a cubin per architecture (nv_forms.h). */
#define BV_MAX_FORMS (2 + NVF_MAX_ARCHS)
#define BV_PATH_MAX 4096

/* A device opened for building: context and in-order queue. */
typedef struct bv_target {
    cl_device_id device;
    cl_context ctx;
    cl_command_queue queue;
    int is_nvidia;
    uint32_t cc_major, cc_minor;   /* NVIDIA compute capability, else 0.0 */
    char ptxas[BV_PATH_MAX];       /* "" when cubins are not made */
    nvf_archs nv_archs;            /* cubins besides the device's own (--nv-arch);
                                      set after bv_target_open, empty by default */
} bv_target;

/* Opens dev; ptxas may be NULL or "" (no cubins). 0, or -1 with err. */
int bv_target_open(cl_device_id dev, const char *ptxas, bv_target *t, char *err, size_t cap);
void bv_target_close(bv_target *t);

typedef enum bv_status {
    BV_OK = 0,
    BV_BUILD_FAILED = 1,   /* clBuildProgram refused the source: see log */
    BV_CHECK_FAILED = 2,   /* built, but the output differs from the reference */
    BV_ERROR = 3           /* anything else: source, OpenCL call, worker */
} bv_status;

/* One stored form of the program. */
typedef struct bv_form {
    clcpack_binary_kind kind;
    uint32_t arch;
    unsigned char *data;   /* malloc'd */
    size_t size;
} bv_form;

typedef struct bv_result {
    bv_status status;
    char *message;         /* one line, what failed; malloc'd or NULL */
    char *log;             /* CL_PROGRAM_BUILD_LOG on a build failure; malloc'd or NULL */
    char *note;            /* a non-fatal problem (ptxas failed: PTX only); malloc'd or NULL */
    char source_name[MF_PATH_MAX];
    char *source;          /* the program text that was built; malloc'd */
    size_t source_size;
    size_t n_forms;
    bv_form forms[BV_MAX_FORMS];
    double build_s;        /* wall time of the whole step, for -v */
    size_t n_tunings;      /* --tune: the timings taken (tune_variant.h) */
    clcpack_tuning tunings[TV_MAX_WIDTHS];
} bv_result;

typedef struct bv_options {
    int check;             /* launch with kr_check (1) or kr_run_once (0) */
    int warmup;            /* 0: no launch at all (only for benchmarks) */
    double tol;            /* kr_check tolerance */
    uint64_t seed;         /* random data seed */
    tv_options tune;       /* --tune: time the variant after taking its binary */
} bv_options;

/* The options clc-pack uses. */
void bv_default_options(bv_options *o);

/* Builds v on t. Always fills *r (free with bv_result_free); r->status says
 * how it went. */
void bv_build(bv_target *t, const mf_manifest *m, const mf_variant *v, const bv_options *o,
              bv_result *r);

void bv_result_free(bv_result *r);

#endif /* CLC_BUILD_VARIANT_H */
