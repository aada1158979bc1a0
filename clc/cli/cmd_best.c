/* cmd_best.c — `clc-pack best PACK --family F --width N [--device SPEC]`:
 * what an application gets when it asks the pack for the fastest variant
 * of a family at a filter width on a device (clcpack_best_variant with the
 * constraint FILTER_WIDTH=N, FILTER_WIDTH the run-time value), loaded the
 * way the application would load it (clcpack_create_program).
 * `best PACK --kernel NAME [-D NAME=VALUE ...]`: the same question for a
 * program of the user's own (timed with --tune-cmd), the -D its
 * constraints; only a measured answer is one. */
#include "commands.h"

#include <stdlib.h>
#include <string.h>

#include "cli_files.h"
#include "cli_opts.h"
#include "bounded_fmt.h"
#include "cl_error_name.h"
#include "cli_report.h"
#include "clcpack.h"
#include "device_select.h"
#include "entry_filter.h"
#include "own_timings.h"
#include "pack_text.h"

/* Loads the choice on dev as an application would; prints how. */
static int load_choice(const clcpack *p, const clcpack_choice *c, cl_device_id dev)
{
    cl_int rc;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &rc);
    if (!ctx) {
        char cl[CLCPK_CL_ERROR_MAX];
        cli_error("clCreateContext failed with %s", clcpk_cl_error_name(rc, cl, sizeof cl));
        return -1;
    }
    clcpack_key key;
    clcpack_choice_key(c, &key);
    cl_program prog = NULL;
    clcpack_load_report rep = {.struct_size = sizeof rep};
    clcpack_error e;
    clcpack_status st = clcpack_create_program(p, &key, ctx, dev, NULL, &prog, &rep, &e);
    if (st == CLCPACK_OK) {
        printf("  loaded    %s (entry %u)\n", clcpack_path_name(rep.path), (unsigned)rep.entry);
        clReleaseProgram(prog);
    } else {
        cli_error("loading the choice failed: %s", e.message);
    }
    clReleaseContext(ctx);
    return st == CLCPACK_OK ? 0 : -1;
}

typedef struct best_args {
    const char *family, *kernel, *device, *platform;
    long width; /* -1: not given */
    int no_load;
    entry_filter_defines defs;
} best_args;

static const cli_opt best_opts[] = {
    OPT_STR("family", 0, best_args, family, "F", "the bundled family F"),
    OPT_LONG("width", 0, best_args, width, "a filter width", 0, 1000, "N",
             "with --family: the filter width (0 for poly)"),
    OPT_STR("kernel", 0, best_args, kernel, "NAME",
            "instead: a program of your own (or a kernel it holds), timed\n"
            "with --tune-cmd; its fastest measured variant"),
    OPT_CALL_AT(NULL, 'D', best_args, defs, entry_filter_opt_define, "NAME=VALUE",
                "with --kernel: only variants with this define value"),
    OPT_STR("device", 0, best_args, device, "SPEC", "as for pack (default: the default device)"),
    OPT_STR("platform", 0, best_args, platform, "NAME", "only platforms whose name contains NAME"),
    OPT_FLAG("no-load", 0, best_args, no_load, "only choose, do not load"),
    OPT_HELP,
};

const cli_optspec best_optspec = {"best", best_opts, sizeof best_opts / sizeof best_opts[0], 0, 17};

/* The two forms' options do not mix. 0, or the exit status. */
static int check_form(const best_args *a)
{
    if (!a->family && !a->kernel)
        return cli_usage_error("best", "best: give --family F (the bundled kernels: conv-grey, "
                                       "conv-rgba, poly) or --kernel NAME (a program of your own)");
    if (a->family && a->kernel)
        return cli_usage_error("best", "best: give --family or --kernel, not both");
    if (a->family && !own_is_bundled_family(a->family))
        return cli_usage_error("best",
                               "best: '%s' is not a family of the bundled kernels (conv-grey, "
                               "conv-rgba, poly); for a kernel or program of your own give "
                               "--kernel %s [-D NAME=VALUE ...]",
                               a->family, a->family);
    if (a->family && a->defs.n)
        return cli_usage_error("best", "best: -D goes with --kernel; a family takes --width N");
    if (a->kernel && a->width >= 0)
        return cli_usage_error("best", "best: --width is the bundled kernels' filter width; "
                                       "with --kernel give the defines as -D NAME=VALUE");
    return 0;
}

/* "RADIUS=2,T=float", or "any defines" when there is no constraint. */
static void constraints_text(const entry_filter_defines *d, char *buf, size_t cap)
{
    bfmt(buf, cap, "%s", d->n ? "" : "any defines");
    for (size_t i = 0; i < d->n; i++) {
        size_t len = strlen(buf);
        char v[256];
        bfmt(buf + len, cap - len, "%s%s=%s", i ? "," : "", d->defs[i].name,
             pack_text_esc(d->defs[i].value, v, sizeof v));
    }
}

/* --kernel: the fastest measured variant of a.kernel among those with the
 * -D values. 0, or -1 after saying why. */
