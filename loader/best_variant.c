/*
 * best_variant.c — clcpack_best_variant: the fastest variant of a kernel
 * family at one filter width, from the timings clc-pack --tune stored, or
 * the documented default rule when none apply (docs/TUNING.md).
 *
 * Timings are only compared with timings of the same device and the same
 * problem size: a median from another card or another image size says
 * nothing about which kernel wins here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "pack_reader.h"

/* How close a pack device is to the device asking, best first; 0: unrelated. */
enum { TIER_NONE = 0, TIER_BINARY = 1, TIER_SAME_NAME = 2, TIER_SAME_CC = 3, TIER_COUNT = 4 };

static const char *const tier_text[TIER_COUNT] = {
    "", "this device", "the same device model with another driver",
    "another device of the same compute capability"};

static int device_tier(const clcpack_device_info *d, const clcpack_device_info *here)
{
    if (clcpack_device_binary_compatible(d, here))
        return TIER_BINARY;
    if (strcmp(d->device_name, here->device_name) == 0 &&
        strcmp(d->platform_name, here->platform_name) == 0)
        return TIER_SAME_NAME;
    if (d->nv_cc_major && d->nv_cc_major == here->nv_cc_major &&
        d->nv_cc_minor == here->nv_cc_minor)
        return TIER_SAME_CC;
    return TIER_NONE;
}

/* The FILTER_WIDTH define's value; -1 when the entry has none (the kernel
 * takes the width as an argument, or has no filter at all). */
static long define_width(const clcpack_entry_info *e)
{
    for (size_t k = 0; k < e->define_count; k++)
        if (strcmp(e->defines[k].name, "FILTER_WIDTH") == 0) {
            char *end;
            long v = strtol(e->defines[k].value, &end, 10);
            return *end == '\0' && v >= 0 ? v : -2;
        }
    return -1;
}

static int serves(const clcpack_entry_info *e, const char *family, uint32_t fw)
{
    if (strcmp(e->family, family) != 0)
        return 0;
    long w = define_width(e);
    return w == -1 || (fw != 0 && w == (long)fw);
}

static int same_key(const clcpack_entry_info *a, const clcpack_entry_info *b)
{
    if (strcmp(a->kernel, b->kernel) != 0 || memcmp(a->wg, b->wg, sizeof a->wg) != 0 ||
        a->define_count != b->define_count)
        return 0;
    for (size_t k = 0; k < a->define_count; k++)
        if (strcmp(a->defines[k].name, b->defines[k].name) != 0 ||
            strcmp(a->defines[k].value, b->defines[k].value) != 0)
            return 0;
    return 1;
}

typedef struct candidate {
    uint32_t entry;
    clcpack_tuning t;
} candidate;

/* The timings of device d for the family at fw, one per key (a key's PTX
 * and cubin entries carry the same timing). Returns the count; *out is
 * malloc'd (NULL when none or out of memory: *nomem says which). */
