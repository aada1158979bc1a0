/* depfile.c — make-format dependency files (depfile.h). */
#include "depfile.h"

#include <stdlib.h>
#include <string.h>

#include "bounded_fmt.h"
#include "strbuf.h"
#include "clcpack_write.h"
#include "file_atomic.h"

void depfile_init(depfile_list *l)
{
    memset(l, 0, sizeof *l);
}

void depfile_free(depfile_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->paths[i]);
    free(l->paths);
    memset(l, 0, sizeof *l);
}

void depfile_add(depfile_list *l, const char *path)
{
    while (path[0] == '.' && path[1] == '/' && path[2])
        path += 2;
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->paths[i], path) == 0)
            return;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        char **grown = realloc(l->paths, cap * sizeof *grown);
        if (!grown) {
            l->failed = 1;
            return;
        }
        l->paths = grown;
        l->cap = cap;
    }
    char *copy = strdup(path);
    if (!copy) {
        l->failed = 1;
        return;
    }
    l->paths[l->n++] = copy;
}

/* make reads "\ " as a space in a name, "$$" as '$' and "\#" as '#'; a
 * backslash before a space (or before an escaped one) doubles, as gcc
 * writes it. */
static void put_escaped(strbuf *b, const char *s)
{
    for (const char *c = s; *c; c++) {
        if (*c == ' ' || *c == '\t') {
            for (const char *q = c - 1; q >= s && *q == '\\'; q--)
                sb_put(b, "\\", 1);
            sb_put(b, "\\", 1);
            sb_put(b, c, 1);
        } else if (*c == '$') {
            sb_put(b, "$$", 2);
        } else if (*c == '#') {
            sb_put(b, "\\#", 2);
        } else {
            sb_put(b, c, 1);
        }
    }
}

char *depfile_format(const depfile_list *l, const char *target, size_t *len)
{
    if (l->failed)
        return NULL;
    strbuf b;
    sb_init(&b);
    put_escaped(&b, target);
    sb_put(&b, ":", 1);
    for (size_t i = 0; i < l->n; i++) {
        sb_put(&b, " \\\n ", 4);
        put_escaped(&b, l->paths[i]);
    }
    sb_put(&b, "\n", 1);
    for (size_t i = 0; i < l->n; i++) {
        sb_put(&b, "\n", 1);
        put_escaped(&b, l->paths[i]);
        sb_put(&b, ":\n", 2);
    }
    sb_put(&b, "", 1);
    if (b.failed) {
        sb_free(&b);
        return NULL;
    }
    *len = b.len - 1;
    return (char *)b.data;
}

int depfile_write(const depfile_list *l, const char *target, const char *path, char *err, size_t cap)
{
    size_t len = 0;
    char *text = depfile_format(l, target, &len);
    if (!text) {
        bfmt(err, cap, "%s: out of memory", path);
        return -1;
    }
    clcpack_error e;
    int rc = clcpk_write_file_atomic(path, text, len, &e) == CLCPACK_OK ? 0 : -1;
    if (rc != 0)
        bfmt(err, cap, "%s", e.message);
    free(text);
    return rc;
}
