/* pocl_binary_scrub.c — PoCL's random temporary names in a binary made
 * fixed (pocl_binary_canon_scrub_temp_names, pocl_binary_canon.h). */
#include "pocl_binary_canon.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>

/* PoCL compiles from a file it names with mkstemp, "tempfile_XXXXXX.cl",
 * and LLVM keeps that name as the module's source file name: as bytes in
 * string tables, and in the bitcode's module record as an array of 7-bit
 * characters packed at any bit offset. `clc-pack record` gives the
 * application a private PoCL cache folder named by mkdtemp,
 * "clcpack-record-XXXXXX", which is part of that file name. Both spellings
 * of the six random characters of each stem become "000000". Each stem has
 * at least 9 characters: the search below looks for the 7 bytes that any
 * match must hold whole (STEM_MIN). */
#define STEM_TEMPFILE "tempfile_"
#define STEM_RECORD "clcpack-record-"
#define STEM_MIN 9
_Static_assert(sizeof STEM_TEMPFILE - 1 >= STEM_MIN && sizeof STEM_RECORD - 1 >= STEM_MIN,
               "a temporary name's stem is shorter than the search assumes");
static const char *const temp_stems[] = {STEM_TEMPFILE, STEM_RECORD};
#define TEMP_RANDOM 6

static int is_name_char(unsigned c) { return isalnum((int)c) != 0; }

static unsigned get_bits7(const unsigned char *b, size_t bit)
{
    unsigned v = 0;
    for (unsigned k = 0; k < 7; k++, bit++)
        v |= (unsigned)((b[bit >> 3] >> (bit & 7)) & 1u) << k;
    return v;
}

static void put_bits7(unsigned char *b, size_t bit, unsigned v)
{
    for (unsigned k = 0; k < 7; k++, bit++) {
        unsigned char m = (unsigned char)(1u << (bit & 7));
        if ((v >> k) & 1u)
            b[bit >> 3] |= m;
        else
            b[bit >> 3] &= (unsigned char)~m;
    }
}

/* Up to 8 strings of ANCHOR bytes, searched for together (Horspool's skip
 * over pairs of bytes, hashed): a scrub looks at about one byte in six
 * instead of every bit offset, so a binary of megabytes costs little. */
#define ANCHOR 7
#define PAIRS 4096
typedef struct anchors {
    unsigned char s[8][ANCHOR];
    unsigned n;
    unsigned char skip[PAIRS]; /* how far no string can end, by the last two bytes */
} anchors;

/* UndefinedBehaviorSanitizer's pointer-overflow check of every read of
 * the search below is two calls each under a fuzzer's tracing of
 * compares, most of the time of a fuzzed binary's scrubs (fuzz_pocl_canon
 * ran 1,200 inputs a second with it, 2,900 without, on one corpus). The
 * search's tests bound every index, and AddressSanitizer still checks
 * every read. */
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 8)
#define NO_POINTER_OVERFLOW_CHECK __attribute__((no_sanitize("pointer-overflow")))
#else
#define NO_POINTER_OVERFLOW_CHECK
#endif

NO_POINTER_OVERFLOW_CHECK
static unsigned pair_of(const unsigned char *p) { return ((unsigned)p[0] << 4 ^ p[1]) % PAIRS; }

static void anchors_ready(anchors *a)
{
    memset(a->skip, ANCHOR - 1, sizeof a->skip);
    for (unsigned n = 0; n < a->n; n++)
        for (unsigned i = 1; i < ANCHOR; i++) {
            unsigned h = pair_of(a->s[n] + i - 1);
            if (a->skip[h] > ANCHOR - 1 - i)
                a->skip[h] = (unsigned char)(ANCHOR - 1 - i);
        }
}

/* The first offset at or after from where one of the strings starts (*hit:
 * a bit for each that does), or SIZE_MAX. */
NO_POINTER_OVERFLOW_CHECK
static size_t anchors_find(const anchors *a, const unsigned char *buf, size_t size, size_t from,
                           unsigned *hit)
{
    if (size < ANCHOR || from > size - ANCHOR)
        return SIZE_MAX;
    /* SKIPS skips, then one test: a skip of 0 stays where a string may end. */
    enum { SKIPS = 8 };
    const size_t fast_end = size > SKIPS * (ANCHOR - 1) ? size - SKIPS * (ANCHOR - 1) : 0;
    for (size_t j = from + ANCHOR - 1; j < size;) {
        while (j < fast_end) {
            for (int k = 0; k < SKIPS; k++)
                j += a->skip[pair_of(buf + j - 1)];
            if (!a->skip[pair_of(buf + j - 1)])
                break;
        }
        if (j >= size)
            break;
        unsigned skip = a->skip[pair_of(buf + j - 1)];
        if (skip) {
            j += skip;
            continue;
        }
        const unsigned char *at = buf + j - (ANCHOR - 1);
        unsigned m = 0;
        for (unsigned n = 0; n < a->n; n++)
            if (memcmp(at, a->s[n], ANCHOR) == 0)
                m |= 1u << n;
        if (m) {
            *hit = m;
            return j - (ANCHOR - 1);
        }
        j++;
    }
    return SIZE_MAX;
}

