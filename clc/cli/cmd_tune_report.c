/* cmd_tune_report.c — `clc-pack tune-report PACK [--family F | --kernel
 * NAME]`: from the timings of a pack built with --tune, for each device,
 * family and filter width, the fastest variant, its margin over the second
 * best, and over the seeds' recommended kernel; and a pack's other
 * programs (--tune-cmd) by their own axes (own_timings.h; docs/TUNING.md).
 * Markdown tables. */
#include "commands.h"

#include <stdlib.h>
#include <string.h>

#include "cli_files.h"
#include "cli_opts.h"
#include "cli_report.h"
#include "clcpack_write.h"
#include "entry_filter.h"
#include "own_timings.h"
#include "t4_pack.h"
#include "pack_text.h"

/* The kernel each family's winners are compared with: the seeds'
 * recommendation (Reda's local-memory kernel), or for the grey kernels,
 * which have no local-memory version, AMD's last step (FILTER_WIDTH
 * compiled in). Both at 16x16. */
static const char *baseline_kernel(const char *family)
{
    if (strcmp(family, "conv-rgba") == 0)
        return "reda_local";
    if (strcmp(family, "conv-grey") == 0)
        return "Convolve_Def";
    return NULL;
}

/* The filter width a timing of e is for: its run-time value, or when the
 * timing does not say (0: a format-1 record), e's FILTER_WIDTH define, as
 * clcpack_best_variant takes it with FILTER_WIDTH the run-time define. */
static uint32_t timing_width(const clcpack_entry_info *e, const clcpack_tuning *t)
{
    if (t->runtime_value)
        return t->runtime_value;
    for (size_t k = 0; k < e->define_count; k++)
        if (strcmp(e->defines[k].name, "FILTER_WIDTH") == 0) {
            long v;
            return cli_parse_long(e->defines[k].value, 0, 1000, &v) == 0 ? (uint32_t)v : 0;
        }
    return 0;
}

/* Entry i's timing at filter width fw, if it has one. */
static int timing_at(const clcpack *p, size_t i, const clcpack_entry_info *e, uint32_t fw,
                     clcpack_tuning *out)
{
    size_t n = clcpack_entry_tuning_count(p, i);
    for (size_t k = 0; k < n; k++)
        if (clcpack_get_entry_tuning(p, i, k, out) == CLCPACK_OK && timing_width(e, out) == fw)
            return 1;
    return 0;
}

/* The baseline's median on device d at fw and the winner's problem size. */
static int baseline_ns(const clcpack *p, const char *family, uint32_t d, uint32_t fw,
                       const clcpack_tuning *win, uint64_t *ns)
{
    const char *kernel = baseline_kernel(family);
    if (!kernel)
        return 0;
    for (size_t i = 0; i < clcpack_entry_count(p); i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        clcpack_tuning t;
        if (clcpack_get_entry(p, i, &e) != CLCPACK_OK || e.device != d ||
            strcmp(e.kernel, kernel) != 0 || e.wg[0] != 16 || e.wg[1] != 16 ||
            !timing_at(p, i, &e, fw, &t) || t.width != win->width || t.height != win->height)
            continue;
        *ns = t.median_ns;
        return 1;
    }
    return 0;
}

/* Marks in seen[] the filter widths family is timed at on device d. */
static int widths_timed(const clcpack *p, const char *family, uint32_t d, char seen[1001])
{
    int any = 0;
    memset(seen, 0, 1001);
    for (size_t i = 0; i < clcpack_entry_count(p); i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        const char *f = NULL;
        if (clcpack_get_entry(p, i, &e) != CLCPACK_OK || e.device != d ||
            clcpack_get_entry_family(p, i, &f) != CLCPACK_OK || strcmp(f, family) != 0)
            continue;
        size_t n = clcpack_entry_tuning_count(p, i);
        for (size_t k = 0; k < n; k++) {
            clcpack_tuning t;
            if (clcpack_get_entry_tuning(p, i, k, &t) == CLCPACK_OK &&
                timing_width(&e, &t) <= 1000) {
                seen[timing_width(&e, &t)] = 1;
                any = 1;
            }
        }
    }
    return any;
}

