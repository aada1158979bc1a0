/* direct_jobs.c — programs and variants from the command line (direct_jobs.h).
 *
 * A variant is a define set and a work-group size. The define sets are the
 * cartesian product of the -D lists, the first -D varying slowest; with
 * --variant, each explicit set combined with the product of the -D lists
 * whose names it does not give. Derives are computed in the order given
 * (each may use the defines and the derives before it), then every --where
 * must hold, then the work-group: the --wg list, or the --wg expressions
 * evaluated for the variant. Options are the defines in name order, then
 * the work-group defines (--wg-defines), then --options: a function of the
 * variant alone, so the pack is reproducible.
 */
#include "direct_jobs.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bounded_fmt.h"
#include "clcpack.h"
#include "define_value.h"
#include "expr.h"
#include "build_options.h"
#include "job_index.h"
#include "path.h"
#include "source_fold.h"
#include "value_list.h"

#define WG_DIM_MAX 65536
/* A variant's build options, the NUL included (docs/LIMITS.md). */
#define OPTION_MAX (1u << 20)

/* One define of a variant being made. */
typedef struct dset_item {
    const char *name;
    const char *value;     /* "" for a bare define */
    int is_derive;
} dset_item;

typedef struct dset {
    size_t n, cap;
    dset_item *items;
    char **owned;          /* derive values printed here */
    size_t n_owned;
} dset;

/* The variants being made: of the whole spec (s, the job index, the
 * count) and of the program at hand (its joined axes, ax, parsed). */
typedef struct plan {
    const direct_jobs_spec *s;
    const direct_axes *ax;
    define_value_define *axes;
    size_t n_axes;
    define_value_variant *variants;
    size_t n_variants;
    define_value_variant *defaults;
    size_t n_defaults;
    define_value_derive *derives;
    size_t n_derives;
    /* --wg: a literal list, or one expression per dimension. */
    value_list wg_list;
    int wg_is_expr;
    size_t wg_dims;
    char *wg_expr[3];
    size_t *skipped_by;    /* per --where of ax */
    size_t n_made;
    char *err;
    job_index made;        /* the jobs of out, to find a variant made twice */
} plan;

static int usage(plan *p, const char *fmt, ...) BFMT_PRINTF(2, 3);
static int usage(plan *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err, DIRECT_JOBS_ERR_MAX, fmt, ap);
    va_end(ap);
    return 2;
}

static int failure(plan *p, const char *fmt, ...) BFMT_PRINTF(2, 3);
static int failure(plan *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err, DIRECT_JOBS_ERR_MAX, fmt, ap);
    va_end(ap);
    return 1;
}

/* --- define sets ------------------------------------------------------ */

static int dset_put(dset *d, const char *name, const char *value, int is_derive)
{
    for (size_t i = 0; i < d->n; i++)
        if (strcmp(d->items[i].name, name) == 0) {
            d->items[i].value = value;
            d->items[i].is_derive = is_derive;
            return 0;
        }
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 16;
        dset_item *g = realloc(d->items, cap * sizeof *g);
        if (!g)
            return -1;
        d->items = g;
        d->cap = cap;
    }
    d->items[d->n++] = (dset_item){name, value, is_derive};
    return 0;
}

static void dset_clear_owned(dset *d)
{
    for (size_t i = 0; i < d->n_owned; i++)
        free(d->owned[i]);
    free(d->owned);
    d->owned = NULL;
    d->n_owned = 0;
}

static void dset_free(dset *d)
{
    dset_clear_owned(d);
    free(d->items);
    memset(d, 0, sizeof *d);
}

/* The macro name of a define: "MOD2" of "MOD2(x,y)". */
static size_t macro_len(const char *name) { return strcspn(name, "("); }

/* A value as an integer, as the preprocessor would read it: decimal or 0x
 * hexadecimal, an optional sign, optional u/l suffixes. */
static int parse_int(const char *v, int64_t *out)
{
    const char *p = v;
    int neg = 0;
    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    int base = 10;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    if (!*p)
        return -1;
    errno = 0;
    char *end;
    unsigned long long u = strtoull(p, &end, base);
    if (end == p || errno == ERANGE)
        return -1;
    while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
        end++;
    if (*end)
        return -1;
    if (u > (unsigned long long)INT64_MAX + (unsigned long long)neg)
        return -1;
    *out = neg ? (int64_t)(0 - u) : (int64_t)u;
    return 0;
}

typedef struct lookup_ctx {
    const dset *d;
    const char *bad_name;  /* a define used that is not a number */
    size_t bad_len;
} lookup_ctx;

