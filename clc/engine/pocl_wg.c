/* pocl_wg.c — PoCL's work-group functions of a variant's local size
 * (pocl_wg.h). */
#include "pocl_wg.h"

#include <stdlib.h>
#include <string.h>

#include "bounded_fmt.h"
#include "pocl_binary.h"
#include "strbuf.h"
#include "tool_run.h"

char *pocl_wg_spec_sizes(const uint32_t (*sizes)[3], size_t n, pocl_wg_grid grid)
{
    /* One of each offset class: PoCL compiles both of a grid class. */
    const clcpk_pocl_form forms[2][2] = {{CLCPK_POCL_GOFFS0_SMALLGRID, CLCPK_POCL_SMALLGRID},
                                         {CLCPK_POCL_GOFFS0, CLCPK_POCL_ANY}};
    strbuf b;
    sb_init(&b);
    for (size_t i = 0; i < n; i++) {
        const uint32_t *wg = sizes[i];
        if (!wg[0])
            continue;
        size_t k = 0;
        while (k < i && memcmp(sizes[k], wg, sizeof sizes[k]) != 0)
            k++;
        if (k < i)
            continue; /* this local size is in already */
        unsigned x = wg[0], y = wg[1] ? wg[1] : 1, z = wg[2] ? wg[2] : 1;
        for (int f = 0; f < 2; f++)
            sb_printf(&b, "%s%u-%u-%u%s", b.len ? "," : "", x, y, z,
                      clcpk_pocl_form_suffix(forms[grid][f]));
    }
    sb_put(&b, "", 1);
    if (b.failed || b.len == 1) {
        sb_free(&b);
        return NULL;
    }
    return (char *)b.data;
}

unsigned pocl_wg_forms(int small_grids)
{
    return small_grids ? 1u << CLCPK_POCL_GOFFS0_SMALLGRID | 1u << CLCPK_POCL_SMALLGRID
                       : CLCPK_POCL_ALL_FORMS;
}

char *pocl_wg_spec_jobs(const build_job *jobs, size_t n)
{
    const uint32_t *one = NULL;
    for (size_t i = 0; i < n; i++) {
        if (!jobs[i].wg[0])
            continue;
        if (one && memcmp(one, jobs[i].wg, sizeof jobs[i].wg) != 0)
            return NULL; /* each size in every program: the helper does better */
        one = jobs[i].wg;
    }
    return one ? pocl_wg_spec_sizes((const uint32_t(*)[3])one, 1, POCL_WG_SMALL) : NULL;
}

int pocl_wg_fill(const char *exe, const char *slot, const build_job *job, pocl_wg_grid grid,
                 char err[POCL_WG_ERR_MAX])
{
    if (!job->wg[0])
        return 0;
    char *spec = pocl_wg_spec_sizes((const uint32_t(*)[3]) & job->wg, 1, grid);
    char dir[TOOL_PATH_MAX], src[TOOL_PATH_MAX + 32], opts[TOOL_PATH_MAX + 32],
        log[TOOL_PATH_MAX + 32];
    if (!spec) {
        bfmt(err, POCL_WG_ERR_MAX, "out of memory");
        return -1;
    }
    if (tool_temp_dir("pocl-wg", dir, err, POCL_WG_ERR_MAX) != 0) {
        free(spec);
        return -1;
    }
    bfmt(src, sizeof src, "%s/" POCL_WG_SOURCE_FILE, dir);
    bfmt(opts, sizeof opts, "%s/" POCL_WG_OPTIONS_FILE, dir);
    bfmt(log, sizeof log, "%s/log", dir);
    int rc = -1;
    if (tool_write_file(src, job->source, job->source_size) != 0 ||
        tool_write_file(opts, job->options, strlen(job->options)) != 0) {
        bfmt(err, POCL_WG_ERR_MAX, "cannot write the helper's files in %s", dir);
    } else {
        char *argv[] = {(char *)exe, "--pocl-wg-fill", "--device", (char *)slot, "--spec", spec,
                        "--dir", dir, NULL};
        rc = tool_run(argv, NULL, log, err, POCL_WG_ERR_MAX);
    }
    tool_remove_dir(dir);
    free(spec);
    return rc;
}

int pocl_wg_fill_here(cl_device_id dev, const char *source, size_t size, const char *options,
                      char err[POCL_WG_ERR_MAX])
{
    cl_int rc;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &rc);
    if (!ctx) {
        bfmt(err, POCL_WG_ERR_MAX, "clCreateContext failed (%d)", (int)rc);
        return -1;
    }
    cl_program prog = clCreateProgramWithSource(ctx, 1, &source, &size, &rc);
    const char *what = "clCreateProgramWithSource";
    if (prog) {
        what = "clBuildProgram";
        rc = clBuildProgram(prog, 1, &dev, options, NULL, NULL);
    }
    size_t bytes = 0;
    if (prog && rc == CL_SUCCESS) {
        /* The query that makes PoCL compile what the variable names. */
        what = "clGetProgramInfo(CL_PROGRAM_BINARY_SIZES)";
        rc = clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof bytes, &bytes, NULL);
    }
    if (prog)
        clReleaseProgram(prog);
    clReleaseContext(ctx);
    if (rc != CL_SUCCESS || !prog) {
        bfmt(err, POCL_WG_ERR_MAX, "%s failed (%d)", what, (int)rc);
        return -1;
    }
    return 0;
}
