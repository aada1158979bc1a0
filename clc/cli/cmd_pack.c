/* cmd_pack.c — `clc-pack [pack]`: the direct mode (source files as
 * arguments) and the kernels folder's manifest, both packed by the pack
 * run (pack_run.c). A bare `clc-pack` where there is no kernels folder is
 * a newcomer's first try: it is answered with how to start rather than a
 * missing manifest. */
#include "commands.h"

#include <stdio.h>
#include <unistd.h>

#include "cli_report.h"
#include "pack_run.h"

int cmd_pack(int argc, char **argv)
{
    if (argc <= 1 && access("kernels/manifest.txt", F_OK) != 0) {
        usage_short(stderr);
        return EXIT_USAGE_STATUS;
    }
    static const pack_run_texts texts = {usage_pack, print_version};
    return pack_run_args(argc, argv, &texts);
}
