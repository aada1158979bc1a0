/* miss_reason.c — why the pack holds no entry for a build or a link
 * (preload.h, docs/RECORD.md "Replay"): the recorded entry nearest to it and
 * what differs, so that the CLCPACK_LOG line says which change made a
 * program pass through ("the source differs from the recorded one in line
 * 12", "the options differ: -DX=1 recorded, -DX=2 here"). The key is a hash:
 * it says only that something differs, so the pack's stored texts and
 * options are read and compared here, once per miss. */
#include "preload.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A source's rank when its text is the application's: above any count of
 * lines or inputs in common. */
#define SAME_TEXT ((uint64_t)1 << 40)
#define UNREAD UINT64_MAX
#define UNREADABLE (UINT64_MAX - 1)
#define NAMES_SHOWN 3

/* Appends to why[0..cap) at *at, cut at cap (then *at is cap). */
static void add(char *why, size_t cap, size_t *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add(char *why, size_t cap, size_t *at, const char *fmt, ...)
{
    if (*at >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(why + *at, cap - *at, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= cap - *at)
        *at = cap;
    else
        *at += (size_t)n;
}

/* Source s of the pack, decoded, malloc'd; NULL when it cannot be read. */
static unsigned char *read_text(const clcpack *pack, uint32_t s, size_t *n)
{
    *n = 0;
    if (clcpack_read_source(pack, s, NULL, 0, n, NULL) != CLCPACK_OK)
        return NULL;
    unsigned char *buf = malloc(*n ? *n : 1);
    if (buf && clcpack_read_source(pack, s, buf, *n, n, NULL) != CLCPACK_OK) {
        free(buf);
        buf = NULL;
    }
    return buf;
}

/* ---------------------------------------------------------------------- */
/* Program texts                                                           */

typedef struct text_diff {
    int same;
    size_t common;      /* line ends the two share at their start and end */
    size_t first, last; /* the lines of the application's text that differ, from 1 */
} text_diff;

static size_t line_ends(const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += s[i] == '\n';
    return k;
}

/* The recorded text a[0..na) against the application's b[0..nb): where
 * they part at the start and meet again at the end. */
static text_diff compare_text(const char *a, size_t na, const char *b, size_t nb)
{
    text_diff d = {0, 0, 0, 0};
    size_t p = 0, min = na < nb ? na : nb, q = 0;
    while (p < min && a[p] == b[p])
        p++;
    if (p == na && p == nb) {
        d.same = 1;
        return d;
    }
    while (q < min - p && a[na - 1 - q] == b[nb - 1 - q])
        q++;
    size_t head = line_ends(b, p);
    d.common = head + line_ends(b + nb - q, q);
    d.first = head + 1;
    /* The application's last differing byte; none when its text only lost
     * bytes the recorded one has: then the line where they went. */
    size_t end = nb - q > p ? nb - q - 1 : p;
    d.last = line_ends(b, end) + 1;
    if (d.last < d.first)
        d.last = d.first;
    return d;
}

typedef struct text_ctx {
    const char *text;
    size_t size;
} text_ctx;

/* How near a recorded text is. The stored bytes are taken as they are: a
 * pack recorded before rk_canonical_size may hold PyOpenCL's line, and its
 * key was made with it, so that line is a difference. */
static uint64_t rank_text(const unsigned char *stored, size_t n, void *ctx)
{
    const text_ctx *t = ctx;
    text_diff d = compare_text((const char *)stored, n, t->text, t->size);
    return d.same ? SAME_TEXT : d.common;
}

/* ---------------------------------------------------------------------- */
/* Link descriptions                                                       */

typedef struct key_list {
    char **keys;
    size_t n, cap;
    int oom;
} key_list;

static int push_key(const char *key, void *user)
{
    key_list *l = user;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        char **more = realloc(l->keys, cap * sizeof *more);
        if (!more)
            return l->oom = 1;
        l->keys = more;
        l->cap = cap;
    }
    if (!(l->keys[l->n] = strdup(key)))
        return l->oom = 1;
    l->n++;
    return 0;
}

static void free_keys(key_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->keys[i]);
    free(l->keys);
    memset(l, 0, sizeof *l);
}

/* The inputs' compile keys of a description; 0, or -1 when it is not one
 * (or memory ran out). */
static int keys_of(const unsigned char *desc, size_t n, key_list *l)
{
    memset(l, 0, sizeof *l);
    if (link_desc_each_key(desc, n, push_key, l) != 0 || l->oom) {
        free_keys(l);
        return -1;
    }
    return 0;
}

/* How many inputs the two links share, at the same places; the first
 * place where they differ in *first (the shorter one's count when none). */