/* The stem as 7-bit characters at bit offset p. */
static int stem_at_bits(const unsigned char *buf, size_t p, const char *name, size_t stem)
{
    for (size_t k = 0; k < stem; k++)
        if (get_bits7(buf, p + 7 * k) != (unsigned char)name[k])
            return 0;
    return 1;
}

/* The bytes whole in a stem packed at bit offset s of a byte (string s of
 * a): from that byte for s = 0, else from the next one; 63 bits of 9
 * characters hold 7 whole bytes at every offset. */
static void stem_bit_anchors(const char *name, anchors *a)
{
    uint64_t pat = 0;
    for (unsigned k = 0; k < STEM_MIN; k++)
        pat |= (uint64_t)((unsigned char)name[k] & 0x7fu) << (7 * k);
    for (unsigned s = 0; s < 8; s++)
        for (unsigned j = 0; j < ANCHOR; j++)
            a->s[s][j] = (unsigned char)(pat >> (s ? 8 * j + 8 - s : 8 * j));
    a->n = 8;
    anchors_ready(a);
}

/* The first bit offset at or after from where the stem starts as 7-bit
 * characters with need bits of the buffer from there, or SIZE_MAX: the
 * offsets a bit-by-bit scan would stop at, in the same order. A string
 * found at byte w holds offset 8w (s = 0) or 8w - 8 + s. */
static size_t find_stem_bits(const anchors *a, const unsigned char *buf, size_t size,
                             size_t from, const char *name, size_t stem, size_t need)
{
    const size_t last = size * 8 - need; /* the caller checked need <= size * 8 */
    for (size_t w = from / 8 + (from % 8 != 0);; w++) {
        unsigned hit = 0;
        w = anchors_find(a, buf, size, w, &hit);
        if (w == SIZE_MAX)
            return SIZE_MAX;
        for (unsigned t = 1; t <= 8; t++) {
            unsigned s = t % 8;
            if (!(hit >> s & 1u) || (s && w == 0))
                continue;
            size_t p = s ? 8 * w - 8 + s : 8 * w;
            if (p < from)
                continue;
            if (p > last)
                return SIZE_MAX;
            if (stem_at_bits(buf, p, name, stem))
                return p;
        }
    }
}

static void scrub_stem(unsigned char *buf, size_t size, const char *name)
{
    const size_t stem = strlen(name), whole = stem + TEMP_RANDOM;
    anchors a;
    memcpy(a.s[0], name, ANCHOR);
    a.n = 1;
    anchors_ready(&a);
    unsigned hit;
    for (size_t i = 0; (i = anchors_find(&a, buf, size, i, &hit)) != SIZE_MAX && i + whole <= size;
         i++) {
        if (memcmp(buf + i, name, stem) != 0)
            continue;
        size_t k = 0;
        while (k < TEMP_RANDOM && is_name_char(buf[i + stem + k]))
            k++;
        if (k == TEMP_RANDOM)
            memset(buf + i + stem, '0', TEMP_RANDOM);
    }
    if (size > SIZE_MAX / 8)
        return;
    const size_t bits = size * 8, need = whole * 7;
    if (need > bits)
        return;
    stem_bit_anchors(name, &a);
    for (size_t bit = 0; (bit = find_stem_bits(&a, buf, size, bit, name, stem, need)) != SIZE_MAX;
         bit++) {
        size_t r = 0;
        while (r < TEMP_RANDOM && is_name_char(get_bits7(buf, bit + 7 * (stem + r))))
            r++;
        if (r < TEMP_RANDOM)
            continue;
        for (r = 0; r < TEMP_RANDOM; r++)
            put_bits7(buf, bit + 7 * (stem + r), '0');
    }
}

void pocl_binary_canon_scrub_temp_names(unsigned char *buf, size_t size)
{
    for (size_t i = 0; i < sizeof temp_stems / sizeof temp_stems[0]; i++)
        scrub_stem(buf, size, temp_stems[i]);
}