static void variant_label(const clcpack *p, uint32_t entry, char *buf, size_t cap)
{
    clcpack_entry_info e = {.struct_size = sizeof e};
    char wg[48];
    if (clcpack_get_entry(p, entry, &e) != CLCPACK_OK) {
        bfmt(buf, cap, "-");
        return;
    }
    pack_text_wg(e.wg, wg, sizeof wg);
    char kernel[256];
    bfmt(buf, cap, "%s %s", pack_text_esc(e.kernel, kernel, sizeof kernel), wg);
    /* The shape of a kernel with more axes than the width (OUT_X=4,...):
     * every define but the width and the values derived from it. */
    int first = 1;
    for (size_t i = 0; i < e.define_count; i++) {
        const char *n = e.defines[i].name;
        if (strstr(n, "FILTER") || strstr(n, "INPUT_W"))
            continue;
        size_t len = strlen(buf);
        char value[256];
        bfmt(buf + len, cap - len, "%s%s=%s", first ? " " : ",", n,
             pack_text_esc(e.defines[i].value, value, sizeof value));
        first = 0;
    }
}

static int report_family(const clcpack *p, uint32_t d, const clcpack_device_info *dev,
                         const char *family)
{
    char seen[1001];
    if (!widths_timed(p, family, d, seen))
        return 0;
    const char *base = baseline_kernel(family);
    char name[4 * CLCPACK_FP_STR], driver[4 * CLCPACK_FP_STR];
    printf("\n## %s on device %u: %s (driver %s)\n\n", family, (unsigned)d,
           pack_text_esc(dev->device_name, name, sizeof name),
           pack_text_esc(dev->driver_version, driver, sizeof driver));
    printf("| width | fastest | median us | size | second | margin | vs %s 16x16 |\n",
           base ? base : "baseline");
    printf("|---:|---|---:|---|---|---:|---:|\n");
    for (uint32_t fw = 0; fw <= 1000; fw++) {
        if (!seen[fw])
            continue;
        clcpack_choice c = {.struct_size = sizeof c};
        clcpack_error e;
        char value[16];
        bfmt(value, sizeof value, "%u", (unsigned)fw);
        const clcpack_define width = {"FILTER_WIDTH", value};
        if (clcpack_best_variant(p, family, &width, fw ? 1 : 0, "FILTER_WIDTH", dev, &c, &e) !=
                CLCPACK_OK ||
            !c.measured ||
            c.tuned_device != d)
            continue;
        char win[300], second[300] = "-", margin[32] = "-", vs[64] = "-";
        variant_label(p, c.entry, win, sizeof win);
        if (c.runner_up_entry != CLCPACK_NONE) {
            variant_label(p, c.runner_up_entry, second, sizeof second);
            bfmt(margin, sizeof margin, "+%.1f%%",
                 100.0 * ((double)c.runner_up_ns / (double)c.timing.median_ns - 1.0));
        }
        uint64_t bns;
        if (baseline_ns(p, family, d, fw, &c.timing, &bns))
            bfmt(vs, sizeof vs, "%.2fx (%.1f us)", (double)bns / (double)c.timing.median_ns,
                 (double)bns / 1000.0);
        printf("| %u | %s%s | %.1f | %ux%u | %s | %s | %s |\n", (unsigned)fw, win,
               c.value_as_argument ? " (width arg)" : "", (double)c.timing.median_ns / 1000.0,
               (unsigned)c.timing.width, (unsigned)c.timing.height, second, margin, vs);
    }
    return 1;
}

typedef struct tune_report_args {
    const char *family, *kernel, *t4;
} tune_report_args;

static const cli_opt tune_report_opts[] = {
    OPT_STR("family", 0, tune_report_args, family, "F", "only the bundled family F"),
    OPT_STR("kernel", 0, tune_report_args, kernel, "NAME",
            "only the program NAME (or the one holding kernel NAME)"),
    OPT_STR("t4", 0, tune_report_args, t4, "FILE",
            "also write the timings reported as T4 results to FILE"),
    OPT_HELP,
};

const cli_optspec tune_report_optspec = {"tune-report", tune_report_opts, sizeof tune_report_opts / sizeof tune_report_opts[0], 0, 17};

/* What the tables below mean, for the kinds of table the report will
 * have: per filter width for the bundled families, every timed variant
 * for programs of one's own (a pack of one's own programs hears nothing
 * of filter widths or baselines). */
static void print_legend(const clcpack *p, const tune_report_args *a)
{
    int bundled = 0, own = 0;
    for (size_t i = 0; i < clcpack_entry_count(p); i++) {
        const char *family = NULL;
        if (clcpack_get_entry_family(p, i, &family) == CLCPACK_OK && family &&
            own_is_bundled_family(family))
            bundled = 1;
        else
            own = 1;
    }
    if (a->kernel)
        bundled = 0;
    if (a->family)
        own = 0;
    if (bundled)
        printf("\nFastest variant per filter width (median kernel time, OpenCL event profiling);\n"
               "margin: how much slower the second fastest is; vs: the baseline's time over the\n"
               "fastest's (1.00x: the baseline is the fastest).\n");
    if (own)
        printf("\n%s: every timed variant, fastest first per problem\n"
               "size (median kernel time as the timing gave it); vs fastest: how much slower\n"
               "it is than the fastest at that size.\n",
               bundled ? "Other programs (--tune-cmd, clc-pack tune)"
                       : "Programs timed by --tune-cmd or clc-pack tune");
}

