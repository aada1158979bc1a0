/*
 * kernelgen.c — the generators of kernelgen.h.
 *
 * reda_unrolled: Reda's float4 kernel with both filter loops unrolled. The
 *   body reads `input` around the centre `my`; with IMAGE_W the offsets are
 *   whole literals (input[my - 2058]), as in the study's listing, else each
 *   filter row gets a row pointer (my + r * pitch, pitch a run-time value)
 *   and the columns are literal offsets from it.
 * reda_local_unrolled: the same over the work-group's __local tile, whose
 *   row pitch TILE_W is a compile-time constant of the template.
 *
 * Filter terms are numbered row by row, so term k is at row k / FW, column
 * k % FW, and both forms read the same pixel for the same term: the text
 * computes exactly the function of the looped kernels.
 */
#include "kernelgen.h"

#include "bounded_fmt.h"
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The largest width a generator accepts; the manifest allows less. */
#define KERNELGEN_MAX_WIDTH 63

/* Appends one formatted line; a line that does not fit fails the buffer. */
static void tb_printf(strbuf *tb, const char *fmt, ...) BFMT_PRINTF(2, 3);

static void tb_printf(strbuf *tb, const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof line) {
        tb->failed = 1;
        return;
    }
    sb_put(tb, line, (size_t)n);
}

/* " + 3" / " - 3" / "" for an offset added to an expression. */
static void signed_offset(char *buf, size_t cap, const char *unit, long off)
{
    if (off == 0)
        buf[0] = '\0';
    else if (unit && (off == 1 || off == -1))
        bfmt(buf, cap, " %c %s", off < 0 ? '-' : '+', unit);
    else if (unit)
        bfmt(buf, cap, " %c %ld * %s", off < 0 ? '-' : '+', off < 0 ? -off : off, unit);
    else
        bfmt(buf, cap, " %c %ld", off < 0 ? '-' : '+', off < 0 ? -off : off);
}

/* One row pointer per filter row, literal column offsets. */
static void emit_rows(strbuf *tb, const char *indent, const char *ptr_type, const char *base,
                      const char *pitch, long fw)
{
    long hfs = fw / 2;
    tb_printf(tb, "%s%s *row;\n", indent, ptr_type);
    long k = 0;
    for (long r = -hfs; r <= hfs; r++) {
        char off[64];
        signed_offset(off, sizeof off, pitch, r);
        tb_printf(tb, "%srow = %s + my%s;\n", indent, base, off);
        for (long c = -hfs; c <= hfs; c++, k++)
            tb_printf(tb, "%ssum += row[%ld] * filter[%ld];\n", indent, c, k);
    }
}

/* Whole literal offsets from the centre: the input pitch is known. */
static void emit_literals(strbuf *tb, const char *indent, long fw, long pitch)
{
    long hfs = fw / 2;
    long k = 0;
    for (long r = -hfs; r <= hfs; r++)
        for (long c = -hfs; c <= hfs; c++, k++) {
            char off[64];
            signed_offset(off, sizeof off, NULL, r * pitch + c);
            tb_printf(tb, "%ssum += input[my%s] * filter[%ld];\n", indent, off, k);
        }
}

static const char *const generator_names[] = {"reda_unrolled", "reda_local_unrolled"};
#define N_GENERATORS (sizeof generator_names / sizeof generator_names[0])

int kernelgen_known(const char *name)
{
    for (size_t i = 0; i < N_GENERATORS; i++)
        if (strcmp(generator_names[i], name) == 0)
            return 1;
    return 0;
}

const char *kernelgen_names(void) { return "reda_unrolled, reda_local_unrolled"; }

/* A define of v as a whole number in [lo, hi]: 1 found, 0 absent, -1 bad. */
static int define_long(const manifest_variant *v, const char *name, long lo, long hi, long *out)
{
    const char *s = manifest_variant_define(v, name);
    if (!s)
        return 0;
    char *end;
    long x = strtol(s, &end, 10);
    if (end == s || *end != '\0' || x < lo || x > hi)
        return -1;
    *out = x;
    return 1;
}

/* Finds the single marker line: its start, its end (past the newline) and
 * its indentation. Returns 0, or -1 with err. */
