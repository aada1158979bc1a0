/* build_job.c — the engine's variant (build_job.h). */
#include "build_job.h"

#include <stdlib.h>
#include <string.h>

#include "bounded_fmt.h"
#include "text_format.h"

void build_job_free(build_job *j)
{
    free(j->entry_name);
    free(j->family);
    free(j->source_name);
    free(j->source);
    free(j->options);
    for (size_t i = 0; i < j->n_defines; i++) {
        free(j->defines[i].name);
        free(j->defines[i].value);
    }
    free(j->defines);
    for (size_t i = 0; i < j->n_kernels; i++)
        free(j->kernels[i]);
    free(j->kernels);
    free(j->check);
    free(j->check_cmd);
    free(j->tune_cmd);
    memset(j, 0, sizeof *j);
}

int build_job_has_check_cmd(const build_job *j) { return j->check_cmd && j->check_cmd[0]; }

int build_job_has_tune_cmd(const build_job *j) { return j->tune_cmd && j->tune_cmd[0]; }

build_job *build_job_list_add(build_job_list *l)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        build_job *g = realloc(l->jobs, cap * sizeof *g);
        if (!g)
            return NULL;
        l->jobs = g;
        l->cap = cap;
    }
    build_job *j = &l->jobs[l->n++];
    memset(j, 0, sizeof *j);
    return j;
}

void build_job_list_add_read(build_job_list *l, const char *path)
{
    for (size_t i = 0; i < l->n_read; i++)
        if (strcmp(l->read[i], path) == 0)
            return;
    if (l->n_read == l->cap_read) {
        size_t cap = l->cap_read ? l->cap_read * 2 : 16;
        char **g = realloc(l->read, cap * sizeof *g);
        if (!g) {
            l->read_failed = 1;
            return;
        }
        l->read = g;
        l->cap_read = cap;
    }
    if (!(l->read[l->n_read] = strdup(path))) {
        l->read_failed = 1;
        return;
    }
    l->n_read++;
}

void build_job_list_free(build_job_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        build_job_free(&l->jobs[i]);
    free(l->jobs);
    free(l->notes);
    for (size_t i = 0; i < l->n_read; i++)
        free(l->read[i]);
    free(l->read);
    memset(l, 0, sizeof *l);
}

static int cmp_define(const void *a, const void *b)
{
    return strcmp(((const build_job_define *)a)->name, ((const build_job_define *)b)->name);
}

int build_job_set_defines(build_job *j, const char *const *names, const char *const *values, size_t n)
{
    build_job_define *d = calloc(n ? n : 1, sizeof *d);
    if (!d)
        return -1;
    for (size_t i = 0; i < n; i++) {
        d[i].name = strdup(names[i]);
        d[i].value = strdup(values[i] ? values[i] : "");
        if (!d[i].name || !d[i].value) {
            for (size_t k = 0; k <= i; k++) {
                free(d[k].name);
                free(d[k].value);
            }
            free(d);
            return -1;
        }
    }
    qsort(d, n, sizeof *d, cmp_define);
    int dup = 0;
    for (size_t i = 1; i < n; i++)
        dup |= strcmp(d[i - 1].name, d[i].name) == 0;
    for (size_t i = 0; i < j->n_defines; i++) {
        free(j->defines[i].name);
        free(j->defines[i].value);
    }
    free(j->defines);
    j->defines = d;
    j->n_defines = n;
    return dup ? -1 : 0;
}

const char *build_job_define_value(const build_job *j, const char *name)
{
    for (size_t i = 0; i < j->n_defines; i++)
        if (strcmp(j->defines[i].name, name) == 0)
            return j->defines[i].value;
    return NULL;
}

void build_job_wg_text(const uint32_t wg[3], char *buf, size_t cap)
{
    clcpk_wg_text(wg, "", buf, cap);
}

/* Appends to buf (cut at cap, always NUL-terminated). */
static void add(char *buf, size_t cap, size_t *len, const char *s)
{
    if (*len + 1 >= cap)
        return;
    size_t n = strlen(s);
    if (n > cap - 1 - *len)
        n = cap - 1 - *len;
    memcpy(buf + *len, s, n);
    *len += n;
    buf[*len] = '\0';
}

void build_job_defines_text(const build_job *j, char *buf, size_t cap)
{
    size_t len = 0;
    if (cap)
        buf[0] = '\0';
    for (size_t i = 0; i < j->n_defines; i++) {
        if (i)
            add(buf, cap, &len, ",");
        add(buf, cap, &len, j->defines[i].name);
        if (j->defines[i].value[0]) {
            add(buf, cap, &len, "=");
            add(buf, cap, &len, j->defines[i].value);
        }
    }
}

void build_job_label(const build_job *j, char *buf, size_t cap)
{
    size_t len = 0;
    if (cap)
        buf[0] = '\0';
    add(buf, cap, &len, j->entry_name ? j->entry_name : "?");
    for (size_t i = 0; i < j->n_defines; i++) {
        add(buf, cap, &len, " ");
        add(buf, cap, &len, j->defines[i].name);
        if (j->defines[i].value[0]) {
            add(buf, cap, &len, "=");
            add(buf, cap, &len, j->defines[i].value);
        }
    }
    char wg[48];
    build_job_wg_text(j->wg, wg, sizeof wg);
    if (wg[0]) {
        add(buf, cap, &len, " wg=");
        add(buf, cap, &len, wg);
    }
}
