/* t4_pack.c — a pack's timings as T4 results (t4_pack.h). */
#include "t4_pack.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bounded_fmt.h"
#include "strbuf.h"

/* One timing of one entry; key says which variant and timing it is, the
 * same for every form of that variant. */
typedef struct timing_ref {
    char *key;
    size_t entry, k;
} timing_ref;

typedef struct timing_refs {
    timing_ref *r;
    size_t n, cap;
} timing_refs;

static void refs_free(timing_refs *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->r[i].key);
    free(t->r);
}

static int refs_add(timing_refs *t, char *key, size_t entry, size_t k)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        timing_ref *r = realloc(t->r, cap * sizeof *r);
        if (!r)
            return -1;
        t->r = r;
        t->cap = cap;
    }
    t->r[t->n++] = (timing_ref){key, entry, k};
    return 0;
}

/* Fields joined by '\n', which no name, option string or number holds. */
static char *key_of(const clcpack_entry_info *e, const clcpack_tuning *t)
{
    strbuf b;
    sb_init(&b);
    sb_printf(&b, "%u\n%s\n%s\n%u %u %u\n%u\n%u %u", e->device, e->kernel, e->options, e->wg[0],
              e->wg[1], e->wg[2], t->runtime_value, t->width, t->height);
    sb_put(&b, "", 1);
    if (b.failed) {
        sb_free(&b);
        return NULL;
    }
    return (char *)b.data;
}

static int by_key(const void *a, const void *b)
{
    const timing_ref *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : x->entry < y->entry ? -1 : x->entry > y->entry;
}

static int by_entry(const void *a, const void *b)
{
    const timing_ref *x = a, *y = b;
    if (x->entry != y->entry)
        return x->entry < y->entry ? -1 : 1;
    return x->k < y->k ? -1 : x->k > y->k;
}

/* Every timing keep accepts, one per variant and timing, in entry order. */
static int gather(const clcpack *p, t4_pack_keep_fn keep, void *ctx, timing_refs *out)
{
    for (size_t i = 0; i < clcpack_entry_count(p); i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        if (clcpack_get_entry(p, i, &e) != CLCPACK_OK || (keep && !keep(p, i, &e, ctx)))
            continue;
        for (size_t k = 0; k < clcpack_entry_tuning_count(p, i); k++) {
            clcpack_tuning t;
            if (clcpack_get_entry_tuning(p, i, k, &t) != CLCPACK_OK)
                continue;
            char *key = key_of(&e, &t);
            if (!key || refs_add(out, key, i, k) != 0) {
                free(key);
                return -1;
            }
        }
    }
    if (out->n)
        qsort(out->r, out->n, sizeof *out->r, by_key);
    size_t w = 0;
    for (size_t i = 0; i < out->n; i++) {
        if (w && strcmp(out->r[w - 1].key, out->r[i].key) == 0) {
            free(out->r[i].key);
            continue;
        }
        out->r[w++] = out->r[i];
    }
    out->n = w;
    if (out->n)
        qsort(out->r, out->n, sizeof *out->r, by_entry);
    return 0;
}

/* A define's value as T4 gives a parameter's: an integer where it is one. */
static json_t *define_json(const char *v)
{
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (*v && *end == '\0' && errno == 0 && (v[0] != '0' || v[1] == '\0'))
        return json_integer((json_int_t)n);
    return json_string(v);
}

static json_t *result_json(const clcpack_entry_info *e, const clcpack_tuning *t, const char *device)
{
    json_t *cfg = json_object();
    json_object_set_new(cfg, "kernel", json_string(e->kernel));
    for (size_t d = 0; d < e->define_count; d++)
        json_object_set_new(cfg, e->defines[d].name, define_json(e->defines[d].value));
    char wg[48] = "none";
    if (e->wg[0])
        bfmt(wg, sizeof wg, e->wg[2] > 1 ? "%ux%ux%u" : e->wg[1] > 1 ? "%ux%u" : "%u", e->wg[0],
             e->wg[1], e->wg[2]);
    json_object_set_new(cfg, "work_group", json_string(wg));
    if (t->runtime_value)
        json_object_set_new(cfg, "runtime_value", json_integer(t->runtime_value));
    json_object_set_new(cfg, "problem_size", json_pack("[I,I]", (json_int_t)t->width,
                                                       (json_int_t)t->height));
    json_t *meas = json_pack("[{s:s,s:f,s:s},{s:s,s:I,s:s}]", "name", "time", "value",
                             (double)t->median_ns * 1e-6, "unit", "ms", "name", "runs", "value",
                             (json_int_t)t->runs, "unit", "");
    return json_pack("{s:o,s:[s],s:{},s:s,s:f,s:o,s:s}", "configuration", cfg, "objectives", "time",
                     "times", "invalidity", "correct", "correctness", 1.0, "measurements", meas,
                     "clc_pack_device", device);
}

int t4_pack_write(const char *path, const clcpack *p, const char *pack_path, t4_pack_keep_fn keep,
                  void *ctx, size_t *n_results, char err[T4_ERR_MAX])
{
    timing_refs refs = {0};
    json_t *results = json_array();
    if (!results || gather(p, keep, ctx, &refs) != 0) {
        json_decref(results);
        refs_free(&refs);
        bfmt(err, T4_ERR_MAX, "%s: out of memory gathering the timings", path);
        return -1;
    }
    for (size_t i = 0; i < refs.n; i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        clcpack_device_info dev = {.struct_size = sizeof dev};
        clcpack_tuning t;
        if (clcpack_get_entry(p, refs.r[i].entry, &e) != CLCPACK_OK ||
            clcpack_get_entry_tuning(p, refs.r[i].entry, refs.r[i].k, &t) != CLCPACK_OK)
            continue;
        const char *name = clcpack_get_device(p, e.device, &dev) == CLCPACK_OK ? dev.device_name : "";
        json_array_append_new(results, result_json(&e, &t, name));
    }
    *n_results = json_array_size(results);
    refs_free(&refs);
    json_t *root = json_pack("{s:s,s:o,s:{s:s,s:s}}", "schema_version", "1.0.0", "results", results,
                             "clc_pack", "pack", pack_path, "source", "the pack's timings");
    return t4_json_write(path, root, err);
}
