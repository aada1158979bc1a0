/* t1_spec_args.c — a T1 kernel's Arguments and ReferenceArguments read
 * (t1_spec_read.h): element types, memory types, fills, sizes, and the
 * reference's validation. */
#include "t1_spec_read.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "input_file.h"

static const t1_elem elem_types[] = {
    {"bool", T1_B_BOOL, 1, 1},     {"int8", T1_B_INT, 1, 1},      {"uint8", T1_B_UINT, 1, 1},
    {"int16", T1_B_INT, 1, 2},     {"uint16", T1_B_UINT, 1, 2},   {"int32", T1_B_INT, 1, 4},
    {"uint32", T1_B_UINT, 1, 4},   {"int64", T1_B_INT, 1, 8},     {"uint64", T1_B_UINT, 1, 8},
    {"half", T1_B_HALF, 1, 2},     {"half2", T1_B_HALF, 2, 2},    {"half4", T1_B_HALF, 4, 2},
    {"half8", T1_B_HALF, 8, 2},    {"half16", T1_B_HALF, 16, 2},  {"float", T1_B_FLOAT, 1, 4},
    {"float2", T1_B_FLOAT, 2, 4},  {"float4", T1_B_FLOAT, 4, 4},  {"float8", T1_B_FLOAT, 8, 4},
    {"float16", T1_B_FLOAT, 16, 4}, {"double", T1_B_FLOAT, 1, 8}, {"double2", T1_B_FLOAT, 2, 8},
    {"double4", T1_B_FLOAT, 4, 8}, {"double8", T1_B_FLOAT, 8, 8}, {"double16", T1_B_FLOAT, 16, 8},
    {"custom", T1_B_CUSTOM, 1, 1},
};
#define ELEM_CHOICES "bool,int8,uint8,int16,uint16,int32,uint32,int64,uint64,half,half2,half4," \
                     "half8,half16,float,float2,float4,float8,float16,double,double2,double4," \
                     "double8,double16,custom"

/* FillType and its fields, for an argument or a reference. */
static int read_data(reader *r, json_t *j, const char *at, int is_ref, t1_data *d)
{
    int bad = 0;
    char at2[300];
    json_t *ft = t1s_member(r, j, at, "FillType", JSON_STRING, is_ref, &bad);
    if (bad)
        return -1;
    if (!ft)
        return 0;
    bfmt(at2, sizeof at2, "%s.FillType", at);
    const char *f = json_string_value(ft);
    if (strcmp(f, "Script") == 0 || strcmp(f, "BinaryHDF") == 0)
        return t1s_fail(r, at2, "'%s' is not supported by clc-pack (supported: Constant, Random, "
                    "Generator, BinaryRaw; docs/TUNING.md)", f);
    int k = t1s_choice(r, at2, f, "Constant,Random,Generator,BinaryRaw");
    if (k < 0)
        return -1;
    d->fill = (t1_fill)(k + 1);
    json_t *fv = t1s_member(r, j, at, "FillValue", JSON_REAL, 0, &bad);
    json_t *seed = bad ? NULL : t1s_member(r, j, at, "RandomSeed", JSON_INTEGER, 0, &bad);
    json_t *src = bad ? NULL : t1s_member(r, j, at, "DataSource", JSON_STRING, 0, &bad);
    if (bad)
        return -1;
    d->value = fv ? json_number_value(fv) : 0;
    d->seed = seed ? (uint64_t)json_integer_value(seed) : 0;
    if (d->fill == T1_FILL_CONSTANT && !fv) {
        bfmt(at2, sizeof at2, "%s.FillValue", at);
        return t1s_fail(r, at2, "missing: FillType Constant needs it");
    }
    if (d->fill == T1_FILL_GENERATOR || d->fill == T1_FILL_BINARY_RAW) {
        bfmt(at2, sizeof at2, "%s.DataSource", at);
        if (!src)
            return t1s_fail(r, at2, "missing: FillType %s needs it", f);
        if (d->fill == T1_FILL_GENERATOR) {
            d->generator_text = strdup(json_string_value(src));
            return d->generator_text ? 0 : t1s_fail(r, at2, "out of memory");
        }
        const char *p = json_string_value(src);
        d->path = p[0] == '/' ? strdup(p) : NULL;
        if (!d->path) {
            size_t len = strlen(r->s->dir) + strlen(p) + 2;
            d->path = malloc(len);
            if (d->path)
                snprintf(d->path, len, "%s/%s", r->s->dir, p);
        }
        if (!d->path)
            return t1s_fail(r, at2, "out of memory");
        char e[600];
        if (in_check(d->path, e, sizeof e) != 0)
            return t1s_fail(r, at2, "%s", e);
    }
    return 0;
}

