/* pack_reuse.c — incremental packs and the build order (pack_reuse.h). */
#include "pack_reuse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bounded_fmt.h"
#include "file_atomic.h"
#include "pocl_binary.h"

#define TIMES_MAX 20000 /* entries kept in the build-time cache */
#define MATCH_MAX 256    /* entries of one key and device: forms */

/* The old entries of j's key on device od, in *idx (at most MATCH_MAX). */
static size_t find_on_device(const clcpack *old, const build_job *j, uint32_t od, size_t *idx)
{
    clcpack_define *defs = calloc(j->n_defines ? j->n_defines : 1, sizeof *defs);
    if (!defs)
        return 0;
    for (size_t i = 0; i < j->n_defines; i++) {
        defs[i].name = j->defines[i].name;
        defs[i].value = j->defines[i].value;
    }
    clcpack_key key = {j->entry_name, defs, j->n_defines, {j->wg[0], j->wg[1], j->wg[2]}};
    size_t all[MATCH_MAX], n = 0, kept = 0;
    if (clcpack_find(old, &key, all, MATCH_MAX, &n, NULL) != CLCPACK_OK || n > MATCH_MAX)
        n = 0;
    free(defs);
    for (size_t i = 0; i < n; i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        if (clcpack_get_entry(old, all[i], &e) == CLCPACK_OK && e.device == od &&
            strcmp(e.kernel, j->entry_name) == 0)
            idx[kept++] = all[i];
    }
    return kept;
}

/* Whether old source s is exactly text. */
static int same_source(const clcpack *old, uint32_t s, const char *text, size_t len)
{
    clcpack_source_info si = {.struct_size = sizeof si};
    if (s == CLCPACK_NONE || clcpack_get_source(old, s, &si) != CLCPACK_OK || si.raw_size != len)
        return 0;
    char *buf = malloc(len ? len : 1);
    size_t got = 0;
    int same = buf && clcpack_read_source(old, s, buf, len, &got, NULL) == CLCPACK_OK &&
               got == len && memcmp(buf, text, len) == 0;
    free(buf);
    return same;
}

/* 1 when the entries idx[0..n) of old are exactly one of each arch f asks for. */
static int same_targets(const clcpack *old, const size_t *idx, size_t n, const pack_reuse_forms *f)
{
    if (n != f->n_archs)
        return 0;
    for (size_t a = 0; a < f->n_archs; a++) {
        size_t hits = 0;
        for (size_t i = 0; i < n; i++) {
            clcpack_entry_info e = {.struct_size = sizeof e};
            hits += clcpack_get_entry(old, idx[i], &e) == CLCPACK_OK && e.kind == f->kind &&
                    e.arch == f->archs[a];
        }
        if (hits != 1)
            return 0;
    }
    return 1;
}

/* 1 when a program entry e holds every kernel j asks for. The kernels
 * folder's entries (no names) are one kernel each, which the plan chose
 * by name. */
static int holds_kernels(const clcpack_entry_info *e, const build_job *j)
{
    for (size_t i = 0; e->kernel_name_count && i < j->n_kernels; i++) {
        size_t k = 0;
        while (k < e->kernel_name_count && strcmp(e->kernel_names[k], j->kernels[i]) != 0)
            k++;
        if (k == e->kernel_name_count)
            return 0;
    }
    return 1;
}

/* Whether old entry i (e), when a PoCL binary with a local size, holds the
 * work-group functions `want` of it and no other (pack_reuse_forms.
 * pocl_forms): what a build now would store. */
static int holds_pocl_forms(const clcpack *old, size_t i, const clcpack_entry_info *e,
                            unsigned want)
{
    if (!want || e->kind != CLCPACK_KIND_NATIVE || !e->wg[0])
        return 1;
    size_t size = (size_t)e->raw_size;
    unsigned char *bin = malloc(size ? size : 1);
    const char *kernel = e->kernel_name_count ? NULL : e->kernel;
    unsigned held = 0;
    int known = bin && clcpack_read_binary(old, i, bin, size, &size, NULL) == CLCPACK_OK &&
                clcpk_pocl_forms_held(bin, size, kernel, kernel ? strlen(kernel) : 0, e->wg,
                                      &held) == 0;
    free(bin);
    return !known || held == want;
}

