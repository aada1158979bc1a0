/* llvm_bitstream.c — LLVM's bitstream read into events (llvm_bitstream.h).
 * Abbreviations are kept only while reading: two writers that chose other
 * abbreviations for the same records give the same events. */
#include "llvm_bitstream.h"

#include <stdlib.h>
#include <string.h>

#include "bounded_fmt.h"

#define MAX_DEPTH 64
#define MAX_ABBREV_OPS 1024
#define BLOCKINFO 0
#define SETBID 1

enum { OP_LITERAL = 0, OP_FIXED = 1, OP_VBR = 2, OP_ARRAY = 3, OP_CHAR6 = 4, OP_BLOB = 5 };

typedef struct abbrev_op {
    unsigned char enc;
    uint64_t val; /* the literal, or the width */
} abbrev_op;

typedef struct abbrev {
    size_t at, n; /* into parser.aops */
} abbrev;

/* Abbreviation numbers (into parser.abbrevs) in the order defined. */
typedef struct abbrev_list {
    size_t *ids, n, cap;
} abbrev_list;

typedef struct info_entry {
    uint32_t block;
    abbrev_list list;
} info_entry;

typedef struct scope {
    uint32_t block;
    unsigned width;
    uint64_t end;
    abbrev_list local;
} scope;

typedef struct parser {
    const unsigned char *p;
    uint64_t nbits, pos;
    int bad, oom;
    abbrev_op *aops;
    size_t n_aops, cap_aops;
    abbrev *abbrevs;
    size_t n_abbrevs, cap_abbrevs;
    info_entry *info;
    size_t n_info, cap_info;
    int64_t info_bid; /* the BLOCKINFO block's SETBID, -1 before one */
    scope stack[MAX_DEPTH];
    int depth;
    llvm_bitstream_stream *s;
    size_t cap_ev, cap_ops;
    char *why;
    size_t why_cap;
} parser;

/* Room for one more of *n items of size elem in *arr; 0, or -1 (r->oom). */
static int grow(parser *r, void **arr, size_t n, size_t *cap, size_t elem)
{
    if (n < *cap)
        return 0;
    size_t nc = *cap ? *cap * 2 : 64;
    void *g = nc <= SIZE_MAX / elem ? realloc(*arr, nc * elem) : NULL;
    if (!g) {
        r->oom = 1;
        return -1;
    }
    *arr = g;
    *cap = nc;
    return 0;
}

/* Marks the stream damaged, with the first reason found. */
static void fail(parser *r, const char *what)
{
    if (!r->bad)
        bfmt(r->why, r->why_cap, "bitcode damaged at bit %llu: %s", (unsigned long long)r->pos,
             what);
    r->bad = 1;
    r->pos = r->nbits;
}

static uint64_t fixed(parser *r, unsigned w)
{
    if (w > 64 || r->nbits - r->pos < w) {
        fail(r, "read past the end");
        return 0;
    }
    uint64_t v = 0;
    unsigned got = 0;
    while (got < w) {
        unsigned off = (unsigned)(r->pos & 7), take = 8 - off;
        if (take > w - got)
            take = w - got;
        uint64_t bits = (uint64_t)(r->p[r->pos >> 3] >> off) & ((1u << take) - 1);
        v |= bits << got;
        got += take;
        r->pos += take;
    }
    return v;
}

static uint64_t vbr(parser *r, unsigned w)
{
    const uint64_t hi = 1ull << (w - 1);
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += w - 1) {
        uint64_t c = fixed(r, w), d = c & (hi - 1);
        if (r->bad)
            return 0;
        if (shift >= 64 || (shift && d >> (64 - shift))) {
            fail(r, "a variable-width value over 64 bits");
            return 0;
        }
        v |= d << shift;
        if (!(c & hi))
            return v;
    }
}

static void align32(parser *r)
{
    uint64_t to = (r->pos + 31) & ~(uint64_t)31;
    if (to > r->nbits)
        fail(r, "alignment past the end");
    else
        r->pos = to;
}

static void push_op(parser *r, uint64_t v)
{
    if (grow(r, (void **)&r->s->ops, r->s->n_ops, &r->cap_ops, sizeof *r->s->ops) == 0)
        r->s->ops[r->s->n_ops++] = v;
}

static void push_event(parser *r, const llvm_bitstream_event *e)
{
    if (grow(r, (void **)&r->s->ev, r->s->n_ev, &r->cap_ev, sizeof *r->s->ev) == 0)
        r->s->ev[r->s->n_ev++] = *e;
}

static void list_add(parser *r, abbrev_list *l, size_t id)
{
    if (grow(r, (void **)&l->ids, l->n, &l->cap, sizeof *l->ids) == 0)
        l->ids[l->n++] = id;
}

/* The BLOCKINFO list of block id, or NULL; create: make it. */
static abbrev_list *info_of(parser *r, uint32_t block, int create)
{
    for (size_t i = 0; i < r->n_info; i++)
        if (r->info[i].block == block)
            return &r->info[i].list;
    if (!create || grow(r, (void **)&r->info, r->n_info, &r->cap_info, sizeof *r->info) != 0)
        return NULL;
    r->info[r->n_info] = (info_entry){block, {NULL, 0, 0}};
    return &r->info[r->n_info++].list;
}

