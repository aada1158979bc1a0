/*
 * manifest_expand.c — a kernel and a selection to build variants
 * (manifest_expand in manifest.h; rules in docs/MANIFEST.md).
 *
 * The variants are the cartesian product of the kernel's axes in manifest
 * order, the first axis varying slowest, values in the order given (the
 * selection's, else the defaults'). Each variant's defines are its axis
 * values (not WG) and the derives that can be computed, sorted by name; the
 * options string is built from them, so it is a function of the variant
 * alone and reproducible.
 */
#include "manifest.h"

#include "bounded_fmt.h"
#include "build_options.h"
#include "expr.h"
#include "value_list.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Far more variants than any pack holds; beyond it a selection is a
 * mistake. */
#define MANIFEST_MAX_VARIANTS 100000

static int same_wg(const manifest_value *a, const manifest_value *b)
{
    for (int d = 0; d < 3; d++) {
        long x = a->v[d] < 1 ? 1 : a->v[d], y = b->v[d] < 1 ? 1 : b->v[d];
        if (x != y)
            return 0;
    }
    return 1;
}

static int value_allowed(const manifest_axis *a, const manifest_value *val)
{
    for (size_t i = 0; i < a->n_allowed; i++)
        if (a->is_wg ? same_wg(&a->allowed[i], val) : a->allowed[i].v[0] == val->v[0])
            return 1;
    return 0;
}

void manifest_format_value(const manifest_axis *a, const manifest_value *v, char *buf, size_t cap)
{
    if (a->is_wg)
        value_list_format_wg(v->v, buf, cap);
    else
        bfmt(buf, cap, "%ld", v->v[0]);
}

/* Allowed values for a message; runs of one step as A-B:S. */
void manifest_format_allowed(const manifest_axis *a, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < a->n_allowed && len + 1 < cap;) {
        char item[64];
        size_t j = i;
        if (!a->is_wg) {
            long step = i + 1 < a->n_allowed ? a->allowed[i + 1].v[0] - a->allowed[i].v[0] : 0;
            while (step > 0 && j + 1 < a->n_allowed &&
                   a->allowed[j + 1].v[0] - a->allowed[j].v[0] == step)
                j++;
            if (j - i < 2)
                j = i;
            else if (step == 1)
                bfmt(item, sizeof item, "%ld-%ld", a->allowed[i].v[0], a->allowed[j].v[0]);
            else
                bfmt(item, sizeof item, "%ld-%ld:%ld", a->allowed[i].v[0], a->allowed[j].v[0],
                     step);
        }
        if (j == i)
            manifest_format_value(a, &a->allowed[i], item, sizeof item);
        bfmt(buf + len, cap - len, "%s%s", i ? "," : "", item);
        len = strlen(buf);
        i = j + 1;
    }
}

/* A 1-D work-group (N, or Nx1) given for every kernel is meant for the 1-D
 * ones, a 2-D one for the 2-D ones: a kernel ignores selected work-groups of
 * the other kind (a 2-D kernel keeps Nx1 when it allows it). */
static int wg_applies(const manifest_kernel *k, const manifest_axis *a, const manifest_value *val)
{
    int one_d = val->v[1] <= 1 && val->v[2] <= 1;
    if (k->dims == 1)
        return one_d;
    return !one_d || value_allowed(a, val);
}

/* Chooses the values of axis a under sel into vals; returns the count
 * (0: the axis takes no part), or -1 with err. */
static int axis_values(const manifest_kernel *k, const manifest_axis *a, const manifest_selection *sel,
                       const manifest_value **vals, manifest_value *scratch, char err[MANIFEST_ERR_MAX])
{
    size_t s = 0;
    while (sel && s < sel->n && strcmp(sel->names[s], a->name) != 0)
        s++;
    size_t n = 0;
    if (sel && s < sel->n) {
        for (size_t i = 0; i < sel->n_values[s] && i < MANIFEST_MAX_VALUES; i++) {
            const manifest_value *val = &sel->values[s][i];
            if (a->is_wg && !wg_applies(k, a, val))
                continue;
            if (!value_allowed(a, val)) {
                char shown[64], allowed[256];
                manifest_format_value(a, val, shown, sizeof shown);
                manifest_format_allowed(a, allowed, sizeof allowed);
                bfmt(err, MANIFEST_ERR_MAX, "%s=%s is not allowed for kernel %s (allowed: %s)",
                     a->name, shown, k->name, allowed);
                return -1;
            }
            size_t j = 0;
            while (j < n && !(a->is_wg ? same_wg(&scratch[j], val)
                                       : scratch[j].v[0] == val->v[0]))
                j++;
            if (j == n)
                scratch[n++] = *val;
        }
        if (n > 0) {
            *vals = scratch;
            return (int)n;
        }
    }
    *vals = a->defaults;
    return a->optional && !(sel && s < sel->n) ? 0 : (int)a->n_default;
}

