/* Bitcode compared by meaning but for its metadata kinds
 * (clc/vendors/llvm_bitcode_same.h), on modules written here bit by bit:
 * an identification block, BLOCKINFO abbreviations, a module with a
 * VSTOFFSET, a METADATA_KIND block, a function block and the symbol table
 * pointing at it, a STRTAB blob. Extra kinds (with the offsets they move)
 * are the same module; another record, kind name or offset is not; cut or
 * damaged bitcode is refused without a crash; and pocl_binary_canon_union joins two PoCL
 * binaries whose program.bc differ so, in either order to the same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "llvm_bitcode_same.h"
#include "pocl_binary_canon.h"

typedef struct bw {
    unsigned char buf[4096];
    size_t bit;
} bw;

static void put_at(bw *w, size_t bit, uint64_t v, unsigned n)
{
    for (unsigned k = 0; k < n; k++, bit++) {
        unsigned char m = (unsigned char)(1u << (bit & 7));
        if ((v >> k) & 1u)
            w->buf[bit >> 3] |= m;
        else
            w->buf[bit >> 3] &= (unsigned char)~m;
    }
}

static void put(bw *w, uint64_t v, unsigned n)
{
    put_at(w, w->bit, v, n);
    w->bit += n;
}

static void put_vbr(bw *w, uint64_t v, unsigned n)
{
    const uint64_t hi = 1ull << (n - 1);
    while (v >= hi) {
        put(w, (v & (hi - 1)) | hi, n);
        v >>= n - 1;
    }
    put(w, v, n);
}

static void align(bw *w) { w->bit = (w->bit + 31) & ~(size_t)31; }

typedef struct blk {
    size_t len_at;
    unsigned width;
} blk;

/* Enters block id (abbreviation ids of width inner) from a block of
 * abbreviation width outer; returns where its bit started. */
static size_t enter(bw *w, unsigned outer, unsigned id, unsigned inner, blk *b)
{
    size_t at = w->bit;
    put(w, 1, outer);
    put_vbr(w, id, 8);
    put_vbr(w, inner, 4);
    align(w);
    b->len_at = w->bit;
    b->width = inner;
    put(w, 0, 32);
    return at;
}

static void end(bw *w, const blk *b)
{
    put(w, 0, b->width);
    align(w);
    put_at(w, b->len_at, (w->bit - b->len_at - 32) / 32, 32);
}

static void unabbrev(bw *w, unsigned width, unsigned code, const uint64_t *ops, size_t n)
{
    put(w, 3, width);
    put_vbr(w, code, 6);
    put_vbr(w, n, 6);
    for (size_t i = 0; i < n; i++)
        put_vbr(w, ops[i], 6);
}

/* A KIND record: [id, name...]. */
static void kind(bw *w, uint64_t id, const char *name)
{
    uint64_t ops[32] = {id};
    size_t n = 1;
    while (*name && n < 32)
        ops[n++] = (unsigned char)*name++;
    unabbrev(w, 3, 6, ops, n);
}

enum {
    EXTRA_KINDS = 1,    /* kinds another program registered before */
    SPELL_PLAIN = 2,    /* the source name unabbreviated */
    OTHER_RECORD = 4,   /* a function record with another value */
    RENAMED_KIND = 8,   /* kind 1 under another name */
    BAD_FNENTRY = 16,   /* FNENTRY at the symbol table, not the function */
    STALE_VSTOFF = 32,  /* VSTOFFSET as if the kind block had not grown */
};

