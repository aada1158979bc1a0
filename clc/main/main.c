/*
 * main.c — clc-pack's entry point and composition root: installs the
 * bundled kernels' module (clc/seeds/: the manifest's source generators,
 * the workers' check hook), then picks the subcommand from the command
 * table (commands.h).
 * `clc-pack [pack] [options]` builds a pack (packing is the default when the
 * first argument is an option or there is none); list, verify, extract,
 * embed, merge and retarget read packs; warm fills the rebuild cache;
 * --worker is the internal build worker (worker_main.h), --pocl-wg-fill its
 * PoCL helper (the same), --load-worker the load worker (the same; clc/worker/load_worker.h).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli_report.h"
#include "commands.h"
#include "kernelgen.h"
#include "source_gen.h"
#include "tune_worker.h"
#include "worker_main.h"

int main(int argc, char **argv)
{
    cli_argv0 = argc > 0 ? argv[0] : "clc-pack";
    source_gen_install(&kernelgen_generator);
    if (argc < 2 || argv[1][0] == '-') {
        if (argc >= 2 && strcmp(argv[1], "--worker") == 0)
            return worker_main(argc, argv);
        if (argc >= 2 && strcmp(argv[1], "--tune-worker") == 0)
            return tune_worker_main(argc, argv);
        if (argc >= 2 && strcmp(argv[1], "--load-worker") == 0)
            return worker_main_load(argc, argv);
        if (argc >= 2 && strcmp(argv[1], "--pocl-wg-fill") == 0)
            return worker_main_pocl_fill(argc, argv);
        return cmd_pack(argc, argv);
    }
    const char *cmd = argv[1];
    const clc_command *c = clc_command_named(cmd);
    if (c)
        return c->run(argc - 1, argv + 1);
    /* A source file first: packing your own kernels. */
    if (strchr(cmd, '.') || strchr(cmd, '/') || access(cmd, F_OK) == 0)
        return cmd_pack(argc, argv);
    if (strcmp(cmd, "help") == 0) {
        /* `clc-pack help CMD` is `clc-pack CMD --help`. */
        if (argc > 3)
            return cli_usage_error(NULL, "help: expected at most one command, got %d", argc - 2);
        if (argc == 3 && strcmp(argv[2], "help") != 0 && argv[2][0] != '-') {
            char *hargv[] = {argv[0], argv[2], (char *)"--help", NULL};
            return main(3, hargv);
        }
        usage_pack(stdout);
        return EXIT_OK_STATUS;
    }
    char names[256];
    clc_command_names(names, sizeof names);
    return cli_usage_error(NULL, "unknown command '%s' (commands: %s)", cmd, names);
}
