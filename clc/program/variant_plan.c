/* variant_plan.c — the variants a clc-pack run builds (variant_plan.h). */
#include "variant_plan.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounded_fmt.h"
#include "nearest_name.h"

#define NOTE_MAX 4096

static int one_d(const manifest_value *v) { return v->v[1] <= 1 && v->v[2] <= 1; }

static int same_value(const manifest_axis *a, const manifest_value *x, const manifest_value *y)
{
    if (!a->is_wg)
        return x->v[0] == y->v[0];
    for (int d = 0; d < 3; d++) {
        long p = x->v[d] < 1 ? 1 : x->v[d], q = y->v[d] < 1 ? 1 : y->v[d];
        if (p != q)
            return 0;
    }
    return 1;
}

static int allowed(const manifest_axis *a, const manifest_value *v)
{
    for (size_t i = 0; i < a->n_allowed; i++)
        if (same_value(a, &a->allowed[i], v))
            return 1;
    return 0;
}

/* Whether a selected value concerns kernel k at all: a work-group of the
 * other dimension does not (manifest_expand ignores it too). */
static int applies(const manifest_kernel *k, const manifest_axis *a, const manifest_value *v)
{
    if (!a->is_wg)
        return 1;
    if (k->dims == 1)
        return one_d(v);
    return !one_d(v) || allowed(a, v);
}

static void append(char *buf, size_t cap, const char *fmt, ...) BFMT_PRINTF(3, 4);
static void append(char *buf, size_t cap, const char *fmt, ...)
{
    size_t len = strlen(buf);
    if (len + 1 >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, cap - len, fmt, ap);
    va_end(ap);
}

/* The value text for messages: "4", or "4 (from '3-9')". */
static void shown_with_token(const manifest_axis *a, const variant_plan_axis_request *r, size_t i, char *buf,
                             size_t cap)
{
    char v[64];
    manifest_format_value(a, &r->values.values[i], v, sizeof v);
    if (strcmp(r->values.tokens[i], v) == 0)
        bfmt(buf, cap, "%s", v);
    else
        bfmt(buf, cap, "%s (from '%s')", v, r->values.tokens[i]);
}

/* The kernels the request names (each once), or all. 0, or -1 with err
 * naming an unknown one and the known ones. */
static int select_kernels(const manifest_file *m, const variant_plan_request *req, const manifest_kernel **ks,
                          size_t *nk, char err[VARIANT_PLAN_ERR_MAX])
{
    *nk = 0;
    if (req->n_kernels == 0) {
        for (size_t i = 0; i < m->n_kernels && *nk < MANIFEST_MAX_KERNELS; i++)
            ks[(*nk)++] = &m->kernels[i];
        return 0;
    }
    for (size_t i = 0; i < req->n_kernels; i++) {
        const manifest_kernel *k = manifest_find(m, req->kernels[i]);
        if (!k) {
            char names[VARIANT_PLAN_ERR_MAX / 2] = "", hint[MANIFEST_NAME_MAX + 24] = "";
            nearest_name_best near;
            nearest_name_init(&near, req->kernels[i]);
            for (size_t j = 0; j < m->n_kernels; j++) {
                append(names, sizeof names, "%s%s", j ? ", " : "", m->kernels[j].name);
                nearest_name_offer(&near, m->kernels[j].name);
            }
            if (nearest_name_result(&near))
                bfmt(hint, sizeof hint, "; did you mean %s?", nearest_name_result(&near));
            bfmt(err, VARIANT_PLAN_ERR_MAX, "--kernel %s: no such kernel in %s/manifest.txt%s (kernels: %s)",
                 req->kernels[i], m->dir, hint, names);
            return -1;
        }
        size_t j = 0;
        while (j < *nk && ks[j] != k)
            j++;
        if (j == *nk)
            ks[(*nk)++] = k;
    }
    return 0;
}

/* Value i of axis request r against the kernels: some kernel must take
 * it; with named kernels, every one concerned must allow it; otherwise the
 * kernels that do not allow it are appended to skipped. 0, or -1 with err. */
