/*
 * kernel_source.c — the program text of a variant (kernel_source.h).
 *
 * Local includes (#include "file") are folded in so that a pack holds text
 * that rebuilds with no kernels folder; #line directives keep the compiler's
 * messages pointing at the original files. Folding is recursive with a
 * stack of the files being read, so a file included twice (guarded headers)
 * is fine but a file that includes itself, directly or not, is refused.
 */
#include "kernel_source.h"

#include "bounded_fmt.h"
#include "kernelgen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Kernel sources are small; these bound what a broken folder can cost. */
#define KS_FILE_MAX (1L << 20)
#define KS_TEXT_MAX (8L << 20)
#define KS_DEPTH_MAX 8

typedef struct folder {
    const char *dir;
    const char *stack[KS_DEPTH_MAX];
    int depth;
    char *text;
    size_t len, cap;
    char *err;
    ks_file_fn on_file;
    void *ctx;
} folder;

static int append(folder *f, const char *s, size_t n)
{
    const char *what = f->depth > 0 ? f->stack[0] : "program text";
    if (f->len + n + 1 > (size_t)KS_TEXT_MAX) {
        bfmt(f->err, MF_ERR_MAX, "%s: larger than %ld bytes with its includes", what,
             KS_TEXT_MAX);
        return -1;
    }
    if (f->len + n + 1 > f->cap) {
        size_t cap = f->cap ? f->cap : 16384;
        while (cap < f->len + n + 1)
            cap *= 2;
        char *grown = realloc(f->text, cap);
        if (!grown) {
            bfmt(f->err, MF_ERR_MAX, "%s: out of memory", what);
            return -1;
        }
        f->text = grown;
        f->cap = cap;
    }
    memcpy(f->text + f->len, s, n);
    f->len += n;
    f->text[f->len] = '\0';
    return 0;
}

static char *read_file(const folder *f, const char *name, size_t *len)
{
    char *err = f->err;
    char path[2 * MF_PATH_MAX + 2];
    snprintf(path, sizeof path, "%s/%s", f->dir, name);
    if (f->on_file)
        f->on_file(f->ctx, path);
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        bfmt(err, MF_ERR_MAX, "%s: cannot open %s", name, path);
        return NULL;
    }
    char *buf = malloc(KS_FILE_MAX + 1);
    size_t n = buf ? fread(buf, 1, KS_FILE_MAX + 1, fp) : 0;
    int bad = !buf || ferror(fp);
    fclose(fp);
    if (bad || n > KS_FILE_MAX || memchr(buf, '\0', n)) {
        bfmt(err, MF_ERR_MAX, "%s: %s", name,
             bad ? "cannot read" : n > KS_FILE_MAX ? "larger than 1 MiB" : "holds a NUL byte");
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* If line (len bytes) is an #include directive, sets *name and *name_len to the
 * quoted file name and returns 1; returns -1 for a form that is not
 * supported (<...>, a macro), 0 for any other line. */
static int include_target(const char *line, size_t len, const char **name, size_t *name_len)
{
    const char *p = line, *end = line + len;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p == end || *p != '#')
        return 0;
    p++;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if ((size_t)(end - p) < 7 || memcmp(p, "include", 7) != 0)
        return 0;
    p += 7;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p == end || *p != '"')
        return -1;
    const char *q = memchr(p + 1, '"', (size_t)(end - p - 1));
    if (!q)
        return -1;
    *name = p + 1;
    *name_len = (size_t)(q - p - 1);
    return 1;
}

/* Include names are plain relative paths inside the kernels folder. */
static int safe_include_name(const char *name)
{
    if (name[0] == '\0' || name[0] == '/')
        return 0;
    for (const char *c = name; (c = strstr(c, "..")) != NULL; c += 2)
        if ((c == name || c[-1] == '/') && (c[2] == '\0' || c[2] == '/'))
            return 0;
    return 1;
}

