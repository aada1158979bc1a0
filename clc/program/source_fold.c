/*
 * source_fold.c — folding a program's includes into its text (source_fold.h).
 *
 * Each file is read whole, then walked line by line. A small scanner keeps
 * track of block comments and string literals across lines so an #include
 * inside a comment is left alone. Files are known by device and inode, which
 * is what the include-loop and #pragma once checks compare.
 */
#include "source_fold.h"

#include "bounded_fmt.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct file_entry {
    char *name;       /* as shown: relative to base_dir when the user gave it so */
    dev_t dev;
    ino_t ino;
    int once;         /* holds #pragma once and was folded */
} file_entry;

typedef struct folder {
    const source_fold_options *opt;
    char **root_real;        /* realpath of each root */
    file_entry *files;
    size_t n_files, cap_files;
    size_t stack[SOURCE_FOLD_DEPTH_MAX];  /* indices into files of the files being folded */
    int depth;
    char *text;
    size_t len, cap;
    source_fold_missing *missing;
    size_t n_missing, cap_missing;
    char *err;
    size_t errlen;
} folder;

static int fail(folder *f, const char *fmt, const char *a, const char *b) BFMT_PRINTF(2, 0);

/* Formats an error with up to two string arguments (fmt uses them in order). */
static int fail(folder *f, const char *fmt, const char *a, const char *b)
{
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#endif
    bfmt(f->err, f->errlen, fmt, a, b);
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
    return -1;
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * size);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

static int append(folder *f, const char *s, size_t n)
{
    if (f->len + n + 1 > (size_t)SOURCE_FOLD_TEXT_MAX)
        return fail(f, "%s: the program is larger than 64 MiB with its includes",
                    f->opt->sources[0], NULL);
    if (f->len + n + 1 > f->cap) {
        size_t cap = f->cap ? f->cap : 16384;
        while (cap < f->len + n + 1)
            cap *= 2;
        char *grown = realloc(f->text, cap);
        if (!grown)
            return fail(f, "%s: out of memory", f->opt->sources[0], NULL);
        f->text = grown;
        f->cap = cap;
    }
    memcpy(f->text + f->len, s, n);
    f->len += n;
    f->text[f->len] = '\0';
    return 0;
}

/* #line LINE "NAME", the name escaped as a C string; then a comment opener
 * when the line that follows continues a block comment, and a newline. */
static int append_line_directive(folder *f, long line, const char *name, int open_comment)
{
    char head[32];
    snprintf(head, sizeof head, "#line %ld \"", line);
    if (append(f, head, strlen(head)) != 0)
        return -1;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
        char esc[8];
        if (*c == '"' || *c == '\\')
            snprintf(esc, sizeof esc, "\\%c", *c);
        else if (*c < 0x20 || *c == 0x7f)
            snprintf(esc, sizeof esc, "\\%03o", *c);
        else
            snprintf(esc, sizeof esc, "%c", *c);
        if (append(f, esc, strlen(esc)) != 0)
            return -1;
    }
    return append(f, open_comment ? "\" /*\n" : "\"\n", open_comment ? 5 : 2);
}

/* ---- paths ---------------------------------------------------------------- */

/* The path to open for a name as shown: base_dir/name for a relative name. */
static int full_path(const folder *f, const char *name, char out[SOURCE_FOLD_PATH_MAX])
{
    const char *base = f->opt->base_dir;
    int n;
    if (name[0] == '/' || !base || !base[0])
        n = snprintf(out, SOURCE_FOLD_PATH_MAX, "%s", name);
    else
        n = snprintf(out, SOURCE_FOLD_PATH_MAX, "%s/%s", base, name);
    return n < 0 || n >= SOURCE_FOLD_PATH_MAX ? -1 : 0;
}

/* dir/name as shown, with dir "" or "." giving name alone and a leading
 * "./" of name dropped, so "-I ." and "./x.h" show as "x.h". */
static int join(const char *dir, size_t dir_len, const char *name, char out[SOURCE_FOLD_PATH_MAX])
{
    while (name[0] == '.' && name[1] == '/')
        name += 2;
    while (dir_len > 1 && dir[dir_len - 1] == '/')
        dir_len--;
    int n;
    if (name[0] == '/' || dir_len == 0 || (dir_len == 1 && dir[0] == '.'))
        n = snprintf(out, SOURCE_FOLD_PATH_MAX, "%s", name);
    else if (dir_len == 1 && dir[0] == '/')
        n = snprintf(out, SOURCE_FOLD_PATH_MAX, "/%s", name);
    else
        n = snprintf(out, SOURCE_FOLD_PATH_MAX, "%.*s/%s", (int)dir_len, dir, name);
    return n < 0 || n >= SOURCE_FOLD_PATH_MAX ? -1 : 0;
}

