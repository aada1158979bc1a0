/* cmd_retarget.c — `clc-pack retarget PACK --nv-arch LIST -o OUT`: for an
 * existing pack, on any machine with ptxas (no GPU needed), what `clc-pack
 * --nv-arch` does while building (docs/vendors/NVIDIA.md): every PTX entry is
 * stored in its most portable form and gets a cubin for each listed
 * architecture (and for its device's own). Its options; the work is
 * pack_retarget_file (pack_retarget.c). */
#include "commands.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_opts.h"
#include "cli_report.h"
#include "nv_arch_list.h"
#include "clcpack_write.h"
#include "nv_forms.h"
#include "pack_merge.h"
#include "pack_text.h"
#include "ptxas_run.h"


typedef struct retarget_args {
    const char *input, *output, *ptxas;
    nv_forms_archs archs;
    int compress_cubins;
    int store_cubins;
    uint32_t cubin_flags; /* of the two above */
    clcpack_compression codec;
    long jobs;
} retarget_args;


/* --nv-arch LIST: the architectures to make cubins for. */
static int opt_nv_arch(void *args, cli_optctx *c)
{
    retarget_args *x = args;
    char err[NV_FORMS_ERR_MAX];
    if (nv_arch_list_parse(c->arg, &x->archs, err) != 0)
        return cli_opt_fail(c, 1, "%s", err);
    return 0;
}

static const cli_opt retarget_opts[] = {
    OPT_CALL("nv-arch", 0, opt_nv_arch, "LIST", "sm numbers (default 75,80,86,89,90,100,120)"),
    OPT_STR("ptxas", 0, retarget_args, ptxas, "PATH",
            "ptxas to use (default: PATH, then /usr/local/cuda/bin)"),
    OPT_STR("output", 'o', retarget_args, output, "FILE",
            "the new pack (written atomically; may be PACK itself)"),
    OPT_LONG("jobs", 'j', retarget_args, jobs, "a number of jobs", 1, PACK_RETARGET_MAX_JOBS, "N",
             "ptxas runs for N entries at a time (default: the cores)"),
    OPT_FLAG("store-cubins", 0, retarget_args, store_cubins,
             "store the cubins for each device's own architecture as\n"
             "they are (by default compressed, except with --codec zlib)"),
    OPT_FLAG("compress-cubins", 0, retarget_args, compress_cubins,
             "compress them with --codec zlib too"),
    OPT_CALL_AT("codec", 0, retarget_args, codec, cli_opt_codec, "zlib|zstd",
                "the codecs written (default zstd where clc-pack has\n"
                "it; zlib packs are read by every libclcpack)"),
    OPT_QUIET_CLI("no notes, no summary line"),
    OPT_VERBOSE_CLI("more detail"),
    OPT_HELP,
};

const cli_optspec retarget_optspec = {"retarget", retarget_opts, sizeof retarget_opts / sizeof retarget_opts[0], 0, 19};

static int parse_args(int argc, char **argv, retarget_args *x)
{
    enum { OPT_NV_ARCH = 256, OPT_PTXAS, OPT_COMPRESS_CUBINS, OPT_CODEC };
    memset(x, 0, sizeof *x);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    x->jobs = cores > 0 ? (cores > PACK_RETARGET_MAX_JOBS ? PACK_RETARGET_MAX_JOBS : cores) : 1;
    char err[NV_FORMS_ERR_MAX];
    nv_arch_list_parse(NV_FORMS_DEFAULT_ARCHS, &x->archs, err);
    int operand;
    int rc = cli_opts_run(&retarget_optspec, usage_retarget, argc, argv, x, &operand);
    if (rc != CLI_OPTS_GO)
        return rc == EXIT_OK_STATUS ? -2 : rc;
    if (argc - operand != 1)
        return cli_usage_error("retarget", argc - operand < 1
                                               ? "retarget: expected the pack file to retarget"
                                               : "retarget: expected one pack file, got %d",
                               argc - operand);
    if (!x->output || !*x->output)
        return cli_usage_error("retarget", "retarget: -o FILE is required");
    if ((rc = pack_merge_cubin_flags("retarget", x->compress_cubins, x->store_cubins,
                                &x->cubin_flags)) != 0)
        return rc;
    x->input = argv[operand];
    return 0;
}

int cmd_retarget(int argc, char **argv)
{
    retarget_args x;
    int prc = parse_args(argc, argv, &x);
    if (prc == -2)
        return EXIT_OK_STATUS;
    if (prc != 0)
        return prc;
    char ptxas[PTXAS_PATH_MAX];
    if (ptxas_find(x.ptxas, ptxas) != 0) {
        if (x.ptxas)
            return cli_usage_error("retarget", "retarget: %s", ptxas);
        cli_error("retarget: cubins need NVIDIA's ptxas: %s; --ptxas PATH names one", ptxas);
        return EXIT_FAILURE_STATUS;
    }
    return pack_retarget_file(x.input, x.output, &x.archs, ptxas, x.cubin_flags, x.codec, x.jobs);
}
