/*
 * best_variant.c — clcpack_best_variant: the fastest variant of a kernel,
 * program or family under define constraints, over the remaining axes, from
 * the timings clc-pack --tune or --tune-cmd stored, or the pack's default
 * marks when none apply (docs/TUNING.md). It knows no define by name: the
 * caller says which one, if any, is a run-time value.
 *
 * Timings are only compared with timings of the same device and the same
 * problem size: a median from another card or another image size says
 * nothing about which kernel wins here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_fp.h"
#include "entry_key.h"
#include "errors.h"
#include "key_hash.h"
#include "key_miss.h"
#include "pack_lookup.h"
#include "pack_reader.h"
#include "struct_size.h"

/* How close a pack device is to the device asking, best first; 0: unrelated. */
enum { TIER_NONE = 0, TIER_BINARY = 1, TIER_SAME_NAME = 2, TIER_SAME_CC = 3, TIER_COUNT = 4 };

static const char *const tier_text[TIER_COUNT] = {
    "", "this device", "the same device model with another driver",
    "another device of the same compute capability"};

static int device_tier(const clcpack_device_info *d, const clcpack_device_info *here)
{
    if (clcpk_device_compatible(d, here))
        return TIER_BINARY;
    if (strcmp(d->device_name, here->device_name) == 0 &&
        strcmp(d->platform_name, here->platform_name) == 0)
        return TIER_SAME_NAME;
    if (d->nv_cc_major && d->nv_cc_major == here->nv_cc_major &&
        d->nv_cc_minor == here->nv_cc_minor)
        return TIER_SAME_CC;
    return TIER_NONE;
}

/* What the caller asks for: a name (kernel, program or family; NULL for
 * any) and define constraints, one of which may be a run-time value (the
 * define `runtime`, which a kernel may take as an argument instead). */
typedef struct query {
    const char *name;
    const clcpack_define *cons;
    size_t n_cons;
    const char *runtime;     /* the define a kernel may take at run time */
    uint32_t runtime_value;  /* its constrained value, or 0 */
} query;

static const char *entry_define(const clcpack_entry_info *e, const char *name)
{
    for (size_t k = 0; k < e->define_count; k++)
        if (strcmp(e->defines[k].name, name) == 0)
            return e->defines[k].value;
    return NULL;
}

/* A name the entry answers to: its kernel, program or one of the program's
 * kernels, or the group label its writer gave it (clcpack_entry_spec.family). */
static int answers_to(const pk_entry *pe, const char *name)
{
    return !name || clcpk_entry_has_name(&pe->info, name) || strcmp(pe->family, name) == 0;
}

/* 1 when entry pe serves q; *runtime set when it takes a constrained value
 * at run time (it lacks the run-time define). */
static int serves(const pk_entry *pe, const query *q, int *runtime)
{
    const clcpack_entry_info *e = &pe->info;
    *runtime = 0;
    if (!answers_to(pe, q->name))
        return 0;
    for (size_t i = 0; i < q->n_cons; i++) {
        const char *v = entry_define(e, q->cons[i].name);
        if (v) {
            if (strcmp(v, q->cons[i].value ? q->cons[i].value : "") != 0)
                return 0;
        } else if (q->runtime && strcmp(q->cons[i].name, q->runtime) == 0) {
            *runtime = 1;
        } else {
            return 0;
        }
    }
    return 1;
}

typedef struct candidate {
    uint32_t entry;
    clcpack_tuning t;
} candidate;

/* The run-time value a timing of entry i is for. 0 does not say (a
 * format-1 record, a merged one, a timing command that gave none): an
 * entry with the run-time define compiled in then ran with that value
 * (docs/TUNING.md, "Run-time values"). */
static uint32_t timing_value(const clcpack *p, size_t i, const clcpack_tuning *t, const query *q)
{
    if (t->runtime_value || !q->runtime)
        return t->runtime_value;
    const char *v = entry_define(&p->entries[i].info, q->runtime);
    if (!v)
        return 0;
    char *end;
    unsigned long n = strtoul(v, &end, 10);
    return end != v && *end == '\0' && v[0] != '-' && n <= UINT32_MAX ? (uint32_t)n : 0;
}

/* The timings of device d for q, one per key (a key's PTX and cubin
 * entries carry the same timing): a timing applies when its run-time value
 * is the one asked for. Returns the count; *out is malloc'd (NULL when none
 * or out of memory: *nomem says which). */