static int lookup(void *ctx, const char *name, size_t len, int64_t *value)
{
    lookup_ctx *l = ctx;
    for (size_t i = 0; i < l->d->n; i++) {
        const char *n = l->d->items[i].name;
        if (macro_len(n) != len || memcmp(n, name, len) != 0 || n[len] == '(')
            continue;
        if (parse_int(l->d->items[i].value, value) == 0)
            return 1;
        l->bad_name = name;
        l->bad_len = len;
        return 0;
    }
    return -1;
}

/* Evaluates text over d. 0 with *v; else a usage error in p->err naming
 * `what` (e.g. "--where 'TS % WPT == 0'") and the variant. */
static int eval_in(plan *p, const dset *d, const char *what, const char *text, int64_t *v,
                   const char *label)
{
    lookup_ctx l = {d, NULL, 0};
    char why[EXPR_ERR_MAX];
    int rc = expr_eval(text, EXPR_EVALUATE, lookup, &l, v, why, sizeof why);
    if (rc == 0)
        return 0;
    if (rc > 0)
        return usage(p, "%s: %.*s is not a number in variant %s", what, (int)l.bad_len,
                      l.bad_name ? l.bad_name : "?", label);
    return usage(p, "%s: %s (variant %s)", what, why, label);
}

static void dset_label(const dset *d, const uint32_t wg[3], char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < d->n && len + 1 < cap; i++) {
        const dset_item *it = &d->items[i];
        bfmt(buf + len, cap - len, "%s%s%s%s", len ? "," : "", it->name, it->value[0] ? "=" : "",
             it->value);
        len += strlen(buf + len);
    }
    if (wg && wg[0] && len + 1 < cap) {
        char w[48];
        build_job_wg_text(wg, w, sizeof w);
        bfmt(buf + len, cap - len, "%swg=%s", len ? " " : "", w);
    }
    if (!buf[0])
        bfmt(buf, cap, "(no defines)");
}

/* --- options ---------------------------------------------------------- */

static int cmp_item(const void *a, const void *b)
{
    return strcmp(((const dset_item *)a)->name, ((const dset_item *)b)->name);
}

/* --- one program ------------------------------------------------------ */

typedef struct program {
    const char *name;
    const char *const *files;
    size_t n_files;
    source_fold_result folded;
    char *source_name;
} program;

static int matches_default(const plan *p, const dset *d, const uint32_t wg[3])
{
    for (size_t k = 0; k < p->n_defaults; k++) {
        const define_value_variant *dv = &p->defaults[k];
        size_t i;
        for (i = 0; i < dv->n; i++) {
            const define_value_item *it = &dv->items[i];
            if (strcmp(it->name, "WG") == 0) {
                char w[48];
                build_job_wg_text(wg, w, sizeof w);
                if (!it->value || strcmp(it->value, w) != 0)
                    break;
                continue;
            }
            size_t j = 0;
            while (j < d->n && strcmp(d->items[j].name, it->name) != 0)
                j++;
            if (j == d->n || strcmp(d->items[j].value, it->value ? it->value : "") != 0)
                break;
        }
        if (i == dv->n)
            return 1;
    }
    return 0;
}