/* Every table of pack device d that the options keep: 1 when one was
 * printed, 0 when none, -1 when out of memory. */
static int report_device(const clcpack *p, uint32_t d, const clcpack_device_info *dev,
                         const tune_report_args *a)
{
    int any = 0;
    for (size_t f = 0; f < OWN_N_BUNDLED && !a->kernel; f++)
        if (!a->family || strcmp(a->family, own_bundled_families[f]) == 0)
            any |= report_family(p, d, dev, own_bundled_families[f]);
    if (a->family)
        return any;
    int own = own_report(p, d, dev, a->kernel);
    return own < 0 ? -1 : any | own;
}

/* The entries the report covers, for --t4. */
static int t4_keeps(const clcpack *p, size_t i, const clcpack_entry_info *e, void *ctx)
{
    const tune_report_args *a = ctx;
    const char *family = NULL;
    if (a->kernel)
        return entry_filter_named(e, a->kernel);
    if (a->family)
        return clcpack_get_entry_family(p, i, &family) == CLCPACK_OK && family &&
               strcmp(family, a->family) == 0;
    return 1;
}

static int write_t4(const clcpack *p, const char *path, const tune_report_args *a)
{
    char err[T4_ERR_MAX];
    size_t n = 0;
    if (t4_pack_write(a->t4, p, path, t4_keeps, (void *)a, &n, err) != 0) {
        cli_error("tune-report --t4: %s", err);
        return -1;
    }
    cli_note("wrote %zu timing%s as T4 results to %s", n, n == 1 ? "" : "s", a->t4);
    return 0;
}

int cmd_tune_report(int argc, char **argv)
{
    tune_report_args a = {NULL, NULL, NULL};
    int operand;
    int rc = cli_opts_run(&tune_report_optspec, usage_tune_report, argc, argv, &a, &operand);
    if (rc != CLI_OPTS_GO)
        return rc;
    if (operand != argc - 1)
        return cli_usage_error("tune-report",
                               "tune-report: expected one pack file, got %d arguments",
                               argc - operand);
    if (a.family && a.kernel)
        return cli_usage_error("tune-report", "tune-report: give --family or --kernel, not both");
    if (a.family && !own_is_bundled_family(a.family))
        return cli_usage_error("tune-report",
                               "tune-report: '%s' is not a family of the bundled kernels "
                               "(conv-grey, conv-rgba, poly); for a program or kernel of "
                               "your own give --kernel %s",
                               a.family, a.family);
    const char *path = argv[operand];
    clcpack *p = cli_open_pack(path);
    if (!p)
        return EXIT_FAILURE_STATUS;
    char held[1024], hint[160];
    if (a.kernel && !entry_filter_pack_has(p, a.kernel, held, sizeof held, hint, sizeof hint)) {
        cli_error("%s has no kernel or program '%s'%s (it holds: %s)", path, a.kernel, hint,
                  held[0] ? held : "no entry");
        clcpack_close(p);
        return EXIT_FAILURE_STATUS;
    }
    printf("# Tuning report: %s\n", path);
    print_legend(p, &a);
    int any = 0;
    for (size_t d = 0; d < clcpack_device_count(p) && any >= 0; d++) {
        clcpack_device_info dev = {.struct_size = sizeof dev};
        if (clcpack_get_device(p, d, &dev) != CLCPACK_OK)
            continue;
        int got = report_device(p, (uint32_t)d, &dev, &a);
        any = got < 0 ? -1 : any | got;
    }
    fflush(stdout);
    int t4_failed = any > 0 && a.t4 && write_t4(p, path, &a) != 0;
    clcpack_close(p);
    fflush(stdout);
    if (any < 0) {
        cli_error("%s: out of memory gathering the timings", path);
        return EXIT_FAILURE_STATUS;
    }
    if (!any) {
        const char *only = a.family ? a.family : a.kernel;
        printf("\n(no timings%s%s: pack with --tune, or --tune-cmd for a program of your "
               "own)\n",
               only ? " for " : "", only ? only : "");
        cli_error("%s: no timings to report", path);
        fflush(stdout);
        return EXIT_FAILURE_STATUS;
    }
    return t4_failed ? EXIT_FAILURE_STATUS : EXIT_OK_STATUS;
}