static size_t collect(const clcpack *p, uint32_t d, const query *q, candidate **out, int *nomem)
{
    *out = NULL;
    *nomem = 0;
    size_t n = 0, cap = 0;
    candidate *c = NULL;
    for (size_t i = 0; i < p->n_entries; i++) {
        const clcpack_entry_info *e = &p->entries[i].info;
        int runtime;
        if (e->device != d || !serves(&p->entries[i], q, &runtime))
            continue;
        size_t nt = clcpack_entry_tuning_count(p, i);
        for (size_t k = 0; k < nt; k++) {
            clcpack_tuning t;
            if (clcpack_get_entry_tuning(p, i, k, &t) != CLCPACK_OK)
                continue;
            t.runtime_value = timing_value(p, i, &t, q);
            if (t.runtime_value != q->runtime_value)
                continue;
            size_t j = 0;
            while (j < n && !clcpk_same_key(&p->entries[c[j].entry].info, e))
                j++;
            if (j < n)
                break;
            if (n == cap) {
                cap = cap ? 2 * cap : 16;
                candidate *g = realloc(c, cap * sizeof *g);
                if (!g) {
                    free(c);
                    *nomem = 1;
                    return 0;
                }
                c = g;
            }
            c[n].entry = (uint32_t)i;
            c[n].t = t;
            n++;
            break;
        }
    }
    *out = c;
    return n;
}

/* The name the choice's key gives: asked for one kernel of a program
 * entry, that kernel (the pack's copy of its name), so that the key from
 * clcpack_choice_key creates it with clcpack_create_kernel, which refuses a
 * program of several kernels; otherwise the entry's kernel or program name. */
static const char *key_kernel(const clcpack_entry_info *e, const char *asked)
{
    for (size_t k = 0; asked && k < e->kernel_name_count; k++)
        if (strcmp(e->kernel_names[k], asked) == 0)
            return e->kernel_names[k];
    return e->kernel;
}

static void fill_key_fields(const clcpack *p, uint32_t entry, const query *q,
                            clcpack_choice *out)
{
    const clcpack_entry_info *e = &p->entries[entry].info;
    out->entry = entry;
    out->kernel = key_kernel(e, q->name);
    out->defines = e->defines;
    out->define_count = e->define_count;
    memcpy(out->wg, e->wg, sizeof out->wg);
    int runtime;
    serves(&p->entries[entry], q, &runtime);
    out->value_as_argument = runtime;
}

/* Among the candidates of one device: the problem size most were timed at
 * (ties: the larger), then the smallest median (ties: the earlier entry). */
static void pick_measured(const clcpack *p, const query *q, const candidate *c, size_t n,
                          uint32_t d, int tier, clcpack_choice *out)
{
    size_t best_size = 0, best_count = 0;
    for (size_t i = 0; i < n; i++) {
        size_t count = 0;
        for (size_t j = 0; j < n; j++)
            count += c[j].t.width == c[i].t.width && c[j].t.height == c[i].t.height;
        uint64_t area = (uint64_t)c[i].t.width * c[i].t.height;
        uint64_t best_area = (uint64_t)c[best_size].t.width * c[best_size].t.height;
        if (count > best_count || (count == best_count && area > best_area)) {
            best_count = count;
            best_size = i;
        }
    }
    uint32_t W = c[best_size].t.width, H = c[best_size].t.height;
    size_t win = n, second = n;
    for (size_t i = 0; i < n; i++) {
        if (c[i].t.width != W || c[i].t.height != H)
            continue;
        if (win == n || c[i].t.median_ns < c[win].t.median_ns) {
            second = win;
            win = i;
        } else if (second == n || c[i].t.median_ns < c[second].t.median_ns) {
            second = i;
        }
    }
    fill_key_fields(p, c[win].entry, q, out);
    out->measured = 1;
    out->tuned_device = d;
    out->timing = c[win].t;
    out->candidates = (uint32_t)best_count;
    out->runner_up_entry = second < n ? c[second].entry : CLCPACK_NONE;
    out->runner_up_ns = second < n ? c[second].t.median_ns : 0;
    int len = snprintf(out->why, sizeof out->why,
                       "measured: fastest of %zu timed variant%s at %ux%u on pack device %u (%s): "
                       "%.1f us",
                       best_count, best_count == 1 ? "" : "s", (unsigned)W, (unsigned)H,
                       (unsigned)d, tier_text[tier], (double)c[win].t.median_ns / 1000.0);
    if (second < n && len > 0 && (size_t)len < sizeof out->why)
        snprintf(out->why + len, sizeof out->why - (size_t)len,
                 ", next %s %.1f us (+%.1f%%)", p->entries[c[second].entry].info.kernel,
                 (double)c[second].t.median_ns / 1000.0,
                 c[win].t.median_ns
                     ? 100.0 * ((double)c[second].t.median_ns / (double)c[win].t.median_ns - 1.0)
                     : 0.0);
}