/* Makes the job of one complete variant (defines and derives in d). */
static int add_job(plan *p, program *pr, dset *d, const uint32_t wg[3], build_job_list *out)
{
    if (p->n_made >= DIRECT_JOBS_MAX_VARIANTS)
        return usage(p, "more than %d variants: narrow the -D lists or add --where",
                     DIRECT_JOBS_MAX_VARIANTS);
    dset sorted = *d;
    sorted.items = malloc((d->n ? d->n : 1) * sizeof *sorted.items);
    if (!sorted.items)
        return failure(p, "out of memory");
    if (d->n) /* no define at all: d->items may be NULL */
        memcpy(sorted.items, d->items, d->n * sizeof *d->items);
    qsort(sorted.items, d->n, sizeof *sorted.items, cmp_item);
    const char **names = malloc((d->n ? d->n : 1) * sizeof *names);
    const char **values = malloc((d->n ? d->n : 1) * sizeof *values);
    for (size_t i = 0; names && values && i < d->n; i++) {
        names[i] = sorted.items[i].name;
        values[i] = sorted.items[i].value;
    }
    /* The same define set twice (explicit variants that overlap): once. */
    int seen = names && values
                   ? job_index_holds(&p->made, out, pr->name, names, values, d->n, wg)
                   : -1;
    if (seen != 0) {
        free(sorted.items);
        free(names);
        free(values);
        return seen < 0 ? failure(p, "out of memory") : 0;
    }
    build_options ob;
    build_options_init(&ob, OPTION_MAX);
    for (size_t i = 0; i < d->n; i++)
        build_options_define(&ob, sorted.items[i].name,
                             sorted.items[i].value[0] ? sorted.items[i].value : NULL);
    if (p->s->wg_defines && wg[0])
        build_options_wg(&ob, wg, wg[1] == 0 ? 1 : wg[2] == 0 ? 2 : 3);
    if (p->s->options && p->s->options[0])
        build_options_add(&ob, p->s->options);
    char *options = NULL;
    int too_long = build_options_take(&ob, &options) != 0 && ob.too_long;
    build_job *j = options ? build_job_list_add(out) : NULL;
    if (!j) {
        free(sorted.items);
        free(names);
        free(values);
        free(options);
        if (too_long)
            return usage(p, "the build options of a variant are longer than %u bytes: fewer or "
                            "shorter -D values, or a shorter --options",
                         OPTION_MAX - 1);
        return failure(p, "out of memory");
    }
    int bad = 0;
    j->options = options;
    j->entry_name = strdup(pr->name);
    j->program_entry = 1;
    j->family = strdup("");
    j->entry_flags = matches_default(p, d, wg) ? CLCPACK_ENTRY_DEFAULT : 0;
    j->source_name = strdup(pr->source_name);
    j->source = malloc(pr->folded.len + 1);
    j->source_size = pr->folded.len;
    j->check = strdup("");
    j->check_cmd = strdup(p->ax->check_cmd ? p->ax->check_cmd : "");
    j->tune_cmd = strdup(p->ax->tune_cmd ? p->ax->tune_cmd : "");
    memcpy(j->wg, wg, sizeof j->wg);
    j->kernels = calloc(p->ax->n_kernels ? p->ax->n_kernels : 1, sizeof *j->kernels);
    bad |= !j->entry_name || !j->family || !j->source_name || !j->source || !j->check ||
           !j->check_cmd || !j->tune_cmd || !j->kernels || build_job_set_defines(j, names, values, d->n) != 0;
    if (!bad) {
        memcpy(j->source, pr->folded.text, pr->folded.len + 1);
        for (size_t k = 0; k < p->ax->n_kernels && !bad; k++) {
            j->kernels[k] = strdup(p->ax->kernels[k]);
            bad = !j->kernels[k];
            j->n_kernels = k + 1;
        }
    }
    free(names);
    free(values);
    free(sorted.items);
    if (bad)
        return failure(p, "out of memory");
    p->n_made++;
    return 0;
}

/* Derives, constraints and work-groups of one define set. */
static int finish_set(plan *p, program *pr, dset *d, build_job_list *out)
{
    char label[1024];
    size_t base = d->n;
    dset_clear_owned(d);
    d->owned = calloc(p->n_derives ? p->n_derives : 1, sizeof *d->owned);
    if (!d->owned)
        return failure(p, "out of memory");
    for (size_t i = 0; i < p->n_derives; i++) {
        dset_label(d, NULL, label, sizeof label);
        char what[EXPR_TEXT_MAX + 64];
        bfmt(what, sizeof what, "--derive '%s=%s'", p->derives[i].name, p->derives[i].expr);
        int64_t v;
        int rc = eval_in(p, d, what, p->derives[i].expr, &v, label);
        if (rc)
            return rc;
        char num[32];
        snprintf(num, sizeof num, "%" PRId64, v);
        d->owned[d->n_owned] = strdup(num);
        if (!d->owned[d->n_owned])
            return failure(p, "out of memory");
        if (dset_put(d, p->derives[i].name, d->owned[d->n_owned++], 1) != 0)
            return failure(p, "out of memory");
    }
    dset_label(d, NULL, label, sizeof label);
    for (size_t i = 0; i < p->ax->n_wheres; i++) {
        char what[EXPR_TEXT_MAX + 32];
        bfmt(what, sizeof what, "--where '%s'", p->ax->wheres[i]);
        int64_t v;
        int rc = eval_in(p, d, what, p->ax->wheres[i], &v, label);
        if (rc)
            return rc;
        if (!v) {
            p->skipped_by[i]++;
            d->n = base;
            return 0;
        }
    }
    int rc = 0;
    if (p->wg_is_expr) {
        uint32_t wg[3] = {0, 0, 0};
        for (size_t k = 0; k < p->wg_dims; k++) {
            char what[EXPR_TEXT_MAX + 32];
            bfmt(what, sizeof what, "--wg '%s'", p->ax->wg);
            int64_t v;
            rc = eval_in(p, d, what, p->wg_expr[k], &v, label);
            if (rc)
                break;
            if (v < 1 || v > WG_DIM_MAX) {
                rc = usage(p, "--wg '%s': dimension %zu is %" PRId64 " in variant %s (1 to %d)",
                           p->ax->wg, k + 1, v, label, WG_DIM_MAX);
                break;
            }
            wg[k] = (uint32_t)v;
        }
        if (!rc) {
            for (size_t k = p->wg_dims; k < 3; k++)
                wg[k] = 1;
            rc = add_job(p, pr, d, wg, out);
        }
    } else if (p->wg_list.n) {
        for (size_t w = 0; w < p->wg_list.n && !rc; w++) {
            uint32_t wg[3];
            for (int k = 0; k < 3; k++) {
                long x = p->wg_list.values[w].v[k];
                wg[k] = (uint32_t)(x < 1 ? 1 : x);
            }
            rc = add_job(p, pr, d, wg, out);
        }
    } else {
        const uint32_t none[3] = {0, 0, 0};
        rc = add_job(p, pr, d, none, out);
    }
    d->n = base;
    return rc;
}