/* An LLVM-like module; its size in bytes. */
static size_t make_module(unsigned char *out, unsigned v)
{
    bw w = {{0}, 0};
    put(&w, 'B', 8), put(&w, 'C', 8), put(&w, 0xC0, 8), put(&w, 0xDE, 8);
    blk ident, info, mod, kinds, fn, vst, strtab;
    size_t ident_at = enter(&w, 2, 13, 5, &ident);
    const uint64_t producer[] = {'L', 'L', 'V', 'M'};
    unabbrev(&w, 5, 1, producer, 4);
    end(&w, &ident);
    enter(&w, 2, 0, 2, &info); /* BLOCKINFO: for block 12, [literal 7, vbr6] */
    const uint64_t setbid[] = {12};
    unabbrev(&w, 2, 1, setbid, 1);
    put(&w, 2, 2), put_vbr(&w, 2, 5);
    put(&w, 1, 1), put_vbr(&w, 7, 8);
    put(&w, 0, 1), put(&w, 2, 3), put_vbr(&w, 6, 5);
    end(&w, &info);
    enter(&w, 2, 8, 3, &mod);
    /* abbreviation 4: [literal 16, array of char6] (SOURCE_FILENAME) */
    put(&w, 2, 3), put_vbr(&w, 3, 5);
    put(&w, 1, 1), put_vbr(&w, 16, 8);
    put(&w, 0, 1), put(&w, 3, 3);
    put(&w, 0, 1), put(&w, 4, 3);
    /* abbreviation 5: [literal 13, fixed 32] (VSTOFFSET, patched below) */
    put(&w, 2, 3), put_vbr(&w, 2, 5);
    put(&w, 1, 1), put_vbr(&w, 13, 8);
    put(&w, 0, 1), put(&w, 1, 3), put_vbr(&w, 32, 5);
    put(&w, 5, 3);
    size_t vstoff_at = w.bit;
    put(&w, 0, 32);
    static const char name[] = "kernel.cl";
    uint64_t chars[sizeof name - 1];
    for (size_t i = 0; i < sizeof name - 1; i++)
        chars[i] = (unsigned char)name[i];
    if (v & SPELL_PLAIN) {
        unabbrev(&w, 3, 16, chars, sizeof name - 1);
    } else {
        static const char c6[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._";
        put(&w, 4, 3), put_vbr(&w, sizeof name - 1, 6);
        for (size_t i = 0; i < sizeof name - 1; i++)
            put(&w, (uint64_t)(strchr(c6, name[i]) - c6), 6);
    }
    enter(&w, 3, 22, 3, &kinds);
    kind(&w, 0, "dbg");
    kind(&w, 1, v & RENAMED_KIND ? "tbaa.struct" : "tbaa");
    if (v & EXTRA_KINDS) {
        kind(&w, 2, "reqd_work_group_size");
        kind(&w, 3, "pocl_generated");
    }
    end(&w, &kinds);
    size_t fn_at = enter(&w, 3, 12, 4, &fn);
    put(&w, 4, 4), put_vbr(&w, v & OTHER_RECORD ? 43 : 42, 6); /* BLOCKINFO's abbreviation */
    end(&w, &fn);
    size_t vst_at = enter(&w, 3, 14, 4, &vst);
    const uint64_t fnentry[] = {0, ((v & BAD_FNENTRY ? vst_at : fn_at) - ident_at) / 32 + 1};
    unabbrev(&w, 4, 3, fnentry, 2);
    end(&w, &vst);
    uint64_t vstoff = (vst_at - ident_at) / 32 + 1;
    if (v & STALE_VSTOFF) { /* the offset of the module without the extra kinds */
        unsigned char t[4096];
        make_module(t, v & ~(unsigned)(EXTRA_KINDS | STALE_VSTOFF));
        vstoff = 0;
        for (unsigned k = 0; k < 32; k++)
            vstoff |= (uint64_t)((t[(vstoff_at + k) >> 3] >> ((vstoff_at + k) & 7)) & 1u) << k;
    }
    put_at(&w, vstoff_at, vstoff, 32);
    end(&w, &mod);
    enter(&w, 2, 23, 3, &strtab); /* [blob] */
    put(&w, 2, 3), put_vbr(&w, 2, 5);
    put(&w, 1, 1), put_vbr(&w, 1, 8);
    put(&w, 0, 1), put(&w, 5, 3);
    put(&w, 4, 3), put_vbr(&w, 6, 6);
    align(&w);
    for (const char *s = "kernel"; *s; s++)
        put(&w, (unsigned char)*s, 8);
    align(&w);
    end(&w, &strtab);
    memcpy(out, w.buf, w.bit / 8);
    return w.bit / 8;
}

static int same(unsigned va, unsigned vb, char *why, size_t cap)
{
    unsigned char a[4096], b[4096];
    size_t na = make_module(a, va), nb = make_module(b, vb);
    return llvm_bitcode_same_same_but_kinds(a, na, b, nb, why, cap);
}

static void test_compare(void)
{
    char why[256] = "";
    CHECK(same(0, 0, why, sizeof why) == 1, "a module is the same as itself: %s", why);
    CHECK(same(0, EXTRA_KINDS, why, sizeof why) == 1 && same(EXTRA_KINDS, 0, why, sizeof why) == 1,
          "extra kinds, the offsets after them moved: the same module, either way: %s", why);
    CHECK(same(SPELL_PLAIN, EXTRA_KINDS, why, sizeof why) == 1,
          "a record spelled without its abbreviation says the same: %s", why);
    CHECK(same(0, EXTRA_KINDS | OTHER_RECORD, why, sizeof why) == 0 && strstr(why, "block 12"),
          "a function record with another value: not the same (%s)", why);
    CHECK(same(0, RENAMED_KIND, why, sizeof why) == 0 && strstr(why, "kind 1"),
          "a kind of another name: not the same (%s)", why);
    CHECK(same(0, EXTRA_KINDS | BAD_FNENTRY, why, sizeof why) == 0 && strstr(why, "offsets"),
          "FNENTRY at another block: not the same (%s)", why);
    CHECK(same(0, EXTRA_KINDS | STALE_VSTOFF, why, sizeof why) == 0 && strstr(why, "offsets"),
          "a VSTOFFSET the longer kind block did not move: not the same (%s)", why);
    CHECK(same(EXTRA_KINDS, EXTRA_KINDS | STALE_VSTOFF, why, sizeof why) == 0,
          "a VSTOFFSET at no block: not the same (%s)", why);
}

/* Cut or flipped bitcode: refused or compared, never a crash or an
 * out-of-memory answer. */
static void test_damaged(void)
{
    unsigned char a[4096], b[4096];
    size_t na = make_module(a, 0), nb = make_module(b, EXTRA_KINDS);
    char why[256] = "";
    int cut_refused = 1, flip_answered = 1;
    for (size_t n = 0; n < nb; n++)
        if (llvm_bitcode_same_same_but_kinds(a, na, b, n, why, sizeof why) != 0)
            cut_refused = 0;
    CHECK(cut_refused, "every cut of the module is refused (%zu cuts; last: %s)", nb, why);
    /* Flips in alignment padding or in the extra kinds' records leave the
     * same module; whatever the answer, it is the same either way round. */
    int symmetric = 1;
    for (size_t i = 0; i < nb * 8; i++) {
        b[i / 8] ^= (unsigned char)(1u << (i % 8));
        int rc = llvm_bitcode_same_same_but_kinds(a, na, b, nb, why, sizeof why);
        if (rc != llvm_bitcode_same_same_but_kinds(b, nb, a, na, why, sizeof why))
            symmetric = 0;
        b[i / 8] ^= (unsigned char)(1u << (i % 8));
        if (rc < 0)
            flip_answered = 0;
    }
    CHECK(flip_answered, "every one-bit flip of %zu bytes is answered", nb);
    CHECK(symmetric, "every flip gets the same answer both ways round");
    CHECK(llvm_bitcode_same_same_but_kinds((const unsigned char *)"BC", 2, a, na, why, sizeof why) == 0 &&
              strstr(why, "not LLVM bitcode"),
          "no magic: not bitcode (%s)", why);
}

/* A PoCL binary (pocl_binary_canon.c's layout) of one kernel "k" with one
 * file, program.bc given. */
static size_t make_pocl(unsigned char *o, const unsigned char *bc, size_t bc_size,
                        const char *file)
{
    size_t w = 0;
#define PUT(p, n) (memcpy(o + w, (p), (n)), w += (n))
#define PUT32(v) (o[w] = (unsigned char)(v), o[w + 1] = (unsigned char)((v) >> 8), \
                  o[w + 2] = (unsigned char)((v) >> 16), o[w + 3] = (unsigned char)((v) >> 24), w += 4)
#define PUT64(v) (PUT32((uint32_t)(v)), PUT32((uint32_t)((uint64_t)(v) >> 32)))
    PUT("poclbin", 8);
    PUT64(0x1234);
    PUT32(POCL_BINARY_CANON_VERSION), PUT32(1), PUT32(0), PUT32(4), PUT32(1);
    char hash[41] = "ED/JNENEHDGJGCKIBDHNMKEODIDOINPKNEIAOCML";
    PUT(hash, 41);
    PUT64(8 + 11 + bc_size);
    PUT32(11), PUT("/program.bc", 11), PUT32(bc_size), PUT(bc, bc_size);
    size_t pl = strlen(file), files = 8 + pl + 4;
    PUT64(24 + 1 + files), PUT64(files), PUT32(0), PUT32(1), PUT("k", 1);
    PUT32(pl), PUT(file, pl), PUT32(4), PUT("code", 4);
#undef PUT
#undef PUT32
#undef PUT64
    return w;
}

