/*
 * manifest.c — reading kernels/manifest.txt (manifest.h; the format is
 * docs/MANIFEST.md).
 *
 * The file is untrusted text: every line is checked, every fixed array is
 * bounded, and the first problem is reported as "manifest.txt:LINE: ...".
 */
#include "manifest.h"

#include "bounded_fmt.h"
#include "input_file.h"
#include "source_gen.h"
#include "expr.h"
#include "value_list.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A limit of manifest.h in an error message. */
#define MANIFEST_STR_(x) #x
#define MANIFEST_STR(x) MANIFEST_STR_(x)

#define MANIFEST_NAME "manifest.txt"
/* Far beyond any real manifest; a bigger file is a mistake, not a manifest. */
#define MANIFEST_MAX_BYTES (1L << 20)
#define LINE_MAX_CHARS 1024
#define WG_MAX_DIM 1024
/* Words on a line; only note and derive (which read the raw text) may have
 * more. */
#define WORDS_MAX 32

typedef struct reader {
    const char *dir;
    int line;
    char *err;
    /* Keywords seen in the current kernel block, to refuse repeats and to
     * name the line of "kernel" when something is missing at "end". */
    int kernel_line;
    int have_source, have_family, have_grid, have_args, have_generator, have_note,
        have_multiple, have_block;
} reader;

/* "<dir>/manifest.txt:LINE: <what>": the quoted words a and b are cut
 * (bfmt_clip), so the reason always fits. */
static int fail(reader *rd, const char *fmt, const char *a, const char *b)
{
    char what[MANIFEST_ERR_MAX], ca[BFMT_QUOTE_MAX + 4], cb[BFMT_QUOTE_MAX + 4];
    bfmt(what, sizeof what, fmt, a ? bfmt_clip(a, ca) : "", b ? bfmt_clip(b, cb) : "");
    bfmt(rd->err, MANIFEST_ERR_MAX, "%s/" MANIFEST_NAME ":%d: %s", rd->dir, rd->line, what);
    return -1;
}

static int is_identifier(const char *s)
{
    if (!isalpha((unsigned char)*s) && *s != '_')
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return 0;
    return 1;
}

/* Copies an identifier into a MANIFEST_NAME_MAX field, refusing anything else. */
static int take_name(reader *rd, char dst[MANIFEST_NAME_MAX], const char *src, const char *what)
{
    if (!is_identifier(src))
        return fail(rd, "%s '%s' is not a name (letters, digits, '_')", what, src);
    if (strlen(src) >= MANIFEST_NAME_MAX)
        return fail(rd, "%s '%s' is too long", what, src);
    strcpy(dst, src);
    return 0;
}

/* Splits s in place on blanks into at most max tokens; returns the count or
 * max + 1 when there are more. */
static size_t split_blanks(char *s, char **tok, size_t max)
{
    size_t n = 0;
    for (;;) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '\0')
            return n;
        if (n == max)
            return max + 1;
        tok[n++] = s;
        while (*s && *s != ' ' && *s != '\t')
            s++;
        if (*s)
            *s++ = '\0';
    }
}

/* A source path must stay inside the kernels folder: relative, no "..",
 * plain characters only. */
static int check_source_path(reader *rd, const char *path)
{
    if (strlen(path) >= MANIFEST_PATH_MAX)
        return fail(rd, "source path '%.60s...' is too long", path, NULL);
    if (path[0] == '/')
        return fail(rd, "source '%s' must be relative to the kernels folder", path, NULL);
    for (const char *c = path; *c; c++)
        if (!isalnum((unsigned char)*c) && !strchr("._-/", *c))
            return fail(rd, "source '%s' has a character other than letters, digits, . _ - /",
                        path, NULL);
    for (const char *c = path; (c = strstr(c, "..")) != NULL; c += 2) {
        int starts = c == path || c[-1] == '/';
        int ends = c[2] == '\0' || c[2] == '/';
        if (starts && ends)
            return fail(rd, "source '%s' leaves the kernels folder ('..')", path, NULL);
    }
    char full[2 * MANIFEST_PATH_MAX + 2], why[MANIFEST_ERR_MAX];
    snprintf(full, sizeof full, "%s/%s", rd->dir, path);
    if (in_check(full, why, sizeof why) != 0) {
        /* why is a reason: fail() would cut it like a quoted word. */
        char clip[BFMT_QUOTE_MAX + 4];
        bfmt(rd->err, MANIFEST_ERR_MAX, "%s/" MANIFEST_NAME ":%d: source %s: %s", rd->dir, rd->line,
             bfmt_clip(path, clip), why);
        return -1;
    }
    return 0;
}