static int inside_roots(const folder *f, const char *real)
{
    for (size_t i = 0; i < f->opt->n_roots; i++) {
        const char *r = f->root_real[i];
        if (!r)
            continue;
        size_t n = strlen(r);
        if (strcmp(r, "/") == 0)
            return 1;
        if (strncmp(real, r, n) == 0 && (real[n] == '\0' || real[n] == '/'))
            return 1;
    }
    return 0;
}

/* ---- reading a file ---------------------------------------------------------- */

/* Opens name (as shown) for folding. Returns 1 with *buf (malloc'd,
 * NUL-terminated), *len and the file's identity; 0 when no file of that
 * name exists and missing_ok; -1 on an error (written). */
static int open_file(folder *f, const char *name, int missing_ok, char **buf, size_t *len,
                     dev_t *dev, ino_t *ino)
{
    char path[SOURCE_FOLD_PATH_MAX];
    if (full_path(f, name, path) != 0)
        return fail(f, "%.200s...: path too long", name, NULL);
    struct stat st;
    if (stat(path, &st) != 0) {
        if (missing_ok && (errno == ENOENT || errno == ENOTDIR))
            return 0;
        return fail(f, "%s: cannot open: %s", name, strerror(errno));
    }
    /* Refused before opening: opening a device can have effects of its own. */
    if (!S_ISREG(st.st_mode))
        return fail(f, "%s: not a regular file (%s)", name,
                    S_ISDIR(st.st_mode)    ? "a folder"
                    : S_ISFIFO(st.st_mode) ? "a FIFO"
                    : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                                                                : "a socket or other special file");
    char *real = realpath(path, NULL);
    if (!real)
        return fail(f, "%s: cannot resolve its path: %s", name, strerror(errno));
    if (!inside_roots(f, real)) {
        const char *what = f->opt->roots_what ? f->opt->roots_what : "the allowed folders";
        char shown[SOURCE_FOLD_PATH_MAX + 8];
        if (strcmp(real, path) == 0)
            bfmt(shown, sizeof shown, "%s", name);
        else
            bfmt(shown, sizeof shown, "%s -> %s", name, real);
        free(real);
        return fail(f, "%s: outside %s", shown, what);
    }
    free(real);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return fail(f, "%s: cannot open: %s", name, strerror(errno));
    /* The file checked above must be the one opened. */
    struct stat fst;
    if (fstat(fd, &fst) != 0 || !S_ISREG(fst.st_mode) || fst.st_dev != st.st_dev ||
        fst.st_ino != st.st_ino) {
        close(fd);
        return fail(f, "%s: changed while being opened", name, NULL);
    }
    if (fst.st_size > SOURCE_FOLD_FILE_MAX) {
        close(fd);
        return fail(f, "%s: larger than 16 MiB", name, NULL);
    }
    size_t cap = (size_t)fst.st_size + 1, n = 0;
    char *data = malloc(cap + 1);
    if (!data) {
        close(fd);
        return fail(f, "%s: out of memory", name, NULL);
    }
    /* Read to the end, which may come later than st_size said; never past the bound. */
    for (;;) {
        if (n == cap) {
            if (cap > (size_t)SOURCE_FOLD_FILE_MAX) {
                free(data);
                close(fd);
                return fail(f, "%s: larger than 16 MiB", name, NULL);
            }
            char *more = realloc(data, 2 * cap + 1);
            if (!more) {
                free(data);
                close(fd);
                return fail(f, "%s: out of memory", name, NULL);
            }
            data = more;
            cap *= 2;
        }
        ssize_t got = read(fd, data + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            int e = errno;
            free(data);
            close(fd);
            return fail(f, "%s: cannot read: %s", name, strerror(e));
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    if (n > (size_t)SOURCE_FOLD_FILE_MAX || memchr(data, '\0', n)) {
        free(data);
        return fail(f, n > (size_t)SOURCE_FOLD_FILE_MAX ? "%s: larger than 16 MiB" : "%s: holds a NUL byte",
                    name, NULL);
    }
    data[n] = '\0';
    *buf = data;
    *len = n;
    *dev = fst.st_dev;
    *ino = fst.st_ino;
    return 1;
}

/* The entry of a file, added (named name) when first seen; -1 on no memory. */
static long file_index(folder *f, const char *name, dev_t dev, ino_t ino)
{
    for (size_t i = 0; i < f->n_files; i++)
        if (f->files[i].dev == dev && f->files[i].ino == ino)
            return (long)i;
    void *p = f->files;
    if (grow(&p, &f->cap_files, f->n_files + 1, sizeof *f->files) != 0)
        return -1;
    f->files = p;
    char *copy = strdup(name);
    if (!copy)
        return -1;
    file_entry *e = &f->files[f->n_files];
    e->name = copy;
    e->dev = dev;
    e->ino = ino;
    e->once = 0;
    return (long)f->n_files++;
}

/* ---- lines ------------------------------------------------------------------ */

/* Updates *in_comment over one line: block comments open and close, // and
 * string or character literals hide what looks like a comment start. */
static void scan_comments(const char *s, size_t n, int *in_comment)
{
    size_t i = 0;
    while (i < n) {
        if (*in_comment) {
            if (s[i] == '*' && i + 1 < n && s[i + 1] == '/') {
                *in_comment = 0;
                i += 2;
            } else {
                i++;
            }
        } else if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
            *in_comment = 1;
            i += 2;
        } else if (s[i] == '/' && i + 1 < n && s[i + 1] == '/') {
            return;
        } else if (s[i] == '"' || s[i] == '\'') {
            char q = s[i++];
            while (i < n && s[i] != q)
                i += s[i] == '\\' ? 2 : 1;
            i++;
        } else {
            i++;
        }
    }
}

/* Skips spaces, tabs and block comments that close on the line. */
static const char *skip_blank(const char *p, const char *end)
{
    for (;;) {
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if (end - p >= 2 && p[0] == '/' && p[1] == '*') {
            const char *q = p + 2;
            while (end - q >= 2 && !(q[0] == '*' && q[1] == '/'))
                q++;
            if (end - q < 2)
                return p;
            p = q + 2;
            continue;
        }
        return p;
    }
}

/* The directive of a line starting with '#' (after blanks): sets *kw to its
 * keyword and returns what follows it; NULL for any other line. */
static const char *directive(const char *line, const char *end, const char *kw)
{
    const char *p = skip_blank(line, end);
    if (p == end || *p != '#')
        return NULL;
    p = skip_blank(p + 1, end);
    size_t n = strlen(kw);
    if ((size_t)(end - p) < n || memcmp(p, kw, n) != 0)
        return NULL;
    p += n;
    if (p < end && ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                    (*p >= '0' && *p <= '9') || *p == '_'))
        return NULL;
    return p;
}

