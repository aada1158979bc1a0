/* cmd_best.c — `clc-pack best PACK --family F --width N [--device SPEC]`:
 * what an application gets when it asks the pack for the fastest variant
 * of a family at a filter width on a device (clcpack_best_variant with the
 * constraint FILTER_WIDTH=N, FILTER_WIDTH the run-time value), loaded the
 * way the application would load it (clcpack_create_program). */
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
    static clcpack_load_report rep = {.struct_size = sizeof rep};
    rep.struct_size = sizeof rep;
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
    const char *family, *device, *platform;
    long width;
    int no_load;
} best_args;

static const cli_opt best_opts[] = {
    OPT_STR("family", 0, best_args, family),
    OPT_LONG("width", 0, best_args, width, "a filter width", 0, 1000),
    OPT_STR("device", 0, best_args, device),
    OPT_STR("platform", 0, best_args, platform),
    OPT_FLAG("no-load", 0, best_args, no_load),
    OPT_HELP,
};

int cmd_best(int argc, char **argv)
{
    static const cli_optspec ospec = {"best", best_opts, sizeof best_opts / sizeof best_opts[0], 0};
    best_args ba = {NULL, "default", NULL, 0, 0};
    int operand;
    int rc = cli_opts_run(&ospec, usage_best, argc, argv, &ba, &operand);
    if (rc != CLI_OPTS_GO)
        return rc;
    const char *family = ba.family, *spec = ba.device, *platform = ba.platform;
    long width = ba.width;
    int load = !ba.no_load;
    if (operand != argc - 1)
        return cli_usage_error("best", "best: expected one pack file, got %d arguments",
                               argc - operand);
    if (!family)
        return cli_usage_error("best", "best: --family is required (conv-grey, conv-rgba, poly)");
    const char *path = argv[operand];

    static ds_list devices;
    char derr[DS_ERR_MAX];
    size_t sel[DS_MAX_DEVICES], n_sel = 0;
    if (ds_enumerate(&devices, derr) != 0 ||
        ds_select(&devices, spec, platform, sel, &n_sel, derr) != 0) {
        cli_error("%s", derr);
        return EXIT_FAILURE_STATUS;
    }
    const ds_device *dev = &devices.dev[sel[0]];

    clcpack *p = cli_open_pack(path);
    if (!p)
        return EXIT_FAILURE_STATUS;
    clcpack_error e;
    int status = EXIT_FAILURE_STATUS;
    static clcpack_device_info here = {.struct_size = sizeof here};
    here.struct_size = sizeof here;
    clcpack_choice choice = {.struct_size = sizeof choice};
    char value[16];
    bfmt(value, sizeof value, "%ld", width);
    const clcpack_define fw = {"FILTER_WIDTH", value};
    if (clcpack_device_query(dev->device, &here, &e) != CLCPACK_OK ||
        clcpack_best_variant(p, family, &fw, width ? 1 : 0, "FILTER_WIDTH", &here, &choice, &e) !=
            CLCPACK_OK) {
        cli_error("%s: %s", path, e.message);
        goto out;
    }
    clcpack_entry_info ei = {.struct_size = sizeof ei};
    char defs[512], wg[48], kernel[256];
    clcpack_get_entry(p, choice.entry, &ei);
    pt_defines(&ei, defs, sizeof defs);
    pt_wg(choice.wg, wg, sizeof wg);
    printf("family %s, filter width %ld, device %s\n", family, width, dev->name);
    printf("  kernel    %s\n", pt_esc(choice.kernel, kernel, sizeof kernel));
    printf("  defines   %s%s\n", defs, choice.value_as_argument ? " (filter width as an argument)"
                                                             : "");
    printf("  wg        %s\n", wg);
    printf("  entry     %u\n", (unsigned)choice.entry);
    if (choice.measured)
        printf("  median    %llu ns at %ux%u (%u runs)\n",
               (unsigned long long)choice.timing.median_ns, (unsigned)choice.timing.width,
               (unsigned)choice.timing.height, (unsigned)choice.timing.runs);
    else
        printf("  median    - (not measured)\n");
    printf("  rule      %s\n", choice.why);
    if (load && load_choice(p, &choice, dev->device) != 0)
        goto out;
    status = EXIT_OK_STATUS;
out:
    clcpack_close(p);
    fflush(stdout);
    return status;
}