static int parse_family(reader *rd, manifest_kernel *k, const char *v)
{
    if (strcmp(v, "conv-grey") == 0)
        k->family = MANIFEST_FAMILY_CONV_GREY;
    else if (strcmp(v, "conv-rgba") == 0)
        k->family = MANIFEST_FAMILY_CONV_RGBA;
    else if (strcmp(v, "poly") == 0)
        k->family = MANIFEST_FAMILY_POLY;
    else
        return fail(rd, "unknown family '%s' (conv-grey, conv-rgba or poly)", v, NULL);
    k->dims = k->family == MANIFEST_FAMILY_POLY ? 1 : 2;
    return 0;
}

static int parse_grid(reader *rd, manifest_kernel *k, const char *v)
{
    if (strcmp(v, "exact") == 0)
        k->grid = MANIFEST_GRID_EXACT;
    else if (strcmp(v, "round") == 0)
        k->grid = MANIFEST_GRID_ROUND;
    else
        return fail(rd, "unknown grid '%s' (exact or round)", v, NULL);
    return 0;
}

static const struct {
    const char *name;
    manifest_arg role;
} arg_roles[] = {
    {"in", MANIFEST_ARG_IN},
    {"filter", MANIFEST_ARG_FILTER},
    {"out", MANIFEST_ARG_OUT},
    {"in_width", MANIFEST_ARG_IN_WIDTH},
    {"filter_width", MANIFEST_ARG_FILTER_WIDTH},
    {"width", MANIFEST_ARG_WIDTH},
    {"height", MANIFEST_ARG_HEIGHT},
    {"coeffs", MANIFEST_ARG_COEFFS},
    {"numcoeffs", MANIFEST_ARG_NUMCOEFFS},
    {"n", MANIFEST_ARG_N},
};

static int parse_args(reader *rd, manifest_kernel *k, char **tok, size_t n)
{
    if (n == 0)
        return fail(rd, "args needs at least one argument role", NULL, NULL);
    if (n > MANIFEST_MAX_ARGS) {
        char max[16];
        snprintf(max, sizeof max, "%d", MANIFEST_MAX_ARGS);
        return fail(rd, "more than %s arguments", max, NULL);
    }
    for (size_t i = 0; i < n; i++) {
        size_t r = 0;
        while (r < sizeof arg_roles / sizeof arg_roles[0] && strcmp(arg_roles[r].name, tok[i]))
            r++;
        if (r == sizeof arg_roles / sizeof arg_roles[0])
            return fail(rd,
                        "unknown argument role '%s' (in filter out in_width filter_width "
                        "width height coeffs numcoeffs n)",
                        tok[i], NULL);
        for (size_t j = 0; j < i; j++)
            if (k->args[j] == arg_roles[r].role)
                return fail(rd, "argument role '%s' is listed twice", tok[i], NULL);
        k->args[i] = arg_roles[r].role;
    }
    k->n_args = n;
    return 0;
}

static int parse_values(reader *rd, const char *axis, int is_wg, const char *text,
                        manifest_value *dst, size_t *n)
{
    value_list list;
    char why[VALUE_LIST_ERR_MAX];
    int rc = is_wg ? value_list_parse_wgs(text, &list, why) : value_list_parse_ints(text, &list, why);
    if (rc != 0)
        return fail(rd, "axis %s: %s", axis, why);
    for (size_t i = 0; i < list.n; i++) {
        const long *v = list.values[i].v;
        if (is_wg && (v[0] > WG_MAX_DIM || v[1] > WG_MAX_DIM || v[2] != 1))
            return fail(rd, "axis %s: '%s' is not a 1-D or 2-D work-group of at most 1024 "
                            "per dimension", axis, list.tokens[i]);
        dst[i] = list.values[i];
    }
    *n = list.n;
    return 0;
}