static void enter(parser *r, uint64_t at)
{
    uint64_t block = vbr(r, 8), width = vbr(r, 4);
    align32(r);
    uint64_t words = fixed(r, 32);
    if (r->bad)
        return;
    if (width < 1 || width > 32 || block > UINT32_MAX) {
        fail(r, "a block header out of range");
        return;
    }
    if (words > (r->nbits - r->pos) / 32 || r->depth == MAX_DEPTH) {
        fail(r, "a block longer than the stream, or nested too deep");
        return;
    }
    r->stack[r->depth++] =
        (scope){(uint32_t)block, (unsigned)width, r->pos + words * 32, {NULL, 0, 0}};
    llvm_bitstream_event e = {.type = LLVM_BITSTREAM_ENTER, .block = (uint32_t)block, .bit = at};
    push_event(r, &e);
}

static void end_block(parser *r)
{
    scope *sc = &r->stack[r->depth - 1];
    align32(r);
    if (!r->bad && r->pos != sc->end)
        fail(r, "a block ends elsewhere than its length says");
    llvm_bitstream_event e = {.type = LLVM_BITSTREAM_END, .block = sc->block};
    push_event(r, &e);
    free(sc->local.ids);
    r->depth--;
}

/* One operand definition of DEFINE_ABBREV; 0, or -1 when invalid. */
static int read_abbrev_op(parser *r, abbrev_op *op)
{
    if (fixed(r, 1)) {
        *op = (abbrev_op){OP_LITERAL, vbr(r, 8)};
        return r->bad ? -1 : 0;
    }
    op->enc = (unsigned char)fixed(r, 3);
    op->val = 0;
    if (op->enc == OP_FIXED || op->enc == OP_VBR) {
        op->val = vbr(r, 5);
        /* LLVM reads Fixed(0) and VBR(0) as the literal 0. */
        if (op->val == 0)
            op->enc = OP_LITERAL;
        else if (op->val > (op->enc == OP_FIXED ? 64u : 32u) || (op->enc == OP_VBR && op->val < 2))
            return -1;
    } else if (op->enc < OP_ARRAY || op->enc > OP_BLOB) {
        return -1;
    }
    return r->bad ? -1 : 0;
}

/* Array only second to last, before an element of at least one bit (so
 * that an array's length is bounded by the stream's); blob only last; the
 * code (the first operand) a scalar. */
static int abbrev_shape_ok(const abbrev_op *ops, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (ops[i].enc == OP_ARRAY &&
            (i == 0 || i + 2 != n ||
             (ops[i + 1].enc != OP_FIXED && ops[i + 1].enc != OP_VBR && ops[i + 1].enc != OP_CHAR6)))
            return 0;
        if (ops[i].enc == OP_BLOB && (i == 0 || i + 1 != n))
            return 0;
    }
    return 1;
}

static void define_abbrev(parser *r)
{
    uint64_t n = vbr(r, 5);
    if (r->bad || n == 0 || n > MAX_ABBREV_OPS) {
        fail(r, "an abbreviation of no or too many operands");
        return;
    }
    size_t at = r->n_aops;
    for (uint64_t i = 0; i < n && !r->bad && !r->oom; i++) {
        abbrev_op op;
        if (read_abbrev_op(r, &op) != 0) {
            fail(r, "an abbreviation operand of an unknown encoding");
            return;
        }
        if (grow(r, (void **)&r->aops, r->n_aops, &r->cap_aops, sizeof *r->aops) == 0)
            r->aops[r->n_aops++] = op;
    }
    if (r->bad || r->oom)
        return;
    if (!abbrev_shape_ok(r->aops + at, (size_t)n)) {
        fail(r, "an abbreviation with a misplaced array or blob");
        return;
    }
    if (grow(r, (void **)&r->abbrevs, r->n_abbrevs, &r->cap_abbrevs, sizeof *r->abbrevs) != 0)
        return;
    r->abbrevs[r->n_abbrevs] = (abbrev){at, (size_t)n};
    scope *sc = &r->stack[r->depth - 1];
    abbrev_list *l = &sc->local;
    if (sc->block == BLOCKINFO) {
        if (r->info_bid < 0) {
            fail(r, "an abbreviation in BLOCKINFO before SETBID");
            return;
        }
        l = info_of(r, (uint32_t)r->info_bid, 1);
        if (!l)
            return;
    }
    list_add(r, l, r->n_abbrevs++);
}