static size_t same_inputs(const key_list *a, const key_list *b, size_t *first)
{
    size_t same = 0, min = a->n < b->n ? a->n : b->n;
    *first = min;
    for (size_t k = 0; k < min; k++) {
        if (strcmp(a->keys[k], b->keys[k]) == 0)
            same++;
        else if (*first == min)
            *first = k;
    }
    return same;
}

typedef struct link_ctx {
    const unsigned char *desc;
    size_t size;
    const key_list *keys;
} link_ctx;

static uint64_t rank_link(const unsigned char *stored, size_t n, void *ctx)
{
    const link_ctx *l = ctx;
    if (n == l->size && memcmp(stored, l->desc, n) == 0)
        return SAME_TEXT;
    key_list k;
    if (keys_of(stored, n, &k) != 0)
        return 0;
    size_t first, same = same_inputs(&k, l->keys, &first);
    free_keys(&k);
    return same;
}

/* ---------------------------------------------------------------------- */
/* The nearest entry                                                       */

typedef struct nearest {
    size_t entry;      /* SIZE_MAX: no recorded entry of this kind */
    uint64_t rank;     /* 2 * the text's rank, + 1 when the options are the same */
    size_t texts;      /* distinct recorded texts compared */
} nearest;

static int same_options(const char *stored, const char *norm)
{
    char *n = NULL, **dirs = NULL;
    size_t n_dirs = 0;
    if (rk_normalize(stored, &n, &dirs, &n_dirs) != 0)
        return 0;
    int same = strcmp(n, norm) == 0;
    free(n);
    rk_free_dirs(dirs, n_dirs);
    return same;
}

/* Among the pack's entries whose key starts with prefix, the one whose
 * stored text ranks highest, then whose options are norm: each text is
 * read and ranked once, however many devices' entries share it. */
static nearest find_nearest(const clcpack *pack, const char *prefix, const char *norm,
                            uint64_t (*rank)(const unsigned char *, size_t, void *), void *ctx)
{
    nearest best = {SIZE_MAX, 0, 0};
    size_t n_src = clcpack_source_count(pack), n_prefix = strlen(prefix);
    uint64_t *ranks = malloc((n_src ? n_src : 1) * sizeof *ranks);
    if (!ranks)
        return best;
    for (size_t s = 0; s < n_src; s++)
        ranks[s] = UNREAD;
    for (size_t i = 0; i < clcpack_entry_count(pack); i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        if (clcpack_get_entry(pack, i, &e) != CLCPACK_OK || e.source >= n_src ||
            strncmp(e.kernel, prefix, n_prefix) != 0)
            continue;
        if (ranks[e.source] == UNREAD) {
            size_t n;
            unsigned char *text = read_text(pack, e.source, &n);
            ranks[e.source] = text ? rank(text, n, ctx) : UNREADABLE;
            best.texts += text != NULL;
            free(text);
        }
        if (ranks[e.source] == UNREADABLE)
            continue;
        uint64_t r = 2 * ranks[e.source] + (uint64_t)same_options(e.options, norm);
        if (best.entry == SIZE_MAX || r > best.rank) {
            best.entry = i;
            best.rank = r;
        }
    }
    free(ranks);
    return best;
}

/* "entry N (kernels a, b, c, ...)" */
static void add_entry_label(char *why, size_t cap, size_t *at, const clcpack_entry_info *e,
                            size_t i)
{
    add(why, cap, at, "entry %zu", i);
    for (size_t k = 0; k < e->kernel_name_count && k < NAMES_SHOWN; k++)
        add(why, cap, at, "%s%s", k ? ", " : " (kernels ", e->kernel_names[k]);
    if (e->kernel_name_count > NAMES_SHOWN)
        add(why, cap, at, ", ...");
    if (e->kernel_name_count)
        add(why, cap, at, ")");
}

static int has_word(const char *s, const char *w, size_t n)
{
    size_t pos = 0, a, b;
    while (rk_next_word(s, &pos, &a, &b))
        if (b - a == n && memcmp(s + a, w, n) == 0)
            return 1;
    return 0;
}

/* The words of normalized options a that b lacks, "(none)" when none; how
 * many. */
static size_t add_missing(char *why, size_t cap, size_t *at, const char *a, const char *b)
{
    size_t pos = 0, s, e, k = 0;
    while (rk_next_word(a, &pos, &s, &e))
        if (!has_word(b, a + s, e - s))
            add(why, cap, at, "%s%.*s", k++ ? " " : "", (int)(e - s), a + s);
    if (!k)
        add(why, cap, at, "(none)");
    return k;
}

/* "the options differ: X recorded, Y here" with the words only one side
 * has; the whole of both when only their order differs. */