/* The default rule when nothing was timed (docs/TUNING.md): the pack marks
 * its default variants (CLCPACK_ENTRY_DEFAULT, from the manifest's or the
 * command line's default marks). In order: a marked entry with every
 * constraint compiled in, a marked entry taking one at run time, then the
 * first entry in pack order with every constraint compiled in, then the
 * first at all. */
static int pick_default(const clcpack *p, const query *q, const char *reason,
                        clcpack_choice *out)
{
    static const char *const rule_text[4] = {
        "the pack's default variant", "the pack's default variant, the value at run time",
        "no default marked: the first entry that serves it",
        "no default marked: the first entry that serves it, the value at run time"};
    size_t found = p->n_entries;
    int rule = 0;
    for (rule = 0; rule < 4 && found == p->n_entries; rule++) {
        int want_mark = rule < 2, want_runtime = rule % 2;
        for (size_t i = 0; i < p->n_entries; i++) {
            const clcpack_entry_info *e = &p->entries[i].info;
            int runtime;
            if (!serves(&p->entries[i], q, &runtime) || runtime != want_runtime)
                continue;
            if (want_mark && !(e->flags & CLCPACK_ENTRY_DEFAULT))
                continue;
            found = i;
            break;
        }
    }
    if (found == p->n_entries)
        return -1;
    fill_key_fields(p, (uint32_t)found, q, out);
    out->measured = 0;
    out->tuned_device = CLCPACK_NONE;
    snprintf(out->why, sizeof out->why, "default rule (%s): %s", reason, rule_text[rule - 1]);
    return 0;
}

/* Why a request that names a kernel the pack has is served by nothing:
 * into buf, the first define constraint no entry of that name meets, as
 * "; no entry of it has a define TILES" or "; TILE is 1, 2, 4 there"
 * (the values the entries have, the first 8); "; no entry has those
 * values together" when each is met alone; "" when nothing is
 * constrained. The run-time define is left out: an entry may lack it. */
static void explain_miss(const clcpack *p, const query *q, char *buf, size_t cap)
{
    buf[0] = '\0';
    for (size_t c = 0; c < q->n_cons; c++) {
        const char *name = q->cons[c].name, *want = q->cons[c].value ? q->cons[c].value : "";
        if (q->runtime && strcmp(name, q->runtime) == 0)
            continue;
        const char *seen[8];
        size_t n_seen = 0;
        int has = 0, met = 0, more = 0;
        for (size_t i = 0; i < p->n_entries && !met; i++) {
            const char *v = answers_to(&p->entries[i], q->name)
                                ? entry_define(&p->entries[i].info, name)
                                : NULL;
            if (!v)
                continue;
            has = 1;
            met = strcmp(v, want) == 0;
            size_t k = 0;
            while (k < n_seen && strcmp(seen[k], v) != 0)
                k++;
            if (k == n_seen && n_seen < 8)
                seen[n_seen++] = v;
            else if (k == n_seen)
                more = 1;
        }
        if (met)
            continue;
        if (!has) {
            snprintf(buf, cap, "; no entry of it has a define %s", name);
            return;
        }
        size_t len = (size_t)snprintf(buf, cap, "; %s is ", name);
        for (size_t k = 0; k < n_seen && len < cap; k++)
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", k ? ", " : "", seen[k]);
        if (len < cap)
            snprintf(buf + len, cap - len, "%s there", more ? ", ..." : "");
        return;
    }
    if (q->n_cons > 1)
        snprintf(buf, cap, "; no entry has those values together");
}