static int find_marker(const char *name, const char *t, size_t len, size_t *start, size_t *end,
                       size_t *indent, char *err, size_t errlen)
{
    int found = 0;
    size_t pos = 0;
    while (pos < len) {
        const char *nl = memchr(t + pos, '\n', len - pos);
        size_t stop = nl ? (size_t)(nl - t) : len;
        size_t a = pos;
        while (a < stop && (t[a] == ' ' || t[a] == '\t'))
            a++;
        size_t b = stop;
        while (b > a && (t[b - 1] == ' ' || t[b - 1] == '\t' || t[b - 1] == '\r'))
            b--;
        if (b - a == strlen(UNROLLED_BODY_MARKER) && memcmp(t + a, UNROLLED_BODY_MARKER, b - a) == 0) {
            if (found++) {
                bfmt(err, errlen, "%s: more than one " UNROLLED_BODY_MARKER " line", name);
                return -1;
            }
            *start = pos;
            *indent = a - pos;
            *end = nl ? stop + 1 : stop;
        }
        pos = nl ? stop + 1 : len;
    }
    if (!found) {
        bfmt(err, errlen, "%s: no line holding only " UNROLLED_BODY_MARKER, name);
        return -1;
    }
    return 0;
}

int kernelgen_generate(const char *generator, const char *tmpl_name, const char *tmpl, size_t tmpl_len,
                const manifest_variant *v, char **out, size_t *out_len, char label[MANIFEST_PATH_MAX],
                char *err, size_t errlen)
{
    *out = NULL;
    *out_len = 0;
    int local = strcmp(generator, "reda_local_unrolled") == 0;
    if (!local && strcmp(generator, "reda_unrolled") != 0) {
        bfmt(err, errlen, "unknown generator '%s' (known: %s)", generator, kernelgen_names());
        return -1;
    }
    long fw = 0, image_w = 0;
    if (define_long(v, "FILTER_WIDTH", 1, KERNELGEN_MAX_WIDTH, &fw) != 1 || fw % 2 == 0) {
        bfmt(err, errlen, "generator %s needs an odd FILTER_WIDTH from 1 to %d (got %s)",
             generator, KERNELGEN_MAX_WIDTH,
             manifest_variant_define(v, "FILTER_WIDTH") ? manifest_variant_define(v, "FILTER_WIDTH")
                                                  : "none");
        return -1;
    }
    int literal = 0;
    if (!local) {
        int rc = define_long(v, "IMAGE_W", 1, 1L << 20, &image_w);
        if (rc < 0) {
            bfmt(err, errlen, "generator %s: IMAGE_W=%s is not a width from 1 to %ld", generator,
                 manifest_variant_define(v, "IMAGE_W"), 1L << 20);
            return -1;
        }
        literal = rc == 1;
    }
    size_t start, end, indent_len;
    if (find_marker(tmpl_name, tmpl, tmpl_len, &start, &end, &indent_len, err, errlen) != 0)
        return -1;
    char indent[64];
    bfmt(indent, sizeof indent, "%.*s", (int)(indent_len < 63 ? indent_len : 63), tmpl + start);

    if (literal)
        bfmt(label, MANIFEST_PATH_MAX, "FILTER_WIDTH=%ld,IMAGE_W=%ld", fw, image_w);
    else
        bfmt(label, MANIFEST_PATH_MAX, "FILTER_WIDTH=%ld", fw);

    strbuf tb;
    sb_init(&tb);
    sb_put(&tb, tmpl, start);
    tb_printf(&tb, "%s/* %s body for %s, generated by clc-pack (clc/seeds/kernelgen.c) */\n", indent,
              generator, label);
    if (literal) {
        tb_printf(&tb, "#if FILTER_WIDTH != %ld || IMAGE_W != %ld\n", fw, image_w);
        tb_printf(&tb, "#error \"generated for FILTER_WIDTH=%ld IMAGE_W=%ld\"\n", fw, image_w);
    } else {
        tb_printf(&tb, "#if FILTER_WIDTH != %ld\n", fw);
        tb_printf(&tb, "#error \"generated for FILTER_WIDTH=%ld\"\n", fw);
    }
    tb_printf(&tb, "#endif\n");
    if (literal)
        emit_literals(&tb, indent, fw, image_w + fw - 1);
    else if (local)
        emit_rows(&tb, indent, "__local const float4", "tile", "TILE_W", fw);
    else
        emit_rows(&tb, indent, "const __global float4", "input", "pitch", fw);
    sb_put(&tb, tmpl + end, tmpl_len - end);
    sb_put(&tb, "", 1); /* the NUL that ends the text */
    if (tb.failed) {
        sb_free(&tb);
        bfmt(err, errlen, "generator %s: out of memory", generator);
        return -1;
    }
    *out = (char *)tb.data;
    *out_len = tb.len - 1;
    return 0;
}

const mf_generator kernelgen_generator = {kernelgen_known, kernelgen_names, kernelgen_generate};