static int same_value(const manifest_value *a, const manifest_value *b)
{
    return a->v[0] == b->v[0] && a->v[1] == b->v[1] && a->v[2] == b->v[2];
}

/* axis NAME [optional] allowed=LIST [default=LIST] */
static int parse_axis(reader *rd, manifest_kernel *k, char **tok, size_t n)
{
    if (n < 2)
        return fail(rd, "axis needs a name and allowed=LIST", NULL, NULL);
    if (k->n_axes == MANIFEST_MAX_AXES)
        return fail(rd, "too many axes (at most " MANIFEST_STR(MANIFEST_MAX_AXES) ")", NULL, NULL);
    manifest_axis *a = &k->axes[k->n_axes];
    memset(a, 0, sizeof *a);
    if (take_name(rd, a->name, tok[0], "axis") != 0)
        return -1;
    if (strcmp(a->name, "WG_X") == 0 || strcmp(a->name, "WG_Y") == 0)
        return fail(rd, "%s is set from the WG axis; it cannot be an axis itself", a->name, NULL);
    for (size_t i = 0; i < k->n_axes; i++)
        if (strcmp(k->axes[i].name, a->name) == 0)
            return fail(rd, "axis %s is declared twice", a->name, NULL);
    a->is_wg = strcmp(a->name, "WG") == 0;
    const char *allowed = NULL, *defaults = NULL;
    for (size_t i = 1; i < n; i++) {
        if (strcmp(tok[i], "optional") == 0 && !a->optional)
            a->optional = 1;
        else if (strncmp(tok[i], "allowed=", 8) == 0 && !allowed)
            allowed = tok[i] + 8;
        else if (strncmp(tok[i], "default=", 8) == 0 && !defaults)
            defaults = tok[i] + 8;
        else
            return fail(rd, "axis %s: unexpected '%s' (optional, allowed=LIST, default=LIST, "
                            "each once)", a->name, tok[i]);
    }
    if (!allowed)
        return fail(rd, "axis %s has no allowed=LIST", a->name, NULL);
    if (a->is_wg && a->optional)
        return fail(rd, "the WG axis cannot be optional", NULL, NULL);
    if (parse_values(rd, a->name, a->is_wg, allowed, a->allowed, &a->n_allowed) != 0)
        return -1;
    if (defaults && *defaults) {
        if (parse_values(rd, a->name, a->is_wg, defaults, a->defaults, &a->n_default) != 0)
            return -1;
    } else if (!a->optional) {
        return fail(rd, "axis %s needs default=LIST (only an optional axis may have none)",
                    a->name, NULL);
    }
    for (size_t i = 0; i < a->n_default; i++) {
        size_t j = 0;
        while (j < a->n_allowed && !same_value(&a->defaults[i], &a->allowed[j]))
            j++;
        if (j == a->n_allowed) {
            char shown[64];
            if (a->is_wg)
                value_list_format_wg(a->defaults[i].v, shown, sizeof shown);
            else
                snprintf(shown, sizeof shown, "%ld", a->defaults[i].v[0]);
            return fail(rd, "axis %s: default %s is not among the allowed values", a->name, shown);
        }
    }
    k->n_axes++;
    return 0;
}

/* While reading, a derive may use the kernel's axes and the derives above
 * it. */
/* Whether the len bytes at name spell s. */
static int same_name(const char *s, const char *name, size_t len)
{
    return strlen(s) == len && memcmp(s, name, len) == 0;
}

/* An expression's names are the kernel's integer axes and earlier derives;
 * at reading time none has a value. */