static int choose_kernel(const clcpack *p, const char *path, const best_args *a,
                         const clcpack_device_info *here, clcpack_choice *c)
{
    char held[1024], hint[160], want[1024];
    clcpack_error e;
    if (!entry_filter_pack_has(p, a->kernel, held, sizeof held, hint, sizeof hint)) {
        cli_error("%s has no kernel or program '%s'%s (it holds: %s)", path, a->kernel, hint,
                  held[0] ? held : "no entry");
        return -1;
    }
    constraints_text(&a->defs, want, sizeof want);
    if (clcpack_best_variant(p, a->kernel, a->defs.defs, a->defs.n, NULL, here, c, &e) !=
        CLCPACK_OK) {
        cli_error("%s: %s", path, e.message);
        return -1;
    }
    if (!c->measured) {
        cli_error("%s: no variant of '%s' with %s was timed, so none is the fastest (pack it "
                  "with --tune-cmd 'CMD', docs/TUNING.md)",
                  path, a->kernel, want);
        return -1;
    }
    return 0;
}

/* --family: the fastest of the family at the filter width, or the default
 * rule's choice. 0, or -1 after saying why. */
static int choose_family(const clcpack *p, const char *path, const best_args *a,
                         const clcpack_device_info *here, clcpack_choice *c)
{
    clcpack_error e;
    char value[16];
    bfmt(value, sizeof value, "%ld", a->width);
    const clcpack_define fw = {"FILTER_WIDTH", value};
    if (clcpack_best_variant(p, a->family, &fw, a->width ? 1 : 0, "FILTER_WIDTH", here, c, &e) !=
        CLCPACK_OK) {
        cli_error("%s: %s", path, e.message);
        return -1;
    }
    return 0;
}

static void print_choice(const clcpack *p, const best_args *a, const clcpack_choice *c,
                         const char *dev_name)
{
    clcpack_entry_info ei = {.struct_size = sizeof ei};
    char defs[512], wg[48], kernel[256];
    clcpack_get_entry(p, c->entry, &ei);
    pack_text_defines(&ei, defs, sizeof defs);
    pack_text_wg(c->wg, wg, sizeof wg);
    if (a->kernel) {
        char want[1024];
        constraints_text(&a->defs, want, sizeof want);
        printf("kernel %s, %s, device %s\n", pack_text_esc(a->kernel, kernel, sizeof kernel), want,
               dev_name);
        if (strcmp(c->kernel, a->kernel) != 0)
            printf("  program   %s\n", pack_text_esc(c->kernel, kernel, sizeof kernel));
    } else {
        printf("family %s, filter width %ld, device %s\n", a->family, a->width, dev_name);
        printf("  kernel    %s\n", pack_text_esc(c->kernel, kernel, sizeof kernel));
    }
    printf("  defines   %s%s\n", defs, c->value_as_argument ? " (filter width as an argument)" : "");
    printf("  wg        %s\n", wg);
    printf("  entry     %u\n", (unsigned)c->entry);
    if (c->measured)
        printf("  median    %llu ns at %ux%u (%u runs)\n", (unsigned long long)c->timing.median_ns,
               (unsigned)c->timing.width, (unsigned)c->timing.height, (unsigned)c->timing.runs);
    else
        printf("  median    - (not measured)\n");
    printf("  rule      %s\n", c->why);
}

/* The choice for the device ba names, on this machine's devices (large:
 * the caller's heap). The exit status. */
static int best_on(const best_args *ba, const char *path, device_select_list *devices);

int cmd_best(int argc, char **argv)
{
    best_args ba;
    memset(&ba, 0, sizeof ba);
    ba.device = "default";
    ba.width = -1;
    int operand;
    int rc = cli_opts_run(&best_optspec, usage_best, argc, argv, &ba, &operand);
    if (rc != CLI_OPTS_GO)
        return rc;
    if (operand != argc - 1)
        return cli_usage_error("best", "best: expected one pack file, got %d arguments",
                               argc - operand);
    if ((rc = check_form(&ba)) != 0)
        return rc;
    if (ba.width < 0)
        ba.width = 0;
    device_select_list *devices = calloc(1, sizeof *devices);
    if (!devices) {
        cli_error("out of memory");
        return EXIT_FAILURE_STATUS;
    }
    rc = best_on(&ba, argv[operand], devices);
    free(devices);
    return rc;
}

static int best_on(const best_args *ba, const char *path, device_select_list *devices)
{
    char derr[DEVICE_SELECT_ERR_MAX];
    size_t sel[DEVICE_SELECT_MAX_DEVICES], n_sel = 0;
    if (device_select_enumerate(devices, derr) != 0 ||
        device_select(devices, ba->device, ba->platform, sel, &n_sel, derr) != 0) {
        cli_error("%s", derr);
        return EXIT_FAILURE_STATUS;
    }
    const device_select_device *dev = &devices->dev[sel[0]];

    clcpack *p = cli_open_pack(path);
    if (!p)
        return EXIT_FAILURE_STATUS;
    clcpack_error e;
    int status = EXIT_FAILURE_STATUS;
    clcpack_device_info here = {.struct_size = sizeof here};
    clcpack_choice choice = {.struct_size = sizeof choice};
    if (clcpack_device_query(dev->device, &here, &e) != CLCPACK_OK) {
        cli_error("%s: %s", path, e.message);
        goto out;
    }
    if ((ba->kernel ? choose_kernel : choose_family)(p, path, ba, &here, &choice) != 0)
        goto out;
    print_choice(p, ba, &choice, dev->name);
    if (!ba->no_load && load_choice(p, &choice, dev->device) != 0)
        goto out;
    status = EXIT_OK_STATUS;
out:
    clcpack_close(p);
    fflush(stdout);
    return status;
}
