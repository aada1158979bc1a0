/* t1_spec.c — reading a T1 spec with jansson (t1_spec.h): the whole
 * file, its KernelSpecification's kernel and launch, Search and Budget;
 * the space and the arguments have files of their own (t1_spec_read.h). */
#include "t1_spec.h"
#include "t1_spec_read.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounded_fmt.h"
#include "input_file.h"
#include "path.h"
#include "sha256.h"

static int read_sizes(reader *r, json_t *ks, const char *key, t1_expr **out, char **texts)
{
    int bad = 0;
    char at[160];
    bfmt(at, sizeof at, "KernelSpecification.%s", key);
    json_t *o = t1s_member(r, ks, "KernelSpecification", key, JSON_OBJECT, 1, &bad);
    if (bad)
        return -1;
    names_ctx nctx = {r->s, 1};
    static const char *const dim[3] = {"X", "Y", "Z"};
    unsigned dims = 0;
    for (unsigned d = 0; d < 3; d++) {
        json_t *e = t1s_member(r, o, at, dim[d], JSON_STRING, d == 0, &bad);
        if (bad)
            return -1;
        if (!e)
            continue;
        if (d > dims) {
            char at2[200];
            bfmt(at2, sizeof at2, "%s.%s", at, dim[d]);
            return t1s_fail(r, at2, "given without %s", dim[d - 1]);
        }
        char at2[200];
        bfmt(at2, sizeof at2, "%s.%s", at, dim[d]);
        texts[d] = strdup(json_string_value(e));
        out[d] = t1s_compile_at(r, at2, texts[d], t1s_resolve_name, &nctx);
        if (!out[d])
            return -1;
        dims = d + 1;
    }
    if (out == r->s->global)
        r->s->dims = dims;
    else if (dims > r->s->dims)
        return t1s_fail(r, at, "has %u dimensions, GlobalSize %u", dims, r->s->dims);
    return 0;
}

static int read_kernel_file(reader *r, json_t *kf)
{
    const char *p = json_string_value(kf);
    size_t len = strlen(r->s->dir) + strlen(p) + 2;
    r->s->kernel_file = malloc(len);
    if (!r->s->kernel_file)
        return t1s_fail(r, "KernelSpecification.KernelFile", "out of memory");
    if (p[0] == '/')
        snprintf(r->s->kernel_file, len, "%s", p);
    else
        snprintf(r->s->kernel_file, len, "%s/%s", r->s->dir, p);
    char e[600];
    if (in_read_all(r->s->kernel_file, T1_SPEC_SOURCE_MAX, &r->s->source, &r->s->source_size, e,
                    sizeof e) != 0)
        return t1s_fail(r, "KernelSpecification.KernelFile", "%s", e);
    if (memchr(r->s->source, '\0', r->s->source_size))
        return t1s_fail(r, "KernelSpecification.KernelFile", "'%s' holds a NUL byte: not OpenCL C text",
                    r->s->kernel_file);
    return 0;
}

/* CompilerOptions: one build-option string, the options joined by spaces. */
static int read_options(reader *r, json_t *opts)
{
    const char *K = "KernelSpecification";
    size_t olen = 1;
    for (size_t k = 0; k < json_array_size(opts); k++) {
        json_t *o = json_array_get(opts, k);
        if (!json_is_string(o)) {
            char at[160];
            bfmt(at, sizeof at, "KernelSpecification.CompilerOptions[%zu]", k);
            return t1s_fail(r, at, "is %s; the schema wants a string", t1s_json_kind(o));
        }
        olen += strlen(json_string_value(o)) + 1;
    }
    r->s->compiler_options = calloc(olen, 1);
    if (!r->s->compiler_options)
        return t1s_fail(r, K, "out of memory");
    for (size_t k = 0; k < json_array_size(opts); k++) {
        if (k)
            strcat(r->s->compiler_options, " ");
        strcat(r->s->compiler_options, json_string_value(json_array_get(opts, k)));
    }
    return 0;
}