static void add_options(char *why, size_t cap, size_t *at, const char *stored, const char *norm)
{
    char *rec = NULL, **dirs = NULL;
    size_t n_dirs = 0;
    if (rk_normalize(stored, &rec, &dirs, &n_dirs) != 0) {
        add(why, cap, at, "the options differ");
        return;
    }
    rk_free_dirs(dirs, n_dirs);
    size_t mark = *at;
    add(why, cap, at, "the options differ: ");
    size_t k = add_missing(why, cap, at, rec, norm);
    add(why, cap, at, " recorded, ");
    k += add_missing(why, cap, at, norm, rec);
    add(why, cap, at, " here");
    if (!k && mark < cap) {
        *at = mark;
        add(why, cap, at, "the options are in another order: %s recorded, %s here", rec, norm);
    }
    free(rec);
}

/* The opening of a reason: the pack, named once, and the nearest entry.
 * 0 when there is one to compare with, else -1 with the whole reason. */
static int add_opening(const clcpack *pack, const char *pack_name, const char *what,
                       const char *things, const nearest *best, clcpack_entry_info *e,
                       char *why, size_t cap, size_t *at)
{
    add(why, cap, at, "%s has no entry for this %s", pack_name, what);
    if (best->entry == SIZE_MAX || best->texts == 0) {
        add(why, cap, at, ": it holds no recorded %s", things);
        return -1;
    }
    if (best->rank < 2) {
        add(why, cap, at, ": none of its %zu recorded %s resembles it", best->texts, things);
        return -1;
    }
    e->struct_size = sizeof *e;
    if (clcpack_get_entry(pack, best->entry, e) != CLCPACK_OK)
        return -1;
    add(why, cap, at, "; the nearest is ");
    add_entry_label(why, cap, at, e, best->entry);
    add(why, cap, at, ": ");
    return 0;
}

void miss_reason_build(const clcpack *pack, const char *pack_name, const char *text, size_t size,
                       const char *norm, char *why, size_t cap)
{
    text_ctx t = {text, size};
    nearest best = find_nearest(pack, RK_PREFIX, norm, rank_text, &t);
    clcpack_entry_info e;
    size_t at = 0;
    if (add_opening(pack, pack_name, "build", "program builds", &best, &e, why, cap, &at) != 0)
        return;
    int opts = best.rank & 1;
    if (best.rank / 2 == SAME_TEXT) {
        if (opts)
            add(why, cap, &at, "its source and options are this build's, so a header from its -I "
                               "folders differs (the key covers their contents)");
        else
            add_options(why, cap, &at, e.options, norm);
        return;
    }
    size_t n = 0;
    unsigned char *stored = read_text(pack, e.source, &n);
    if (!stored) {
        add(why, cap, &at, "its source cannot be read");
        return;
    }
    text_diff d = compare_text((const char *)stored, n, text, size);
    free(stored);
    if (d.first == d.last)
        add(why, cap, &at, "the source differs from the recorded one in line %zu", d.first);
    else
        add(why, cap, &at, "the source differs from the recorded one in lines %zu-%zu", d.first,
            d.last);
    if (!opts) {
        add(why, cap, &at, "; ");
        add_options(why, cap, &at, e.options, norm);
    }
}

void miss_reason_link(const clcpack *pack, const char *pack_name, const unsigned char *desc,
                      size_t size, const char *norm, char *why, size_t cap)
{
    key_list here;
    size_t at = 0;
    if (keys_of(desc, size, &here) != 0) {
        add(why, cap, &at, "%s has no entry for this link", pack_name);
        return;
    }
    link_ctx l = {desc, size, &here};
    nearest best = find_nearest(pack, RK_LINK_PREFIX, norm, rank_link, &l);
    clcpack_entry_info e;
    if (add_opening(pack, pack_name, "link", "links", &best, &e, why, cap, &at) == 0) {
        size_t n = 0;
        unsigned char *stored = best.rank / 2 == SAME_TEXT ? NULL : read_text(pack, e.source, &n);
        key_list rec;
        if (best.rank / 2 == SAME_TEXT) {
            add_options(why, cap, &at, e.options, norm);
        } else if (stored && keys_of(stored, n, &rec) == 0) {
            size_t k;
            same_inputs(&rec, &here, &k);
            if (k < rec.n && k < here.n)
                add(why, cap, &at, "input %zu of %zu differs from the recorded link's (another "
                                   "source, compile options or header programs)",
                    k + 1, here.n);
            else
                add(why, cap, &at, "it links %zu inputs, the recorded link %zu", here.n, rec.n);
            free_keys(&rec);
        } else {
            add(why, cap, &at, "its description cannot be read");
        }
        free(stored);
    }
    free_keys(&here);
}
