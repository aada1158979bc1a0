/* llvm_bitcode_same.c — two bitcode files compared by meaning, their
 * metadata kinds apart (llvm_bitcode_same.h). Both are read into events
 * (llvm_bitstream.h) and walked side by side. */
#include "llvm_bitcode_same.h"

#include <stdlib.h>
#include <string.h>

#include "bounded_fmt.h"
#include "llvm_bitstream.h"

#define IDENTIFICATION_BLOCK 13
#define MODULE_BLOCK 8
#define MODULE_CODE_VSTOFFSET 13
#define VALUE_SYMTAB_BLOCK 14
#define VST_CODE_FNENTRY 3
#define METADATA_KIND_BLOCK 22
#define METADATA_KIND 6
#define MAX_KINDS 4096

/* An offset record's word offsets in each file, each relative to one word
 * before its identification block (LLVM's writer: "offset is relative to
 * one word before the start of the identification block"). */
typedef struct offset_pair {
    uint64_t a, b, base_a, base_b;
} offset_pair;

typedef struct walk {
    const llvm_bitstream_stream *a, *b;
    size_t i, j;
    uint64_t base_a, base_b;
    offset_pair *pend;
    size_t n_pend, cap_pend;
    char *why;
    size_t why_cap;
} walk;

static int is_offset(const llvm_bitstream_event *e, size_t k)
{
    return (e->block == MODULE_BLOCK && e->code == MODULE_CODE_VSTOFFSET && k == 0) ||
           (e->block == VALUE_SYMTAB_BLOCK && e->code == VST_CODE_FNENTRY && k == 1);
}

/* 1 same, 0 not (why), -1 out of memory. */
static int same_record(walk *w, const llvm_bitstream_event *x, const llvm_bitstream_event *y)
{
    if (x->code != y->code || x->n_ops != y->n_ops || x->blob_len != y->blob_len ||
        (x->blob_len && memcmp(w->a->bytes + x->blob, w->b->bytes + y->blob, x->blob_len))) {
        bfmt(w->why, w->why_cap, "program.bc: a record of block %u differs (code %u and %u)",
             (unsigned)x->block, (unsigned)x->code, (unsigned)y->code);
        return 0;
    }
    const uint64_t *oa = w->a->ops + x->ops, *ob = w->b->ops + y->ops;
    for (size_t k = 0; k < x->n_ops; k++) {
        if (is_offset(x, k)) {
            if (w->n_pend == w->cap_pend) {
                size_t nc = w->cap_pend ? w->cap_pend * 2 : 16;
                offset_pair *g = realloc(w->pend, nc * sizeof *g);
                if (!g)
                    return -1;
                w->pend = g;
                w->cap_pend = nc;
            }
            w->pend[w->n_pend++] = (offset_pair){oa[k], ob[k], w->base_a, w->base_b};
        } else if (oa[k] != ob[k]) {
            bfmt(w->why, w->why_cap, "program.bc: a record of block %u code %u differs",
                 (unsigned)x->block, (unsigned)x->code);
            return 0;
        }
    }
    return 1;
}

/* The records of the METADATA_KIND block entered at ev[*i]: *i moves past
 * its end; *n of them, from *first. 0, or -1 when it holds anything but
 * KIND records. */
static int kind_records(const llvm_bitstream_stream *s, size_t *i, size_t *first, size_t *n)
{
    *first = ++*i;
    while (*i < s->n_ev && s->ev[*i].type == LLVM_BITSTREAM_RECORD && s->ev[*i].code == METADATA_KIND &&
           s->ev[*i].n_ops >= 1 && s->ev[*i].blob_len == 0)
        ++*i;
    *n = *i - *first;
    if (*i >= s->n_ev || s->ev[*i].type != LLVM_BITSTREAM_END || *n > MAX_KINDS)
        return -1;
    ++*i;
    return 0;
}

static int same_kind(const llvm_bitstream_stream *s, const llvm_bitstream_event *x, const llvm_bitstream_stream *t, const llvm_bitstream_event *y)
{
    return x->n_ops == y->n_ops &&
           memcmp(s->ops + x->ops, t->ops + y->ops, x->n_ops * sizeof *s->ops) == 0;
}