/* ProblemSize (Kernel Tuner's field): 1 to 3 positive integers. */
static int read_problem(reader *r, json_t *prob)
{
    if (prob) {
        if (json_array_size(prob) < 1 || json_array_size(prob) > 3)
            return t1s_fail(r, "KernelSpecification.ProblemSize", "needs 1 to 3 integers");
        for (size_t k = 0; k < json_array_size(prob); k++) {
            json_t *p = json_array_get(prob, k);
            if (!json_is_integer(p) || json_integer_value(p) <= 0) {
                char at[160];
                bfmt(at, sizeof at, "KernelSpecification.ProblemSize[%zu]", k);
                return t1s_fail(r, at, "is not a positive integer");
            }
            r->s->problem[k] = json_integer_value(p);
        }
        r->s->n_problem = json_array_size(prob);
    }
    return 0;
}

/* The arguments, each named once, and the references. */
static int read_args(reader *r, json_t *ks, json_t *args)
{
    const char *K = "KernelSpecification";
    size_t na = json_array_size(args);
    r->s->args = calloc(na ? na : 1, sizeof *r->s->args);
    if (!r->s->args)
        return t1s_fail(r, K, "out of memory");
    for (size_t k = 0; k < na; k++) {
        r->s->n_args = k + 1;
        if (t1s_read_arg(r, json_array_get(args, k), k, &r->s->args[k]) != 0)
            return -1;
        for (size_t q = 0; q < k; q++)
            if (r->s->args[k].name[0] && strcmp(r->s->args[q].name, r->s->args[k].name) == 0) {
                char at[160];
                bfmt(at, sizeof at, "KernelSpecification.Arguments[%zu].Name", k);
                return t1s_fail(r, at, "'%s' names Arguments[%zu] already", r->s->args[k].name, q);
            }
    }
    if (t1s_read_refs(r, ks) != 0)
        return -1;
    return t1s_check_data_sources(r);
}

static int read_kernel(reader *r, json_t *root)
{
    int bad = 0;
    const char *K = "KernelSpecification";
    json_t *ks = t1s_member(r, root, "", K, JSON_OBJECT, 1, &bad);
    if (bad)
        return -1;
    json_t *lang = t1s_member(r, ks, K, "Language", JSON_STRING, 1, &bad);
    json_t *name = bad ? NULL : t1s_member(r, ks, K, "KernelName", JSON_STRING, 1, &bad);
    json_t *kf = bad ? NULL : t1s_member(r, ks, K, "KernelFile", JSON_STRING, 1, &bad);
    json_t *opts = bad ? NULL : t1s_member(r, ks, K, "CompilerOptions", JSON_ARRAY, 0, &bad);
    json_t *gst = bad ? NULL : t1s_member(r, ks, K, "GlobalSizeType", JSON_STRING, 0, &bad);
    json_t *prob = bad ? NULL : t1s_member(r, ks, K, "ProblemSize", JSON_ARRAY, 0, &bad);
    json_t *dev = bad ? NULL : t1s_member(r, ks, K, "Device", JSON_OBJECT, 0, &bad);
    json_t *args = bad ? NULL : t1s_member(r, ks, K, "Arguments", JSON_ARRAY, 0, &bad);
    if (bad)
        return -1;
    const char *l = json_string_value(lang);
    if (strcmp(l, "OpenCL") != 0) {
        if (strcmp(l, "CUDA") == 0 || strcmp(l, "Vulkan") == 0 || strcmp(l, "Hypertuner") == 0)
            return t1s_fail(r, "KernelSpecification.Language", "'%s' is not supported: clc-pack "
                        "tunes OpenCL kernels", l);
        return t1s_choice(r, "KernelSpecification.Language", l, "OpenCL");
    }
    if (gst && strcmp(json_string_value(gst), "OpenCL") != 0)
        return t1s_fail(r, "KernelSpecification.GlobalSizeType", "'%s' is not supported: GlobalSize "
                    "is in work-items, as OpenCL counts them", json_string_value(gst));
    r->s->kernel_name = strdup(json_string_value(name));
    if (!r->s->kernel_name[0])
        return t1s_fail(r, "KernelSpecification.KernelName", "empty");
    if (read_kernel_file(r, kf) != 0)
        return -1;
    if (dev) {
        json_t *dn = t1s_member(r, dev, "KernelSpecification.Device", "Name", JSON_STRING, 0, &bad);
        if (bad)
            return -1;
        r->s->device_name = dn ? strdup(json_string_value(dn)) : NULL;
    }
    if (read_options(r, opts) != 0 || read_problem(r, prob) != 0)
        return -1;
    if (read_sizes(r, ks, "GlobalSize", r->s->global, r->s->global_text) != 0 ||
        read_sizes(r, ks, "LocalSize", r->s->local, r->s->local_text) != 0)
        return -1;
    return read_args(r, ks, args);
}