static size_t collect(const clcpack *p, uint32_t d, const char *family, uint32_t fw,
                      candidate **out, int *nomem)
{
    *out = NULL;
    *nomem = 0;
    size_t n = 0, cap = 0;
    candidate *c = NULL;
    for (size_t i = 0; i < p->n_entries; i++) {
        const clcpack_entry_info *e = &p->entries[i].info;
        if (e->device != d || !serves(e, family, fw))
            continue;
        size_t nt = clcpack_entry_tuning_count(p, i);
        for (size_t k = 0; k < nt; k++) {
            clcpack_tuning t;
            if (clcpack_get_entry_tuning(p, i, k, &t) != CLCPACK_OK || t.filter_width != fw)
                continue;
            size_t j = 0;
            while (j < n && !same_key(&p->entries[c[j].entry].info, e))
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

static void fill_key_fields(const clcpack *p, uint32_t entry, clcpack_choice *out)
{
    const clcpack_entry_info *e = &p->entries[entry].info;
    out->entry = entry;
    out->kernel = e->kernel;
    out->defines = e->defines;
    out->define_count = e->define_count;
    memcpy(out->wg, e->wg, sizeof out->wg);
    out->width_argument = define_width(e) == -1 && strcmp(e->family, "poly") != 0;
}

/* Among the candidates of one device: the problem size most were timed at
 * (ties: the larger), then the smallest median (ties: the earlier entry). */
static void pick_measured(const clcpack *p, const candidate *c, size_t n, uint32_t d, int tier,
                          clcpack_choice *out)
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
    fill_key_fields(p, c[win].entry, out);
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

/* The seeds' recommendations, in order of preference (docs/TUNING.md). */
typedef struct default_pick {
    const char *family, *kernel;
} default_pick;

static const default_pick defaults[] = {
    {"conv-rgba", "reda_local"}, /* the seeds' local-memory 16x16 kernel */
    {"conv-grey", "Convolve_Def"},
    {"conv-grey", "Convolve"},
};

static int pick_default(const clcpack *p, const char *family, uint32_t fw, const char *reason,
                        clcpack_choice *out)
{
    size_t found = p->n_entries;
    const char *rule = NULL;
    for (size_t r = 0; r < sizeof defaults / sizeof defaults[0] && found == p->n_entries; r++) {
        if (strcmp(defaults[r].family, family) != 0)
            continue;
        for (size_t i = 0; i < p->n_entries; i++) {
            const clcpack_entry_info *e = &p->entries[i].info;
            if (strcmp(e->kernel, defaults[r].kernel) == 0 && e->wg[0] == 16 &&
                e->wg[1] == 16 && serves(e, family, fw)) {
                found = i;
                rule = "the seeds' recommended kernel";
                break;
            }
        }
    }
    for (int want16 = 1; want16 >= 0 && found == p->n_entries; want16--)
        for (size_t i = 0; i < p->n_entries; i++) {
            const clcpack_entry_info *e = &p->entries[i].info;
            if (serves(e, family, fw) && (!want16 || (e->wg[0] == 16 && e->wg[1] == 16))) {
                found = i;
                rule = want16 ? "the family's first 16x16 entry" : "the family's first entry";
                break;
            }
        }
    if (found == p->n_entries)
        return -1;
    fill_key_fields(p, (uint32_t)found, out);
    out->measured = 0;
    out->tuned_device = CLCPACK_NONE;
    snprintf(out->why, sizeof out->why, "default rule (%s): %s", reason, rule);
    return 0;
}

clcpack_status clcpack_best_variant(const clcpack *p, const char *family, uint32_t filter_width,
                                    const clcpack_device_info *here, clcpack_choice *out,
                                    clcpack_error *err)
{
    if (!p || !family || !here || !out)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "clcpack_best_variant: %s is NULL",
                          !p ? "pack" : !family ? "family" : !here ? "device" : "out");
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
            size_t n = collect(p, (uint32_t)d, family, filter_width, &c, &nomem);
            if (nomem)
                return clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory comparing timings");
            if (n == 0)
                continue;
            pick_measured(p, c, n, (uint32_t)d, tier, out);
            free(c);
            return CLCPACK_OK;
        }

    int any_device = 0;
    for (size_t d = 0; d < p->n_devices; d++)
        any_device |= device_tier(&p->devices[d], here) != TIER_NONE;
    const char *reason = any_device ? "the pack has no timing of this family at this width "
                                      "for this device"
                                    : "the pack has no timing for this device";
    if (pick_default(p, family, filter_width, reason, out) != 0)
        return clcpk_fail(err, CLCPACK_E_NOT_FOUND,
                          "no entry of family '%s' serves filter width %u", family,
                          (unsigned)filter_width);
    return CLCPACK_OK;
}

void clcpack_choice_key(const clcpack_choice *c, clcpack_key *key)
{
    if (!c || !key)
        return;
    memset(key, 0, sizeof *key);
    key->kernel = c->kernel;
    key->defines = c->defines;
    key->define_count = c->define_count;
    memcpy(key->wg, c->wg, sizeof key->wg);
}