typedef struct define_lookup {
    const manifest_kernel *k;
    const manifest_variant *v;
} define_lookup;

/* Whether the len bytes at name spell s. */
static int same_name(const char *s, const char *name, size_t len)
{
    return strlen(s) == len && memcmp(s, name, len) == 0;
}

/* Names known to the kernel have a value when the variant defines them. */
static int lookup_define(void *ctx, const char *name, size_t len, int64_t *value)
{
    const define_lookup *dl = ctx;
    char key[MANIFEST_NAME_MAX];
    if (len >= sizeof key)
        return -1;
    memcpy(key, name, len);
    key[len] = '\0';
    const char *s = manifest_variant_define(dl->v, key);
    if (s) {
        *value = strtoll(s, NULL, 10);
        return 1;
    }
    for (size_t i = 0; i < dl->k->n_axes; i++)
        if (same_name(dl->k->axes[i].name, name, len))
            return 0;
    for (size_t i = 0; i < dl->k->n_derives; i++)
        if (same_name(dl->k->derives[i].name, name, len))
            return 0;
    return -1;
}

static int add_define(manifest_variant *v, const char *name, int64_t value, char err[MANIFEST_ERR_MAX])
{
    if (v->n_defines == MANIFEST_MAX_DEFINES) {
        bfmt(err, MANIFEST_ERR_MAX, "kernel %s: more than %d defines", v->kernel->name,
             MANIFEST_MAX_DEFINES);
        return -1;
    }
    bfmt(v->define_names[v->n_defines], MANIFEST_NAME_MAX, "%s", name);
    snprintf(v->define_values[v->n_defines], sizeof v->define_values[0], "%" PRId64, value);
    v->n_defines++;
    return 0;
}

static int matches_default(const manifest_variant *v, const char *when);

static int finish_variant(manifest_variant *v, char err[MANIFEST_ERR_MAX])
{
    const manifest_kernel *k = v->kernel;
    define_lookup dl = {k, v};
    for (size_t i = 0; i < k->n_derives; i++) {
        int64_t value;
        char why[MANIFEST_ERR_MAX];
        int rc = expr_eval(k->derives[i].expr, EXPR_EVALUATE, lookup_define, &dl, &value, why,
                           sizeof why);
        if (rc < 0) {
            bfmt(err, MANIFEST_ERR_MAX, "kernel %s: derive %s: %s", k->name, k->derives[i].name, why);
            return -1;
        }
        if (rc == 0 && add_define(v, k->derives[i].name, value, err) != 0)
            return -1;
    }
    /* Insertion sort: a handful of names. */
    for (size_t i = 1; i < v->n_defines; i++)
        for (size_t j = i; j > 0 && strcmp(v->define_names[j - 1], v->define_names[j]) > 0; j--) {
            char tn[MANIFEST_NAME_MAX], tv[sizeof v->define_values[0]];
            memcpy(tn, v->define_names[j], sizeof tn);
            memcpy(tv, v->define_values[j], sizeof tv);
            memcpy(v->define_names[j], v->define_names[j - 1], sizeof tn);
            memcpy(v->define_values[j], v->define_values[j - 1], sizeof tv);
            memcpy(v->define_names[j - 1], tn, sizeof tn);
            memcpy(v->define_values[j - 1], tv, sizeof tv);
        }
    v->is_default = k->has_default && matches_default(v, k->default_when);
    build_options ob;
    build_options_init(&ob, sizeof v->options);
    build_options_add(&ob, "-cl-std=CL1.2");
    for (size_t i = 0; i < v->n_defines; i++)
        build_options_define(&ob, v->define_names[i], v->define_values[i]);
    build_options_wg(&ob, v->wg, !v->wg[0] ? 0 : k->dims == 2 ? 2 : 1);
    char *text;
    if (build_options_take(&ob, &text) != 0) {
        if (ob.too_long)
            bfmt(err, MANIFEST_ERR_MAX, "kernel %s: build options longer than %zu characters",
                 k->name, sizeof v->options - 1);
        else
            bfmt(err, MANIFEST_ERR_MAX, "kernel %s: out of memory", k->name);
        return -1;
    }
    memcpy(v->options, text, strlen(text) + 1);
    free(text);
    return 0;
}