static int resolve_i(void *ctx, const char *name, size_t len)
{
    (void)ctx;
    return len == 1 && name[0] == 'i' ? 0 : -1;
}

/* A Generator's DataSource: an expression of i, the element's index. */
static int compile_generator(reader *r, const char *at, t1_data *d)
{
    if (d->fill != T1_FILL_GENERATOR)
        return 0;
    t1_expr_free(d->generator);
    char at2[300];
    bfmt(at2, sizeof at2, "%s.DataSource", at);
    d->generator = t1s_compile_at(r, at2, d->generator_text, resolve_i, NULL);
    return d->generator ? 0 : -1;
}

/* A Size: evaluated once with every parameter bound to the list of its
 * values (so max(filter_width) is the largest) and ProblemSize to its
 * integers. */
static int eval_size(reader *r, const char *at, t1_arg *a)
{
    names_ctx nctx = {r->s, 1};
    t1_expr *x = t1s_compile_at(r, at, a->size_text, t1s_resolve_name, &nctx);
    if (!x)
        return -1;
    size_t np = r->s->n_params;
    t1_value *slots = calloc(np + 1, sizeof *slots);
    t1_value prob[3];
    if (!slots) {
        t1_expr_free(x);
        return t1s_fail(r, at, "out of memory");
    }
    for (size_t k = 0; k < np; k++) {
        slots[k].type = T1_LIST;
        slots[k].len = r->s->params[k].n_values;
        slots[k].items = r->s->params[k].values;
    }
    for (size_t k = 0; k < r->s->n_problem; k++)
        prob[k] = (t1_value){.type = T1_INT, .i = r->s->problem[k]};
    slots[np] = (t1_value){.type = T1_LIST, .len = r->s->n_problem, .items = prob};
    t1_arena arena = {0};
    t1_value v;
    char e[T1_EXPR_ERR_MAX];
    int rc = t1_expr_eval(x, slots, &arena, &v, e, sizeof e);
    if (a->mem == T1_MEM_LOCAL) {
        /* Per configuration: kept, and checked now only for its syntax. */
        a->size = x;
        x = NULL;
        rc = 0;
    } else if (rc != 0) {
        t1s_fail(r, at, "%s", e);
    } else if (v.type != T1_INT && !(v.type == T1_FLOAT && v.f == floor(v.f))) {
        rc = t1s_fail(r, at, "'%s' is not a whole number of elements (a Vector's Size is "
                  "evaluated once; a parameter there stands for the list of its values: "
                  "write max(NAME))", a->size_text);
    } else {
        int64_t n = v.type == T1_INT ? v.i : (int64_t)v.f;
        if (n <= 0)
            rc = t1s_fail(r, at, "%lld elements; a Size must be positive", (long long)n);
        else if ((uint64_t)n > T1_SPEC_ARG_BYTES_MAX / a->elem_bytes)
            rc = t1s_fail(r, at, "%lld elements of %zu bytes is more than 4 GiB", (long long)n,
                      a->elem_bytes);
        else
            a->count = (uint64_t)n;
    }
    t1_arena_free(&arena);
    t1_expr_free(x);
    free(slots);
    return rc;
}