static clcpack_status best(const clcpack *p, const query *q, const clcpack_device_info *here,
                           clcpack_choice *out, clcpack_error *err)
{
    memset(out, 0, sizeof *out);
    out->entry = CLCPACK_NONE;
    out->runner_up_entry = CLCPACK_NONE;

    /* The nearest device (tier, then index) that has a timing wins. */
    for (int tier = TIER_BINARY; tier < TIER_COUNT; tier++)
        for (size_t d = 0; d < p->n_devices; d++) {
            if (device_tier(&p->devices[d], here) != tier)
                continue;
            candidate *c;
            int nomem;
            size_t n = collect(p, (uint32_t)d, q, &c, &nomem);
            if (nomem)
                return clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory comparing timings");
            if (n == 0)
                continue;
            pick_measured(p, q, c, n, (uint32_t)d, tier, out);
            free(c);
            return CLCPACK_OK;
        }

    int any_device = 0;
    for (size_t d = 0; d < p->n_devices; d++)
        any_device |= device_tier(&p->devices[d], here) != TIER_NONE;
    const char *reason = any_device ? "the pack has no timing of these variants for this device"
                                    : "the pack has no timing for this device";
    if (pick_default(p, q, reason, out) != 0) {
        char want[512];
        size_t len = 0;
        want[0] = '\0';
        for (size_t i = 0; i < q->n_cons && len + 1 < sizeof want; i++) {
            snprintf(want + len, sizeof want - len, "%s%s=%s", i ? "," : " with ",
                     q->cons[i].name, q->cons[i].value ? q->cons[i].value : "");
            len += strlen(want + len);
        }
        /* A name nothing answers to: the nearest one the pack has. */
        int named = 0;
        for (size_t i = 0; q->name && i < p->n_entries && !named; i++)
            named = answers_to(&p->entries[i], q->name);
        const char *near = q->name && !named ? clcpk_nearest_name(p, q->name) : NULL;
        char why[256] = "";
        if (q->name && named)
            explain_miss(p, q, why, sizeof why);
        return clcpk_fail(err, CLCPACK_E_NOT_FOUND, "no entry %s%s%s serves%s%s%s%s%s",
                          q->name ? "of '" : "", q->name ? q->name : "at all",
                          q->name ? "'" : "", want[0] ? want : " the request",
                          near ? ": the pack has no kernel, program or group of that name; did "
                                 "you mean "
                               : "",
                          near ? near : "", near ? "?" : "", why);
    }
    return CLCPACK_OK;
}

clcpack_status clcpack_best_variant(const clcpack *p, const char *name,
                                    const clcpack_define *constraints, size_t constraint_count,
                                    const char *runtime_define, const clcpack_device_info *here,
                                    clcpack_choice *out, clcpack_error *err)
{
    static const char api[] = "clcpack_best_variant";
    if (!p || !here || !out)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "%s: %s is NULL", api,
                          !p ? "pack" : !here ? "device" : "out");
    if (!clcpk_size_ok(out, CLCPK_CHOICE_1_0) || !clcpk_size_ok(here, CLCPK_DEVICE_INFO_1_0))
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG,
                          "%s: %s->struct_size %zu is too small (set it to sizeof the struct)",
                          api, !clcpk_size_ok(out, CLCPK_CHOICE_1_0) ? "out" : "here",
                          !clcpk_size_ok(out, CLCPK_CHOICE_1_0) ? out->struct_size
                                                                : here->struct_size);
    if (constraint_count && !constraints)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG,
                          "%s: %zu constraints but constraints is NULL", api, constraint_count);
    query q = {name, constraints, constraint_count, runtime_define, 0};
    for (size_t i = 0; i < constraint_count; i++) {
        if (!constraints[i].name || !constraints[i].name[0])
            return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "%s: constraint %zu has no name", api,
                              i);
        if (runtime_define && strcmp(constraints[i].name, runtime_define) == 0) {
            const char *v = constraints[i].value ? constraints[i].value : "";
            char *end;
            unsigned long n = strtoul(v, &end, 10);
            if (end == v || *end || v[0] == '-' || n > UINT32_MAX)
                return clcpk_fail(err, CLCPACK_E_INVALID_ARG,
                                  "%s: the run-time value %s=%s is not a number", api,
                                  runtime_define, v);
            q.runtime_value = (uint32_t)n;
        }
    }
    /* The query walks every entry. */
    clcpack_status st = clcpk_index_all(p, err);
    if (st != CLCPACK_OK)
        return st;
    clcpack_device_info full_here;
    clcpk_copy_in(&full_here, here, sizeof full_here);
    clcpack_choice c;
    st = best(p, &q, &full_here, &c, err);
    if (st == CLCPACK_OK)
        clcpk_copy_out(out, &c, sizeof c);
    return st;
}

clcpack_status clcpack_choice_key(const clcpack_choice *c, clcpack_key *key)
{
    if (!c || !key || !clcpk_size_ok(c, CLCPK_CHOICE_1_0))
        return CLCPACK_E_INVALID_ARG;
    memset(key, 0, sizeof *key);
    key->kernel = c->kernel;
    key->defines = c->defines;
    key->define_count = c->define_count;
    memcpy(key->wg, c->wg, sizeof key->wg);
    return CLCPACK_OK;
}