/* An #include "name" or <name> line: sets *name, *name_len, *angled and
 * returns 1; 0 for any other line (a macro include is left alone too). */
static int include_target(const char *line, size_t len, const char **name, size_t *name_len,
                          int *angled)
{
    const char *end = line + len;
    const char *p = directive(line, end, "include");
    if (!p)
        return 0;
    p = skip_blank(p, end);
    if (p == end || (*p != '"' && *p != '<'))
        return 0;
    char close = *p == '"' ? '"' : '>';
    const char *q = memchr(p + 1, close, (size_t)(end - p - 1));
    if (!q || q == p + 1)
        return 0;
    *name = p + 1;
    *name_len = (size_t)(q - p - 1);
    *angled = close == '>';
    return 1;
}

static int is_pragma_once(const char *line, size_t len)
{
    const char *end = line + len;
    const char *p = directive(line, end, "pragma");
    if (!p)
        return 0;
    p = skip_blank(p, end);
    if ((size_t)(end - p) < 4 || memcmp(p, "once", 4) != 0)
        return 0;
    p = skip_blank(p + 4, end);
    return p == end || *p == '\r' || (end - p >= 2 && p[0] == '/' && p[1] == '/');
}

/* ---- folding ---------------------------------------------------------------- */

static int fold_file(folder *f, const char *name, char *src, size_t len, size_t index);

/* Chain of the files being folded, then name: "a.cl -> b.h -> a.cl". */
static void loop_error(folder *f, const char *name)
{
    char chain[SOURCE_FOLD_ERR_MAX];
    size_t n = 0;
    chain[0] = '\0';
    for (int i = 0; i < f->depth && n + 1 < sizeof chain; i++) {
        bfmt(chain + n, sizeof chain - n, "%s -> ", f->files[f->stack[i]].name);
        n += strlen(chain + n);
    }
    if (n + 1 < sizeof chain)
        bfmt(chain + n, sizeof chain - n, "%s", name);
    bfmt(f->err, f->errlen, "include loop: %s", chain);
}

