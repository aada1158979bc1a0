/* tune_variant.c — timing a built variant for --tune (tune_variant.h). */
#include "tune_variant.h"

#include <stdlib.h>
#include <string.h>

#include "bounded_fmt.h"
#include "kernel_run.h"

/* Times v on the problem of one filter width (0: the variant's own, or no
 * filter at all). 0, or -1 with note. */
static int time_one(cl_context ctx, cl_command_queue q, cl_program prog, const manifest_variant *v,
                    const tune_options *o, uint32_t fw, clcpack_tuning *t, char note[TUNE_OPTIONS_NOTE_MAX])
{
    kernel_run_problem p;
    /* Random data of a fixed seed: every variant sees the same inputs. */
    kernel_run_default_problem(v, 20240601u, &p);
    if (v->kernel->family == MANIFEST_FAMILY_POLY) {
        p.n = (size_t)o->width * o->height;
    } else {
        p.width = (int)o->width;
        p.height = (int)o->height;
        const char *image_w = manifest_variant_define(v, "IMAGE_W");
        if (image_w)
            p.width = atoi(image_w); /* compiled in: the only width it runs */
        if (fw)
            p.filter_width = (int)fw;
    }
    char err[KERNEL_RUN_ERR_MAX];
    if (kernel_run_supports(v, &p, err) != 0) {
        bfmt(note, TUNE_OPTIONS_NOTE_MAX, "not timed: %s", err);
        return -1;
    }
    uint64_t median = 0;
    if (kernel_run_time(ctx, q, prog, v, &p, o->warmup, o->runs, o->device_key, &median, err) != 0) {
        bfmt(note, TUNE_OPTIONS_NOTE_MAX, "timing failed: %s", err);
        return -1;
    }
    const char *def = manifest_variant_define(v, "FILTER_WIDTH");
    t->runtime_value = v->kernel->family == MANIFEST_FAMILY_POLY ? 0
                      : def                               ? (uint32_t)atoi(def)
                                                          : (uint32_t)p.filter_width;
    t->width = v->kernel->family == MANIFEST_FAMILY_POLY ? o->width : (uint32_t)p.width;
    t->height = o->height;
    t->runs = (uint32_t)o->runs;
    t->median_ns = median ? median : 1; /* 0 would read as "not measured" */
    return 0;
}

int tune_variant_measure(cl_context ctx, cl_command_queue q, cl_program prog, const manifest_variant *v,
               const tune_options *o, clcpack_tuning *out, size_t *n, char note[TUNE_OPTIONS_NOTE_MAX])
{
    *n = 0;
    note[0] = '\0';
    int width_argument = v->kernel->family != MANIFEST_FAMILY_POLY &&
                         !manifest_variant_define(v, "FILTER_WIDTH");
    if (!width_argument) {
        if (time_one(ctx, q, prog, v, o, 0, &out[0], note) != 0)
            return -1;
        *n = 1;
        return 0;
    }
    /* A width that cannot be timed costs only that width. */
    int rc = 0;
    for (size_t i = 0; i < o->n_widths && i < TUNE_OPTIONS_MAX_WIDTHS; i++) {
        char why[TUNE_OPTIONS_NOTE_MAX];
        if (time_one(ctx, q, prog, v, o, o->widths[i], &out[*n], why) == 0)
            (*n)++;
        else if (rc == 0) {
            bfmt(note, TUNE_OPTIONS_NOTE_MAX, "filter width %u %s", (unsigned)o->widths[i], why);
            rc = -1;
        }
    }
    return rc;
}
