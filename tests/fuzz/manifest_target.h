/*
 * manifest_target.h — the fuzz target over the kernel manifest
 * (manifest.h, program_blocks.h): the input is manifest.txt of a private
 * temporary folder that also holds a small source (tiled.cl, including
 * inc/t.h). manifest_load reads it; each kernel that loads is expanded with its
 * defaults and with a selection of its first two allowed values per axis,
 * and its allowed values formatted. program_blocks_load reads the program blocks of
 * the same file; each block whose paths do not climb out with ".." is
 * planned by direct_jobs_make (folded and expanded, never built). A refusal must
 * carry a message naming manifest.txt. Shared by fuzz_manifest.c and
 * tests/unit/test_fuzz_targets.c.
 */
#ifndef CLC_MANIFEST_TARGET_H
#define CLC_MANIFEST_TARGET_H

#include <stdint.h>
#include <string.h>

#include "cli_fuzz.h"
#include "direct_jobs.h"
#include "kernelgen.h"
#include "manifest.h"
#include "program_blocks.h"

static const char mft_source[] = "#include \"t.h\"\n"
                                 "__kernel void tiled(__global float *o) { o[0] = TS * T; }\n";
static const char mft_header[] = "#define T 2\n";

static inline void mft_expand(const manifest_kernel *k, const manifest_selection *sel)
{
    manifest_variant *vs = (manifest_variant *)1;
    size_t n = 7;
    char err[MANIFEST_ERR_MAX];
    err[0] = '\0';
    if (manifest_expand(k, sel, &vs, &n, err) == 0) {
        for (size_t i = 0; i < n; i++) {
            cf_require(vs[i].kernel == k && vs[i].n_defines <= MANIFEST_MAX_DEFINES);
            cf_require(memchr(vs[i].options, 0, sizeof vs[i].options) != NULL);
            for (size_t d = 0; d < vs[i].n_defines; d++)
                cf_require(manifest_variant_define(&vs[i], vs[i].define_names[d]) != NULL);
        }
        free(vs);
    } else {
        cf_require_message(err, sizeof err);
    }
}

static inline void mft_kernels(const manifest_file *m)
{
    cf_require(m->n_kernels <= MANIFEST_MAX_KERNELS);
    manifest_selection *sel = malloc(sizeof *sel);
    if (!sel)
        return;
    for (size_t i = 0; i < m->n_kernels; i++) {
        const manifest_kernel *k = &m->kernels[i];
        cf_require(manifest_find(m, k->name) != NULL && k->n_axes <= MANIFEST_MAX_AXES);
        memset(sel, 0, sizeof *sel);
        for (size_t a = 0; a < k->n_axes; a++) {
            const manifest_axis *ax = &k->axes[a];
            cf_require(manifest_axis_find(k, ax->name) != NULL);
            cf_require(ax->n_allowed <= MANIFEST_MAX_VALUES && ax->n_default <= MANIFEST_MAX_VALUES);
            char buf[512];
            manifest_format_allowed(ax, buf, sizeof buf);
            cf_require(memchr(buf, 0, sizeof buf) != NULL);
            snprintf(sel->names[a], MANIFEST_NAME_MAX, "%s", ax->name);
            for (size_t v = 0; v < ax->n_allowed && v < 2; v++)
                sel->values[a][sel->n_values[a]++] = ax->allowed[v];
            sel->n = a + 1;
        }
        mft_expand(k, NULL);
        mft_expand(k, sel);
    }
    free(sel);
}

static inline int mft_climbs(const char *const *paths, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strstr(paths[i], "..") || paths[i][0] == '/')
            return 1;
    return 0;
}

static inline void mft_blocks(const char *dir)
{
    program_blocks_list l;
    char err[PROGRAM_BLOCKS_ERR_MAX];
    err[0] = '\0';
    if (program_blocks_load(dir, &l, err) != 0) {
        cf_require_message(err, sizeof err);
        cf_require(strstr(err, "manifest.txt") != NULL);
        cf_require(l.n == 0);
        return;
    }
    for (size_t i = 0; i < l.n; i++) {
        const direct_jobs_spec *s = &l.blocks[i].spec;
        cf_require(l.blocks[i].name != NULL && l.blocks[i].line >= 1);
        size_t dl = strlen(dir);
        int outside = 0;
        for (size_t f = 0; f < s->n_programs; f++) {
            /* NAME=DIR/a.cl,DIR/b.cl: every file in the folder. */
            const char *p = s->programs[f].program ? strchr(s->programs[f].program, '=') : NULL;
            outside |= !p || strstr(p, "..") != NULL;
            while (p && !outside) {
                outside |= strncmp(p + 1, dir, dl) != 0;
                p = strchr(p + 1, ',');
            }
        }
        for (size_t f = 0; f < s->n_includes; f++)
            outside |= strncmp(s->includes[f], dir, dl) != 0;
        if (outside || mft_climbs(s->includes, s->n_includes))
            continue;
        build_job_list out;
        memset(&out, 0, sizeof out);
        char e2[DIRECT_JOBS_ERR_MAX];
        e2[0] = '\0';
        int rc = direct_jobs_make(s, &out, e2);
        cf_require(rc >= 0 && rc <= 2);
        if (rc != 0)
            cf_require_message(e2, sizeof e2);
        build_job_list_free(&out);
    }
    program_blocks_free(&l);
}

static inline int fuzz_manifest(const uint8_t *data, size_t size)
{
    source_gen_install(&kernelgen_generator); /* generator lines as clc-pack reads them */
    char dir[256];
    if (cf_tmpdir(dir) != 0)
        return 0;
    char inc[300];
    snprintf(inc, sizeof inc, "%s/inc", dir);
    /* One manifest_file (2.5 MB) for every input: a fresh one would be
     * mapped and its pages faulted in each time, which cost more than the
     * parse. manifest_load sets what it reads. */
    static manifest_file m_store;
    manifest_file *m = &m_store;
    if (cf_write(dir, "manifest.txt", data, size) == 0 &&
        cf_write(dir, "tiled.cl", mft_source, sizeof mft_source - 1) == 0 &&
        mkdir(inc, 0700) == 0 && cf_write(inc, "t.h", mft_header, sizeof mft_header - 1) == 0) {
        char err[MANIFEST_ERR_MAX];
        err[0] = '\0';
        if (manifest_load(dir, m, err) == 0) {
            mft_kernels(m);
        } else {
            cf_require_message(err, sizeof err);
            cf_require(strstr(err, "manifest.txt") != NULL);
        }
        mft_blocks(dir);
    }
    cf_rmtree(dir);
    return 0;
}

#endif /* CLC_MANIFEST_TARGET_H */