/* The product of the axes from `axis` on, those not fixed by the set. */
static int product(plan *p, program *pr, dset *d, size_t axis, build_job_list *out)
{
    while (axis < p->n_axes) {
        const define_value_define *a = &p->axes[axis];
        size_t k = 0;
        while (k < d->n && strcmp(d->items[k].name, a->name) != 0)
            k++;
        if (k == d->n)
            break;
        axis++; /* given by the explicit variant */
    }
    if (axis == p->n_axes)
        return finish_set(p, pr, d, out);
    const define_value_define *a = &p->axes[axis];
    size_t base = d->n;
    if (a->bare) {
        if (dset_put(d, a->name, "", 0) != 0)
            return failure(p, "out of memory");
        int rc = product(p, pr, d, axis + 1, out);
        d->n = base;
        return rc;
    }
    for (size_t i = 0; i < a->n_values; i++) {
        if (dset_put(d, a->name, a->values[i], 0) != 0)
            return failure(p, "out of memory");
        int rc = product(p, pr, d, axis + 1, out);
        d->n = base;
        if (rc)
            return rc;
    }
    return 0;
}

/* --- parsing ------------------------------------------------------------ */

/* A value of digits, 'x' and commas only is a list of sizes. */
static int is_size_list(const char *s) { return s[strspn(s, "0123456789x, ")] == '\0'; }

/* --wg: numbers only ("16x16,8x8", "64,128") is a list of sizes; a value
 * naming a define ("TS,TS/WPT", "BLOCK_SIZE") is one expression per
 * dimension. */
static int parse_wg(plan *p)
{
    const char *s = p->ax->wg;
    if (!s)
        return 0;
    if (is_size_list(s)) {
        char why[VALUE_LIST_ERR_MAX];
        if (value_list_parse_wgs(s, &p->wg_list, why) != 0)
            return usage(p, "--wg '%s': %s", s, why);
        return 0;
    }
    p->wg_is_expr = 1;
    define_value_span *items = NULL;
    char why[EXPR_ERR_MAX > DEFINE_VALUE_ERR_MAX ? EXPR_ERR_MAX : DEFINE_VALUE_ERR_MAX];
    long n = define_value_split_top(s, &items, "--wg", why, sizeof why);
    if (n < 0)
        return usage(p, "%s", why);
    int rc = 0;
    if (n > 3)
        rc = usage(p, "--wg '%s': more than 3 dimensions", s);
    for (long k = 0; k < n && !rc; k++) {
        char *e = malloc(items[k].len + 1);
        if (!e) {
            rc = failure(p, "out of memory");
            break;
        }
        memcpy(e, items[k].at, items[k].len);
        e[items[k].len] = '\0';
        p->wg_expr[p->wg_dims++] = e;
        if (expr_eval(e, EXPR_CHECK, NULL, NULL, NULL, why, sizeof why) != 0)
            rc = usage(p, "--wg '%s': dimension %zu: %s", s, p->wg_dims, why);
    }
    free(items);
    return rc;
}

/* Every name an expression uses is a -D, a --variant name or an earlier
 * derive; known names are collected here. */
typedef struct names_ctx {
    const plan *p;
    size_t derives_before;
    const char *missing;
    size_t missing_len;
} names_ctx;

