/* pack_plan.c — what `clc-pack [pack]` builds (pack_plan.h). */
#include "pack_plan.h"

#include <stdlib.h>
#include <string.h>

#include "bounded_fmt.h"
#include "manifest.h"
#include "manifest_jobs.h"
#include "program_blocks.h"

/* The most program blocks --kernel can name one by one. */
#define MAX_NAMED_BLOCKS 64

/* The kernel blocks' variants the request selects, appended to plan. */
static int kernel_blocks(const manifest_file *m, const variant_plan_request *req, build_job_list *plan, char *err,
                         size_t cap)
{
    variant_plan vplan;
    char perr[VARIANT_PLAN_ERR_MAX];
    if (variant_plan_make(m, req, &vplan, perr) != 0) {
        bfmt(err, cap, "%s", perr);
        return PACK_PLAN_USAGE;
    }
    char merr[MANIFEST_ERR_MAX];
    int rc = manifest_jobs_make(m, &vplan, plan, merr);
    if (vplan.notes)
        plan->notes = strdup(vplan.notes);
    variant_plan_free(&vplan);
    if (rc != 0) {
        bfmt(err, cap, "%s", merr);
        return PACK_PLAN_FAILED;
    }
    return 0;
}

/* The program blocks (all, or those named in want) appended to plan. */
static int program_blocks(const char *dir, const program_blocks_list *blocks, const int *want, build_job_list *plan,
                          char *err, size_t cap)
{
    for (size_t b = 0; b < blocks->n; b++) {
        if (want && !(b < MAX_NAMED_BLOCKS && want[b]))
            continue;
        char jerr[DIRECT_JOBS_ERR_MAX];
        int rc = direct_jobs_make(&blocks->blocks[b].spec, plan, jerr);
        if (rc != 0) {
            bfmt(err, cap, "%s/manifest.txt:%d: program %s: %s", dir, blocks->blocks[b].line,
                 blocks->blocks[b].name, jerr);
            return rc == 2 ? PACK_PLAN_USAGE : PACK_PLAN_FAILED;
        }
    }
    return 0;
}

static int from_manifest(const pack_plan_request *r, manifest_file *m, build_job_list *plan,
                         char *err, size_t cap);

static int from_kernels_dir(const pack_plan_request *r, build_job_list *plan, char *err, size_t cap)
{
    /* Large: on the heap. The jobs copy what they take from it. */
    manifest_file *manifest = malloc(sizeof *manifest);
    if (!manifest) {
        bfmt(err, cap, "out of memory");
        return PACK_PLAN_FAILED;
    }
    int rc = from_manifest(r, manifest, plan, err, cap);
    free(manifest);
    return rc;
}

static int from_manifest(const pack_plan_request *r, manifest_file *m, build_job_list *plan,
                         char *err, size_t cap)
{
    char merr[MANIFEST_ERR_MAX];
    if (manifest_load(r->kernels_dir, m, merr) != 0) {
        bfmt(err, cap, "%s", merr);
        return PACK_PLAN_FAILED;
    }
    program_blocks_list blocks;
    char berr[PROGRAM_BLOCKS_ERR_MAX];
    if (program_blocks_load(r->kernels_dir, &blocks, berr) != 0) {
        bfmt(err, cap, "%s", berr);
        return PACK_PLAN_FAILED;
    }
    /* --kernel names kernels of kernel blocks or program blocks. */
    const variant_plan_request *all = r->req;
    variant_plan_request req = *all;
    req.n_kernels = 0;
    int want_block[MAX_NAMED_BLOCKS] = {0};
    for (size_t i = 0; i < all->n_kernels; i++) {
        size_t b = 0;
        while (b < blocks.n && strcmp(blocks.blocks[b].name, all->kernels[i]) != 0)
            b++;
        if (b < blocks.n && b < MAX_NAMED_BLOCKS)
            want_block[b] = 1;
        else
            req.kernels[req.n_kernels++] = all->kernels[i];
    }
    /* The manifest first, whatever blocks it holds: a pack built from
     * program blocks alone depends on it as much as on their sources
     * (--depfile; manifest_jobs_make adds it only for kernel blocks). */
    char path[MANIFEST_PATH_MAX + 16];
    bfmt(path, sizeof path, "%s/manifest.txt", m->dir);
    build_job_list_add_read(plan, path);
    int rc = 0;
    if (m->n_kernels && (all->n_kernels == 0 || req.n_kernels > 0))
        rc = kernel_blocks(m, &req, plan, err, cap);
    if (rc == 0)
        rc = program_blocks(r->kernels_dir, &blocks, all->n_kernels ? want_block : NULL, plan,
                            err, cap);
    program_blocks_free(&blocks);
    return rc;
}

int pack_plan_make(const pack_plan_request *r, build_job_list *plan, int *seed_checks, char *err, size_t cap)
{
    *seed_checks = 0;
    if (r->direct) {
        char jerr[DIRECT_JOBS_ERR_MAX];
        int rc = direct_jobs_make(r->direct_spec, plan, jerr);
        if (rc != 0)
            bfmt(err, cap, "%s", jerr);
        return rc == 0 ? 0 : rc == 2 ? PACK_PLAN_USAGE : PACK_PLAN_FAILED;
    }
    int rc = from_kernels_dir(r, plan, err, cap);
    if (rc == 0)
        *seed_checks = 1;
    return rc;
}
