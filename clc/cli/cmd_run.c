/* cmd_run.c — `clc-pack run APP.clcpack -- APP ARGS...`: runs an unmodified
 * application with libclcpack-preload.so serving its program builds from
 * the pack (docs/RECORD.md). The exit status is the application's. */
#include "commands.h"

#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bounded_fmt.h"
#include "cli_report.h"
#include "clcpack.h"
#include "preload_launch.h"

int cmd_run(int argc, char **argv)
{
    enum { OPT_LOG = 256 };
    static const struct option longopts[] = {{"log", no_argument, NULL, OPT_LOG},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    int log = 0, c;
    opterr = 0;
    optind = 1;
    /* Options may come before or after PACK; everything after "--" is the
     * application's. */
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_LOG:
            log = 1;
            break;
        case 'h':
            usage_run(stdout);
            return EXIT_OK_STATUS;
        default:
            return cli_usage_error("run", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return cli_usage_error("run", "no pack (clc-pack run PACK -- APP ARGS...)");
    const char *pack = argv[optind++];
    if (optind < argc && strcmp(argv[optind], "--") == 0)
        optind++;
    if (optind >= argc)
        return cli_usage_error("run", "no application to run (-- APP ARGS...)");
    /* A pack that does not open is the user's mistake: say so now rather
     * than let every build pass through. */
    clcpack *p = NULL;
    clcpack_error err;
    if (clcpack_open_file(pack, &p, &err) != CLCPACK_OK) {
        cli_error("%s", err.message);
        return EXIT_FAILURE_STATUS;
    }
    clcpack_close(p);
    char *abs = realpath(pack, NULL);
    if (!abs) {
        cli_error("%s: cannot resolve the path", pack);
        return EXIT_FAILURE_STATUS;
    }
    char msg[PRELOAD_PATH_MAX + 256];
    int status = preload_run(argv + optind, "CLCPACK_PACK", abs, log, msg, sizeof msg);
    free(abs);
    if (status < 0) {
        cli_error("%s", msg);
        return EXIT_FAILURE_STATUS;
    }
    return status;
}