static int name_known(void *ctx, const char *name, size_t len)
{
    names_ctx *c = ctx;
    const plan *p = c->p;
    for (size_t i = 0; i < p->n_axes; i++)
        if (macro_len(p->axes[i].name) == len && memcmp(p->axes[i].name, name, len) == 0)
            return 0;
    for (size_t v = 0; v < p->n_variants; v++)
        for (size_t i = 0; i < p->variants[v].n; i++) {
            const char *n = p->variants[v].items[i].name;
            if (macro_len(n) == len && memcmp(n, name, len) == 0)
                return 0;
        }
    for (size_t i = 0; i < c->derives_before; i++)
        if (strlen(p->derives[i].name) == len && memcmp(p->derives[i].name, name, len) == 0)
            return 0;
    c->missing = name;
    c->missing_len = len;
    return 1;
}

static int check_names(plan *p, const char *what, const char *text, size_t derives_before)
{
    names_ctx c = {p, derives_before, NULL, 0};
    char why[EXPR_ERR_MAX];
    int rc = expr_names(text, name_known, &c, why, sizeof why);
    if (rc < 0)
        return usage(p, "%s: %s", what, why);
    if (rc > 0)
        return usage(p, "%s: %.*s is not a define (-D, --variant) or an earlier --derive", what,
                     (int)c.missing_len, c.missing);
    return 0;
}

static int parse_all(plan *p)
{
    const direct_axes *s = p->ax;
    char why[DEFINE_VALUE_ERR_MAX];
    p->axes = calloc(s->n_defines ? s->n_defines : 1, sizeof *p->axes);
    p->variants = calloc(s->n_variants ? s->n_variants : 1, sizeof *p->variants);
    p->defaults = calloc(s->n_defaults ? s->n_defaults : 1, sizeof *p->defaults);
    p->derives = calloc(s->n_derives ? s->n_derives : 1, sizeof *p->derives);
    p->skipped_by = calloc(s->n_wheres ? s->n_wheres : 1, sizeof *p->skipped_by);
    if (!p->axes || !p->variants || !p->defaults || !p->derives || !p->skipped_by)
        return failure(p, "out of memory");
    for (size_t i = 0; i < s->n_defines; i++) {
        if (define_value_parse_define(s->defines[i], &p->axes[i], why, sizeof why) != 0)
            return usage(p, "%s", why);
        p->n_axes = i + 1;
        for (size_t k = 0; k < i; k++)
            if (macro_len(p->axes[k].name) == macro_len(p->axes[i].name) &&
                memcmp(p->axes[k].name, p->axes[i].name, macro_len(p->axes[i].name)) == 0)
                return usage(p, "-D %s: %.*s is already given by -D %s", s->defines[i],
                             (int)macro_len(p->axes[i].name), p->axes[i].name, s->defines[k]);
    }
    for (size_t i = 0; i < s->n_variants; i++) {
        if (define_value_parse_variant(s->variants[i], &p->variants[i], why, sizeof why) != 0)
            return usage(p, "%s", why);
        p->n_variants = i + 1;
    }
    for (size_t i = 0; i < s->n_defaults; i++) {
        if (define_value_parse_variant(s->defaults[i], &p->defaults[i], why, sizeof why) != 0)
            return usage(p, "--default: %s", why);
        p->n_defaults = i + 1;
    }
    for (size_t i = 0; i < s->n_derives; i++) {
        if (define_value_parse_derive(s->derives[i], &p->derives[i], why, sizeof why) != 0)
            return usage(p, "%s", why);
        p->n_derives = i + 1;
    }
    for (size_t i = 0; i < s->n_derives; i++) {
        char what[EXPR_TEXT_MAX + 64];
        bfmt(what, sizeof what, "--derive '%s'", s->derives[i]);
        int rc = check_names(p, what, p->derives[i].expr, i);
        if (rc)
            return rc;
    }
    /* A --default naming no define marks nothing, silently: refused, as
     * --where's names are, on a fresh build and a reused pack alike. */
    for (size_t i = 0; i < p->n_defaults; i++)
        for (size_t k = 0; k < p->defaults[i].n; k++) {
            const char *name = p->defaults[i].items[k].name;
            names_ctx c = {p, p->n_derives, NULL, 0};
            if (strcmp(name, "WG") != 0 && name_known(&c, name, strlen(name)) != 0)
                return usage(p, "--default '%s': %s is not a define (-D, --variant), a "
                                "--derive or WG", s->defaults[i], name);
        }
    for (size_t i = 0; i < s->n_wheres; i++) {
        char what[EXPR_TEXT_MAX + 64];
        bfmt(what, sizeof what, "--where '%s'", s->wheres[i]);
        int rc = check_names(p, what, s->wheres[i], p->n_derives);
        if (rc)
            return rc;
    }
    int rc = parse_wg(p);
    if (rc)
        return rc;
    for (size_t k = 0; k < p->wg_dims; k++) {
        char what[EXPR_TEXT_MAX + 64];
        bfmt(what, sizeof what, "--wg '%s'", s->wg);
        rc = check_names(p, what, p->wg_expr[k], p->n_derives);
        if (rc)
            return rc;
    }
    return 0;
}

