/* manifest_jobs.c — manifest variants as build jobs (manifest_jobs.h). */
#include "manifest_jobs.h"

#include <stdlib.h>
#include <string.h>

#include "bounded_fmt.h"
#include "clcpack.h"
#include "kernel_source.h"

const char *mf_family_text(manifest_family f)
{
    switch (f) {
    case MANIFEST_FAMILY_CONV_GREY:
        return "conv-grey";
    case MANIFEST_FAMILY_CONV_RGBA:
        return "conv-rgba";
    case MANIFEST_FAMILY_POLY:
        return "poly";
    }
    return "";
}

static void note_read(void *ctx, const char *path)
{
    build_job_list_add_read(ctx, path);
}

static int fill(const manifest_file *m, const manifest_variant *v, build_job *j, build_job_list *out,
                char err[MANIFEST_ERR_MAX])
{
    char name[MANIFEST_PATH_MAX];
    if (kernel_source_program_source_files(m, v, &j->source, &j->source_size, name, err, note_read, out) !=
        0)
        return -1;
    const char *names[MANIFEST_MAX_DEFINES], *values[MANIFEST_MAX_DEFINES];
    for (size_t i = 0; i < v->n_defines; i++) {
        names[i] = v->define_names[i];
        values[i] = v->define_values[i];
    }
    j->entry_name = strdup(v->kernel->name);
    j->family = strdup(mf_family_text(v->kernel->family));
    j->entry_flags = v->is_default ? CLCPACK_ENTRY_DEFAULT : 0;
    j->source_name = strdup(name);
    j->options = strdup(v->options);
    j->kernels = calloc(1, sizeof *j->kernels);
    /* A kernel with a family gets its reference check; one without, the
     * generic checks only. */
    j->check = strdup(v->kernel->family ? v->kernel->name : "");
    memcpy(j->wg, v->wg, sizeof j->wg);
    if (!j->entry_name || !j->family || !j->source_name || !j->options || !j->kernels ||
        !j->check || build_job_set_defines(j, names, values, v->n_defines) != 0) {
        bfmt(err, MANIFEST_ERR_MAX, "out of memory");
        return -1;
    }
    j->kernels[0] = strdup(v->kernel->name);
    if (!j->kernels[0]) {
        bfmt(err, MANIFEST_ERR_MAX, "out of memory");
        return -1;
    }
    j->n_kernels = 1;
    return 0;
}

int manifest_jobs_make(const manifest_file *m, const variant_plan *plan, build_job_list *out, char err[MANIFEST_ERR_MAX])
{
    char manifest[MANIFEST_PATH_MAX + 16];
    bfmt(manifest, sizeof manifest, "%s/manifest.txt", m->dir);
    build_job_list_add_read(out, manifest);
    for (size_t i = 0; i < plan->n; i++) {
        build_job *j = build_job_list_add(out);
        if (!j) {
            bfmt(err, MANIFEST_ERR_MAX, "out of memory for %zu jobs", plan->n);
            return -1;
        }
        if (fill(m, &plan->variants[i], j, out, err) != 0)
            return -1;
    }
    return 0;
}