long pack_reuse(const clcpack *old, const build_job *j, const clcpack_device_info *dev,
              uint32_t dev_index, const pack_reuse_forms *f, clcpack_writer *w, char *err, size_t cap)
{
    uint32_t od = CLCPACK_NONE;
    for (size_t d = 0; d < clcpack_device_count(old); d++) {
        clcpack_device_info info = {.struct_size = sizeof info};
        if (clcpack_get_device(old, d, &info) == CLCPACK_OK && clcpack_device_equal(&info, dev))
            od = (uint32_t)d;
    }
    if (od == CLCPACK_NONE)
        return 0;
    size_t idx[MATCH_MAX];
    size_t n = find_on_device(old, j, od, idx);
    if (n == 0)
        return 0;
    int has[CLCPACK_KIND_SPIRV + 1] = {0};
    int offline = f->kind != CLCPACK_KIND_NATIVE;
    if (offline && !same_targets(old, idx, n, f))
        return 0;
    uint32_t source_ok = CLCPACK_NONE; /* the forms of a key share one source: read it once */
    for (size_t i = 0; i < n; i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        const char *family = NULL;
        if (clcpack_get_entry(old, idx[i], &e) != CLCPACK_OK ||
            clcpack_get_entry_family(old, idx[i], &family) != CLCPACK_OK ||
            (offline ? e.kind != f->kind : (unsigned)e.kind > CLCPACK_KIND_CUBIN) ||
            strcmp(e.options, j->options) != 0 || strcmp(family, j->family) != 0 ||
            e.flags != j->entry_flags || (j->program_entry && e.kernel_name_count == 0) ||
            (!j->program_entry && e.kernel_name_count != 0) || !holds_kernels(&e, j))
            return 0;
        if (!holds_pocl_forms(old, idx[i], &e, f->pocl_forms))
            return 0;
        if (e.source != source_ok) {
            if (!same_source(old, e.source, j->source, j->source_size))
                return 0;
            source_ok = e.source;
        }
        has[e.kind] = 1;
    }
    /* The forms this run would make: native, or PTX and (with ptxas) cubins. */
    if (!offline && (has[CLCPACK_KIND_NATIVE]
                         ? has[CLCPACK_KIND_PTX] || has[CLCPACK_KIND_CUBIN]
                         : !has[CLCPACK_KIND_PTX] || has[CLCPACK_KIND_CUBIN] != f->want_cubin))
        return 0;
    for (size_t i = 0; i < n; i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        clcpack_error e2;
        clcpack_get_entry(old, idx[i], &e);
        size_t size = (size_t)e.raw_size;
        void *bin = malloc(size ? size : 1);
        uint32_t src = CLCPACK_NONE;
        clcpack_status st = bin ? clcpack_read_binary(old, idx[i], bin, size, &size, &e2)
                                : CLCPACK_E_NOMEM;
        if (st == CLCPACK_OK)
            st = clcpack_writer_add_source(w, j->source_name, j->source, j->source_size, &src,
                                           &e2);
        clcpack_entry_spec spec;
        memset(&spec, 0, sizeof spec);
        spec.struct_size = sizeof spec;
        spec.kernel = e.kernel;
        spec.family = j->family; /* the same as the old entry's (pack_reuse) */
        spec.options = e.options;
        spec.defines = e.defines;
        spec.define_count = e.define_count;
        memcpy(spec.wg, e.wg, sizeof spec.wg);
        spec.device = dev_index;
        spec.source = src;
        spec.kind = e.kind;
        spec.arch = e.arch;
        spec.binary = bin;
        spec.binary_size = size;
        spec.kernel_names = e.kernel_names;
        spec.kernel_name_count = e.kernel_name_count;
        spec.flags = e.flags;
        spec.target = e.target;
        if (st == CLCPACK_OK)
            st = clcpack_writer_add_entry(w, &spec, &e2);
        for (size_t t = 0; st == CLCPACK_OK && t < clcpack_entry_tuning_count(old, idx[i]); t++) {
            clcpack_tuning tu;
            if (clcpack_get_entry_tuning(old, idx[i], t, &tu) == CLCPACK_OK)
                st = clcpack_writer_add_tuning(w, &spec, &tu, &e2);
        }
        free(bin);
        if (st != CLCPACK_OK) {
            bfmt(err, cap, "reusing entry %zu: %s", idx[i], e2.message);
            return -1;
        }
    }
    return (long)n;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

uint64_t pack_reuse_time_key(const build_job *j, const clcpack_device_info *dev)
{
    uint64_t h = 0xcbf29ce484222325ull;
    h = fnv(h, j->source, j->source_size);
    h = fnv(h, "\0", 1);
    h = fnv(h, j->options, strlen(j->options));
    h = fnv(h, "\0", 1);
    h = fnv(h, dev->device_name, strlen(dev->device_name));
    h = fnv(h, dev->driver_version, strlen(dev->driver_version));
    return h;
}

static int cache_path(char *out, size_t cap)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (xdg && xdg[0] == '/')
        bfmt(out, cap, "%s/clc-pack/build-times", xdg);
    else if (home && home[0] == '/')
        bfmt(out, cap, "%s/.cache/clc-pack/build-times", home);
    else
        return -1;
    return 0;
}

