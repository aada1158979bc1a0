/* tune_space.c — walking a T1 space (tune_space.h). */
#include "tune_space.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bounded_fmt.h"
#include "strbuf.h"

void tune_space_decode(const tune_space *sp, uint64_t raw, uint32_t *idx)
{
    for (size_t k = 0; k < sp->spec->n_params; k++) {
        idx[k] = (uint32_t)(raw / sp->stride[k]);
        raw %= sp->stride[k];
    }
}

uint64_t tune_space_encode(const tune_space *sp, const uint32_t *idx)
{
    uint64_t raw = 0;
    for (size_t k = 0; k < sp->spec->n_params; k++)
        raw += (uint64_t)idx[k] * sp->stride[k];
    return raw;
}

long long tune_space_find(const tune_space *sp, uint64_t raw)
{
    size_t lo = 0, hi = sp->n_valid;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sp->valid[mid] < raw)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < sp->n_valid && sp->valid[lo] == raw ? (long long)lo : -1;
}

void tune_space_bind(const tune_space *sp, const uint32_t *idx, t1_value *slots, t1_value prob[3])
{
    const t1_spec *s = sp->spec;
    for (size_t k = 0; k < s->n_params; k++)
        slots[k] = s->params[k].values[idx[k]];
    for (size_t k = 0; k < s->n_problem; k++)
        prob[k] = (t1_value){.type = T1_INT, .i = s->problem[k]};
    slots[s->n_params] = (t1_value){.type = T1_LIST, .len = s->n_problem, .items = prob};
}

char *tune_space_label(const tune_space *sp, uint64_t raw)
{
    const t1_spec *s = sp->spec;
    strbuf b;
    sb_init(&b);
    uint32_t idx[T1_SPEC_PARAMS_MAX];
    tune_space_decode(sp, raw, idx);
    for (size_t k = 0; k < s->n_params; k++)
        sb_printf(&b, "%s%s=%s", k ? "," : "", s->params[k].name, s->params[k].texts[idx[k]]);
    sb_put(&b, "", 1);
    if (b.failed) {
        sb_free(&b);
        return NULL;
    }
    return (char *)b.data;
}

/* One launch size: a positive whole number. */
static int eval_dim(const t1_expr *x, const char *field, const t1_value *slots, t1_arena *arena,
                    size_t *out, char *err, size_t cap)
{
    t1_value v;
    char e[T1_EXPR_ERR_MAX];
    t1_arena_reset(arena);
    if (t1_expr_eval(x, slots, arena, &v, e, sizeof e) != 0) {
        bfmt(err, cap, "KernelSpecification.%s: %s", field, e);
        return -1;
    }
    double d = v.type == T1_FLOAT ? v.f : (double)v.i;
    if ((v.type != T1_INT && v.type != T1_FLOAT && v.type != T1_BOOL) || d != floor(d) || d < 1 ||
        d > 1e15) {
        char t[64];
        t1_value_format(&v, 0, t, sizeof t);
        bfmt(err, cap, "KernelSpecification.%s: %s is not a positive whole number of work-items",
             field, t);
        return -1;
    }
    *out = (size_t)d;
    return 0;
}

static int launch_of(const tune_space *sp, const uint32_t *idx, t1_arena *arena, size_t global[3],
                     size_t local[3], char *err, size_t cap)
{
    const t1_spec *s = sp->spec;
    t1_value slots[T1_SPEC_PARAMS_MAX + 1], prob[3];
    tune_space_bind(sp, idx, slots, prob);
    static const char *const dim[3] = {"X", "Y", "Z"};
    for (unsigned d = 0; d < 3; d++) {
        global[d] = local[d] = 1;
        if (d >= s->dims)
            continue;
        char f[32];
        bfmt(f, sizeof f, "GlobalSize.%s", dim[d]);
        if (eval_dim(s->global[d], f, slots, arena, &global[d], err, cap) != 0)
            return -1;
        if (s->local[d]) {
            bfmt(f, sizeof f, "LocalSize.%s", dim[d]);
            if (eval_dim(s->local[d], f, slots, arena, &local[d], err, cap) != 0)
                return -1;
        }
        if (global[d] % local[d] != 0) {
            bfmt(err, cap, "KernelSpecification.GlobalSize.%s: %zu is not a multiple of "
                 "LocalSize.%s %zu (OpenCL 1.2 launches whole work-groups)",
                 dim[d], global[d], dim[d], local[d]);
            return -1;
        }
    }
    return 0;
}

