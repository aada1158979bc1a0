/* seed_hook.c — the seed kernels' reference checks as a check_hook (seed_hook.h). */
#include "seed_hook.h"

#include <string.h>

#include "bounded_fmt.h"
#include "kernel_run.h"
#include "tune_variant.h"

/* The manifest's view of a job: its kernel entry, defines, wg, options. */
static int to_variant(const manifest_file *m, const build_job *job, manifest_variant *v, char *msg,
                      size_t cap)
{
    memset(v, 0, sizeof *v);
    v->kernel = manifest_find(m, job->check);
    if (!v->kernel) {
        bfmt(msg, cap, "no kernel '%s' in the kernels folder's manifest", job->check);
        return -1;
    }
    if (job->n_defines > MANIFEST_MAX_DEFINES) {
        bfmt(msg, cap, "%zu defines, the reference checks take %d", job->n_defines,
             MANIFEST_MAX_DEFINES);
        return -1;
    }
    for (size_t i = 0; i < job->n_defines; i++) {
        if (strlen(job->defines[i].name) >= sizeof v->define_names[i] ||
            strlen(job->defines[i].value) >= sizeof v->define_values[i]) {
            bfmt(msg, cap, "define %s is too long for the reference checks",
                 job->defines[i].name);
            return -1;
        }
        bfmt(v->define_names[i], sizeof v->define_names[i], "%s", job->defines[i].name);
        bfmt(v->define_values[i], sizeof v->define_values[i], "%s", job->defines[i].value);
    }
    v->n_defines = job->n_defines;
    memcpy(v->wg, job->wg, sizeof v->wg);
    bfmt(v->options, sizeof v->options, "%s", job->options);
    return 0;
}

static int seed_check(void *self, cl_context ctx, cl_command_queue q, cl_program prog,
                      const build_job *job, int compare, double tol, char msg[CH_MSG_MAX])
{
    const manifest_file *m = self;
    manifest_variant v;
    if (to_variant(m, job, &v, msg, CH_MSG_MAX) != 0)
        return -1;
    kernel_run_problem p;
    kernel_run_default_problem(&v, 20240531u, &p);
    char err[KERNEL_RUN_ERR_MAX];
    if (!compare) {
        if (kernel_run_run_once(ctx, q, prog, &v, &p, NULL, err) != 0) {
            bfmt(msg, CH_MSG_MAX, "warm-up run: %s", err);
            return -1;
        }
        return 0;
    }
    kernel_run_result res;
    int c = kernel_run_check(ctx, q, prog, &v, &p, tol, &res, err);
    if (c < 0) {
        bfmt(msg, CH_MSG_MAX, "check run: %s", err);
        return -1;
    }
    if (c > 0) {
        bfmt(msg, CH_MSG_MAX,
             "wrong output on a %dx%d problem (n=%zu): max relative error %.3g "
             "(tolerance %.3g), first bad element %zu, %zu left unwritten",
             p.width, p.height, p.n, res.max_rel_err, tol, res.bad_index, res.unwritten);
        return 1;
    }
    return 0;
}

static int seed_tune(void *self, cl_context ctx, cl_command_queue q, cl_program prog,
                     const build_job *job, const tune_options *o, clcpack_tuning *out, size_t *n,
                     char note[TUNE_OPTIONS_NOTE_MAX])
{
    const manifest_file *m = self;
    manifest_variant v;
    *n = 0;
    if (to_variant(m, job, &v, note, TUNE_OPTIONS_NOTE_MAX) != 0)
        return -1;
    return tune_variant_measure(ctx, q, prog, &v, o, out, n, note);
}

void seed_hook_init(check_hook *h, const manifest_file *m)
{
    h->self = (void *)m;
    h->check = seed_check;
    h->tune = seed_tune;
}