static int known_name(void *ctx, const char *name, size_t len, int64_t *value)
{
    const manifest_kernel *k = ctx;
    *value = 0;
    for (size_t i = 0; i < k->n_axes; i++)
        if (!k->axes[i].is_wg && same_name(k->axes[i].name, name, len))
            return 0;
    for (size_t i = 0; i < k->n_derives; i++)
        if (same_name(k->derives[i].name, name, len))
            return 0;
    return -1;
}

/* derive NAME = EXPR (rest is everything after "derive") */
static int parse_derive(reader *rd, manifest_kernel *k, char *rest)
{
    char *eq = strchr(rest, '=');
    if (!eq)
        return fail(rd, "derive needs NAME = EXPRESSION", NULL, NULL);
    *eq = '\0';
    char *tok[2];
    if (split_blanks(rest, tok, 1) != 1)
        return fail(rd, "derive needs one NAME before '='", NULL, NULL);
    if (k->n_derives == MANIFEST_MAX_DERIVES)
        return fail(rd, "too many derives (at most " MANIFEST_STR(MANIFEST_MAX_DERIVES) ")", NULL, NULL);
    manifest_derive *d = &k->derives[k->n_derives];
    if (take_name(rd, d->name, tok[0], "derive") != 0)
        return -1;
    if (strcmp(d->name, "WG_X") == 0 || strcmp(d->name, "WG_Y") == 0 || strcmp(d->name, "WG") == 0)
        return fail(rd, "%s is set from the WG axis; it cannot be derived", d->name, NULL);
    int64_t unused;
    if (known_name(k, d->name, strlen(d->name), &unused) >= 0 || manifest_axis_find(k, d->name))
        return fail(rd, "derive %s: the name is already an axis or a derive", d->name, NULL);
    char *expr = eq + 1;
    while (*expr == ' ' || *expr == '\t')
        expr++;
    size_t len = strlen(expr);
    while (len > 0 && (expr[len - 1] == ' ' || expr[len - 1] == '\t'))
        expr[--len] = '\0';
    if (len >= MANIFEST_EXPR_MAX)
        return fail(rd, "derive %s: the expression is too long", d->name, NULL);
    char why[MANIFEST_ERR_MAX];
    if (expr_eval(expr, EXPR_CHECK, known_name, k, NULL, why, sizeof why) != 0)
        return fail(rd, "derive %s: %s", d->name, why);
    strcpy(d->expr, expr);
    k->n_derives++;
    return 0;
}

