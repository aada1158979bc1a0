/* job_index.c — a build_job_list's jobs by their key (job_index.h). */
#include "job_index.h"

#include <stdlib.h>
#include <string.h>

/* FNV-1a over a job's key: its entry name, its defines (name and value,
 * each with its NUL) and its work-group. */
static uint64_t hash_bytes(uint64_t h, const void *at, size_t n)
{
    const unsigned char *b = at;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    return h;
}

#define HASH_START UINT64_C(0xcbf29ce484222325)

static uint64_t hash_job(const build_job *j)
{
    uint64_t h = hash_bytes(HASH_START, j->entry_name, strlen(j->entry_name) + 1);
    for (size_t k = 0; k < j->n_defines; k++) {
        h = hash_bytes(h, j->defines[k].name, strlen(j->defines[k].name) + 1);
        h = hash_bytes(h, j->defines[k].value, strlen(j->defines[k].value) + 1);
    }
    return hash_bytes(h, j->wg, sizeof j->wg);
}

static uint64_t hash_variant(const char *entry, const char *const *names,
                             const char *const *values, size_t n, const uint32_t wg[3])
{
    uint64_t h = hash_bytes(HASH_START, entry, strlen(entry) + 1);
    for (size_t k = 0; k < n; k++) {
        h = hash_bytes(h, names[k], strlen(names[k]) + 1);
        h = hash_bytes(h, values[k], strlen(values[k]) + 1);
    }
    return hash_bytes(h, wg, 3 * sizeof *wg);
}

/* Puts job i of out in the table (growing it at half full); -1 when out
 * of memory. */
static int index_put(job_index *p, const build_job_list *out, size_t i)
{
    if ((p->indexed + 1) * 2 > p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 1024;
        size_t *slots = calloc(cap, sizeof *slots);
        uint64_t *hashes = malloc(cap * sizeof *hashes);
        if (!slots || !hashes) {
            free(slots);
            free(hashes);
            return -1;
        }
        for (size_t k = 0; k < p->cap; k++) {
            if (!p->slots[k])
                continue;
            size_t at = (size_t)p->hashes[k] & (cap - 1);
            while (slots[at])
                at = (at + 1) & (cap - 1);
            slots[at] = p->slots[k];
            hashes[at] = p->hashes[k];
        }
        free(p->slots);
        free(p->hashes);
        p->slots = slots;
        p->hashes = hashes;
        p->cap = cap;
    }
    uint64_t h = hash_job(&out->jobs[i]);
    size_t at = (size_t)h & (p->cap - 1);
    while (p->slots[at])
        at = (at + 1) & (p->cap - 1);
    p->slots[at] = i + 1;
    p->hashes[at] = h;
    return 0;
}

int job_index_holds(job_index *p, const build_job_list *out, const char *entry,
                    const char *const *names, const char *const *values, size_t n,
                    const uint32_t wg[3])
{
    for (; p->indexed < out->n; p->indexed++)
        if (index_put(p, out, p->indexed) != 0)
            return -1;
    if (!p->cap)
        return 0;
    uint64_t h = hash_variant(entry, names, values, n, wg);
    for (size_t at = (size_t)h & (p->cap - 1); p->slots[at]; at = (at + 1) & (p->cap - 1)) {
        const build_job *o = &out->jobs[p->slots[at] - 1];
        if (p->hashes[at] != h || strcmp(o->entry_name, entry) != 0 || o->n_defines != n ||
            memcmp(o->wg, wg, sizeof o->wg) != 0)
            continue;
        size_t k = 0;
        while (k < n && strcmp(o->defines[k].name, names[k]) == 0 &&
               strcmp(o->defines[k].value, values[k]) == 0)
            k++;
        if (k == n)
            return 1;
    }
    return 0;
}

void job_index_free(job_index *x)
{
    free(x->slots);
    free(x->hashes);
    memset(x, 0, sizeof *x);
}
