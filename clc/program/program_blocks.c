/* program_blocks.c — the manifest's program blocks (program_blocks.h). */
#include "program_blocks.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bounded_fmt.h"
#include "check_cmd.h"

#define MANIFEST_MAX (4L << 20)
#define BLOCK_LINES_MAX 4096

enum { L_FILES, L_DEFINES, L_DERIVES, L_WHERES, L_VARIANTS, L_DEFAULTS, L_INCLUDES, L_KERNELS,
       N_LISTS };

/* Strings a block owns, freed with it: the arrays of its direct_jobs_spec point
 * into this list. */
typedef struct program_blocks_strings {
    char **s;
    size_t n, cap;
} owned;

/* A block being read: its lists, the spec's but for the source files,
 * which become its program's NAME=FILES at the end. The lists grow as
 * lines come (doubling, up to BLOCK_LINES_MAX each), so memory follows
 * the manifest's size. */
typedef struct block_build {
    program_block *b;
    owned strings;
    const char **files;
    size_t n_files;
    const char ***lists[N_LISTS];
    size_t *counts[N_LISTS];
    size_t caps[N_LISTS];
} block_build;

static char *keep(owned *o, const char *s, size_t n)
{
    if (o->n == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 32;
        char **g = realloc(o->s, cap * sizeof *g);
        if (!g)
            return NULL;
        o->s = g;
        o->cap = cap;
    }
    char *c = malloc(n + 1);
    if (!c)
        return NULL;
    memcpy(c, s, n);
    c[n] = '\0';
    o->s[o->n++] = c;
    return c;
}

static int fail(char *err, const char *fmt, ...) BFMT_PRINTF(2, 3);
static int fail(char *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, PROGRAM_BLOCKS_ERR_MAX, fmt, ap);
    va_end(ap);
    return -1;
}