static int check_kernel(reader *rd, const manifest_file *m, manifest_kernel *k)
{
    int end_line = rd->line;
    rd->line = rd->kernel_line;
    if (!rd->have_source)
        return fail(rd, "kernel %s has no source line", k->name, NULL);
    for (size_t i = 0; i < m->n_kernels; i++)
        if (strcmp(m->kernels[i].name, k->name) == 0)
            return fail(rd, "kernel %s is declared twice", k->name, NULL);
    /* Without a family the kernel gets the generic checks only (it builds,
     * holds its kernel and loads back); grid and args say how a family's
     * reference check launches it, so they come with a family. */
    if (!rd->have_family) {
        if (rd->have_grid || rd->have_args)
            return fail(rd, "kernel %s: grid and args describe a family's launch; it has no "
                            "family line",
                        k->name, NULL);
        k->dims = 2;
        rd->line = end_line;
        return 0;
    }
    if (!rd->have_grid)
        return fail(rd, "kernel %s has no grid line", k->name, NULL);
    if (!rd->have_args)
        return fail(rd, "kernel %s has no args line", k->name, NULL);

    /* The roles the launcher must have to run the family at all. */
    static const manifest_arg conv_needs[] = {MANIFEST_ARG_IN, MANIFEST_ARG_FILTER, MANIFEST_ARG_OUT, MANIFEST_ARG_IN_WIDTH};
    static const manifest_arg poly_needs[] = {MANIFEST_ARG_IN, MANIFEST_ARG_COEFFS, MANIFEST_ARG_OUT, MANIFEST_ARG_N};
    const manifest_arg *needs = k->family == MANIFEST_FAMILY_POLY ? poly_needs : conv_needs;
    for (size_t i = 0; i < 4; i++) {
        size_t j = 0;
        while (j < k->n_args && k->args[j] != needs[i])
            j++;
        if (j == k->n_args) {
            size_t r = 0;
            while (arg_roles[r].role != needs[i])
                r++;
            return fail(rd, "kernel %s: its family needs an argument with role %s", k->name,
                        arg_roles[r].name);
        }
    }
    const manifest_axis *wg = manifest_axis_find(k, "WG");
    for (size_t i = 0; wg && i < wg->n_allowed; i++) {
        const long *v = wg->allowed[i].v;
        if (k->dims == 1 && v[1] != 1) {
            char shown[64];
            value_list_format_wg(v, shown, sizeof shown);
            return fail(rd, "kernel %s is 1-D; its work-group %s is 2-D", k->name, shown);
        }
    }
    if (k->grid == MANIFEST_GRID_ROUND && k->family != MANIFEST_FAMILY_POLY) {
        size_t j = 0;
        while (j < k->n_args && k->args[j] != MANIFEST_ARG_WIDTH)
            j++;
        size_t h = 0;
        while (h < k->n_args && k->args[h] != MANIFEST_ARG_HEIGHT)
            h++;
        if (j == k->n_args || h == k->n_args)
            return fail(rd, "kernel %s: grid round needs width and height arguments to "
                            "bounds-check against", k->name, NULL);
    }
    for (size_t i = 0; rd->have_block && i < 2; i++) {
        const manifest_axis *a = manifest_axis_find(k, k->block[i]);
        if (!a || a->is_wg || a->optional)
            return fail(rd, "kernel %s: block %s is not a non-optional axis of the kernel "
                            "(other than WG)", k->name, k->block[i]);
    }
    if (rd->have_block && (k->grid != MANIFEST_GRID_ROUND || k->family == MANIFEST_FAMILY_POLY))
        return fail(rd, "kernel %s: block needs a 2-D kernel with grid round", k->name, NULL);
    if (k->numcoeffs_multiple == 0)
        k->numcoeffs_multiple = 1;
    rd->line = end_line;
    return 0;
}

/* Handles one line inside a kernel block. tok/n are its blank-separated
 * words; rest is the text after the keyword (for note and derive). */