static uint64_t scalar(parser *r, const abbrev_op *op)
{
    static const char char6[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._";
    switch (op->enc) {
    case OP_LITERAL:
        return op->val;
    case OP_FIXED:
        return fixed(r, (unsigned)op->val);
    case OP_VBR:
        return vbr(r, (unsigned)op->val);
    default: /* OP_CHAR6 */
        return (unsigned char)char6[fixed(r, 6)];
    }
}

/* The operands after the code of a record in abbreviation ab. */
static void abbreviated_ops(parser *r, const abbrev *ab, llvm_bitstream_event *e)
{
    for (size_t i = 1; i < ab->n && !r->bad && !r->oom; i++) {
        const abbrev_op *op = &r->aops[ab->at + i];
        if (op->enc == OP_ARRAY) {
            uint64_t len = vbr(r, 6);
            if (len > r->nbits - r->pos) {
                fail(r, "an array longer than the stream");
                return;
            }
            for (uint64_t k = 0; k < len && !r->bad && !r->oom; k++)
                push_op(r, scalar(r, op + 1));
            i++;
        } else if (op->enc == OP_BLOB) {
            uint64_t len = vbr(r, 6);
            align32(r);
            if (r->bad || len > (r->nbits - r->pos) / 8) {
                fail(r, "a blob longer than the stream");
                return;
            }
            e->blob = (size_t)(r->pos / 8);
            e->blob_len = (size_t)len;
            r->pos += len * 8;
            align32(r);
        } else {
            push_op(r, scalar(r, op));
        }
    }
}

/* A record: unabbreviated (id 3) or in the block's abbreviation id. */
static void record(parser *r, uint64_t id)
{
    scope *sc = &r->stack[r->depth - 1];
    llvm_bitstream_event e = {.type = LLVM_BITSTREAM_RECORD, .block = sc->block, .ops = r->s->n_ops};
    uint64_t code;
    if (id == 3) {
        code = vbr(r, 6);
        uint64_t n = vbr(r, 6);
        if (n > r->nbits - r->pos)
            fail(r, "a record longer than the stream");
        for (uint64_t i = 0; i < n && !r->bad && !r->oom; i++)
            push_op(r, vbr(r, 6));
    } else {
        const abbrev_list *info = info_of(r, sc->block, 0);
        size_t k = (size_t)(id - 4), n_info = info ? info->n : 0;
        if (id - 4 >= (uint64_t)n_info + sc->local.n) {
            fail(r, "an undefined abbreviation");
            return;
        }
        const abbrev *ab =
            &r->abbrevs[k < n_info ? info->ids[k] : sc->local.ids[k - n_info]];
        code = scalar(r, &r->aops[ab->at]);
        abbreviated_ops(r, ab, &e);
    }
    if (code > UINT32_MAX)
        fail(r, "a record code over 32 bits");
    if (r->bad || r->oom)
        return;
    e.code = (uint32_t)code;
    e.n_ops = r->s->n_ops - e.ops;
    if (sc->block == BLOCKINFO && code == SETBID && e.n_ops >= 1)
        r->info_bid = r->s->ops[e.ops] > UINT32_MAX ? -1 : (int64_t)r->s->ops[e.ops];
    push_event(r, &e);
}

static void read_all(parser *r)
{
    while (!r->bad && !r->oom) {
        uint64_t at = r->pos;
        if (r->depth == 0) {
            if (r->pos == r->nbits)
                return;
            if (fixed(r, 2) != 1)
                fail(r, "no block at the top level");
            else
                enter(r, at);
            continue;
        }
        uint64_t id = fixed(r, r->stack[r->depth - 1].width);
        if (r->bad)
            return;
        if (id == 0)
            end_block(r);
        else if (id == 1)
            enter(r, at);
        else if (id == 2)
            define_abbrev(r);
        else
            record(r, id);
    }
}

int llvm_bitstream_parse(const unsigned char *buf, size_t size, llvm_bitstream_stream *s, char *why, size_t why_cap)
{
    memset(s, 0, sizeof *s);
    static const unsigned char magic[4] = {'B', 'C', 0xC0, 0xDE};
    if (size < 4 || memcmp(buf, magic, 4) != 0 || size > UINT64_MAX / 8) {
        /* The 0x0B17C0DE wrapper too: PoCL does not write it. */
        bfmt(why, why_cap, "not LLVM bitcode (no \"BC\" 0xC0DE at its start)");
        return 1;
    }
    parser r = {.p = buf, .nbits = (uint64_t)size * 8, .pos = 32, .info_bid = -1, .s = s,
                .why = why, .why_cap = why_cap};
    s->bytes = buf;
    s->size = size;
    read_all(&r);
    if (!r.bad && !r.oom && r.depth != 0)
        fail(&r, "a block not ended");
    while (r.depth > 0)
        free(r.stack[--r.depth].local.ids);
    for (size_t i = 0; i < r.n_info; i++)
        free(r.info[i].list.ids);
    free(r.info);
    free(r.aops);
    free(r.abbrevs);
    if (r.bad || r.oom) {
        llvm_bitstream_stream_free(s);
        return r.oom ? -1 : 1;
    }
    return 0;
}

void llvm_bitstream_stream_free(llvm_bitstream_stream *s)
{
    free(s->ev);
    free(s->ops);
    memset(s, 0, sizeof *s);
}