static int add_missing(folder *f, const char *from, int line, const char *name, size_t len,
                       int angled)
{
    void *p = f->missing;
    if (grow(&p, &f->cap_missing, f->n_missing + 1, sizeof *f->missing) != 0)
        return fail(f, "%s: out of memory", from, NULL);
    f->missing = p;
    source_fold_missing *m = &f->missing[f->n_missing];
    m->file = strdup(from);
    m->name = strndup(name, len);
    m->line = line;
    m->angled = angled;
    f->n_missing++;
    if (!m->file || !m->name)
        return fail(f, "%s: out of memory", from, NULL);
    return 0;
}

/* Resolves and folds one include of file from (line line). Returns 1 when
 * it was folded, 2 when skipped (#pragma once), 0 when found nowhere, -1. */
static int fold_include(folder *f, const char *from, int line, const char *inc, size_t inc_len,
                        int angled)
{
    char want[SOURCE_FOLD_PATH_MAX];
    if (inc_len >= sizeof want)
        return fail(f, "%s: an include name longer than 4095 bytes", from, NULL);
    memcpy(want, inc, inc_len);
    want[inc_len] = '\0';
    const source_fold_options *o = f->opt;
    /* Candidates: beside the includer ("..." only), then the -I folders. */
    size_t n_cand = o->n_include_dirs + 1;
    for (size_t c = angled ? 1 : 0; c < n_cand; c++) {
        char cand[SOURCE_FOLD_PATH_MAX];
        int rc;
        if (want[0] == '/') {
            if (c > 0)
                break;
            rc = join("", 0, want, cand);
        } else if (c == 0) {
            const char *slash = strrchr(from, '/');
            rc = join(from, slash ? (size_t)(slash - from) + (slash == from) : 0, want, cand);
        } else {
            const char *dir = o->include_dirs[c - 1];
            rc = join(dir, strlen(dir), want, cand);
        }
        if (rc != 0) {
            char where[64];
            snprintf(where, sizeof where, "%d", line);
            return fail(f, "%s:%s: the include's path is too long", from, where);
        }
        char *src;
        size_t len;
        dev_t dev;
        ino_t ino;
        rc = open_file(f, cand, 1, &src, &len, &dev, &ino);
        if (rc < 0) {
            char why[SOURCE_FOLD_ERR_MAX];
            bfmt(why, sizeof why, "%s", f->err);
            char where[32];
            snprintf(where, sizeof where, "%d", line);
            bfmt(f->err, f->errlen, "%s:%s: %s", from, where, why);
            return -1;
        }
        if (rc == 0)
            continue;
        long idx = file_index(f, cand, dev, ino);
        if (idx < 0) {
            free(src);
            return fail(f, "%s: out of memory", from, NULL);
        }
        if (f->files[idx].once) {
            free(src);
            return 2;
        }
        for (int i = 0; i < f->depth; i++)
            if (f->stack[i] == (size_t)idx) {
                free(src);
                loop_error(f, cand);
                return -1;
            }
        if (f->depth == SOURCE_FOLD_DEPTH_MAX) {
            free(src);
            char depth[16];
            snprintf(depth, sizeof depth, "%d", SOURCE_FOLD_DEPTH_MAX);
            return fail(f, "%s: includes nested more than %s deep", f->files[f->stack[0]].name,
                        depth);
        }
        rc = append_line_directive(f, 1, f->files[idx].name, 0);
        if (rc == 0)
            rc = fold_file(f, f->files[idx].name, src, len, (size_t)idx);
        free(src);
        return rc < 0 ? -1 : 1;
    }
    return 0;
}

/* Appends src (the file files[index], shown as name) with its includes
 * folded in. Takes no ownership of src. */
static int fold_file(folder *f, const char *name, char *src, size_t len, size_t index)
{
    f->stack[f->depth++] = index;
    /* name may point into files[], which folding an include can move. */
    char *self = strdup(name);
    if (!self) {
        f->depth--;
        return fail(f, "%s: out of memory", name, NULL);
    }
    int rc = 0, in_comment = 0;
    size_t pos = 0;
    int line_no = 1;
    while (rc == 0 && pos < len) {
        const char *nl = memchr(src + pos, '\n', len - pos);
        size_t stop = nl ? (size_t)(nl - src) : len;
        const char *line = src + pos;
        size_t line_len = stop - pos;
        const char *inc;
        size_t inc_len;
        int angled;
        int was_comment = in_comment;
        scan_comments(line, line_len, &in_comment);
        if (!was_comment && include_target(line, line_len, &inc, &inc_len, &angled)) {
            rc = fold_include(f, self, line_no, inc, inc_len, angled);
            if (rc == 1) {
                rc = append_line_directive(f, line_no + 1, self, in_comment);
            } else if (rc == 2) {
                rc = append(f, in_comment ? "/*\n" : "\n", in_comment ? 3 : 1);
            } else if (rc == 0) {
                rc = add_missing(f, self, line_no, inc, inc_len, angled);
                if (rc == 0)
                    rc = append(f, line, line_len);
                if (rc == 0)
                    rc = append(f, "\n", 1);
            }
        } else if (!was_comment && is_pragma_once(line, line_len)) {
            f->files[index].once = 1;
            rc = append(f, "\n", 1);
        } else {
            rc = append(f, line, line_len);
            if (rc == 0)
                rc = append(f, "\n", 1);
        }
        pos = nl ? stop + 1 : len;
        line_no++;
    }
    free(self);
    f->depth--;
    return rc;
}