static int parse_kernel_line(reader *rd, manifest_kernel *k, char **tok, size_t n, char *rest)
{
    const char *kw = tok[0];
    int single = n == 2;
    if (strcmp(kw, "source") == 0) {
        if (rd->have_source++)
            return fail(rd, "kernel %s: second source line", k->name, NULL);
        if (!single)
            return fail(rd, "source takes one file name", NULL, NULL);
        if (check_source_path(rd, tok[1]) != 0)
            return -1;
        strcpy(k->source, tok[1]);
        return 0;
    }
    if (strcmp(kw, "family") == 0) {
        if (rd->have_family++)
            return fail(rd, "kernel %s: second family line", k->name, NULL);
        if (!single)
            return fail(rd, "family takes one value (conv-grey, conv-rgba or poly)", NULL, NULL);
        return parse_family(rd, k, tok[1]);
    }
    if (strcmp(kw, "grid") == 0) {
        if (rd->have_grid++)
            return fail(rd, "kernel %s: second grid line", k->name, NULL);
        if (!single)
            return fail(rd, "grid takes one value (exact or round)", NULL, NULL);
        return parse_grid(rd, k, tok[1]);
    }
    if (strcmp(kw, "generator") == 0) {
        if (rd->have_generator++)
            return fail(rd, "kernel %s: second generator line", k->name, NULL);
        if (!single)
            return fail(rd, "generator takes one name", NULL, NULL);
        if (!source_gen_known(tok[1]))
            return fail(rd, "unknown generator '%s' (known: %s)", tok[1], source_gen_names());
        return take_name(rd, k->generator, tok[1], "generator");
    }
    if (strcmp(kw, "numcoeffs_multiple") == 0) {
        if (rd->have_multiple++)
            return fail(rd, "kernel %s: second numcoeffs_multiple line", k->name, NULL);
        value_list list;
        char why[VALUE_LIST_ERR_MAX];
        if (!single || value_list_parse_ints(tok[1], &list, why) != 0 || list.n != 1 ||
            list.values[0].v[0] < 1 || list.values[0].v[0] > 1024)
            return fail(rd, "numcoeffs_multiple takes one number from 1 to 1024", NULL, NULL);
        k->numcoeffs_multiple = list.values[0].v[0];
        return 0;
    }
    if (strcmp(kw, "block") == 0) {
        if (rd->have_block++)
            return fail(rd, "kernel %s: second block line", k->name, NULL);
        if (n != 3)
            return fail(rd, "block takes two axis names (outputs per work-item in x and y)",
                        NULL, NULL);
        if (take_name(rd, k->block[0], tok[1], "block axis") != 0)
            return -1;
        return take_name(rd, k->block[1], tok[2], "block axis");
    }
    if (strcmp(kw, "args") == 0) {
        if (rd->have_args++)
            return fail(rd, "kernel %s: second args line", k->name, NULL);
        return parse_args(rd, k, tok + 1, n - 1);
    }
    if (strcmp(kw, "axis") == 0)
        return parse_axis(rd, k, tok + 1, n - 1);
    if (strcmp(kw, "derive") == 0)
        return parse_derive(rd, k, rest);
    if (strcmp(kw, "default") == 0) {
        if (k->has_default++)
            return fail(rd, "kernel %s: second default line", k->name, NULL);
        if (strlen(rest) >= MANIFEST_PATH_MAX)
            return fail(rd, "default longer than 255 characters", NULL, NULL);
        for (size_t i = 1; i < n; i++)
            if (!strchr(tok[i], '='))
                return fail(rd, "default takes NAME=VALUE items, e.g. default WG=16x16; '%s' is "
                                "not one",
                            tok[i], NULL);
        strcpy(k->default_when, rest);
        return 0;
    }
    if (strcmp(kw, "note") == 0) {
        if (rd->have_note++)
            return fail(rd, "kernel %s: second note line", k->name, NULL);
        if (strlen(rest) >= MANIFEST_PATH_MAX)
            return fail(rd, "note longer than 255 characters", NULL, NULL);
        strcpy(k->note, rest);
        return 0;
    }
    if (strcmp(kw, "kernel") == 0)
        return fail(rd, "kernel %s has no end before this kernel line", k->name, NULL);
    return fail(rd, "unknown keyword '%s' (source, family, grid, block, axis, derive, args, "
                    "generator, numcoeffs_multiple, default, note, end)", kw, NULL);
}

/* Drops the comment, turns tabs and CRs into blanks, and copies into rest
 * (LINE_MAX_CHARS bytes) the text after the first word, trimmed: note and
 * derive read it as written. */
static void clean_line(char *line, char *rest)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    for (char *c = line; *c; c++)
        if (*c == '\r' || *c == '\t')
            *c = ' ';
    const char *r = line;
    while (*r == ' ')
        r++;
    while (*r && *r != ' ')
        r++;
    while (*r == ' ')
        r++;
    strcpy(rest, r);
    size_t len = strlen(rest);
    while (len > 0 && rest[len - 1] == ' ')
        rest[--len] = '\0';
}

/* Reads the whole file (input_file.h: a FIFO or a device is refused, never
 * waited on): lines are then split in memory, and a NUL byte or an
 * over-long line is reported with its line number. */
static char *read_manifest(const char *path, size_t *len, char err[MANIFEST_ERR_MAX])
{
    char *text;
    if (in_read_all(path, MANIFEST_MAX_BYTES, &text, len, err, MANIFEST_ERR_MAX) != 0)
        return NULL;
    return text;
}

