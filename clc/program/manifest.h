/*
 * manifest.h — the kernel manifest (kernels/manifest.txt, docs/MANIFEST.md):
 * which kernels exist, the axes each varies on, how each is launched and
 * checked, and the expansion of a selection into build variants.
 *
 * Used by clc-pack (what to build), by the correctness tests and the
 * benchmarks (how to launch and check). Knows nothing of OpenCL.
 */
#ifndef CLC_MANIFEST_H
#define CLC_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#define MF_NAME_MAX 64
#define MF_PATH_MAX 256
#define MF_MAX_VALUES 64
#define MF_MAX_AXES 12
#define MF_MAX_DERIVES 8
#define MF_MAX_ARGS 12
#define MF_MAX_KERNELS 64
#define MF_EXPR_MAX 128
#define MF_ERR_MAX 1024

/* A work-group value is stored as x,y,z; an integer axis value in v[0]. */
typedef struct mf_value {
    long v[3];
} mf_value;

typedef struct mf_axis {
    char name[MF_NAME_MAX];    /* FILTER_WIDTH, WG, NUMCOEFFS, UNROLL_FACTOR, IMAGE_W, ... */
    int is_wg;                 /* "WG": values are work-group sizes like 16x16 */
    int optional;              /* built only when asked for (-D NAME=...), e.g. IMAGE_W */
    size_t n_allowed;
    mf_value allowed[MF_MAX_VALUES];
    size_t n_default;
    mf_value defaults[MF_MAX_VALUES];
} mf_axis;

/* A define computed from axis values: NAME = integer expression (expr.h)
 * over axis names and earlier derives. Emitted only when every name it uses
 * has a value (so HALF_FILTER_SIZE_IMAGE_W exists only with IMAGE_W). */
typedef struct mf_derive {
    char name[MF_NAME_MAX];
    char expr[MF_EXPR_MAX];
} mf_derive;

/* Argument roles, in kernel argument order. */
typedef enum mf_arg {
    MF_ARG_IN = 1,          /* __global input buffer (padded image, or poly x) */
    MF_ARG_FILTER,          /* filter buffer (__global or __constant) */
    MF_ARG_OUT,             /* __global output buffer */
    MF_ARG_IN_WIDTH,        /* int: row pitch of the input, in pixels */
    MF_ARG_FILTER_WIDTH,    /* int: filter width */
    MF_ARG_WIDTH,           /* int: output width W */
    MF_ARG_HEIGHT,          /* int: output height H */
    MF_ARG_COEFFS,          /* __global polynomial coefficients */
    MF_ARG_NUMCOEFFS,       /* int: number of coefficients */
    MF_ARG_N                /* int: number of polynomial inputs */
} mf_arg;

typedef enum mf_family {
    MF_FAMILY_CONV_GREY = 1, /* float image, float filter (AMD) */
    MF_FAMILY_CONV_RGBA,     /* float4 image, float4 filter term per channel (Reda) */
    MF_FAMILY_POLY           /* polynomial evaluation (Intel) */
} mf_family;

typedef enum mf_grid {
    MF_GRID_EXACT = 1,      /* global size = problem size; must be a multiple of the wg */
    MF_GRID_ROUND           /* global size rounded up to the wg; kernel bounds-checks */
} mf_grid;

typedef struct mf_kernel {
    char name[MF_NAME_MAX];        /* kernel entry point, the pack's kernel name */
    char source[MF_PATH_MAX];      /* file under the kernels folder */
    char generator[MF_NAME_MAX];   /* "" or the name of a source generator */
    mf_family family;
    mf_grid grid;
    int dims;                      /* 1 or 2 */
    size_t n_axes;
    mf_axis axes[MF_MAX_AXES];
    size_t n_derives;
    mf_derive derives[MF_MAX_DERIVES];
    size_t n_args;
    mf_arg args[MF_MAX_ARGS];
    long numcoeffs_multiple;       /* poly: run-time numcoeffs must be a multiple (1 = any) */
    char block[2][MF_NAME_MAX];    /* "" or the axes whose values are the outputs each
                                      work-item computes in x and y (grid round) */
    char note[MF_PATH_MAX];        /* one line for readers (not printed) */
    int has_default;               /* a default line: its variants matching */
    char default_when[MF_PATH_MAX];/* these NAME=VALUE items are default variants */
} mf_kernel;

typedef struct mf_manifest {
    char dir[MF_PATH_MAX];         /* the kernels folder */
    size_t n_kernels;
    mf_kernel kernels[MF_MAX_KERNELS];
} mf_manifest;

/* Reads <dir>/manifest.txt (opened as input_file.h says: a FIFO or a
 * device is refused, not waited on). On error returns -1 and writes
 * "<dir>/manifest.txt:LINE: what is wrong" or "cannot open
 * '<dir>/manifest.txt': why" into err: a whole message naming the file
 * once, to print as it is. */
int mf_load(const char *dir, mf_manifest *m, char err[MF_ERR_MAX]);

const mf_kernel *mf_find(const mf_manifest *m, const char *name);
const mf_axis *mf_axis_find(const mf_kernel *k, const char *name);

/* One build variant: a kernel with one value per (non-optional, or asked
 * for) axis. */
#define MF_MAX_DEFINES 16
typedef struct mf_variant {
    const mf_kernel *kernel;
    size_t n_defines;              /* sorted by name; axis values and derives, not WG */
    char define_names[MF_MAX_DEFINES][MF_NAME_MAX];
    char define_values[MF_MAX_DEFINES][32];
    uint32_t wg[3];                /* {0,0,0} when the kernel has no WG axis */
    int is_default;                /* matches the kernel's default line */
    char options[512];             /* exact build options, e.g.
                                      "-cl-std=CL1.2 -DFILTER_WIDTH=5 -DWG_X=16 -DWG_Y=16" */
} mf_variant;

/* A user's selection: for each axis name, the values asked for (NULL = the
 * manifest defaults). */
typedef struct mf_selection {
    size_t n;
    char names[MF_MAX_AXES][MF_NAME_MAX];
    size_t n_values[MF_MAX_AXES];
    mf_value values[MF_MAX_AXES][MF_MAX_VALUES];
} mf_selection;

/* Expands kernel k under sel into variants (malloc'd array in *out, count in
 * *n; caller frees). Values of an axis the kernel does not have are ignored
 * (the kernel is built once, not once per value). A selected value the
 * kernel does not allow: returns -1 and names the axis, value and kernel in
 * err. */
int mf_expand(const mf_kernel *k, const mf_selection *sel, mf_variant **out, size_t *n,
              char err[MF_ERR_MAX]);

/* An axis value as the manifest writes it ("5", "16x16"), and an axis's
 * allowed values for messages, runs of one step as A-B or A-B:S. */
void mf_format_value(const mf_axis *a, const mf_value *v, char *buf, size_t cap);
void mf_format_allowed(const mf_axis *a, char *buf, size_t cap);

/* Value of a define in a variant, or NULL. */
const char *mf_variant_define(const mf_variant *v, const char *name);

#endif /* CLC_MANIFEST_H */