static int contains(const unsigned char *hay, size_t n, const void *needle, size_t m)
{
    for (size_t i = 0; m <= n && i <= n - m; i++)
        if (memcmp(hay + i, needle, m) == 0)
            return 1;
    return 0;
}

static void test_union(void)
{
    unsigned char plain[4096], more[4096], other[4096];
    size_t np = make_module(plain, 0), nm = make_module(more, EXTRA_KINDS),
           no = make_module(other, EXTRA_KINDS | OTHER_RECORD);
    static unsigned char a[8192], b[8192], c[8192];
    size_t na = make_pocl(a, more, nm, "/k/0-0-0/k.so");
    size_t nb = make_pocl(b, plain, np, "/k/16-1-1-goffs0-smallgrid/k.so");
    size_t nc = make_pocl(c, other, no, "/k/0-0-0/k.so");
    unsigned char *ab = NULL, *ba = NULL, *ac = NULL;
    size_t nab = 0, nba = 0, nac = 0;
    char why[256] = "";
    int rc1 = pocl_binary_canon_union(a, na, b, nb, &ab, &nab, why, sizeof why);
    int rc2 = pocl_binary_canon_union(b, nb, a, na, &ba, &nba, why, sizeof why);
    CHECK(rc1 == 0 && rc2 == 0, "binaries whose program.bc differ in metadata kinds join: %s", why);
    CHECK(rc1 == 0 && rc2 == 0 && nab == nba && memcmp(ab, ba, nab) == 0,
          "either order gives the same bytes");
    CHECK(rc1 == 0 && nab > np && contains(ab, nab, plain, np) && !contains(ab, nab, more, nm),
          "the shorter program.bc is kept");
    CHECK(rc1 == 0 && contains(ab, nab, "/k/0-0-0/k.so", 13) &&
              contains(ab, nab, "/k/16-1-1-goffs0-smallgrid/k.so", 31),
          "the files of both are kept");
    CHECK(pocl_binary_canon_union(a, na, c, nc, &ac, &nac, why, sizeof why) == 1 && !ac,
          "program.bc of another module: refused (%s)", why);
    free(ab);
    free(ba);
}

int main(void)
{
    test_compare();
    test_damaged();
    test_union();
    return check_summary();
}
