/* t1_spec.c — reading a T1 spec with jansson (t1_spec.h). Each reader
 * takes a JSON node and the path it sits at, so that every message names
 * the field: "KernelSpecification.Arguments[3].FillType: ...". */
#include "t1_spec.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bounded_fmt.h"
#include "input_file.h"
#include "nearest_name.h"
#include "path.h"
#include "sha256.h"

/* What the readers share: the spec being filled and where errors go. */
typedef struct reader {
    t1_spec *s;
    char *err;
    const char *file;
} reader;

static int fail(reader *r, const char *where, const char *fmt, ...) BFMT_PRINTF(3, 4);
static int fail(reader *r, const char *where, const char *fmt, ...)
{
    char what[T1_SPEC_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    bfmt(r->err, T1_SPEC_ERR_MAX, "%s: %s: %s", r->file, where, what);
    return -1;
}

static const char *json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE: case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

/* The member key of obj, which must be of the given JSON type (0 for any);
 * NULL when absent and not required (-1 in *bad when it fails). */
static json_t *member(reader *r, json_t *obj, const char *where, const char *key, json_type type,
                      int required, int *bad)
{
    json_t *v = json_object_get(obj, key);
    char at[512];
    bfmt(at, sizeof at, "%s%s%s", where, where[0] ? "." : "", key);
    if (!v) {
        if (required)
            *bad = fail(r, at, "missing (the schema requires it)");
        return NULL;
    }
    int ok = type == (json_type)-1 || json_typeof(v) == type ||
             (type == JSON_REAL && json_is_number(v)) ||
             (type == JSON_TRUE && json_is_boolean(v));
    if (!ok) {
        const char *want = type == JSON_OBJECT ? "an object" : type == JSON_ARRAY ? "an array"
                         : type == JSON_STRING ? "a string" : type == JSON_INTEGER ? "an integer"
                         : type == JSON_TRUE ? "a boolean" : "a number";
        *bad = fail(r, at, "is %s; the schema wants %s", json_kind(v), want);
        return NULL;
    }
    return v;
}

/* The index of text in the comma-separated choices, or a failure naming
 * them all (and the nearest one). */
static int choice(reader *r, const char *at, const char *text, const char *choices)
{
    nearest_name_best best;
    nearest_name_init(&best, text);
    char list[512];
    bfmt(list, sizeof list, "%s", choices);
    int i = 0;
    for (char *save = NULL, *c = strtok_r(list, ",", &save); c; c = strtok_r(NULL, ",", &save), i++) {
        if (strcmp(c, text) == 0)
            return i;
        nearest_name_offer(&best, c);
    }
    char shown[512];
    bfmt(shown, sizeof shown, "%s", choices);
    for (char *p = shown; (p = strchr(p, ',')) != NULL; p++)
        *p = '|';
    char spaced[600] = "";
    for (const char *p = shown; *p; p++) {
        size_t len = strlen(spaced);
        if (*p == '|')
            bfmt(spaced + len, sizeof spaced - len, ", ");
        else
            bfmt(spaced + len, sizeof spaced - len, "%c", *p);
    }
    const char *near = nearest_name_result(&best);
    char hint[300] = "";
    if (near)
        bfmt(hint, sizeof hint, " (did you mean %s?)", near);
    fail(r, at, "'%s' is not one of %s%s", text, spaced, hint);
    return -1;
}

/* Names the spec's expressions may use besides the parameters. */
typedef struct names_ctx {
    const t1_spec *s;
    int allow_problem;
} names_ctx;

static int resolve_spec_name(void *ctx, const char *name, size_t len)
{
    names_ctx *n = ctx;
    int p = t1_spec_param_index(n->s, name, len);
    if (p >= 0)
        return p;
    if (n->allow_problem && len == 11 && memcmp(name, "ProblemSize", 11) == 0)
        return (int)n->s->n_params;
    return -1;
}

static t1_expr *compile_at(reader *r, const char *at, const char *text, t1_resolve res, void *ctx)
{
    char e[T1_EXPR_ERR_MAX];
    t1_expr *x = t1_expr_compile(text, res, ctx, e, sizeof e);
    if (!x)
        fail(r, at, "%s", e);
    return x;
}

/* ---- ConfigurationSpace ---- */

static int param_value_ok(reader *r, const char *at, t1_param *p, t1_value *v, size_t k)
{
    char vt[64];
    t1_value_format(v, 0, vt, sizeof vt);
    switch (p->type) {
    case T1_PARAM_INT:
    case T1_PARAM_UINT:
        if (v->type == T1_BOOL)
            v->type = T1_INT;
        if (v->type == T1_FLOAT && v->f == floor(v->f) && fabs(v->f) < 9e18) {
            v->type = T1_INT;
            v->i = (int64_t)v->f;
        }
        if (v->type != T1_INT)
            return fail(r, at, "value %zu (%s) is not an integer, as Type %s wants", k, vt,
                        p->type == T1_PARAM_INT ? "int" : "uint");
        if (p->type == T1_PARAM_UINT && v->i < 0)
            return fail(r, at, "value %zu (%s) is negative; Type is uint", k, vt);
        return 0;
    case T1_PARAM_FLOAT:
        if (v->type == T1_INT || v->type == T1_BOOL) {
            v->f = (double)v->i;
            v->type = T1_FLOAT;
        }
        if (v->type != T1_FLOAT)
            return fail(r, at, "value %zu (%s) is not a number, as Type float wants", k, vt);
        return 0;
    case T1_PARAM_BOOL:
        if (v->type == T1_INT && (v->i == 0 || v->i == 1))
            v->type = T1_BOOL;
        if (v->type != T1_BOOL)
            return fail(r, at, "value %zu (%s) is not True or False, as Type bool wants", k, vt);
        return 0;
    case T1_PARAM_STRING:
        if (v->type != T1_STRING)
            return fail(r, at, "value %zu (%s) is not a string, as Type string wants", k, vt);
        for (size_t i = 0; i < v->len; i++)
            if ((unsigned char)v->s[i] < 0x20 || v->s[i] == '\\' || v->s[i] == '"')
                return fail(r, at, "value %zu (%s) holds a character a -D define cannot carry",
                            k, vt);
        return 0;
    }
    return 0;
}

/* A define's text: what -D NAME=TEXT carries (bools as 1 and 0, as C
 * reads them; floats as Python prints them). */
static char *define_text(const t1_value *v)
{
    char buf[512];
    if (v->type == T1_BOOL)
        bfmt(buf, sizeof buf, "%d", (int)v->i);
    else
        t1_value_format(v, 1, buf, sizeof buf);
    return strdup(buf);
}

static int read_param(reader *r, json_t *j, size_t k, t1_param *p)
{
    char at[160];
    bfmt(at, sizeof at, "ConfigurationSpace.TuningParameters[%zu]", k);
    if (!json_is_object(j))
        return fail(r, at, "is %s; the schema wants an object", json_kind(j));
    int bad = 0;
    json_t *name = member(r, j, at, "Name", JSON_STRING, 1, &bad);
    json_t *type = bad ? NULL : member(r, j, at, "Type", JSON_STRING, 1, &bad);
    json_t *values = bad ? NULL : member(r, j, at, "Values", JSON_STRING, 1, &bad);
    if (bad)
        return -1;
    const char *nm = json_string_value(name);
    size_t nlen = strlen(nm);
    int ident = nlen > 0 && nlen < 128 && !(nm[0] >= '0' && nm[0] <= '9');
    for (size_t i = 0; ident && i < nlen; i++)
        ident = (nm[i] >= 'a' && nm[i] <= 'z') || (nm[i] >= 'A' && nm[i] <= 'Z') ||
                (nm[i] >= '0' && nm[i] <= '9') || nm[i] == '_';
    char at2[200];
    bfmt(at2, sizeof at2, "%s.Name", at);
    if (!ident)
        return fail(r, at2, "'%s' is not a C identifier, so it cannot be a -D define", nm);
    if (t1_spec_param_index(r->s, nm, nlen) >= 0)
        return fail(r, at2, "'%s' is a parameter already", nm);
    bfmt(at2, sizeof at2, "%s.Type", at);
    int t = choice(r, at2, json_string_value(type), "int,uint,float,bool,string");
    if (t < 0)
        return -1;
    p->name = strdup(nm);
    p->type = (t1_param_type)t;
    bfmt(at2, sizeof at2, "%s.Values", at);
    t1_expr *x = compile_at(r, at2, json_string_value(values), NULL, NULL);
    if (!x)
        return -1;
    t1_arena arena = {0};
    t1_value list;
    char e[T1_EXPR_ERR_MAX];
    int rc = t1_expr_eval(x, NULL, &arena, &list, e, sizeof e);
    t1_expr_free(x);
    if (rc != 0) {
        t1_arena_free(&arena);
        return fail(r, at2, "%s", e);
    }
    if (list.type != T1_LIST || list.len == 0) {
        t1_arena_free(&arena);
        return fail(r, at2, "'%s' is not a list of values (write e.g. \"[8, 16, 32]\" or "
                    "\"range(1, 9)\")", json_string_value(values));
    }
    if (list.len > T1_SPEC_VALUES_MAX) {
        t1_arena_free(&arena);
        return fail(r, at2, "%zu values; a parameter takes at most %u", list.len,
                    T1_SPEC_VALUES_MAX);
    }
    p->values = calloc(list.len, sizeof *p->values);
    p->texts = calloc(list.len, sizeof *p->texts);
    if (!p->values || !p->texts) {
        t1_arena_free(&arena);
        return fail(r, at2, "out of memory");
    }
    for (size_t i = 0; i < list.len; i++) {
        t1_value v = list.items[i];
        if (param_value_ok(r, at2, p, &v, i) != 0) {
            t1_arena_free(&arena);
            return -1;
        }
        if (v.type == T1_STRING) {
            char *copy = malloc(v.len + 1);
            if (!copy) {
                t1_arena_free(&arena);
                return fail(r, at2, "out of memory");
            }
            memcpy(copy, v.s, v.len);
            copy[v.len] = '\0';
            v.s = copy;
        }
        p->values[i] = v;
        p->n_values = i + 1;
        p->texts[i] = define_text(&v);
        for (size_t q = 0; q < i; q++)
            if (p->texts[i] && strcmp(p->texts[q], p->texts[i]) == 0) {
                t1_arena_free(&arena);
                return fail(r, at2, "the value %s comes twice", p->texts[i]);
            }
    }
    t1_arena_free(&arena);
    return 0;
}

static int read_space(reader *r, json_t *root)
{
    int bad = 0;
    json_t *cs = member(r, root, "", "ConfigurationSpace", JSON_OBJECT, 1, &bad);
    if (bad)
        return -1;
    json_t *tp = member(r, cs, "ConfigurationSpace", "TuningParameters", JSON_ARRAY, 1, &bad);
    if (bad)
        return -1;
    size_t n = json_array_size(tp);
    if (n == 0)
        return fail(r, "ConfigurationSpace.TuningParameters", "empty; a space needs a parameter");
    if (n > T1_SPEC_PARAMS_MAX)
        return fail(r, "ConfigurationSpace.TuningParameters", "%zu parameters; at most %d", n,
                    T1_SPEC_PARAMS_MAX);
    r->s->params = calloc(n, sizeof *r->s->params);
    if (!r->s->params)
        return fail(r, "ConfigurationSpace", "out of memory");
    for (size_t k = 0; k < n; k++) {
        /* Counted first, so that t1_spec_free frees what a failed read made. */
        r->s->n_params = k + 1;
        if (read_param(r, json_array_get(tp, k), k, &r->s->params[k]) != 0)
            return -1;
    }
    json_t *conds = member(r, cs, "ConfigurationSpace", "Conditions", JSON_ARRAY, 0, &bad);
    if (bad)
        return -1;
    size_t nc = json_array_size(conds);
    r->s->conditions = calloc(nc ? nc : 1, sizeof *r->s->conditions);
    if (!r->s->conditions)
        return fail(r, "ConfigurationSpace", "out of memory");
    names_ctx nctx = {r->s, 1};
    for (size_t k = 0; k < nc; k++) {
        char at[160], at2[200];
        bfmt(at, sizeof at, "ConfigurationSpace.Conditions[%zu]", k);
        json_t *c = json_array_get(conds, k);
        if (!json_is_object(c))
            return fail(r, at, "is %s; the schema wants an object", json_kind(c));
        json_t *ex = member(r, c, at, "Expression", JSON_STRING, 1, &bad);
        json_t *ps = bad ? NULL : member(r, c, at, "Parameters", JSON_ARRAY, 1, &bad);
        if (bad)
            return -1;
        for (size_t i = 0; i < json_array_size(ps); i++) {
            json_t *pn = json_array_get(ps, i);
            bfmt(at2, sizeof at2, "%s.Parameters[%zu]", at, i);
            if (!json_is_string(pn))
                return fail(r, at2, "is %s; the schema wants a string", json_kind(pn));
            if (t1_spec_param_index(r->s, json_string_value(pn), strlen(json_string_value(pn))) < 0)
                return fail(r, at2, "'%s' is not a parameter", json_string_value(pn));
        }
        bfmt(at2, sizeof at2, "%s.Expression", at);
        t1_condition *cd = &r->s->conditions[k];
        cd->text = strdup(json_string_value(ex));
        r->s->n_conditions = k + 1;
        cd->expr = compile_at(r, at2, cd->text, resolve_spec_name, &nctx);
        if (!cd->expr)
            return -1;
        /* Checked as soon as its last parameter is bound (tune_space.c):
         * the names it really reads decide that, not its Parameters list. */
        int slots[T1_SPEC_PARAMS_MAX];
        size_t ns = t1_expr_slots(cd->expr, slots, T1_SPEC_PARAMS_MAX);
        for (size_t i = 0; i < ns && i < T1_SPEC_PARAMS_MAX; i++)
            if ((size_t)slots[i] < r->s->n_params && (size_t)slots[i] > cd->deepest)
                cd->deepest = (size_t)slots[i];
    }
    return 0;
}

/* ---- KernelSpecification ---- */

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
    json_t *ft = member(r, j, at, "FillType", JSON_STRING, is_ref, &bad);
    if (bad)
        return -1;
    if (!ft)
        return 0;
    bfmt(at2, sizeof at2, "%s.FillType", at);
    const char *f = json_string_value(ft);
    if (strcmp(f, "Script") == 0 || strcmp(f, "BinaryHDF") == 0)
        return fail(r, at2, "'%s' is not supported by clc-pack (supported: Constant, Random, "
                    "Generator, BinaryRaw; docs/TUNING.md)", f);
    int k = choice(r, at2, f, "Constant,Random,Generator,BinaryRaw");
    if (k < 0)
        return -1;
    d->fill = (t1_fill)(k + 1);
    json_t *fv = member(r, j, at, "FillValue", JSON_REAL, 0, &bad);
    json_t *seed = bad ? NULL : member(r, j, at, "RandomSeed", JSON_INTEGER, 0, &bad);
    json_t *src = bad ? NULL : member(r, j, at, "DataSource", JSON_STRING, 0, &bad);
    if (bad)
        return -1;
    d->value = fv ? json_number_value(fv) : 0;
    d->seed = seed ? (uint64_t)json_integer_value(seed) : 0;
    if (d->fill == T1_FILL_CONSTANT && !fv) {
        bfmt(at2, sizeof at2, "%s.FillValue", at);
        return fail(r, at2, "missing: FillType Constant needs it");
    }
    if (d->fill == T1_FILL_GENERATOR || d->fill == T1_FILL_BINARY_RAW) {
        bfmt(at2, sizeof at2, "%s.DataSource", at);
        if (!src)
            return fail(r, at2, "missing: FillType %s needs it", f);
        if (d->fill == T1_FILL_GENERATOR) {
            d->generator_text = strdup(json_string_value(src));
            return d->generator_text ? 0 : fail(r, at2, "out of memory");
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
            return fail(r, at2, "out of memory");
        char e[600];
        if (in_check(d->path, e, sizeof e) != 0)
            return fail(r, at2, "%s", e);
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
    d->generator = compile_at(r, at2, d->generator_text, resolve_i, NULL);
    return d->generator ? 0 : -1;
}

/* A Size: evaluated once with every parameter bound to the list of its
 * values (so max(filter_width) is the largest) and ProblemSize to its
 * integers. */
static int eval_size(reader *r, const char *at, t1_arg *a)
{
    names_ctx nctx = {r->s, 1};
    t1_expr *x = compile_at(r, at, a->size_text, resolve_spec_name, &nctx);
    if (!x)
        return -1;
    size_t np = r->s->n_params;
    t1_value *slots = calloc(np + 1, sizeof *slots);
    t1_value prob[3];
    if (!slots) {
        t1_expr_free(x);
        return fail(r, at, "out of memory");
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
        fail(r, at, "%s", e);
    } else if (v.type != T1_INT && !(v.type == T1_FLOAT && v.f == floor(v.f))) {
        rc = fail(r, at, "'%s' is not a whole number of elements (a Vector's Size is "
                  "evaluated once; a parameter there stands for the list of its values: "
                  "write max(NAME))", a->size_text);
    } else {
        int64_t n = v.type == T1_INT ? v.i : (int64_t)v.f;
        if (n <= 0)
            rc = fail(r, at, "%lld elements; a Size must be positive", (long long)n);
        else if ((uint64_t)n > T1_SPEC_ARG_BYTES_MAX / a->elem_bytes)
            rc = fail(r, at, "%lld elements of %zu bytes is more than 4 GiB", (long long)n,
                      a->elem_bytes);
        else
            a->count = (uint64_t)n;
    }
    t1_arena_free(&arena);
    t1_expr_free(x);
    free(slots);
    return rc;
}

static int read_arg(reader *r, json_t *j, size_t k, t1_arg *a)
{
    char at[160], at2[300];
    bfmt(at, sizeof at, "KernelSpecification.Arguments[%zu]", k);
    if (!json_is_object(j))
        return fail(r, at, "is %s; the schema wants an object", json_kind(j));
    int bad = 0;
    json_t *name = member(r, j, at, "Name", JSON_STRING, 0, &bad);
    json_t *type = bad ? NULL : member(r, j, at, "Type", JSON_STRING, 1, &bad);
    json_t *mem = bad ? NULL : member(r, j, at, "MemoryType", JSON_STRING, 1, &bad);
    json_t *acc = bad ? NULL : member(r, j, at, "AccessType", JSON_STRING, 0, &bad);
    json_t *tsz = bad ? NULL : member(r, j, at, "TypeSize", JSON_INTEGER, 0, &bad);
    json_t *size = bad ? NULL : member(r, j, at, "Size", (json_type)-1, 0, &bad);
    if (bad)
        return -1;
    a->name = strdup(name ? json_string_value(name) : "");
    bfmt(at2, sizeof at2, "%s.Type", at);
    int t = choice(r, at2, json_string_value(type), ELEM_CHOICES);
    if (t < 0)
        return -1;
    a->elem = elem_types[t];
    a->elem_bytes = a->elem.lanes * a->elem.lane_bytes;
    if (a->elem.base == T1_B_CUSTOM) {
        bfmt(at2, sizeof at2, "%s.TypeSize", at);
        if (!tsz || json_integer_value(tsz) <= 0 || json_integer_value(tsz) > 4096)
            return fail(r, at2, "Type custom needs a TypeSize of 1 to 4096 bytes");
        a->elem_bytes = (size_t)json_integer_value(tsz);
    }
    bfmt(at2, sizeof at2, "%s.MemoryType", at);
    const char *m = json_string_value(mem);
    if (strcmp(m, "Symbol") == 0)
        return fail(r, at2, "'Symbol' (CUDA's constant memory) is not supported for OpenCL");
    int mk = choice(r, at2, m, "Scalar,Vector,Local");
    if (mk < 0)
        return -1;
    a->mem = (t1_mem)mk;
    if (acc) {
        bfmt(at2, sizeof at2, "%s.AccessType", at);
        int ak = choice(r, at2, json_string_value(acc), "ReadWrite,ReadOnly,WriteOnly");
        if (ak < 0)
            return -1;
        a->access = (t1_access)ak;
    }
    if (read_data(r, j, at, 0, &a->data) != 0 || compile_generator(r, at, &a->data) != 0)
        return -1;
    if (a->mem == T1_MEM_SCALAR) {
        bfmt(at2, sizeof at2, "%s.FillValue", at);
        if (a->data.fill != T1_FILL_CONSTANT)
            return fail(r, at2, "a Scalar takes FillType Constant with its FillValue");
        if (a->elem.lanes != 1 || a->elem.base == T1_B_CUSTOM || a->elem.base == T1_B_HALF)
            return fail(r, at, "a Scalar of Type %s is not supported (give a scalar integer, "
                        "float or double type)", a->elem.name);
        return 0;
    }
    bfmt(at2, sizeof at2, "%s.Size", at);
    if (!size)
        return fail(r, at2, "missing: a %s argument needs its number of elements",
                    a->mem == T1_MEM_LOCAL ? "Local" : "Vector");
    if (json_is_integer(size)) {
        char buf[32];
        bfmt(buf, sizeof buf, "%lld", (long long)json_integer_value(size));
        a->size_text = strdup(buf);
    } else if (json_is_string(size)) {
        a->size_text = strdup(json_string_value(size));
    } else {
        return fail(r, at2, "is %s; the schema wants an integer or a string", json_kind(size));
    }
    if (a->mem == T1_MEM_VECTOR && a->data.fill == T1_FILL_NONE && a->access != T1_ACCESS_WO)
        return fail(r, at, "a Vector that is read needs a FillType (or AccessType WriteOnly)");
    return eval_size(r, at2, a);
}

static int arg_index(const t1_spec *s, const char *name)
{
    for (size_t k = 0; k < s->n_args; k++)
        if (s->args[k].name[0] && strcmp(s->args[k].name, name) == 0)
            return (int)k;
    return -1;
}

static int read_refs(reader *r, json_t *ks)
{
    int bad = 0;
    json_t *refs = member(r, ks, "KernelSpecification", "ReferenceArguments", JSON_ARRAY, 0, &bad);
    if (bad)
        return -1;
    size_t n = json_array_size(refs);
    r->s->refs = calloc(n ? n : 1, sizeof *r->s->refs);
    if (!r->s->refs)
        return fail(r, "KernelSpecification", "out of memory");
    for (size_t k = 0; k < n; k++) {
        char at[160], at2[300];
        bfmt(at, sizeof at, "KernelSpecification.ReferenceArguments[%zu]", k);
        json_t *j = json_array_get(refs, k);
        if (!json_is_object(j))
            return fail(r, at, "is %s; the schema wants an object", json_kind(j));
        t1_ref *ref = &r->s->refs[k];
        r->s->n_refs = k + 1;
        json_t *name = member(r, j, at, "Name", JSON_STRING, 1, &bad);
        json_t *target = bad ? NULL : member(r, j, at, "TargetName", JSON_STRING, 1, &bad);
        json_t *meth = bad ? NULL : member(r, j, at, "ValidationMethod", JSON_STRING, 0, &bad);
        json_t *thr = bad ? NULL : member(r, j, at, "ValidationThreshold", JSON_REAL, 0, &bad);
        if (bad)
            return -1;
        ref->name = strdup(json_string_value(name));
        bfmt(at2, sizeof at2, "%s.TargetName", at);
        int t = arg_index(r->s, json_string_value(target));
        if (t < 0)
            return fail(r, at2, "'%s' is not the Name of an argument", json_string_value(target));
        if (r->s->args[t].mem != T1_MEM_VECTOR)
            return fail(r, at2, "'%s' is not a Vector argument", json_string_value(target));
        if (r->s->args[t].access == T1_ACCESS_RO)
            return fail(r, at2, "'%s' is ReadOnly: the kernel does not write it",
                        json_string_value(target));
        ref->target = (size_t)t;
        if (read_data(r, j, at, 1, &ref->data) != 0 || compile_generator(r, at, &ref->data) != 0)
            return -1;
        ref->method = T1_VALID_SIDE_BY_SIDE;
        if (meth) {
            bfmt(at2, sizeof at2, "%s.ValidationMethod", at);
            int mk = choice(r, at2, json_string_value(meth),
                            "AbsoluteDifference,SideBySideComparison,SideBySideRelativeComparison");
            if (mk < 0)
                return -1;
            ref->method = (t1_validation)mk;
        }
        ref->threshold = thr ? json_number_value(thr) : 1e-6;
        if (!(ref->threshold >= 0) || !isfinite(ref->threshold)) {
            bfmt(at2, sizeof at2, "%s.ValidationThreshold", at);
            return fail(r, at2, "must be a finite number of 0 or more");
        }
    }
    return 0;
}

static int read_sizes(reader *r, json_t *ks, const char *key, t1_expr **out, char **texts)
{
    int bad = 0;
    char at[160];
    bfmt(at, sizeof at, "KernelSpecification.%s", key);
    json_t *o = member(r, ks, "KernelSpecification", key, JSON_OBJECT, 1, &bad);
    if (bad)
        return -1;
    names_ctx nctx = {r->s, 1};
    static const char *const dim[3] = {"X", "Y", "Z"};
    unsigned dims = 0;
    for (unsigned d = 0; d < 3; d++) {
        json_t *e = member(r, o, at, dim[d], JSON_STRING, d == 0, &bad);
        if (bad)
            return -1;
        if (!e)
            continue;
        if (d > dims) {
            char at2[200];
            bfmt(at2, sizeof at2, "%s.%s", at, dim[d]);
            return fail(r, at2, "given without %s", dim[d - 1]);
        }
        char at2[200];
        bfmt(at2, sizeof at2, "%s.%s", at, dim[d]);
        texts[d] = strdup(json_string_value(e));
        out[d] = compile_at(r, at2, texts[d], resolve_spec_name, &nctx);
        if (!out[d])
            return -1;
        dims = d + 1;
    }
    if (out == r->s->global)
        r->s->dims = dims;
    else if (dims > r->s->dims)
        return fail(r, at, "has %u dimensions, GlobalSize %u", dims, r->s->dims);
    return 0;
}

static int read_kernel_file(reader *r, json_t *kf)
{
    const char *p = json_string_value(kf);
    size_t len = strlen(r->s->dir) + strlen(p) + 2;
    r->s->kernel_file = malloc(len);
    if (!r->s->kernel_file)
        return fail(r, "KernelSpecification.KernelFile", "out of memory");
    if (p[0] == '/')
        snprintf(r->s->kernel_file, len, "%s", p);
    else
        snprintf(r->s->kernel_file, len, "%s/%s", r->s->dir, p);
    char e[600];
    if (in_read_all(r->s->kernel_file, T1_SPEC_SOURCE_MAX, &r->s->source, &r->s->source_size, e,
                    sizeof e) != 0)
        return fail(r, "KernelSpecification.KernelFile", "%s", e);
    if (memchr(r->s->source, '\0', r->s->source_size))
        return fail(r, "KernelSpecification.KernelFile", "'%s' holds a NUL byte: not OpenCL C text",
                    r->s->kernel_file);
    return 0;
}

static int read_kernel(reader *r, json_t *root)
{
    int bad = 0;
    const char *K = "KernelSpecification";
    json_t *ks = member(r, root, "", K, JSON_OBJECT, 1, &bad);
    if (bad)
        return -1;
    json_t *lang = member(r, ks, K, "Language", JSON_STRING, 1, &bad);
    json_t *name = bad ? NULL : member(r, ks, K, "KernelName", JSON_STRING, 1, &bad);
    json_t *kf = bad ? NULL : member(r, ks, K, "KernelFile", JSON_STRING, 1, &bad);
    json_t *opts = bad ? NULL : member(r, ks, K, "CompilerOptions", JSON_ARRAY, 0, &bad);
    json_t *gst = bad ? NULL : member(r, ks, K, "GlobalSizeType", JSON_STRING, 0, &bad);
    json_t *prob = bad ? NULL : member(r, ks, K, "ProblemSize", JSON_ARRAY, 0, &bad);
    json_t *dev = bad ? NULL : member(r, ks, K, "Device", JSON_OBJECT, 0, &bad);
    json_t *args = bad ? NULL : member(r, ks, K, "Arguments", JSON_ARRAY, 0, &bad);
    if (bad)
        return -1;
    const char *l = json_string_value(lang);
    if (strcmp(l, "OpenCL") != 0) {
        if (strcmp(l, "CUDA") == 0 || strcmp(l, "Vulkan") == 0 || strcmp(l, "Hypertuner") == 0)
            return fail(r, "KernelSpecification.Language", "'%s' is not supported: clc-pack "
                        "tunes OpenCL kernels", l);
        return choice(r, "KernelSpecification.Language", l, "OpenCL");
    }
    if (gst && strcmp(json_string_value(gst), "OpenCL") != 0)
        return fail(r, "KernelSpecification.GlobalSizeType", "'%s' is not supported: GlobalSize "
                    "is in work-items, as OpenCL counts them", json_string_value(gst));
    r->s->kernel_name = strdup(json_string_value(name));
    if (!r->s->kernel_name[0])
        return fail(r, "KernelSpecification.KernelName", "empty");
    if (read_kernel_file(r, kf) != 0)
        return -1;
    if (dev) {
        json_t *dn = member(r, dev, "KernelSpecification.Device", "Name", JSON_STRING, 0, &bad);
        if (bad)
            return -1;
        r->s->device_name = dn ? strdup(json_string_value(dn)) : NULL;
    }
    /* CompilerOptions, one build-option string. */
    size_t olen = 1;
    for (size_t k = 0; k < json_array_size(opts); k++) {
        json_t *o = json_array_get(opts, k);
        if (!json_is_string(o)) {
            char at[160];
            bfmt(at, sizeof at, "KernelSpecification.CompilerOptions[%zu]", k);
            return fail(r, at, "is %s; the schema wants a string", json_kind(o));
        }
        olen += strlen(json_string_value(o)) + 1;
    }
    r->s->compiler_options = calloc(olen, 1);
    if (!r->s->compiler_options)
        return fail(r, K, "out of memory");
    for (size_t k = 0; k < json_array_size(opts); k++) {
        if (k)
            strcat(r->s->compiler_options, " ");
        strcat(r->s->compiler_options, json_string_value(json_array_get(opts, k)));
    }
    if (prob) {
        if (json_array_size(prob) < 1 || json_array_size(prob) > 3)
            return fail(r, "KernelSpecification.ProblemSize", "needs 1 to 3 integers");
        for (size_t k = 0; k < json_array_size(prob); k++) {
            json_t *p = json_array_get(prob, k);
            if (!json_is_integer(p) || json_integer_value(p) <= 0) {
                char at[160];
                bfmt(at, sizeof at, "KernelSpecification.ProblemSize[%zu]", k);
                return fail(r, at, "is not a positive integer");
            }
            r->s->problem[k] = json_integer_value(p);
        }
        r->s->n_problem = json_array_size(prob);
    }
    if (read_sizes(r, ks, "GlobalSize", r->s->global, r->s->global_text) != 0 ||
        read_sizes(r, ks, "LocalSize", r->s->local, r->s->local_text) != 0)
        return -1;
    size_t na = json_array_size(args);
    r->s->args = calloc(na ? na : 1, sizeof *r->s->args);
    if (!r->s->args)
        return fail(r, K, "out of memory");
    for (size_t k = 0; k < na; k++) {
        r->s->n_args = k + 1;
        if (read_arg(r, json_array_get(args, k), k, &r->s->args[k]) != 0)
            return -1;
        for (size_t q = 0; q < k; q++)
            if (r->s->args[k].name[0] && strcmp(r->s->args[q].name, r->s->args[k].name) == 0) {
                char at[160];
                bfmt(at, sizeof at, "KernelSpecification.Arguments[%zu].Name", k);
                return fail(r, at, "'%s' names Arguments[%zu] already", r->s->args[k].name, q);
            }
    }
    /* BinaryRaw data must hold Size elements. */
    for (size_t k = 0; k < na; k++) {
        t1_arg *a = &r->s->args[k];
        if (a->mem != T1_MEM_VECTOR || a->data.fill != T1_FILL_BINARY_RAW)
            continue;
        struct stat st;
        char at[160];
        bfmt(at, sizeof at, "KernelSpecification.Arguments[%zu].DataSource", k);
        if (stat(a->data.path, &st) != 0 || (uint64_t)st.st_size < a->count * a->elem_bytes)
            return fail(r, at, "'%s' holds %lld bytes; Size %llu of %s needs %llu",
                        a->data.path, (long long)st.st_size, (unsigned long long)a->count,
                        a->elem.name, (unsigned long long)(a->count * a->elem_bytes));
    }
    if (read_refs(r, ks) != 0)
        return -1;
    for (size_t k = 0; k < r->s->n_refs; k++) {
        t1_ref *ref = &r->s->refs[k];
        const t1_arg *a = &r->s->args[ref->target];
        struct stat st;
        char at[160];
        bfmt(at, sizeof at, "KernelSpecification.ReferenceArguments[%zu].DataSource", k);
        if (ref->data.fill == T1_FILL_BINARY_RAW &&
            (stat(ref->data.path, &st) != 0 || (uint64_t)st.st_size < a->count * a->elem_bytes))
            return fail(r, at, "'%s' holds %lld bytes; the output %s needs %llu", ref->data.path,
                        (long long)st.st_size, a->name, (unsigned long long)(a->count * a->elem_bytes));
    }
    return 0;
}

/* ---- Search and Budget ---- */

static int read_search(reader *r, json_t *root)
{
    int bad = 0;
    json_t *se = member(r, root, "", "Search", JSON_OBJECT, 0, &bad);
    if (bad)
        return -1;
    if (se) {
        json_t *n = member(r, se, "Search", "Name", JSON_STRING, 1, &bad);
        json_t *at = bad ? NULL : member(r, se, "Search", "Attributes", JSON_ARRAY, 0, &bad);
        if (bad)
            return -1;
        r->s->search = strdup(json_string_value(n));
        if (at) {
            r->s->search_attrs = json_dumps(at, JSON_COMPACT);
            for (size_t k = 0; k < json_array_size(at); k++) {
                json_t *a = json_array_get(at, k);
                char w[160];
                bfmt(w, sizeof w, "Search.Attributes[%zu]", k);
                if (!json_is_object(a) || !json_is_string(json_object_get(a, "Name")) ||
                    !json_object_get(a, "Value"))
                    return fail(r, w, "needs a Name (a string) and a Value");
            }
        }
    }
    json_t *bu = member(r, root, "", "Budget", JSON_ARRAY, 0, &bad);
    if (bad)
        return -1;
    for (size_t k = 0; k < json_array_size(bu); k++) {
        char at[160], at2[200];
        bfmt(at, sizeof at, "Budget[%zu]", k);
        json_t *b = json_array_get(bu, k);
        if (!json_is_object(b))
            return fail(r, at, "is %s; the schema wants an object", json_kind(b));
        json_t *t = member(r, b, at, "Type", JSON_STRING, 1, &bad);
        json_t *v = bad ? NULL : member(r, b, at, "BudgetValue", JSON_REAL, 1, &bad);
        if (bad)
            return -1;
        bfmt(at2, sizeof at2, "%s.Type", at);
        int kk = choice(r, at2, json_string_value(t),
                        "ConfigurationCount,TuningDuration,ConfigurationFraction");
        if (kk < 0)
            return -1;
        double val = json_number_value(v);
        bfmt(at2, sizeof at2, "%s.BudgetValue", at);
        if (!(val > 0) || !isfinite(val) || (kk == 2 && val > 1))
            return fail(r, at2, "%g is not %s", val, kk == 2 ? "a fraction above 0 and at most 1"
                                                            : "a positive number");
        if (k > 0)
            return fail(r, at, "a second budget: clc-pack honours one (give the one that "
                        "binds)");
        r->s->budget_kind = kk == 0 ? T1_BUDGET_COUNT : kk == 1 ? T1_BUDGET_SECONDS
                                                                : T1_BUDGET_FRACTION;
        r->s->budget_value = val;
    }
    return 0;
}

int t1_spec_param_index(const t1_spec *s, const char *name, size_t len)
{
    for (size_t k = 0; k < s->n_params; k++)
        if (s->params[k].name && strlen(s->params[k].name) == len &&
            memcmp(s->params[k].name, name, len) == 0)
            return (int)k;
    return -1;
}

static int check_top(reader *r, json_t *root)
{
    static const char *const known[] = {"ConfigurationSpace", "KernelSpecification", "Search",
                                        "Budget", "General", "$schema"};
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v) {
        size_t i = 0;
        while (i < sizeof known / sizeof known[0] && strcmp(known[i], key) != 0)
            i++;
        if (i == sizeof known / sizeof known[0])
            return choice(r, key, key, "ConfigurationSpace,KernelSpecification,Search,Budget,General");
    }
    return 0;
}

int t1_spec_parse(const char *path, const char *dir, const char *text, size_t size, t1_spec *s,
                  char err[T1_SPEC_ERR_MAX])
{
    memset(s, 0, sizeof *s);
    err[0] = '\0';
    s->path = strdup(path);
    s->dir = strdup(dir && dir[0] ? dir : ".");
    reader r = {s, err, path};
    if (!s->path || !s->dir)
        return fail(&r, "(the spec)", "out of memory");
    clcpk_digest_sha256(text, size, s->sha256);
    json_error_t je;
    json_t *root = json_loadb(text, size, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        bfmt(err, T1_SPEC_ERR_MAX, "%s:%d:%d: not JSON: %s", path, je.line, je.column, je.text);
        return -1;
    }
    int rc = -1;
    if (!json_is_object(root))
        fail(&r, "(the top level)", "is %s; a T1 spec is an object", json_kind(root));
    else if (check_top(&r, root) == 0 && read_space(&r, root) == 0 && read_kernel(&r, root) == 0 &&
             read_search(&r, root) == 0)
        rc = 0;
    json_decref(root);
    return rc;
}

int t1_spec_read(const char *path, t1_spec *s, char err[T1_SPEC_ERR_MAX])
{
    char *text = NULL;
    size_t size = 0;
    char e[600];
    if (in_read_all(path, T1_SPEC_FILE_MAX, &text, &size, e, sizeof e) != 0) {
        memset(s, 0, sizeof *s);
        bfmt(err, T1_SPEC_ERR_MAX, "%s", e);
        return -1;
    }
    char *dir = clcpk_parent_dir(path);
    int rc = t1_spec_parse(path, dir ? dir : ".", text, size, s, err);
    free(dir);
    free(text);
    return rc;
}

static void free_data(t1_data *d)
{
    t1_expr_free(d->generator);
    free(d->generator_text);
    free(d->path);
}

void t1_spec_free(t1_spec *s)
{
    for (size_t k = 0; k < s->n_params; k++) {
        t1_param *p = &s->params[k];
        for (size_t i = 0; i < p->n_values; i++) {
            if (p->values[i].type == T1_STRING)
                free((char *)p->values[i].s);
            if (p->texts)
                free(p->texts[i]);
        }
        free(p->values);
        free(p->texts);
        free(p->name);
    }
    free(s->params);
    for (size_t k = 0; k < s->n_conditions; k++) {
        free(s->conditions[k].text);
        t1_expr_free(s->conditions[k].expr);
    }
    free(s->conditions);
    for (size_t k = 0; k < s->n_args; k++) {
        free(s->args[k].name);
        free(s->args[k].size_text);
        t1_expr_free(s->args[k].size);
        free_data(&s->args[k].data);
    }
    free(s->args);
    for (size_t k = 0; k < s->n_refs; k++) {
        free(s->refs[k].name);
        free_data(&s->refs[k].data);
    }
    free(s->refs);
    for (int d = 0; d < 3; d++) {
        t1_expr_free(s->global[d]);
        t1_expr_free(s->local[d]);
        free(s->global_text[d]);
        free(s->local_text[d]);
    }
    free(s->kernel_name);
    free(s->kernel_file);
    free(s->source);
    free(s->compiler_options);
    free(s->device_name);
    free(s->search);
    free(s->search_attrs);
    free(s->path);
    free(s->dir);
    memset(s, 0, sizeof *s);
}