/* Whether v has every NAME=VALUE item of the default line (WG=16x16 is its
 * work-group). */
static int matches_default(const manifest_variant *v, const char *when)
{
    char buf[MANIFEST_PATH_MAX];
    bfmt(buf, sizeof buf, "%s", when);
    char *save = NULL;
    for (char *item = strtok_r(buf, " ", &save); item; item = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(item, '=');
        if (!eq)
            return 0;
        *eq = '\0';
        const char *want = eq + 1, *have;
        char wg[48];
        if (strcmp(item, "WG") == 0) {
            if (!v->wg[0])
                return 0;
            if (v->wg[1] > 1)
                bfmt(wg, sizeof wg, "%ux%u", (unsigned)v->wg[0], (unsigned)v->wg[1]);
            else
                bfmt(wg, sizeof wg, "%u", (unsigned)v->wg[0]);
            have = wg;
        } else {
            have = manifest_variant_define(v, item);
        }
        if (!have || strcmp(have, want) != 0)
            return 0;
    }
    return 1;
}

int manifest_expand(const manifest_kernel *k, const manifest_selection *sel, manifest_variant **out, size_t *n,
              char err[MANIFEST_ERR_MAX])
{
    *out = NULL;
    *n = 0;
    err[0] = '\0';
    const manifest_value *vals[MANIFEST_MAX_AXES];
    size_t counts[MANIFEST_MAX_AXES];
    static const manifest_value no_value[1];
    manifest_value scratch[MANIFEST_MAX_AXES][MANIFEST_MAX_VALUES];
    size_t total = 1;
    for (size_t i = 0; i < k->n_axes; i++) {
        int c = axis_values(k, &k->axes[i], sel, &vals[i], scratch[i], err);
        if (c < 0)
            return -1;
        /* An axis left out counts as one "no value" choice. */
        counts[i] = c == 0 ? 1 : (size_t)c;
        if (c == 0)
            vals[i] = no_value;
        total *= counts[i];
        if (total > MANIFEST_MAX_VARIANTS) {
            bfmt(err, MANIFEST_ERR_MAX, "kernel %s: the selection gives more than %d variants",
                 k->name, MANIFEST_MAX_VARIANTS);
            return -1;
        }
        if (c == 0)
            counts[i] = 0;
    }
    manifest_variant *vs = calloc(total, sizeof *vs);
    if (!vs) {
        bfmt(err, MANIFEST_ERR_MAX, "out of memory");
        return -1;
    }
    size_t pick[MANIFEST_MAX_AXES] = {0};
    for (size_t t = 0; t < total; t++) {
        manifest_variant *v = &vs[t];
        v->kernel = k;
        for (size_t i = 0; i < k->n_axes; i++) {
            if (counts[i] == 0)
                continue;
            const manifest_value *val = &vals[i][pick[i]];
            if (k->axes[i].is_wg) {
                for (int d = 0; d < 3; d++)
                    v->wg[d] = (uint32_t)(val->v[d] < 1 ? 1 : val->v[d]);
            } else if (add_define(v, k->axes[i].name, val->v[0], err) != 0) {
                free(vs);
                return -1;
            }
        }
        if (finish_variant(v, err) != 0) {
            free(vs);
            return -1;
        }
        /* Odometer: the last axis turns fastest. */
        for (size_t i = k->n_axes; i-- > 0;) {
            if (counts[i] == 0)
                continue;
            if (++pick[i] < counts[i])
                break;
            pick[i] = 0;
        }
    }
    *out = vs;
    *n = total;
    return 0;
}

const char *manifest_variant_define(const manifest_variant *v, const char *name)
{
    for (size_t i = 0; i < v->n_defines; i++)
        if (strcmp(v->define_names[i], name) == 0)
            return v->define_values[i];
    return NULL;
}