/* Both at a METADATA_KIND block: one's kinds all in the other's. */
static int same_kinds(walk *w)
{
    size_t fa, na, fb, nb;
    if (kind_records(w->a, &w->i, &fa, &na) != 0 || kind_records(w->b, &w->j, &fb, &nb) != 0) {
        bfmt(w->why, w->why_cap, "program.bc: a metadata kind block holds other records");
        return 0;
    }
    const llvm_bitstream_stream *small = na <= nb ? w->a : w->b, *big = na <= nb ? w->b : w->a;
    size_t fs = na <= nb ? fa : fb, ns = na <= nb ? na : nb;
    size_t fg = na <= nb ? fb : fa, ng = na <= nb ? nb : na;
    for (size_t k = 0; k < ns; k++) {
        const llvm_bitstream_event *x = &small->ev[fs + k];
        size_t m = 0;
        while (m < ng && !same_kind(small, x, big, &big->ev[fg + m]))
            m++;
        if (m == ng) {
            bfmt(w->why, w->why_cap,
                 "program.bc: metadata kind %llu is not the same in both, nor in one only",
                 (unsigned long long)small->ops[x->ops]);
            return 0;
        }
    }
    return 1;
}

/* The bits at which s's blocks are entered, in order (increasing):
 * malloc'd, *n of them; NULL when out of memory. */
static uint64_t *enter_bits(const llvm_bitstream_stream *s, size_t *n)
{
    uint64_t *bits = malloc((s->n_ev ? s->n_ev : 1) * sizeof *bits);
    *n = 0;
    for (size_t i = 0; bits && i < s->n_ev; i++)
        if (s->ev[i].type == LLVM_BITSTREAM_ENTER)
            bits[(*n)++] = s->ev[i].bit;
    return bits;
}

/* The ordinal of the block entered at words (an offset from base), or
 * SIZE_MAX when no block starts there. */
static size_t block_at(const uint64_t *bits, size_t n, uint64_t words, uint64_t base)
{
    if (words == 0 || words - 1 > (UINT64_MAX - base) / 32)
        return SIZE_MAX;
    uint64_t bit = base + (words - 1) * 32;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (bits[mid] < bit)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && bits[lo] == bit ? lo : SIZE_MAX;
}

/* Every offset points, in each file, at the corresponding block. 1, 0
 * (why), -1 out of memory. */
static int offsets_agree(walk *w)
{
    size_t na, nb;
    uint64_t *ba = enter_bits(w->a, &na), *bb = enter_bits(w->b, &nb);
    int rc = ba && bb ? 1 : -1;
    for (size_t k = 0; rc == 1 && k < w->n_pend; k++) {
        const offset_pair *p = &w->pend[k];
        size_t oa = block_at(ba, na, p->a, p->base_a), ob = block_at(bb, nb, p->b, p->base_b);
        if (oa == SIZE_MAX || oa != ob) {
            bfmt(w->why, w->why_cap,
                 "program.bc: offsets %llu and %llu do not point at the same block",
                 (unsigned long long)p->a, (unsigned long long)p->b);
            rc = 0;
        }
    }
    free(ba);
    free(bb);
    return rc;
}

static int walk_both(walk *w)
{
    const llvm_bitstream_stream *a = w->a, *b = w->b;
    while (w->i < a->n_ev && w->j < b->n_ev) {
        const llvm_bitstream_event *x = &a->ev[w->i], *y = &b->ev[w->j];
        if (x->type != y->type || x->block != y->block) {
            bfmt(w->why, w->why_cap, "program.bc: other blocks (%u and %u)", (unsigned)x->block,
                 (unsigned)y->block);
            return 0;
        }
        if (x->type == LLVM_BITSTREAM_ENTER && x->block == METADATA_KIND_BLOCK) {
            if (!same_kinds(w))
                return 0;
            continue;
        }
        if (x->type == LLVM_BITSTREAM_ENTER && x->block == IDENTIFICATION_BLOCK) {
            w->base_a = x->bit;
            w->base_b = y->bit;
        }
        if (x->type == LLVM_BITSTREAM_RECORD) {
            int rc = same_record(w, x, y);
            if (rc != 1)
                return rc;
        }
        w->i++;
        w->j++;
    }
    if (w->i != a->n_ev || w->j != b->n_ev) {
        bfmt(w->why, w->why_cap, "program.bc: one holds more blocks or records");
        return 0;
    }
    return offsets_agree(w);
}

int llvm_bitcode_same_same_but_kinds(const unsigned char *a, size_t a_size, const unsigned char *b,
                       size_t b_size, char *why, size_t why_cap)
{
    llvm_bitstream_stream sa, sb;
    int rc = llvm_bitstream_parse(a, a_size, &sa, why, why_cap);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    rc = llvm_bitstream_parse(b, b_size, &sb, why, why_cap);
    if (rc != 0) {
        llvm_bitstream_stream_free(&sa);
        return rc < 0 ? -1 : 0;
    }
    /* Without an identification block (LLVM before 3.8) the offsets count
     * from the magic, one word before the module. */
    walk w = {.a = &sa, .b = &sb, .base_a = 32, .base_b = 32, .why = why, .why_cap = why_cap};
    rc = walk_both(&w);
    free(w.pend);
    llvm_bitstream_stream_free(&sa);
    llvm_bitstream_stream_free(&sb);
    return rc;
}