/* "sobel" of "src/sobel.cl": the file name without folders and extension. */
static char *program_name_of(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strcspn(base, ".");
    if (n == 0)
        n = strlen(base);
    char *name = malloc(n + 1);
    if (name) {
        memcpy(name, base, n);
        name[n] = '\0';
    }
    return name;
}

static int fold_program(plan *p, program *pr)
{
    const direct_jobs_spec *s = p->s;
    size_t n_roots = pr->n_files + s->n_includes + 1;
    char **roots = calloc(n_roots, sizeof *roots);
    if (!roots)
        return failure(p, "out of memory");
    size_t nr = 0;
    int oom = 0;
    for (size_t i = 0; i < pr->n_files && !oom; i++)
        oom = !(roots[nr++] = clcpk_parent_dir(pr->files[i]));
    for (size_t i = 0; i < s->n_includes && !oom; i++)
        oom = !(roots[nr++] = strdup(s->includes[i]));
    if (!oom)
        oom = !(roots[nr++] = strdup("."));
    int rc = 0;
    if (oom) {
        rc = failure(p, "out of memory");
    } else {
        source_fold_options o;
        memset(&o, 0, sizeof o);
        o.sources = pr->files;
        o.n_sources = pr->n_files;
        o.include_dirs = s->includes;
        o.n_include_dirs = s->n_includes;
        o.roots = (const char *const *)roots;
        o.n_roots = nr;
        o.roots_what = "the sources' folders, the -I folders and the current folder";
        o.line_at_start = 1;
        char why[SOURCE_FOLD_ERR_MAX];
        if (source_fold(&o, &pr->folded, why, sizeof why) != 0) {
            /* The message names the file; a program of several names itself too. */
            if (pr->n_files > 1)
                rc = failure(p, "program %s: %s", pr->name, why);
            else
                rc = failure(p, "%s", why);
        }
    }
    for (size_t i = 0; i < nr; i++)
        free(roots[i]);
    free(roots);
    if (rc)
        return rc;
    /* The source table's name: the files, joined. */
    size_t len = 1;
    for (size_t i = 0; i < pr->n_files; i++)
        len += strlen(pr->files[i]) + 1;
    pr->source_name = malloc(len);
    if (!pr->source_name)
        return failure(p, "out of memory");
    pr->source_name[0] = '\0';
    for (size_t i = 0; i < pr->n_files; i++) {
        if (i)
            strcat(pr->source_name, "+");
        strcat(pr->source_name, pr->files[i]);
    }
    return 0;
}

static int make_program(plan *p, program *pr, build_job_list *out)
{
    int rc = fold_program(p, pr);
    if (rc)
        return rc;
    for (size_t i = 0; i < pr->folded.n_files; i++)
        build_job_list_add_read(out, pr->folded.files[i]); /* for --depfile */
    dset d = {0};
    if (p->n_variants == 0) {
        rc = product(p, pr, &d, 0, out);
    } else {
        for (size_t v = 0; v < p->n_variants && !rc; v++) {
            d.n = 0;
            const define_value_variant *dv = &p->variants[v];
            for (size_t i = 0; i < dv->n && !rc; i++)
                if (dset_put(&d, dv->items[i].name, dv->items[i].value ? dv->items[i].value : "",
                             0) != 0)
                    rc = failure(p, "out of memory");
            if (!rc)
                rc = product(p, pr, &d, 0, out);
        }
    }
    dset_free(&d);
    return rc;
}

/* Frees what parse_all made of a program's axes, for the next program. */
static void free_program_axes(plan *p)
{
    for (size_t i = 0; i < p->n_axes; i++)
        define_value_define_free(&p->axes[i]);
    for (size_t i = 0; i < p->n_variants; i++)
        define_value_variant_free(&p->variants[i]);
    for (size_t i = 0; i < p->n_defaults; i++)
        define_value_variant_free(&p->defaults[i]);
    for (size_t i = 0; i < p->n_derives; i++)
        define_value_derive_free(&p->derives[i]);
    free(p->axes);
    free(p->variants);
    free(p->defaults);
    free(p->derives);
    free(p->skipped_by);
    for (size_t k = 0; k < p->wg_dims; k++)
        free(p->wg_expr[k]);
    p->axes = NULL;
    p->variants = p->defaults = NULL;
    p->derives = NULL;
    p->skipped_by = NULL;
    p->n_axes = p->n_variants = p->n_defaults = p->n_derives = p->wg_dims = 0;
    p->wg_list.n = 0;
    p->wg_is_expr = 0;
    p->ax = NULL;
}