/* Reads the manifest: a regular file, never blocking on a FIFO. */
static char *read_manifest(const char *path, size_t *len, char *err)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        fail(err, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > MANIFEST_MAX) {
        close(fd);
        fail(err, "%s: not a regular file of at most %ld bytes", path, MANIFEST_MAX);
        return NULL;
    }
    char *text = malloc((size_t)st.st_size + 1);
    size_t got = 0;
    while (text && got < (size_t)st.st_size) {
        ssize_t r = read(fd, text + got, (size_t)st.st_size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (!text) {
        fail(err, "%s: out of memory", path);
        return NULL;
    }
    text[got] = '\0';
    *len = got;
    return text;
}

/* "dir/path", or path as it is when absolute. */
static char *join(owned *o, const char *dir, const char *path, size_t n)
{
    if (path[0] == '/' || !dir[0] || strcmp(dir, ".") == 0)
        return keep(o, path, n);
    size_t dl = strlen(dir);
    char *buf = malloc(dl + 1 + n + 1);
    if (!buf)
        return NULL;
    memcpy(buf, dir, dl);
    buf[dl] = '/';
    memcpy(buf + dl + 1, path, n);
    buf[dl + 1 + n] = '\0';
    char *k = keep(o, buf, dl + 1 + n);
    free(buf);
    return k;
}

/* Room in the list for one more; 0, or -1 when out of memory or full. */
static int room(block_build *bb, int list)
{
    size_t n = *bb->counts[list], cap = bb->caps[list];
    if (n < cap)
        return 0;
    if (n >= BLOCK_LINES_MAX)
        return -1;
    cap = cap * 2 > BLOCK_LINES_MAX ? BLOCK_LINES_MAX : cap * 2;
    const char **g = realloc((void *)*bb->lists[list], cap * sizeof *g);
    if (!g)
        return -1;
    memset(g + n, 0, (cap - n) * sizeof *g);
    *bb->lists[list] = g;
    bb->caps[list] = cap;
    return 0;
}

static int push(block_build *bb, int list, const char *s)
{
    if (room(bb, list) != 0)
        return -1;
    (*bb->lists[list])[(*bb->counts[list])++] = s;
    return 0;
}

/* A block's lists start with room for 4 lines each (never NULL: the
 * direct planner takes them as a command line's, which are arrays). */
#define BLOCK_LINES_FIRST 4

/* *cap: the room in out->blocks, grown by doubling. */
static int start_block(program_blocks_list *out, size_t *cap, block_build *bb, const char *name,
                       int line)
{
    if (out->n == *cap) {
        size_t c = *cap ? *cap * 2 : 4;
        program_block *g = realloc(out->blocks, c * sizeof *g);
        if (!g)
            return -1;
        out->blocks = g;
        *cap = c;
    }
    program_block *b = &out->blocks[out->n++];
    memset(b, 0, sizeof *b);
    memset(bb, 0, sizeof *bb);
    bb->b = b;
    b->line = line;
    b->name = strdup(name);
    direct_jobs_spec *d = &b->spec;
    direct_axes *x = &d->all;
    const char ***arrs[N_LISTS] = {&bb->files,    &x->defines,  &x->derives,  &x->wheres,
                                   &x->variants,  &x->defaults, &d->includes, &x->kernels};
    size_t *counts[N_LISTS] = {&bb->n_files,   &x->n_defines,  &x->n_derives,  &x->n_wheres,
                               &x->n_variants, &x->n_defaults, &d->n_includes, &x->n_kernels};
    for (int i = 0; i < N_LISTS; i++) {
        *arrs[i] = calloc(BLOCK_LINES_FIRST, sizeof **arrs[i]);
        if (!*arrs[i])
            return -1;
        bb->lists[i] = arrs[i];
        bb->counts[i] = counts[i];
        bb->caps[i] = BLOCK_LINES_FIRST;
    }
    d->programs = calloc(1, sizeof *d->programs);
    return b->name && d->programs ? 0 : -1;
}

/* Removes the blanks around the first '=' ("RTS = TS / WPT" -> "RTS=TS / WPT"). */
static char *derive_text(owned *o, const char *rest)
{
    const char *eq = strchr(rest, '=');
    if (!eq)
        return keep(o, rest, strlen(rest));
    size_t nl = (size_t)(eq - rest);
    while (nl && (rest[nl - 1] == ' ' || rest[nl - 1] == '\t'))
        nl--;
    const char *v = eq + 1;
    while (*v == ' ' || *v == '\t')
        v++;
    size_t vl = strlen(v);
    char *buf = malloc(nl + 1 + vl + 1);
    if (!buf)
        return NULL;
    memcpy(buf, rest, nl);
    buf[nl] = '=';
    memcpy(buf + nl + 1, v, vl + 1);
    char *k = keep(o, buf, nl + 1 + vl);
    free(buf);
    return k;
}

static int block_line(block_build *bb, const char *dir, const char *kw, const char *rest,
                      char *err, const char *where)
{
    owned *o = &bb->strings;
    direct_jobs_spec *d = &bb->b->spec;
    int rc = 0;
    if (strcmp(kw, "source") == 0 || strcmp(kw, "include") == 0) {
        int list = kw[0] == 's' ? L_FILES : L_INCLUDES;
        const char *p = rest;
        while (*p && rc == 0) {
            size_t n = strcspn(p, " \t");
            char *path = join(o, dir, p, n);
            rc = !path || push(bb, list, path) != 0;
            p += n;
            p += strspn(p, " \t");
        }
        if (!rest[0])
            return fail(err, "%s: %s takes one or more paths", where, kw);
    } else if (strcmp(kw, "options") == 0) {
        if (d->options)
            return fail(err, "%s: second options line", where);
        d->options = keep(o, rest, strlen(rest));
        rc = !d->options;
    } else if (strcmp(kw, "wg") == 0) {
        if (d->all.wg)
            return fail(err, "%s: second wg line", where);
        d->all.wg = keep(o, rest, strlen(rest));
        rc = !d->all.wg;
    } else if (strcmp(kw, "check_cmd") == 0 || strcmp(kw, "tune_cmd") == 0) {
        /* The command line's --check-cmd and --tune-cmd, placeholders and all. */
        const char **cmd = kw[0] == 'c' ? &d->all.check_cmd : &d->all.tune_cmd;
        char why[CHECK_CMD_MSG_MAX];
        if (*cmd)
            return fail(err, "%s: second %s line", where, kw);
        if (!rest[0])
            return fail(err, "%s: %s takes a command", where, kw);
        if (check_cmd_validate(kw, rest, why) != 0)
            return fail(err, "%s: %s", where, why);
        *cmd = keep(o, rest, strlen(rest));
        rc = !*cmd;
    } else if (strcmp(kw, "wg_defines") == 0) {
        d->wg_defines = 1;
    } else {
        static const struct {
            const char *kw;
            int list;
        } simple[] = {{"define", L_DEFINES},   {"where", L_WHERES},     {"variant", L_VARIANTS},
                      {"default", L_DEFAULTS}, {"kernel", L_KERNELS}};
        size_t i = 0;
        while (i < sizeof simple / sizeof simple[0] && strcmp(simple[i].kw, kw) != 0)
            i++;
        if (strcmp(kw, "derive") == 0) {
            char *t = derive_text(o, rest);
            rc = !t || push(bb, L_DERIVES, t) != 0;
        } else if (i < sizeof simple / sizeof simple[0]) {
            if (!rest[0])
                return fail(err, "%s: %s takes a value", where, kw);
            char *t = keep(o, rest, strlen(rest));
            rc = !t || push(bb, simple[i].list, t) != 0;
        } else {
            return fail(err,
                        "%s: unknown keyword '%s' in a program block (source, include, options, "
                        "define, derive, where, wg, variant, default, kernel, wg_defines, "
                        "check_cmd, tune_cmd, end)",
                        where, kw);
        }
    }
    return rc ? fail(err, "%s: out of memory or more than %d lines of one kind", where,
                     BLOCK_LINES_MAX)
              : 0;
}

/* The program line NAME=files the direct planner takes; the block's lines
 * are its every program's axes (it has one program, with none of its own). */
static int finish_block(block_build *bb, char *err, const char *where)
{
    program_block *b = bb->b;
    direct_jobs_spec *d = &b->spec;
    if (bb->n_files == 0)
        return fail(err, "%s: program %s has no source line", where, b->name);
    size_t len = strlen(b->name) + 2;
    for (size_t i = 0; i < bb->n_files; i++)
        len += strlen(bb->files[i]) + 1;
    char *line = malloc(len);
    if (!line)
        return fail(err, "out of memory");
    snprintf(line, len, "%s=", b->name);
    for (size_t i = 0; i < bb->n_files; i++) {
        strcat(line, bb->files[i]);
        if (i + 1 < bb->n_files)
            strcat(line, ",");
    }
    char *k = keep(&bb->strings, line, strlen(line));
    free(line);
    if (!k)
        return fail(err, "out of memory");
    memset(&d->programs[0], 0, sizeof d->programs[0]);
    d->programs[0].program = k;
    d->n_programs = 1;
    free(bb->files);
    bb->files = NULL;
    bb->n_files = 0;
    b->strings = malloc(sizeof *b->strings);
    if (!b->strings)
        return fail(err, "out of memory");
    *b->strings = bb->strings;
    memset(&bb->strings, 0, sizeof bb->strings);
    return 0;
}

static int valid_name(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '-' || *s == '.'))
            return 0;
    return 1;
}