int t1s_read_arg(reader *r, json_t *j, size_t k, t1_arg *a)
{
    char at[160], at2[300];
    bfmt(at, sizeof at, "KernelSpecification.Arguments[%zu]", k);
    if (!json_is_object(j))
        return t1s_fail(r, at, "is %s; the schema wants an object", t1s_json_kind(j));
    int bad = 0;
    json_t *name = t1s_member(r, j, at, "Name", JSON_STRING, 0, &bad);
    json_t *type = bad ? NULL : t1s_member(r, j, at, "Type", JSON_STRING, 1, &bad);
    json_t *mem = bad ? NULL : t1s_member(r, j, at, "MemoryType", JSON_STRING, 1, &bad);
    json_t *acc = bad ? NULL : t1s_member(r, j, at, "AccessType", JSON_STRING, 0, &bad);
    json_t *tsz = bad ? NULL : t1s_member(r, j, at, "TypeSize", JSON_INTEGER, 0, &bad);
    json_t *size = bad ? NULL : t1s_member(r, j, at, "Size", (json_type)-1, 0, &bad);
    if (bad)
        return -1;
    a->name = strdup(name ? json_string_value(name) : "");
    bfmt(at2, sizeof at2, "%s.Type", at);
    int t = t1s_choice(r, at2, json_string_value(type), ELEM_CHOICES);
    if (t < 0)
        return -1;
    a->elem = elem_types[t];
    a->elem_bytes = a->elem.lanes * a->elem.lane_bytes;
    if (a->elem.base == T1_B_CUSTOM) {
        bfmt(at2, sizeof at2, "%s.TypeSize", at);
        if (!tsz || json_integer_value(tsz) <= 0 || json_integer_value(tsz) > 4096)
            return t1s_fail(r, at2, "Type custom needs a TypeSize of 1 to 4096 bytes");
        a->elem_bytes = (size_t)json_integer_value(tsz);
    }
    bfmt(at2, sizeof at2, "%s.MemoryType", at);
    const char *m = json_string_value(mem);
    if (strcmp(m, "Symbol") == 0)
        return t1s_fail(r, at2, "'Symbol' (CUDA's constant memory) is not supported for OpenCL");
    int mk = t1s_choice(r, at2, m, "Scalar,Vector,Local");
    if (mk < 0)
        return -1;
    a->mem = (t1_mem)mk;
    if (acc) {
        bfmt(at2, sizeof at2, "%s.AccessType", at);
        int ak = t1s_choice(r, at2, json_string_value(acc), "ReadWrite,ReadOnly,WriteOnly");
        if (ak < 0)
            return -1;
        a->access = (t1_access)ak;
    }
    if (read_data(r, j, at, 0, &a->data) != 0 || compile_generator(r, at, &a->data) != 0)
        return -1;
    if (a->mem == T1_MEM_SCALAR) {
        bfmt(at2, sizeof at2, "%s.FillValue", at);
        if (a->data.fill != T1_FILL_CONSTANT)
            return t1s_fail(r, at2, "a Scalar takes FillType Constant with its FillValue");
        if (a->elem.lanes != 1 || a->elem.base == T1_B_CUSTOM || a->elem.base == T1_B_HALF)
            return t1s_fail(r, at, "a Scalar of Type %s is not supported (give a scalar integer, "
                        "float or double type)", a->elem.name);
        return 0;
    }
    bfmt(at2, sizeof at2, "%s.Size", at);
    if (!size)
        return t1s_fail(r, at2, "missing: a %s argument needs its number of elements",
                    a->mem == T1_MEM_LOCAL ? "Local" : "Vector");
    if (json_is_integer(size)) {
        char buf[32];
        bfmt(buf, sizeof buf, "%lld", (long long)json_integer_value(size));
        a->size_text = strdup(buf);
    } else if (json_is_string(size)) {
        a->size_text = strdup(json_string_value(size));
    } else {
        return t1s_fail(r, at2, "is %s; the schema wants an integer or a string", t1s_json_kind(size));
    }
    if (a->mem == T1_MEM_VECTOR && a->data.fill == T1_FILL_NONE && a->access != T1_ACCESS_WO)
        return t1s_fail(r, at, "a Vector that is read needs a FillType (or AccessType WriteOnly)");
    return eval_size(r, at2, a);
}

static int arg_index(const t1_spec *s, const char *name)
{
    for (size_t k = 0; k < s->n_args; k++)
        if (s->args[k].name[0] && strcmp(s->args[k].name, name) == 0)
            return (int)k;
    return -1;
}

