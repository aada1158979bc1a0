/*
 * t1_spec.h — a T1 tuning spec (the TuningSchema input format that Kernel
 * Tuner's tune_kernel_T1, KTT and the BAT suite read), read with jansson
 * into what the tuner needs: the parameters and their values, the
 * conditions, the kernel, its launch sizes and arguments, the reference,
 * the search and its budget. docs/TUNING.md, "Tuning any program from a T1
 * spec", lists the fields supported against the schema.
 *
 * A spec is untrusted input: every field is checked here, and a mistake is
 * one line naming its JSON path and what is allowed, e.g.
 * "spec.json: KernelSpecification.Arguments[3].FillType: 'Randon' is not
 * one of Constant, Random, Generator, BinaryRaw". Nothing is fixed in
 * size: a spec of any number of parameters, values and arguments fits,
 * within the documented limits (T1_SPEC_*_MAX), each with its message.
 *
 * Nothing here prints, opens a device or exits.
 */
#ifndef CLC_T1_SPEC_H
#define CLC_T1_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "t1_expr.h"

#define T1_SPEC_ERR_MAX 1024
#define T1_SPEC_FILE_MAX (16u << 20)     /* the spec itself, in bytes */
#define T1_SPEC_SOURCE_MAX (64u << 20)   /* the kernel file, in bytes */
#define T1_SPEC_VALUES_MAX 65536         /* values of one parameter */
#define T1_SPEC_PARAMS_MAX 64            /* parameters of one space */
#define T1_SPEC_ARG_BYTES_MAX (4ull << 30) /* bytes of one argument */

typedef enum t1_param_type {
    T1_PARAM_INT, T1_PARAM_UINT, T1_PARAM_FLOAT, T1_PARAM_BOOL, T1_PARAM_STRING
} t1_param_type;

typedef struct t1_param {
    char *name;
    t1_param_type type;
    size_t n_values;
    t1_value *values;      /* strings owned by the spec */
    char **texts;          /* each value as its -D define spells it */
} t1_param;

typedef struct t1_condition {
    char *text;
    t1_expr *expr;         /* slots: the parameters' indices */
    size_t deepest;        /* the last parameter (in order) it reads */
} t1_condition;

/* An argument's element type: base kind, lanes and bytes. */
typedef enum t1_base { T1_B_INT, T1_B_UINT, T1_B_FLOAT, T1_B_HALF, T1_B_BOOL, T1_B_CUSTOM } t1_base;

typedef struct t1_elem {
    const char *name;      /* the schema's spelling ("float4") */
    t1_base base;
    unsigned lanes;        /* 1, 2, 4, 8, 16 */
    unsigned lane_bytes;   /* bytes of one lane */
} t1_elem;

typedef enum t1_mem { T1_MEM_SCALAR, T1_MEM_VECTOR, T1_MEM_LOCAL } t1_mem;
typedef enum t1_access { T1_ACCESS_RW, T1_ACCESS_RO, T1_ACCESS_WO } t1_access;
typedef enum t1_fill { T1_FILL_NONE, T1_FILL_CONSTANT, T1_FILL_RANDOM, T1_FILL_GENERATOR,
                       T1_FILL_BINARY_RAW } t1_fill;

/* How an argument's or a reference's data is made (tune_data.h). */
typedef struct t1_data {
    t1_fill fill;
    double value;          /* Constant: FillValue */
    uint64_t seed;         /* Random: RandomSeed (default 0) */
    t1_expr *generator;    /* Generator: DataSource, an expression of i */
    char *generator_text;
    char *path;            /* BinaryRaw: DataSource, relative to the spec's folder */
} t1_data;

typedef struct t1_arg {
    char *name;            /* "" when the spec gives none */
    t1_elem elem;
    size_t elem_bytes;     /* lanes * lane_bytes, or TypeSize for custom */
    t1_mem mem;
    t1_access access;
    t1_data data;
    char *size_text;       /* Size, as given */
    t1_expr *size;         /* Local: per configuration (slots: the parameters) */
    uint64_t count;        /* Vector: elements (Size evaluated once) */
} t1_arg;

typedef enum t1_validation { T1_VALID_ABS_SUM, T1_VALID_SIDE_BY_SIDE, T1_VALID_RELATIVE } t1_validation;

typedef struct t1_ref {
    char *name;
    size_t target;         /* index into args: the output it checks */
    t1_data data;
    t1_validation method;
    double threshold;
} t1_ref;

typedef enum t1_budget_kind { T1_BUDGET_NONE, T1_BUDGET_COUNT, T1_BUDGET_SECONDS,
                              T1_BUDGET_FRACTION } t1_budget_kind;

typedef struct t1_spec {
    char *path;            /* as given */
    char *dir;             /* its folder: KernelFile and DataSource are relative to it */
    unsigned char sha256[32]; /* of the spec's bytes: what a resumed run must match */
    size_t n_params;
    t1_param *params;
    size_t n_conditions;
    t1_condition *conditions;
    /* KernelSpecification */
    char *kernel_name;
    char *kernel_file;     /* resolved path */
    char *source;          /* the kernel file's text */
    size_t source_size;
    char *compiler_options; /* CompilerOptions joined by spaces */
    size_t n_problem;      /* ProblemSize (Kernel Tuner's field): its integers */
    int64_t problem[3];
    unsigned dims;         /* 1..3: the dimensions GlobalSize gives */
    t1_expr *global[3];    /* per configuration; NULL beyond dims */
    t1_expr *local[3];
    char *global_text[3], *local_text[3];
    size_t n_args;
    t1_arg *args;
    size_t n_refs;
    t1_ref *refs;
    char *device_name;     /* Device.Name, or NULL */
    /* Search and Budget */
    char *search;          /* Search.Name, or NULL: FullSearch */
    char *search_attrs;    /* Search.Attributes as JSON text, or NULL */
    t1_budget_kind budget_kind;
    double budget_value;
} t1_spec;

/* Reads the spec at path (its kernel file and BinaryRaw data sources are
 * checked too: present, and long enough). 0, or -1 with err: "PATH: JSON
 * path: what is wrong". */
int t1_spec_read(const char *path, t1_spec *s, char err[T1_SPEC_ERR_MAX]);
/* The same from bytes in memory (path names them in messages; dir is where
 * relative files are looked for). */
int t1_spec_parse(const char *path, const char *dir, const char *text, size_t size, t1_spec *s,
                  char err[T1_SPEC_ERR_MAX]);
void t1_spec_free(t1_spec *s);

/* The parameter named name (len bytes), or -1. */
int t1_spec_param_index(const t1_spec *s, const char *name, size_t len);

#endif /* CLC_T1_SPEC_H */