static int valid_program_name(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.'))
            return 0;
    }
    return 1;
}

/* Splits "NAME=a.h,b.cl" into pr (strings malloc'd into *owned). */
static int parse_program(plan *p, const char *arg, program *pr, char ***owned, size_t *n_owned)
{
    const char *eq = strchr(arg, '=');
    if (!eq || !valid_program_name(arg, (size_t)(eq - arg)))
        return usage(p, "--program '%s': expected NAME=FILE1,FILE2 with NAME of letters, "
                        "digits, '_', '-' and '.'",
                     arg);
    size_t count = 1;
    for (const char *c = eq + 1; *c; c++)
        count += *c == ',';
    char **parts = calloc(count + 1, sizeof *parts);
    if (!parts)
        return failure(p, "out of memory");
    parts[0] = malloc((size_t)(eq - arg) + 1);
    if (!parts[0]) {
        free(parts);
        return failure(p, "out of memory");
    }
    memcpy(parts[0], arg, (size_t)(eq - arg));
    parts[0][eq - arg] = '\0';
    const char *start = eq + 1;
    size_t n = 1;
    for (const char *c = start;; c++) {
        if (*c != ',' && *c)
            continue;
        size_t len = (size_t)(c - start);
        if (len == 0) {
            for (size_t i = 0; i < n; i++)
                free(parts[i]);
            free(parts);
            return usage(p, "--program '%s': an empty file name", arg);
        }
        parts[n] = malloc(len + 1);
        if (!parts[n]) {
            for (size_t i = 0; i < n; i++)
                free(parts[i]);
            free(parts);
            return failure(p, "out of memory");
        }
        memcpy(parts[n], start, len);
        parts[n][len] = '\0';
        n++;
        if (!*c)
            break;
        start = c + 1;
    }
    pr->name = parts[0];
    pr->files = (const char *const *)(parts + 1);
    pr->n_files = n - 1;
    *owned = parts;
    *n_owned = n;
    return 0;
}

/* An -I folder must be one: #include would skip a missing one without a
 * word, and the typo would show only as a header not found, or not at all
 * when another folder holds a header of that name. */
