/* cmd_merge.c — `clc-pack merge A.clcpack B.clcpack ... -o ALL.clcpack`:
 * joins packs built on different machines (one per device class, e.g. a
 * CPU host and a GPU host of a CI matrix) into one that the loader serves
 * on any of those devices. Its options and its summary; the merge itself
 * is pack_merge.c. */
#include "commands.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_files.h"
#include "cli_opts.h"
#include "cli_report.h"
#include "pack_merge.h"

static const cli_opt merge_opts[] = {
    OPT_STR("output", 'o', merge_args, output, "FILE",
            "the merged pack (written atomically; may be one of the\n"
            "inputs)"),
    OPT_FLAG("store-cubins", 0, merge_args, store_cubins,
             "store the device's own cubins as they are (by default\n"
             "compressed, except with --codec zlib)"),
    OPT_FLAG("compress-cubins", 0, merge_args, compress_cubins, "compress them with --codec zlib too"),
    OPT_CALL_AT("codec", 0, merge_args, codec, cli_opt_codec, "zlib|zstd",
                "the codecs written (default zstd where clc-pack has\n"
                "it; zlib packs are read by every libclcpack)"),
    OPT_QUIET_CLI("no summary line"),
    OPT_VERBOSE_CLI("more detail"),
    OPT_HELP,
};

const cli_optspec merge_optspec = {"merge", merge_opts, sizeof merge_opts / sizeof merge_opts[0], 0, 19};

static int parse_args(int argc, char **argv, merge_args *x)
{
    memset(x, 0, sizeof *x);
    int operand;
    int rc = cli_opts_run(&merge_optspec, usage_merge, argc, argv, x, &operand);
    if (rc != CLI_OPTS_GO)
        return rc == EXIT_OK_STATUS ? -2 : rc;
    if (argc - operand < 1)
        return cli_usage_error("merge", "merge: expected the pack files to merge");
    if (!x->output || !*x->output)
        return cli_usage_error("merge", "merge: -o FILE is required");
    uint32_t cubins;
    if ((rc = pack_merge_cubin_flags("merge", x->compress_cubins, x->store_cubins, &cubins)) != 0)
        return rc;
    x->inputs = (const char **)(argv + operand);
    x->n_inputs = (size_t)(argc - operand);
    return 0;
}

int cmd_merge(int argc, char **argv)
{
    merge_args x;
    int prc = parse_args(argc, argv, &x);
    if (prc == -2)
        return EXIT_OK_STATUS;
    if (prc != 0)
        return prc;
    int orc = cli_check_output("merge", "-o", x.output, 0);
    if (orc != 0)
        return orc;
    merge_stats st;
    int status = pack_merge_run(&x, &st);
    if (status == EXIT_OK_STATUS && cli_verbosity >= 0)
    {
        fprintf(stderr, "clc-pack: merged %zu pack%s into %s: %zu entr%s (%zu duplicate%s "
                        "dropped",
                x.n_inputs, x.n_inputs == 1 ? "" : "s", x.output, st.entries,
                st.entries == 1 ? "y" : "ies", st.dups, st.dups == 1 ? "" : "s");
        if (st.joined)
            fprintf(stderr, "; %zu record%s of one program joined, with the work-group "
                            "functions of each",
                    st.joined, st.joined == 1 ? "" : "s");
        fputs(")\n", stderr);
    }
    return status;
}