static int check_value(const manifest_kernel **ks, size_t nk, const variant_plan_axis_request *r, size_t i,
                       int named, char *skipped, size_t skipped_cap, char err[VARIANT_PLAN_ERR_MAX])
{
    const manifest_value *v = &r->values.values[i];
    int concerned = 0, takers = 0;
    char skippers[NOTE_MAX / 2] = "";
    for (size_t k = 0; k < nk; k++) {
        const manifest_axis *ax = manifest_axis_find(ks[k], r->name);
        if (!ax || !applies(ks[k], ax, v))
            continue;
        concerned++;
        if (allowed(ax, v)) {
            takers++;
            continue;
        }
        char shown[128], allow[256];
        shown_with_token(ax, r, i, shown, sizeof shown);
        manifest_format_allowed(ax, allow, sizeof allow);
        if (named) {
            bfmt(err, VARIANT_PLAN_ERR_MAX, "%s: %s=%s is not allowed for kernel %s (allowed: %s)",
                 r->option, r->name, shown, ks[k]->name, allow);
            return -1;
        }
        append(skippers, sizeof skippers, "%s%s", skippers[0] ? ", " : "", ks[k]->name);
    }
    const manifest_axis *any = NULL;
    for (size_t k = 0; k < nk && !any; k++)
        any = manifest_axis_find(ks[k], r->name);
    char shown[128];
    shown_with_token(any, r, i, shown, sizeof shown);
    if (concerned == 0) {
        bfmt(err, VARIANT_PLAN_ERR_MAX, "%s: %s: no selected kernel takes a %s work-group", r->option,
             shown, one_d(v) ? "1-D" : "2-D");
        return -1;
    }
    if (takers == 0) {
        bfmt(err, VARIANT_PLAN_ERR_MAX, "%s: %s=%s: no selected kernel allows it", r->option, r->name,
             shown);
        return -1;
    }
    if (skippers[0]) {
        char vtext[64];
        manifest_format_value(any, v, vtext, sizeof vtext);
        append(skipped, skipped_cap, "%s%s by %s", skipped[0] ? "; " : "", vtext, skippers);
    }
    return 0;
}

/* Every axis request against the kernels (check_value), the values some
 * kernels skip noted. 0, or -1 with err. */
static int check_axes(const manifest_kernel **ks, size_t nk, const variant_plan_request *req, char *notes,
                      size_t notes_cap, char err[VARIANT_PLAN_ERR_MAX])
{
    for (size_t a = 0; a < req->n_axes; a++) {
        const variant_plan_axis_request *r = &req->axes[a];
        int any_axis = 0;
        for (size_t k = 0; k < nk; k++)
            if (manifest_axis_find(ks[k], r->name))
                any_axis = 1;
        if (!any_axis) {
            bfmt(err, VARIANT_PLAN_ERR_MAX, "%s: no selected kernel has a %s axis", r->option, r->name);
            return -1;
        }
        char skipped[NOTE_MAX] = "";
        for (size_t i = 0; i < r->values.n; i++)
            if (check_value(ks, nk, r, i, req->n_kernels > 0, skipped, sizeof skipped, err) != 0)
                return -1;
        if (skipped[0])
            append(notes, notes_cap, "note: %s values skipped by the kernels that do not allow "
                                     "them: %s\n", r->name, skipped);
    }
    return 0;
}

/* The selection kernel k keeps of the request, into sel. 0, or -1 when it
 * allows none of an axis's selected values (noted: it is not built). */
