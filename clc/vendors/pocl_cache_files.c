/* pocl_cache_files.c — a program's files in PoCL's kernel cache (pocl_cache_files.h). */
#include "pocl_cache_files.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


typedef struct walk {
    pocl_binary_canon_file *files;
    size_t n, cap;
    size_t base_len; /* of the program folder: the stored path starts after it */
    int oom;
} walk;

static unsigned char *read_all(const char *path, size_t size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *buf = malloc(size ? size : 1);
    if (buf && fread(buf, 1, size, f) != size) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

static void add_file(walk *w, const char *path, size_t size)
{
    if (w->n == POCL_CACHE_FILES_MAX_FILES || size > POCL_CACHE_FILES_MAX_FILE_BYTES)
        return;
    if (w->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 16;
        pocl_binary_canon_file *more = realloc(w->files, cap * sizeof *more);
        if (!more) {
            w->oom = 1;
            return;
        }
        w->files = more;
        w->cap = cap;
    }
    unsigned char *data = read_all(path, size);
    char *rel = strdup(path + w->base_len);
    if (!data || !rel) {
        free(data);
        free(rel);
        return; /* unreadable: left out, the binary stays as it was */
    }
    w->files[w->n++] = (pocl_binary_canon_file){rel, data, size};
}

static void walk_dir(walk *w, const char *dir, int depth)
{
    if (depth > POCL_CACHE_FILES_MAX_DEPTH || w->oom)
        return;
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while (!w->oom && (de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        char path[4096];
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, de->d_name) >= sizeof path)
            continue;
        struct stat st;
        if (lstat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode))
            walk_dir(w, path, depth + 1);
        else if (S_ISREG(st.st_mode))
            add_file(w, path, (size_t)st.st_size);
    }
    closedir(d);
}

int pocl_cache_files_kernel_files(const char *name, size_t len, pocl_binary_canon_file **files, size_t *n, void *user)
{
    const char *program_dir = user;
    *files = NULL;
    *n = 0;
    if (len == 0 || len > 1024 || memchr(name, '/', len) || (len == 1 && name[0] == '.') ||
        (len == 2 && name[0] == '.' && name[1] == '.') || memchr(name, '\0', len))
        return 0;
    char dir[4096];
    if ((size_t)snprintf(dir, sizeof dir, "%s/%.*s", program_dir, (int)len, name) >= sizeof dir)
        return 0;
    walk w = {NULL, 0, 0, strlen(program_dir), 0};
    walk_dir(&w, dir, 0);
    if (w.oom) {
        for (size_t i = 0; i < w.n; i++) {
            free(w.files[i].path);
            free(w.files[i].data);
        }
        free(w.files);
        return -1;
    }
    *files = w.files;
    *n = w.n;
    return 0;
}