int t1s_read_refs(reader *r, json_t *ks)
{
    int bad = 0;
    json_t *refs = t1s_member(r, ks, "KernelSpecification", "ReferenceArguments", JSON_ARRAY, 0, &bad);
    if (bad)
        return -1;
    size_t n = json_array_size(refs);
    r->s->refs = calloc(n ? n : 1, sizeof *r->s->refs);
    if (!r->s->refs)
        return t1s_fail(r, "KernelSpecification", "out of memory");
    for (size_t k = 0; k < n; k++) {
        char at[160], at2[300];
        bfmt(at, sizeof at, "KernelSpecification.ReferenceArguments[%zu]", k);
        json_t *j = json_array_get(refs, k);
        if (!json_is_object(j))
            return t1s_fail(r, at, "is %s; the schema wants an object", t1s_json_kind(j));
        t1_ref *ref = &r->s->refs[k];
        r->s->n_refs = k + 1;
        json_t *name = t1s_member(r, j, at, "Name", JSON_STRING, 1, &bad);
        json_t *target = bad ? NULL : t1s_member(r, j, at, "TargetName", JSON_STRING, 1, &bad);
        json_t *meth = bad ? NULL : t1s_member(r, j, at, "ValidationMethod", JSON_STRING, 0, &bad);
        json_t *thr = bad ? NULL : t1s_member(r, j, at, "ValidationThreshold", JSON_REAL, 0, &bad);
        if (bad)
            return -1;
        ref->name = strdup(json_string_value(name));
        bfmt(at2, sizeof at2, "%s.TargetName", at);
        int t = arg_index(r->s, json_string_value(target));
        if (t < 0)
            return t1s_fail(r, at2, "'%s' is not the Name of an argument", json_string_value(target));
        if (r->s->args[t].mem != T1_MEM_VECTOR)
            return t1s_fail(r, at2, "'%s' is not a Vector argument", json_string_value(target));
        if (r->s->args[t].access == T1_ACCESS_RO)
            return t1s_fail(r, at2, "'%s' is ReadOnly: the kernel does not write it",
                        json_string_value(target));
        ref->target = (size_t)t;
        if (read_data(r, j, at, 1, &ref->data) != 0 || compile_generator(r, at, &ref->data) != 0)
            return -1;
        ref->method = T1_VALID_SIDE_BY_SIDE;
        if (meth) {
            bfmt(at2, sizeof at2, "%s.ValidationMethod", at);
            int mk = t1s_choice(r, at2, json_string_value(meth),
                            "AbsoluteDifference,SideBySideComparison,SideBySideRelativeComparison");
            if (mk < 0)
                return -1;
            ref->method = (t1_validation)mk;
        }
        ref->threshold = thr ? json_number_value(thr) : 1e-6;
        if (!(ref->threshold >= 0) || !isfinite(ref->threshold)) {
            bfmt(at2, sizeof at2, "%s.ValidationThreshold", at);
            return t1s_fail(r, at2, "must be a finite number of 0 or more");
        }
    }
    return 0;
}

int t1s_check_data_sources(reader *r)
{
    for (size_t k = 0; k < r->s->n_args; k++) {
        t1_arg *a = &r->s->args[k];
        if (a->mem != T1_MEM_VECTOR || a->data.fill != T1_FILL_BINARY_RAW)
            continue;
        struct stat st;
        char at[160];
        bfmt(at, sizeof at, "KernelSpecification.Arguments[%zu].DataSource", k);
        if (stat(a->data.path, &st) != 0 || (uint64_t)st.st_size < a->count * a->elem_bytes)
            return t1s_fail(r, at, "'%s' holds %lld bytes; Size %llu of %s needs %llu",
                            a->data.path, (long long)st.st_size, (unsigned long long)a->count,
                            a->elem.name, (unsigned long long)(a->count * a->elem_bytes));
    }
    for (size_t k = 0; k < r->s->n_refs; k++) {
        t1_ref *ref = &r->s->refs[k];
        const t1_arg *a = &r->s->args[ref->target];
        struct stat st;
        char at[160];
        bfmt(at, sizeof at, "KernelSpecification.ReferenceArguments[%zu].DataSource", k);
        if (ref->data.fill == T1_FILL_BINARY_RAW &&
            (stat(ref->data.path, &st) != 0 || (uint64_t)st.st_size < a->count * a->elem_bytes))
            return t1s_fail(r, at, "'%s' holds %lld bytes; the output %s needs %llu",
                            ref->data.path, (long long)st.st_size, a->name,
                            (unsigned long long)(a->count * a->elem_bytes));
    }
    return 0;
}