int program_blocks_load(const char *dir, program_blocks_list *out, char err[PROGRAM_BLOCKS_ERR_MAX])
{
    memset(out, 0, sizeof *out);
    char path[4096];
    bfmt(path, sizeof path, "%s/manifest.txt", dir);
    size_t len;
    char *text = read_manifest(path, &len, err);
    if (!text)
        return -1;
    block_build bb;
    memset(&bb, 0, sizeof bb);
    size_t blocks_cap = 0;
    int in_block = 0, in_kernel = 0, line_no = 0, rc = 0;
    for (char *p = text; rc == 0 && p < text + len;) {
        line_no++;
        char *nl = memchr(p, '\n', (size_t)(text + len - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(text + len - p);
        char *line = strndup(p, n);
        p += n + (nl ? 1 : 0);
        if (!line) {
            rc = fail(err, "out of memory");
            break;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        for (char *c = line; *c; c++)
            if (*c == '\t' || *c == '\r')
                *c = ' ';
        char *kw = line + strspn(line, " ");
        size_t kl = strcspn(kw, " ");
        char *rest = kw + kl;
        rest += strspn(rest, " ");
        size_t rl = strlen(rest);
        while (rl && rest[rl - 1] == ' ')
            rest[--rl] = '\0';
        kw[kl] = '\0';
        char where[4200];
        bfmt(where, sizeof where, "%s:%d", path, line_no);
        if (!*kw) {
            free(line);
            continue;
        }
        if (in_kernel) {
            in_kernel = strcmp(kw, "end") != 0;
        } else if (!in_block && strcmp(kw, "kernel") == 0) {
            in_kernel = 1;
        } else if (!in_block && strcmp(kw, "program") == 0) {
            if (!valid_name(rest))
                rc = fail(err, "%s: program takes a name of letters, digits, '_', '-', '.'",
                          where);
            else if (start_block(out, &blocks_cap, &bb, rest, line_no) != 0)
                rc = fail(err, "out of memory");
            else
                in_block = 1;
        } else if (in_block && strcmp(kw, "end") == 0) {
            rc = finish_block(&bb, err, where);
            in_block = 0;
        } else if (in_block) {
            rc = block_line(&bb, dir, kw, rest, err, where);
        }
        free(line);
    }
    if (rc == 0 && in_block)
        rc = fail(err, "%s:%d: program %s has no end", path, bb.b->line, bb.b->name);
    free(text);
    free(bb.files);
    if (bb.strings.s) {
        for (size_t i = 0; i < bb.strings.n; i++)
            free(bb.strings.s[i]);
        free(bb.strings.s);
    }
    if (rc != 0)
        program_blocks_free(out);
    return rc;
}

void program_blocks_free(program_blocks_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        program_block *b = &l->blocks[i];
        direct_jobs_spec *d = &b->spec;
        if (b->strings) {
            for (size_t k = 0; k < b->strings->n; k++)
                free(b->strings->s[k]);
            free(b->strings->s);
            free(b->strings);
        }
        free(d->programs);
        free((void *)d->all.defines);
        free((void *)d->all.derives);
        free((void *)d->all.wheres);
        free((void *)d->all.variants);
        free((void *)d->all.defaults);
        free((void *)d->includes);
        free((void *)d->all.kernels);
        free(b->name);
    }
    free(l->blocks);
    memset(l, 0, sizeof *l);
}