void pack_reuse_times_put(pack_reuse_times *t, uint64_t key, double seconds)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->keys[i] == key) {
            t->seconds[i] = seconds;
            return;
        }
    if (t->n >= TIMES_MAX)
        return;
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 256;
        uint64_t *k = realloc(t->keys, cap * sizeof *k);
        if (!k)
            return;
        t->keys = k;
        double *s = realloc(t->seconds, cap * sizeof *s);
        if (!s)
            return;
        t->seconds = s;
        t->cap = cap;
    }
    t->keys[t->n] = key;
    t->seconds[t->n++] = seconds;
}

double pack_reuse_times_get(const pack_reuse_times *t, uint64_t key)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->keys[i] == key)
            return t->seconds[i];
    return -1;
}

void pack_reuse_times_load(pack_reuse_times *t)
{
    memset(t, 0, sizeof *t);
    char path[4096];
    if (cache_path(path, sizeof path) != 0)
        return;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return;
    }
    unsigned long long k;
    double s;
    /* Appended as read: the file was written without repeats. */
    while (t->n < TIMES_MAX && fscanf(f, "%llx %lf", &k, &s) == 2) {
        if (!(s >= 0 && s < 1e6))
            continue;
        if (t->n == t->cap) {
            size_t cap = t->cap ? t->cap * 2 : 256;
            uint64_t *kk = realloc(t->keys, cap * sizeof *kk);
            double *ss = kk ? realloc(t->seconds, cap * sizeof *ss) : NULL;
            if (kk)
                t->keys = kk;
            if (!ss)
                break;
            t->seconds = ss;
            t->cap = cap;
        }
        t->keys[t->n] = (uint64_t)k;
        t->seconds[t->n++] = s;
    }
    fclose(f);
}

void pack_reuse_times_save(const pack_reuse_times *t)
{
    char path[4096];
    if (t->n == 0 || cache_path(path, sizeof path) != 0)
        return;
    size_t cap = t->n * 40 + 1, len = 0;
    char *text = malloc(cap);
    if (!text)
        return;
    for (size_t i = 0; i < t->n; i++)
        len += (size_t)snprintf(text + len, cap - len, "%016llx %.3f\n",
                                (unsigned long long)t->keys[i], t->seconds[i]);
    char dir[4096];
    bfmt(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = '\0';
        mkdir(dir, 0700);
    }
    clcpk_write_file_atomic(path, text, len, NULL);
    free(text);
}

void pack_reuse_times_free(pack_reuse_times *t)
{
    free(t->keys);
    free(t->seconds);
    memset(t, 0, sizeof *t);
}

static const double *sort_cost;

static int by_cost(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    if (sort_cost[x] != sort_cost[y])
        return sort_cost[x] > sort_cost[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

void pack_reuse_sort_longest_first(size_t *order, size_t n, const double *cost)
{
    sort_cost = cost;
    qsort(order, n, sizeof *order, by_cost);
    sort_cost = NULL;
}
