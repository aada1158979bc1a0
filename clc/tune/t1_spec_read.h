/*
 * t1_spec_read.h — private to the T1 spec reader's files (t1_spec.c,
 * t1_spec_json.c, t1_spec_space.c, t1_spec_args.c): what they share while a
 * spec is read. Callers use t1_spec.h.
 *
 * Each reader takes a JSON node and the path it sits at, so that every
 * message names the field: "KernelSpecification.Arguments[3].FillType: ...".
 */
#ifndef CLC_T1_SPEC_READ_H
#define CLC_T1_SPEC_READ_H

#include <jansson.h>

#include "bounded_fmt.h"
#include "t1_spec.h"

/* What the readers share: the spec being filled and where errors go. */
typedef struct reader {
    t1_spec *s;
    char *err;
    const char *file;
} reader;

/* Names the spec's expressions may use besides the parameters. */
typedef struct names_ctx {
    const t1_spec *s;
    int allow_problem;     /* ProblemSize, the slot after the parameters */
} names_ctx;

/* "FILE: WHERE: what" into r->err; returns -1. */
int t1s_fail(reader *r, const char *where, const char *fmt, ...) BFMT_PRINTF(3, 4);
/* "an object", "a string", ...: a node's JSON type for messages. */
const char *t1s_json_kind(const json_t *v);
/* The member key of obj, which must be of the given JSON type ((json_type)-1
 * for any, JSON_REAL for any number, JSON_TRUE for a boolean); NULL when
 * absent and not required (then *bad is set when it fails). */
json_t *t1s_member(reader *r, json_t *obj, const char *where, const char *key, json_type type,
                   int required, int *bad);
/* The index of text among the comma-separated choices, or -1 after a
 * failure naming them all and the nearest. */
int t1s_choice(reader *r, const char *at, const char *text, const char *choices);
/* The resolver of a names_ctx: a parameter's index, or ProblemSize's slot. */
int t1s_resolve_name(void *ctx, const char *name, size_t len);
/* text compiled, or NULL after a failure at `at`. */
t1_expr *t1s_compile_at(reader *r, const char *at, const char *text, t1_resolve res, void *ctx);

/* ConfigurationSpace (t1_spec_space.c). 0, or -1 after t1s_fail. */
int t1s_read_space(reader *r, json_t *root);
/* KernelSpecification.Arguments[k] and .ReferenceArguments (t1_spec_args.c). */
int t1s_read_arg(reader *r, json_t *j, size_t k, t1_arg *a);
int t1s_read_refs(reader *r, json_t *ks);
/* The BinaryRaw data sources of the arguments and references are long
 * enough (t1_spec_args.c). */
int t1s_check_data_sources(reader *r);

#endif /* CLC_T1_SPEC_READ_H */
