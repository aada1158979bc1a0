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

#define MANIFEST_NAME_MAX 64
#define MANIFEST_PATH_MAX 256
#define MANIFEST_MAX_VALUES 64
#define MANIFEST_MAX_AXES 12
#define MANIFEST_MAX_DERIVES 8
#define MANIFEST_MAX_ARGS 12
#define MANIFEST_MAX_KERNELS 64
#define MANIFEST_EXPR_MAX 128
#define MANIFEST_ERR_MAX 1024

/* A work-group value is stored as x,y,z; an integer axis value in v[0]. */
typedef struct manifest_value {
    long v[3];
} manifest_value;

typedef struct manifest_axis {
    char name[MANIFEST_NAME_MAX];    /* FILTER_WIDTH, WG, NUMCOEFFS, UNROLL_FACTOR, IMAGE_W, ... */
    int is_wg;                 /* "WG": values are work-group sizes like 16x16 */
    int optional;              /* built only when asked for (-D NAME=...), e.g. IMAGE_W */
    size_t n_allowed;
    manifest_value allowed[MANIFEST_MAX_VALUES];
    size_t n_default;
    manifest_value defaults[MANIFEST_MAX_VALUES];
} manifest_axis;

/* A define computed from axis values: NAME = integer expression (expr.h)
 * over axis names and earlier derives. Emitted only when every name it uses
 * has a value (so HALF_FILTER_SIZE_IMAGE_W exists only with IMAGE_W). */
typedef struct manifest_derive {
    char name[MANIFEST_NAME_MAX];
    char expr[MANIFEST_EXPR_MAX];
} manifest_derive;

/* Argument roles, in kernel argument order. */
typedef enum manifest_arg {
    MANIFEST_ARG_IN = 1,          /* __global input buffer (padded image, or poly x) */
    MANIFEST_ARG_FILTER,          /* filter buffer (__global or __constant) */
    MANIFEST_ARG_OUT,             /* __global output buffer */
    MANIFEST_ARG_IN_WIDTH,        /* int: row pitch of the input, in pixels */
    MANIFEST_ARG_FILTER_WIDTH,    /* int: filter width */
    MANIFEST_ARG_WIDTH,           /* int: output width W */
    MANIFEST_ARG_HEIGHT,          /* int: output height H */
    MANIFEST_ARG_COEFFS,          /* __global polynomial coefficients */
    MANIFEST_ARG_NUMCOEFFS,       /* int: number of coefficients */
    MANIFEST_ARG_N                /* int: number of polynomial inputs */
} manifest_arg;

typedef enum manifest_family {
    MANIFEST_FAMILY_CONV_GREY = 1, /* float image, float filter (AMD) */
    MANIFEST_FAMILY_CONV_RGBA,     /* float4 image, float4 filter term per channel (Reda) */
    MANIFEST_FAMILY_POLY           /* polynomial evaluation (Intel) */
} manifest_family;

typedef enum manifest_grid {
    MANIFEST_GRID_EXACT = 1,      /* global size = problem size; must be a multiple of the wg */
    MANIFEST_GRID_ROUND           /* global size rounded up to the wg; kernel bounds-checks */
} manifest_grid;

typedef struct manifest_kernel {
    char name[MANIFEST_NAME_MAX];        /* kernel entry point, the pack's kernel name */
    char source[MANIFEST_PATH_MAX];      /* file under the kernels folder */
    char generator[MANIFEST_NAME_MAX];   /* "" or the name of a source generator */
    manifest_family family;
    manifest_grid grid;
    int dims;                      /* 1 or 2 */
    size_t n_axes;
    manifest_axis axes[MANIFEST_MAX_AXES];
    size_t n_derives;
    manifest_derive derives[MANIFEST_MAX_DERIVES];
    size_t n_args;
    manifest_arg args[MANIFEST_MAX_ARGS];
    long numcoeffs_multiple;       /* poly: run-time numcoeffs must be a multiple (1 = any) */
    char block[2][MANIFEST_NAME_MAX];    /* "" or the axes whose values are the outputs each
                                      work-item computes in x and y (grid round) */
    char note[MANIFEST_PATH_MAX];        /* one line for readers (not printed) */
    int has_default;               /* a default line: its variants matching */
    char default_when[MANIFEST_PATH_MAX];/* these NAME=VALUE items are default variants */
} manifest_kernel;

typedef struct manifest_file {
    char dir[MANIFEST_PATH_MAX];         /* the kernels folder */
    size_t n_kernels;
    manifest_kernel kernels[MANIFEST_MAX_KERNELS];
} manifest_file;

/* Reads <dir>/manifest.txt (opened as input_file.h says: a FIFO or a
 * device is refused, not waited on) into m: dir, n_kernels and
 * kernels[0..n_kernels) are set, the slots after them left as they were
 * (m need not be cleared before). On error returns -1 and writes
 * "<dir>/manifest.txt:LINE: what is wrong" or "cannot open
 * '<dir>/manifest.txt': why" into err: a whole message naming the file
 * once, to print as it is. */
int manifest_load(const char *dir, manifest_file *m, char err[MANIFEST_ERR_MAX]);

const manifest_kernel *manifest_find(const manifest_file *m, const char *name);
const manifest_axis *manifest_axis_find(const manifest_kernel *k, const char *name);

/* One build variant: a kernel with one value per (non-optional, or asked
 * for) axis. */
#define MANIFEST_MAX_DEFINES 16
typedef struct manifest_variant {
    const manifest_kernel *kernel;
    size_t n_defines;              /* sorted by name; axis values and derives, not WG */
    char define_names[MANIFEST_MAX_DEFINES][MANIFEST_NAME_MAX];
    char define_values[MANIFEST_MAX_DEFINES][32];
    uint32_t wg[3];                /* {0,0,0} when the kernel has no WG axis */
    int is_default;                /* matches the kernel's default line */
    char options[512];             /* exact build options, e.g.
                                      "-cl-std=CL1.2 -DFILTER_WIDTH=5 -DWG_X=16 -DWG_Y=16" */
} manifest_variant;

/* A user's selection: for each axis name, the values asked for (NULL = the
 * manifest defaults). */
typedef struct manifest_selection {
    size_t n;
    char names[MANIFEST_MAX_AXES][MANIFEST_NAME_MAX];
    size_t n_values[MANIFEST_MAX_AXES];
    manifest_value values[MANIFEST_MAX_AXES][MANIFEST_MAX_VALUES];
} manifest_selection;

/* Expands kernel k under sel into variants (malloc'd array in *out, count in
 * *n; caller frees). Values of an axis the kernel does not have are ignored
 * (the kernel is built once, not once per value). A selected value the
 * kernel does not allow: returns -1 and names the axis, value and kernel in
 * err. */
int manifest_expand(const manifest_kernel *k, const manifest_selection *sel, manifest_variant **out, size_t *n,
              char err[MANIFEST_ERR_MAX]);

/* An axis value as the manifest writes it ("5", "16x16"), and an axis's
 * allowed values for messages, runs of one step as A-B or A-B:S. */
void manifest_format_value(const manifest_axis *a, const manifest_value *v, char *buf, size_t cap);
void manifest_format_allowed(const manifest_axis *a, char *buf, size_t cap);

/* Value of a define in a variant, or NULL. */
const char *manifest_variant_define(const manifest_variant *v, const char *name);

#endif /* CLC_MANIFEST_H */