/* ---- Search and Budget ---- */

static int read_search(reader *r, json_t *root)
{
    int bad = 0;
    json_t *se = t1s_member(r, root, "", "Search", JSON_OBJECT, 0, &bad);
    if (bad)
        return -1;
    if (se) {
        json_t *n = t1s_member(r, se, "Search", "Name", JSON_STRING, 1, &bad);
        json_t *at = bad ? NULL : t1s_member(r, se, "Search", "Attributes", JSON_ARRAY, 0, &bad);
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
                    return t1s_fail(r, w, "needs a Name (a string) and a Value");
            }
        }
    }
    json_t *bu = t1s_member(r, root, "", "Budget", JSON_ARRAY, 0, &bad);
    if (bad)
        return -1;
    for (size_t k = 0; k < json_array_size(bu); k++) {
        char at[160], at2[200];
        bfmt(at, sizeof at, "Budget[%zu]", k);
        json_t *b = json_array_get(bu, k);
        if (!json_is_object(b))
            return t1s_fail(r, at, "is %s; the schema wants an object", t1s_json_kind(b));
        json_t *t = t1s_member(r, b, at, "Type", JSON_STRING, 1, &bad);
        json_t *v = bad ? NULL : t1s_member(r, b, at, "BudgetValue", JSON_REAL, 1, &bad);
        if (bad)
            return -1;
        bfmt(at2, sizeof at2, "%s.Type", at);
        int kk = t1s_choice(r, at2, json_string_value(t),
                        "ConfigurationCount,TuningDuration,ConfigurationFraction");
        if (kk < 0)
            return -1;
        double val = json_number_value(v);
        bfmt(at2, sizeof at2, "%s.BudgetValue", at);
        if (!(val > 0) || !isfinite(val) || (kk == 2 && val > 1))
            return t1s_fail(r, at2, "%g is not %s", val, kk == 2 ? "a fraction above 0 and at most 1"
                                                            : "a positive number");
        if (k > 0)
            return t1s_fail(r, at, "a second budget: clc-pack honours one (give the one that "
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
            return t1s_choice(r, key, key, "ConfigurationSpace,KernelSpecification,Search,Budget,General");
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
        return t1s_fail(&r, "(the spec)", "out of memory");
    clcpk_digest_sha256(text, size, s->sha256);
    json_error_t je;
    json_t *root = json_loadb(text, size, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        bfmt(err, T1_SPEC_ERR_MAX, "%s:%d:%d: not JSON: %s", path, je.line, je.column, je.text);
        return -1;
    }
    int rc = -1;
    if (!json_is_object(root))
        t1s_fail(&r, "(the top level)", "is %s; a T1 spec is an object", t1s_json_kind(root));
    else if (check_top(&r, root) == 0 && t1s_read_space(&r, root) == 0 && read_kernel(&r, root) == 0 &&
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