static int fold(folder *f, const char *name)
{
    for (int i = 0; i < f->depth; i++)
        if (strcmp(f->stack[i], name) == 0) {
            bfmt(f->err, MF_ERR_MAX, "%s: include loop (%s includes itself through %s)",
                 f->stack[0], name, f->stack[f->depth - 1]);
            return -1;
        }
    if (f->depth == KS_DEPTH_MAX) {
        bfmt(f->err, MF_ERR_MAX, "%s: includes nested more than %d deep", f->stack[0],
             KS_DEPTH_MAX);
        return -1;
    }
    size_t len;
    char *src = read_file(f, name, &len);
    if (!src)
        return -1;
    f->stack[f->depth++] = name;
    int rc = 0;
    size_t pos = 0;
    int line_no = 1;
    char directive[MF_PATH_MAX + 32];
    if (f->depth > 1) {
        snprintf(directive, sizeof directive, "#line 1 \"%s\"\n", name);
        rc = append(f, directive, strlen(directive));
    }
    while (rc == 0 && pos < len) {
        const char *nl = memchr(src + pos, '\n', len - pos);
        size_t stop = nl ? (size_t)(nl - src) : len;
        const char *inc;
        size_t inc_len;
        int kind = include_target(src + pos, stop - pos, &inc, &inc_len);
        if (kind < 0) {
            bfmt(f->err, MF_ERR_MAX,
                 "%s:%d: only #include \"file\" of the kernels folder is supported", name,
                 line_no);
            rc = -1;
        } else if (kind > 0) {
            char inc_name[MF_PATH_MAX];
            if (inc_len >= sizeof inc_name) {
                bfmt(f->err, MF_ERR_MAX, "%s:%d: include name too long", name, line_no);
                rc = -1;
                break;
            }
            memcpy(inc_name, inc, inc_len);
            inc_name[inc_len] = '\0';
            if (!safe_include_name(inc_name)) {
                bfmt(f->err, MF_ERR_MAX, "%s:%d: include \"%s\" is outside the kernels folder",
                     name, line_no, inc_name);
                rc = -1;
                break;
            }
            rc = fold(f, inc_name);
            if (rc == 0) {
                snprintf(directive, sizeof directive, "#line %d \"%s\"\n", line_no + 1, name);
                rc = append(f, directive, strlen(directive));
            }
        } else {
            rc = append(f, src + pos, stop - pos);
            if (rc == 0)
                rc = append(f, "\n", 1);
        }
        pos = nl ? stop + 1 : len;
        line_no++;
    }
    f->depth--;
    free(src);
    return rc;
}

int ks_program_source(const mf_manifest *m, const mf_variant *v, char **text, size_t *len,
                      char name[MF_PATH_MAX], char err[MF_ERR_MAX])
{
    return ks_program_source_files(m, v, text, len, name, err, NULL, NULL);
}

int ks_program_source_files(const mf_manifest *m, const mf_variant *v, char **text, size_t *len,
                            char name[MF_PATH_MAX], char err[MF_ERR_MAX], ks_file_fn on_file,
                            void *ctx)
{
    *text = NULL;
    *len = 0;
    err[0] = '\0';
    const mf_kernel *k = v->kernel;
    if (k->generator[0] && !kg_known(k->generator)) {
        bfmt(err, MF_ERR_MAX, "%s: unknown generator '%s' (known: %s)", k->name, k->generator,
             kg_names());
        return -1;
    }
    folder f = {.dir = m->dir, .err = err, .on_file = on_file, .ctx = ctx};
    /* append("") allocates, so an empty file still gives a string. */
    if (append(&f, "", 0) != 0 || fold(&f, k->source) != 0) {
        free(f.text);
        return -1;
    }
    if (!k->generator[0]) {
        bfmt(name, MF_PATH_MAX, "%s", k->source);
        *text = f.text;
        *len = f.len;
        return 0;
    }
    char label[MF_PATH_MAX];
    char why[MF_ERR_MAX];
    char *generated;
    size_t generated_len;
    int rc = kg_generate(k->generator, k->source, f.text, f.len, v, &generated, &generated_len,
                         label, why, sizeof why);
    free(f.text);
    if (rc != 0) {
        bfmt(err, MF_ERR_MAX, "%s: %s", k->source, why);
        return -1;
    }
    bfmt(name, MF_PATH_MAX, "%s[%s]", k->source, label);
    *text = generated;
    *len = generated_len;
    return 0;
}
