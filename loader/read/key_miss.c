/*
 * key_miss.c — the message for a key no entry has: what was asked for, and
 * what the pack has instead, so that a caller sees the difference (a define
 * value, a work-group of {16,16,0} where the pack has {16,16,1}, a name
 * spelt another way) without listing the pack.
 *
 * Only a failed lookup comes here, after the whole index is read: the
 * scans are linear, and nothing is allocated (a few entries are kept on
 * the stack), so a miss costs no memory and cannot fail in another way.
 */
#include <stdint.h>
#include <string.h>

#include "entry_key.h"
#include "errors.h"
#include "key_hash.h"
#include "key_miss.h"
#include "pack_reader.h"
#include "text.h"

/* Entries named in the message: enough to show the pattern, few enough
 * that the message stays within clcpack_error's buffer. */
#define NEAR_MAX 4
/* Characters of a name the edit distance looks at (a longer one is
 * compared by its start: a suggestion, not a proof). */
#define NAME_CMP_MAX 64

static const char *value_or_empty(const char *v) { return v ? v : ""; }

static const clcpack_define *find_define(const clcpack_entry_info *e, const char *name)
{
    for (size_t k = 0; k < e->define_count; k++)
        if (strcmp(e->defines[k].name, name) == 0)
            return &e->defines[k];
    return NULL;
}

/* How close entry e is to the key: each key define the entry has with the
 * same value counts 2, with another value 1; each entry define the key
 * lacks costs 1; the same work-group counts 2. */
static int closeness(const clcpack_entry_info *e, const clcpack_key *key)
{
    int score = 0;
    size_t named = 0;
    for (size_t i = 0; i < key->define_count; i++) {
        const clcpack_define *d = find_define(e, key->defines[i].name);
        if (d) {
            named++;
            score += strcmp(d->value, value_or_empty(key->defines[i].value)) == 0 ? 2 : 1;
        }
    }
    score -= (int)(e->define_count - named);
    return score + (memcmp(e->wg, key->wg, sizeof e->wg) == 0 ? 2 : 0);
}

/* Same define set (both sorted by name) and work-group. */
static int same_variant(const clcpack_entry_info *a, const clcpack_entry_info *b)
{
    return memcmp(a->wg, b->wg, sizeof a->wg) == 0 && clcpk_same_defines(a, b);
}

typedef struct nearest {
    size_t entry[NEAR_MAX];
    int score[NEAR_MAX];
    size_t n;
} nearest;

static int kept(const clcpack *p, const nearest *nr, const clcpack_entry_info *e)
{
    for (size_t k = 0; k < nr->n; k++)
        if (same_variant(&p->entries[nr->entry[k]].info, e))
            return 1;
    return 0;
}

/* Keeps entry i among the NEAR_MAX closest variants, best first (ties: the
 * earlier entry). */
static void offer(const clcpack *p, nearest *nr, size_t i, int score)
{
    if (kept(p, nr, &p->entries[i].info) || (nr->n == NEAR_MAX && score <= nr->score[NEAR_MAX - 1]))
        return;
    size_t at = nr->n < NEAR_MAX ? nr->n++ : NEAR_MAX - 1;
    while (at > 0 && nr->score[at - 1] < score) {
        nr->entry[at] = nr->entry[at - 1];
        nr->score[at] = nr->score[at - 1];
        at--;
    }
    nr->entry[at] = i;
    nr->score[at] = score;
}

/* The key's name is in the pack: its nearest variants, and how many
 * entries of that name are of none of them. */
static clcpack_status near_variants(const clcpack *p, const clcpack_key *key, const char *desc,
                                    size_t same_name, clcpack_error *err)
{
    nearest nr = {{0}, {0}, 0};
    for (size_t i = 0; i < p->n_entries; i++)
        if (clcpk_entry_has_name(&p->entries[i].info, key->kernel))
            offer(p, &nr, i, closeness(&p->entries[i].info, key));
    size_t others = 0;
    for (size_t i = 0; i < p->n_entries; i++)
        others += clcpk_entry_has_name(&p->entries[i].info, key->kernel) &&
                  !kept(p, &nr, &p->entries[i].info);
    char list[640], one[200];
    pk_text t;
    clcpk_text_init(&t, list, sizeof list);
    for (size_t k = 0; k < nr.n; k++) {
        clcpk_describe_entry_variant(&p->entries[nr.entry[k]].info, one, sizeof one);
        clcpk_text_item(&t, "%s", one);
    }
    if (others)
        clcpk_text_add(&t, " (and %zu other entr%s)", others, others == 1 ? "y" : "ies");
    return clcpk_fail(err, CLCPACK_E_NOT_FOUND,
                      "no entry for %s: the pack has %zu entr%s of %s, none with this define set "
                      "and work-group size; nearest: %s",
                      desc, same_name, same_name == 1 ? "y" : "ies", key->kernel, list);
}

/* Levenshtein distance of the first NAME_CMP_MAX characters of a and b. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strnlen(a, NAME_CMP_MAX), lb = strnlen(b, NAME_CMP_MAX);
    size_t row[NAME_CMP_MAX + 1];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

static void consider(const char *cand, const char *name, const char **best, size_t *best_d)
{
    if (*best && strcmp(cand, *best) == 0)
        return;
    size_t d = edit_distance(cand, name);
    if (!*best || d < *best_d) {
        *best = cand;
        *best_d = d;
    }
}

const char *clcpk_nearest_name(const clcpack *p, const char *name)
{
    const char *best = NULL;
    size_t best_d = 0;
    for (size_t i = 0; i < p->n_entries; i++) {
        const clcpack_entry_info *e = &p->entries[i].info;
        consider(e->kernel, name, &best, &best_d);
        for (size_t k = 0; k < e->kernel_name_count; k++)
            consider(e->kernel_names[k], name, &best, &best_d);
    }
    return best;
}

clcpack_status clcpk_key_not_found(const clcpack *p, const clcpack_key *key, clcpack_error *err)
{
    /* Room in the message for the list after the key. */
    char desc[320];
    clcpk_describe_key(key, desc, sizeof desc);
    size_t same_name = 0;
    for (size_t i = 0; i < p->n_entries; i++)
        same_name += clcpk_entry_has_name(&p->entries[i].info, key->kernel);
    if (same_name)
        return near_variants(p, key, desc, same_name, err);
    const char *near = clcpk_nearest_name(p, key->kernel);
    return clcpk_fail(err, CLCPACK_E_NOT_FOUND,
                      "no entry for %s: the pack has no kernel or program %s%s%s%s", desc,
                      key->kernel, near ? "; did you mean " : " (it has no entries)",
                      near ? near : "", near ? "?" : "");
}