int manifest_load(const char *dir, manifest_file *m, char err[MANIFEST_ERR_MAX])
{
    /* Not the whole struct (2.5 MB): each kernel is cleared where its block
     * starts, and nothing past n_kernels is read. */
    memset(m, 0, offsetof(manifest_file, kernels));
    err[0] = '\0';
    if (strlen(dir) >= MANIFEST_PATH_MAX) {
        bfmt(err, MANIFEST_ERR_MAX, "kernels folder path too long: %.60s...", dir);
        return -1;
    }
    strcpy(m->dir, dir);
    char path[MANIFEST_PATH_MAX + sizeof MANIFEST_NAME + 1];
    snprintf(path, sizeof path, "%s/" MANIFEST_NAME, dir);
    size_t len;
    char *text = read_manifest(path, &len, err);
    if (!text)
        return -1;

    reader rd = {.dir = dir, .err = err};
    manifest_kernel *k = NULL;
    int rc = 0, in_program = 0;
    size_t n_programs = 0;
    char *p = text;
    while (rc == 0 && p < text + len) {
        rd.line++;
        char *nl = memchr(p, '\n', (size_t)(text + len - p));
        size_t linelen = nl ? (size_t)(nl - p) : (size_t)(text + len - p);
        char line[LINE_MAX_CHARS];
        if (memchr(p, '\0', linelen)) {
            rc = fail(&rd, "NUL byte in the line", NULL, NULL);
            break;
        }
        if (linelen >= sizeof line) {
            rc = fail(&rd, "line longer than 1023 characters", NULL, NULL);
            break;
        }
        memcpy(line, p, linelen);
        line[linelen] = '\0';
        p += linelen + (nl ? 1 : 0);

        char rest[LINE_MAX_CHARS];
        clean_line(line, rest);
        char *tok[WORDS_MAX + 1];
        size_t n = split_blanks(line, tok, WORDS_MAX);
        if (n == 0)
            continue;
        if (n > WORDS_MAX && strcmp(tok[0], "note") && strcmp(tok[0], "derive")) {
            rc = fail(&rd, "too many words on the line", NULL, NULL);
            break;
        }
        if (!k && in_program) {
            /* Program blocks are read by program_blocks.c. */
            in_program = strcmp(tok[0], "end") != 0;
            continue;
        }
        if (!k && strcmp(tok[0], "program") == 0) {
            in_program = 1;
            n_programs++;
            continue;
        }
        if (!k) {
            if (strcmp(tok[0], "kernel") != 0) {
                rc = fail(&rd, "expected 'kernel NAME' or 'program NAME', found '%s'", tok[0], NULL);
            } else if (n != 2) {
                rc = fail(&rd, "kernel takes one name", NULL, NULL);
            } else if (m->n_kernels == MANIFEST_MAX_KERNELS) {
                rc = fail(&rd, "too many kernels (at most 64)", NULL, NULL);
            } else {
                k = &m->kernels[m->n_kernels];
                memset(k, 0, sizeof *k);
                reader fresh = {.dir = dir, .err = err, .line = rd.line, .kernel_line = rd.line};
                rd = fresh;
                rc = take_name(&rd, k->name, tok[1], "kernel");
            }
            continue;
        }
        if (strcmp(tok[0], "end") == 0) {
            if (n != 1)
                rc = fail(&rd, "end takes nothing after it", NULL, NULL);
            else if ((rc = check_kernel(&rd, m, k)) == 0)
                m->n_kernels++;
            k = NULL;
            continue;
        }
        rc = parse_kernel_line(&rd, k, tok, n, rest);
    }
    free(text);
    if (rc == 0 && k) {
        rd.line = rd.kernel_line;
        rc = fail(&rd, "kernel %s has no end", k->name, NULL);
    }
    if (rc == 0 && m->n_kernels == 0 && n_programs == 0) {
        rd.line = 1;
        rc = fail(&rd, "no kernel declared", NULL, NULL);
    }
    return rc;
}

const manifest_kernel *manifest_find(const manifest_file *m, const char *name)
{
    for (size_t i = 0; i < m->n_kernels; i++)
        if (strcmp(m->kernels[i].name, name) == 0)
            return &m->kernels[i];
    return NULL;
}

const manifest_axis *manifest_axis_find(const manifest_kernel *k, const char *name)
{
    for (size_t i = 0; i < k->n_axes; i++)
        if (strcmp(k->axes[i].name, name) == 0)
            return &k->axes[i];
    return NULL;
}