int tune_space_launch(const tune_space *sp, uint64_t raw, size_t global[3], size_t local[3],
                      char *err, size_t cap)
{
    uint32_t idx[T1_SPEC_PARAMS_MAX];
    tune_space_decode(sp, raw, idx);
    t1_arena arena = {0};
    int rc = launch_of(sp, idx, &arena, global, local, err, cap);
    t1_arena_free(&arena);
    return rc;
}

/* The walk's state: the conditions due at each depth. */
typedef struct walk {
    tune_space *sp;
    size_t **due;          /* per depth: condition indices, ended by SIZE_MAX */
    uint32_t idx[T1_SPEC_PARAMS_MAX];
    t1_value slots[T1_SPEC_PARAMS_MAX + 1];
    t1_value prob[3];
    t1_arena arena;
    char *err;
} walk;

static int add_valid(walk *w)
{
    tune_space *sp = w->sp;
    if (sp->n_valid == sp->cap_valid) {
        if (sp->n_valid >= TUNE_SPACE_VALID_MAX) {
            bfmt(w->err, TUNE_SPACE_ERR_MAX, "ConfigurationSpace: more than %u valid "
                 "configurations; add conditions, or split the space into several specs",
                 TUNE_SPACE_VALID_MAX);
            return -1;
        }
        size_t cap = sp->cap_valid ? sp->cap_valid * 2 : 1024;
        uint64_t *grown = realloc(sp->valid, cap * sizeof *grown);
        if (!grown) {
            bfmt(w->err, TUNE_SPACE_ERR_MAX, "ConfigurationSpace: out of memory at %zu valid "
                 "configurations", sp->n_valid);
            return -1;
        }
        sp->valid = grown;
        sp->cap_valid = cap;
    }
    size_t g[3], l[3];
    char e[600];
    if (launch_of(sp, w->idx, &w->arena, g, l, e, sizeof e) != 0) {
        char *label = tune_space_label(sp, tune_space_encode(sp, w->idx));
        bfmt(w->err, TUNE_SPACE_ERR_MAX, "%s, at %s", e, label ? label : "a configuration");
        free(label);
        return -1;
    }
    sp->valid[sp->n_valid++] = tune_space_encode(sp, w->idx);
    return 0;
}

static int descend(walk *w, size_t depth)
{
    const t1_spec *s = w->sp->spec;
    const t1_param *p = &s->params[depth];
    for (uint32_t i = 0; i < p->n_values; i++) {
        if (++w->sp->visits > TUNE_SPACE_VISITS_MAX) {
            bfmt(w->err, TUNE_SPACE_ERR_MAX, "ConfigurationSpace: more than %llu partial "
                 "combinations tried; the conditions prune too little for a space of %llu",
                 (unsigned long long)TUNE_SPACE_VISITS_MAX, (unsigned long long)w->sp->n_raw);
            return -1;
        }
        w->idx[depth] = i;
        w->slots[depth] = p->values[i];
        int ok = 1;
        for (const size_t *c = w->due[depth]; ok && *c != SIZE_MAX; c++) {
            t1_value v;
            char e[T1_EXPR_ERR_MAX];
            t1_arena_reset(&w->arena);
            if (t1_expr_eval(s->conditions[*c].expr, w->slots, &w->arena, &v, e, sizeof e) != 0) {
                char *label = tune_space_label(w->sp, tune_space_encode(w->sp, w->idx));
                bfmt(w->err, TUNE_SPACE_ERR_MAX, "ConfigurationSpace.Conditions[%zu].Expression: "
                     "%s (with %s)", *c, e, label ? label : "?");
                free(label);
                return -1;
            }
            ok = t1_value_truth(&v);
        }
        if (!ok)
            continue;
        int rc = depth + 1 == s->n_params ? add_valid(w) : descend(w, depth + 1);
        if (rc != 0)
            return rc;
    }
    /* Deeper indices are stale once this level is done: reset for labels. */
    w->idx[depth] = 0;
    return 0;
}