static int kernel_selection(const manifest_kernel *k, const variant_plan_request *req, manifest_selection *sel,
                            char *notes, size_t notes_cap)
{
    memset(sel, 0, sizeof *sel);
    for (size_t a = 0; a < req->n_axes; a++) {
        const variant_plan_axis_request *r = &req->axes[a];
        const manifest_axis *ax = manifest_axis_find(k, r->name);
        if (!ax)
            continue;
        size_t s = sel->n;
        bfmt(sel->names[s], MANIFEST_NAME_MAX, "%s", r->name);
        size_t concerned = 0;
        for (size_t i = 0; i < r->values.n; i++) {
            const manifest_value *v = &r->values.values[i];
            if (!applies(k, ax, v))
                continue;
            concerned++;
            if (allowed(ax, v))
                sel->values[s][sel->n_values[s]++] = *v;
        }
        if (concerned == 0)
            continue; /* e.g. only 2-D work-groups for a 1-D kernel: its defaults */
        if (sel->n_values[s] == 0) {
            append(notes, notes_cap,
                   "note: %s is not built: it allows none of the selected %s values\n", k->name,
                   r->name);
            return -1;
        }
        sel->n++;
    }
    return 0;
}

/* Kernel k's variants for sel appended to *all (*total of them). 0, or -1
 * with err. */
static int add_variants(const manifest_kernel *k, const manifest_selection *sel, manifest_variant **all,
                        size_t *total, char err[VARIANT_PLAN_ERR_MAX])
{
    manifest_variant *vs = NULL;
    size_t n = 0;
    char merr[MANIFEST_ERR_MAX];
    if (manifest_expand(k, sel, &vs, &n, merr) != 0) {
        bfmt(err, VARIANT_PLAN_ERR_MAX, "%s", merr);
        return -1;
    }
    manifest_variant *grown = realloc(*all, (*total + n) * sizeof **all);
    if (!grown) {
        free(vs);
        bfmt(err, VARIANT_PLAN_ERR_MAX, "out of memory");
        return -1;
    }
    *all = grown;
    memcpy(*all + *total, vs, n * sizeof *vs);
    *total += n;
    free(vs);
    return 0;
}

int variant_plan_make(const manifest_file *m, const variant_plan_request *req, variant_plan *out, char err[VARIANT_PLAN_ERR_MAX])
{
    memset(out, 0, sizeof *out);
    const manifest_kernel *ks[MANIFEST_MAX_KERNELS];
    size_t nk = 0;
    char notes[NOTE_MAX] = "";
    if (select_kernels(m, req, ks, &nk, err) != 0 ||
        check_axes(ks, nk, req, notes, sizeof notes, err) != 0)
        return -1;
    /* Per kernel: the selection it keeps, then its variants. */
    size_t total = 0;
    manifest_variant *all = NULL;
    manifest_selection *sel = malloc(sizeof *sel); /* large: on the heap */
    if (!sel) {
        bfmt(err, VARIANT_PLAN_ERR_MAX, "out of memory");
        return -1;
    }
    for (size_t k = 0; k < nk; k++) {
        if (kernel_selection(ks[k], req, sel, notes, sizeof notes) != 0)
            continue;
        if (add_variants(ks[k], sel, &all, &total, err) != 0) {
            free(sel);
            free(all);
            return -1;
        }
    }
    free(sel);
    if (total == 0) {
        bfmt(err, VARIANT_PLAN_ERR_MAX, "the selection gives no variant to build");
        free(all);
        return -1;
    }
    out->variants = all;
    out->n = total;
    out->notes = notes[0] ? strdup(notes) : NULL;
    return 0;
}

void variant_plan_free(variant_plan *p)
{
    free(p->variants);
    free(p->notes);
    memset(p, 0, sizeof *p);
}

void variant_plan_label(const manifest_variant *v, char *buf, size_t cap)
{
    bfmt(buf, cap, "%s", v->kernel->name);
    for (size_t i = 0; i < v->n_defines; i++)
        if (manifest_axis_find(v->kernel, v->define_names[i]))
            append(buf, cap, " %s=%s", v->define_names[i], v->define_values[i]);
    if (v->wg[0]) {
        long w[3] = {v->wg[0], v->wg[1], v->wg[2]};
        char wg[64];
        if (v->kernel->dims == 2 && w[2] <= 1)
            bfmt(wg, sizeof wg, "%ldx%ld", w[0], w[1]);
        else
            value_list_format_wg(w, wg, sizeof wg);
        append(buf, cap, " wg=%s", wg);
    }
}