static int check_include_dir(plan *p, const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        return usage(p, "-I %s: %s", dir, errno == ENOENT ? "no such folder" : strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return usage(p, "-I %s: not a folder", dir);
    return 0;
}

void direct_jobs_program_label(const direct_program *p, char *buf, size_t cap)
{
    if (p->file)
        bfmt(buf, cap, "%s", p->file);
    else
        bfmt(buf, cap, "program %.*s", (int)strcspn(p->program, "="), p->program);
}

/* What the --where constraints skipped, over every program: one note
 * for each of every program's, one for each of a program's own. */
typedef struct where_note {
    const char *where;
    char scope[300];       /* "" for every program's, else the program's label */
    size_t skipped;
} where_note;

typedef struct where_notes {
    where_note *at;
    size_t n;
} where_notes;

/* Counts what the program's constraints (p->ax->wheres, the first n_all
 * of them every program's) skipped. -1 when out of memory. */
static int count_skipped(const plan *p, size_t n_all, const char *label, where_notes *w)
{
    for (size_t i = 0; i < p->ax->n_wheres; i++) {
        const char *scope = i < n_all ? "" : label;
        size_t k = 0;
        while (k < w->n && !(w->at[k].where == p->ax->wheres[i] && strcmp(w->at[k].scope, scope) == 0))
            k++;
        if (k == w->n) {
            where_note *g = realloc(w->at, (w->n + 1) * sizeof *g);
            if (!g)
                return -1;
            w->at = g;
            memset(&g[k], 0, sizeof g[k]);
            g[k].where = p->ax->wheres[i];
            bfmt(g[k].scope, sizeof g[k].scope, "%s", scope);
            w->n++;
        }
        w->at[k].skipped += p->skipped_by[i];
    }
    return 0;
}

/* "note: --where '...' skipped N variants" lines into out->notes. */
static int add_where_notes(const where_notes *w, build_job_list *out)
{
    for (size_t i = 0; i < w->n; i++) {
        if (!w->at[i].skipped)
            continue;
        char line[EXPR_TEXT_MAX + 512];
        bfmt(line, sizeof line, "note: %s%s--where '%s' skipped %zu variant%s\n", w->at[i].scope,
             w->at[i].scope[0] ? ": " : "", w->at[i].where, w->at[i].skipped,
             w->at[i].skipped == 1 ? "" : "s");
        size_t old = out->notes ? strlen(out->notes) : 0;
        char *g = realloc(out->notes, old + strlen(line) + 1);
        if (!g)
            return -1;
        memcpy(g + old, line, strlen(line) + 1);
        out->notes = g;
    }
    return 0;
}

/* One program's variants appended to out: its axes joined and parsed,
 * then expanded. A usage error names the program when there are several
 * or when it has axes of its own. */
static int make_one(plan *p, const direct_program *dp, program *pr, size_t n_prog,
                    where_notes *notes, build_job_list *out)
{
    direct_axes ax;
    if (direct_axes_join(&p->s->all, &dp->own, &ax) != 0)
        return failure(p, "out of memory");
    p->ax = &ax;
    int rc = parse_all(p);
    if (!rc)
        rc = make_program(p, pr, out);
    char label[300];
    direct_jobs_program_label(dp, label, sizeof label);
    if (!rc && count_skipped(p, p->s->all.n_wheres, label, notes) != 0)
        rc = failure(p, "out of memory");
    if (rc == 2 && (n_prog > 1 || !direct_axes_empty(&dp->own))) {
        char why[DIRECT_JOBS_ERR_MAX];
        bfmt(why, sizeof why, "%s", p->err);
        bfmt(p->err, DIRECT_JOBS_ERR_MAX, "%s: %s", label, why);
    }
    free_program_axes(p);
    direct_axes_free_join(&ax);
    return rc;
}

int direct_jobs_make(const direct_jobs_spec *s, build_job_list *out, char err[DIRECT_JOBS_ERR_MAX])
{
    plan p;
    memset(&p, 0, sizeof p);
    p.s = s;
    p.err = err;
    err[0] = '\0';
    size_t n_prog = s->n_programs;
    program *progs = calloc(n_prog ? n_prog : 1, sizeof *progs);
    /* The source files' programs first, then the --program ones. */
    const direct_program **order = calloc(n_prog ? n_prog : 1, sizeof *order);
    char ***owned = calloc(n_prog ? n_prog : 1, sizeof *owned);
    size_t *n_owned = calloc(n_prog ? n_prog : 1, sizeof *n_owned);
    char **names = calloc(n_prog ? n_prog : 1, sizeof *names);
    where_notes notes = {NULL, 0};
    int rc = 0;
    if (!progs || !order || !owned || !n_owned || !names)
        rc = failure(&p, "out of memory");
    if (!rc && n_prog == 0)
        rc = usage(&p, "no source file given");
    for (size_t i = 0; i < s->n_includes && !rc; i++)
        rc = check_include_dir(&p, s->includes[i]);
    size_t n_order = 0;
    for (int pass = 0; pass < 2 && !rc; pass++)
        for (size_t i = 0; i < n_prog; i++)
            if ((s->programs[i].file != NULL) == (pass == 0))
                order[n_order++] = &s->programs[i];
    for (size_t i = 0; i < n_order && !rc; i++) {
        const direct_program *dp = order[i];
        if (dp->file) {
            names[i] = program_name_of(dp->file);
            if (!names[i]) {
                rc = failure(&p, "out of memory");
                break;
            }
            progs[i].name = names[i];
            progs[i].files = &dp->file;
            progs[i].n_files = 1;
        } else {
            rc = parse_program(&p, dp->program, &progs[i], &owned[i], &n_owned[i]);
        }
    }
    for (size_t i = 0; i < n_prog && !rc; i++)
        for (size_t k = 0; k < i; k++)
            if (strcmp(progs[i].name, progs[k].name) == 0) {
                rc = usage(&p, "two programs are named %s (%s and %s): name one with --program "
                               "NAME=FILE",
                           progs[i].name, progs[k].files[0], progs[i].files[0]);
                break;
            }
    for (size_t i = 0; i < n_prog && !rc; i++)
        rc = make_one(&p, order[i], &progs[i], n_prog, &notes, out);
    if (!rc && add_where_notes(&notes, out) != 0)
        rc = failure(&p, "out of memory");
    if (!rc && out->n == 0)
        rc = usage(&p, "no variant is left to build (every one failed a --where)");
    for (size_t i = 0; i < n_prog; i++) {
        if (progs)
            source_fold_result_free(&progs[i].folded);
        if (progs)
            free(progs[i].source_name);
        if (names)
            free(names[i]);
        for (size_t k = 0; owned && n_owned && k < n_owned[i]; k++)
            free(owned[i][k]);
        if (owned)
            free(owned[i]);
    }
    free(progs);
    free(order);
    free(owned);
    free(n_owned);
    free(names);
    free(notes.at);
    job_index_free(&p.made);
    return rc;
}