int tune_space_build(tune_space *sp, const t1_spec *s, char err[TUNE_SPACE_ERR_MAX])
{
    memset(sp, 0, sizeof *sp);
    sp->spec = s;
    size_t np = s->n_params;
    sp->stride = calloc(np, sizeof *sp->stride);
    walk w = {sp, calloc(np, sizeof *w.due), {0}, {{0}}, {{0}}, {0}, err};
    int rc = -1;
    if (!sp->stride || !w.due) {
        bfmt(err, TUNE_SPACE_ERR_MAX, "out of memory");
        goto out;
    }
    uint64_t stride = 1;
    for (size_t k = np; k-- > 0;) {
        sp->stride[k] = stride;
        if (__builtin_mul_overflow(stride, (uint64_t)s->params[k].n_values, &stride) ||
            stride > (1ull << 62)) {
            bfmt(err, TUNE_SPACE_ERR_MAX, "ConfigurationSpace: more than 2^62 raw combinations");
            goto out;
        }
    }
    sp->n_raw = stride;
    for (size_t d = 0; d < np; d++) {
        size_t n = 0;
        for (size_t c = 0; c < s->n_conditions; c++)
            n += s->conditions[c].deepest == d;
        w.due[d] = malloc((n + 1) * sizeof **w.due);
        if (!w.due[d]) {
            bfmt(err, TUNE_SPACE_ERR_MAX, "out of memory");
            goto out;
        }
        n = 0;
        for (size_t c = 0; c < s->n_conditions; c++)
            if (s->conditions[c].deepest == d)
                w.due[d][n++] = c;
        w.due[d][n] = SIZE_MAX;
    }
    for (size_t k = 0; k < s->n_problem; k++)
        w.prob[k] = (t1_value){.type = T1_INT, .i = s->problem[k]};
    w.slots[np] = (t1_value){.type = T1_LIST, .len = s->n_problem, .items = w.prob};
    rc = descend(&w, 0);
    if (rc == 0 && sp->n_valid == 0) {
        bfmt(err, TUNE_SPACE_ERR_MAX, "ConfigurationSpace: no configuration meets the "
             "conditions (%llu raw combinations)", (unsigned long long)sp->n_raw);
        rc = -1;
    }
out:
    if (w.due)
        for (size_t d = 0; d < np; d++)
            free(w.due[d]);
    free(w.due);
    t1_arena_free(&w.arena);
    if (rc != 0)
        tune_space_free(sp);
    return rc;
}

void tune_space_free(tune_space *sp)
{
    free(sp->stride);
    free(sp->valid);
    const t1_spec *s = sp->spec;
    memset(sp, 0, sizeof *sp);
    sp->spec = s;
}

char *tune_space_options(const tune_space *sp, uint64_t raw)
{
    const t1_spec *s = sp->spec;
    uint32_t idx[T1_SPEC_PARAMS_MAX];
    tune_space_decode(sp, raw, idx);
    strbuf b;
    sb_init(&b);
    sb_puts(&b, s->compiler_options);
    for (size_t k = 0; k < s->n_params; k++)
        sb_printf(&b, "%s-D %s=%s", b.len ? " " : "", s->params[k].name, s->params[k].texts[idx[k]]);
    sb_put(&b, "", 1);
    if (b.failed) {
        sb_free(&b);
        return NULL;
    }
    return (char *)b.data;
}

long long tune_space_find_config(const tune_space *sp, const char *text, char *err, size_t cap)
{
    const t1_spec *s = sp->spec;
    uint32_t idx[T1_SPEC_PARAMS_MAX];
    int set[T1_SPEC_PARAMS_MAX] = {0};
    const char *p = text;
    while (*p) {
        const char *eq = strchr(p, '='), *end = strchr(p, ',');
        if (!end)
            end = p + strlen(p);
        if (!eq || eq > end) {
            bfmt(err, cap, "--reference %s: expected NAME=VALUE,... (every parameter once)", text);
            return -1;
        }
        int k = t1_spec_param_index(s, p, (size_t)(eq - p));
        if (k < 0) {
            bfmt(err, cap, "--reference: '%.*s' is not a parameter of the spec", (int)(eq - p), p);
            return -1;
        }
        const t1_param *pr = &s->params[k];
        size_t vlen = (size_t)(end - eq - 1);
        size_t i = 0;
        while (i < pr->n_values && !(strlen(pr->texts[i]) == vlen && memcmp(pr->texts[i], eq + 1, vlen) == 0))
            i++;
        if (i == pr->n_values) {
            bfmt(err, cap, "--reference: %s=%.*s is not one of its values", pr->name, (int)vlen, eq + 1);
            return -1;
        }
        idx[k] = (uint32_t)i;
        set[k] = 1;
        p = *end ? end + 1 : end;
    }
    for (size_t k = 0; k < s->n_params; k++)
        if (!set[k]) {
            bfmt(err, cap, "--reference: %s is not given (name every parameter)", s->params[k].name);
            return -1;
        }
    long long pos = tune_space_find(sp, tune_space_encode(sp, idx));
    if (pos < 0)
        bfmt(err, cap, "--reference %s: that configuration does not meet the conditions", text);
    return pos;
}