static void free_folder(folder *f)
{
    if (f->root_real)
        for (size_t i = 0; i < f->opt->n_roots; i++)
            free(f->root_real[i]);
    free(f->root_real);
    for (size_t i = 0; i < f->n_files; i++)
        free(f->files[i].name);
    free(f->files);
    for (size_t i = 0; i < f->n_missing; i++) {
        free(f->missing[i].file);
        free(f->missing[i].name);
    }
    free(f->missing);
    free(f->text);
}

int source_fold(const source_fold_options *opt, source_fold_result *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (err && errlen)
        err[0] = '\0';
    char scratch[1];
    folder f = {.opt = opt, .err = err && errlen ? err : scratch,
                .errlen = err && errlen ? errlen : sizeof scratch};
    if (opt->n_sources == 0)
        return fail(&f, "no source files%s", "", NULL);
    f.root_real = calloc(opt->n_roots ? opt->n_roots : 1, sizeof *f.root_real);
    if (!f.root_real)
        return fail(&f, "%s: out of memory", opt->sources[0], NULL);
    int rc = 0;
    for (size_t i = 0; i < opt->n_roots && rc == 0; i++) {
        char path[SOURCE_FOLD_PATH_MAX];
        if (full_path(&f, opt->roots[i], path) != 0)
            rc = fail(&f, "%.200s...: path too long", opt->roots[i], NULL);
        else
            f.root_real[i] = realpath(path, NULL); /* NULL: nothing lies in a missing folder */
    }
    /* append("") allocates, so an empty file still gives a string. */
    if (rc == 0)
        rc = append(&f, "", 0);
    for (size_t s = 0; s < opt->n_sources && rc == 0; s++) {
        const char *name = opt->sources[s];
        char shown[SOURCE_FOLD_PATH_MAX];
        if (join("", 0, name, shown) != 0) {
            rc = fail(&f, "%.200s...: path too long", name, NULL);
            break;
        }
        char *src;
        size_t len;
        dev_t dev;
        ino_t ino;
        if (open_file(&f, shown, 0, &src, &len, &dev, &ino) < 0) {
            rc = -1;
            break;
        }
        long idx = file_index(&f, shown, dev, ino);
        if (idx < 0) {
            free(src);
            rc = fail(&f, "%s: out of memory", shown, NULL);
            break;
        }
        if (s > 0 || opt->line_at_start)
            rc = append_line_directive(&f, 1, shown, 0);
        if (rc == 0 && !f.files[idx].once)
            rc = fold_file(&f, shown, src, len, (size_t)idx);
        free(src);
    }
    if (rc != 0) {
        free_folder(&f);
        return -1;
    }
    out->text = f.text;
    out->len = f.len;
    out->n_files = f.n_files;
    out->files = malloc((f.n_files ? f.n_files : 1) * sizeof *out->files);
    if (!out->files) {
        free_folder(&f);
        memset(out, 0, sizeof *out);
        return fail(&f, "%s: out of memory", opt->sources[0], NULL);
    }
    for (size_t i = 0; i < f.n_files; i++) {
        out->files[i] = f.files[i].name;
        f.files[i].name = NULL;
    }
    out->missing = f.missing;
    out->n_missing = f.n_missing;
    f.missing = NULL;
    f.n_missing = 0;
    f.text = NULL;
    free_folder(&f);
    return 0;
}

void source_fold_result_free(source_fold_result *r)
{
    if (!r)
        return;
    free(r->text);
    for (size_t i = 0; i < r->n_files; i++)
        free(r->files[i]);
    free(r->files);
    for (size_t i = 0; i < r->n_missing; i++) {
        free(r->missing[i].file);
        free(r->missing[i].name);
    }
    free(r->missing);
    memset(r, 0, sizeof *r);
}
