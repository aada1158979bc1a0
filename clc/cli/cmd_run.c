/* cmd_run.c — `clc-pack run APP.clcpack -- APP ARGS...`: runs an unmodified
 * application with libclcpack-preload.so serving its program builds from
 * the pack (docs/RECORD.md). The exit status is the application's. A pack
 * that does not open never keeps the application from starting (every
 * build then goes to the driver) unless --strict asks for the refusal. */
#include "commands.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bounded_fmt.h"
#include "cli_opts.h"
#include "cli_report.h"
#include "clcpack.h"
#include "preload_launch.h"

/* The exit status when the application cannot be started (as env(1)). */
#define EXIT_NOT_FOUND 127
#define EXIT_NOT_EXECUTABLE 126

/* PACK as an absolute path, whether or not it exists (the interposer
 * opens it from the application's working folder). */
static int absolute_pack(const char *pack, char out[PRELOAD_PATH_MAX])
{
    char *abs = realpath(pack, NULL);
    if (abs) {
        bfmt(out, PRELOAD_PATH_MAX, "%s", abs);
        free(abs);
        return 0;
    }
    if (pack[0] == '/') {
        bfmt(out, PRELOAD_PATH_MAX, "%s", pack);
        return 0;
    }
    char cwd[PRELOAD_PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return -1;
    bfmt(out, PRELOAD_PATH_MAX, "%s/%s", cwd, pack);
    return 0;
}

typedef struct run_args {
    int log, strict;
} run_args;

static const cli_opt run_opts[] = {
    OPT_FLAG("log", 0, run_args, log,
             "CLCPACK_LOG=1: one line per program build on stderr (served\n"
             "from the pack, or passed through and why), and a note when\n"
             "no OpenCL call was seen at all, with the likely cause"),
    OPT_FLAG("strict", 0, run_args, strict, "refuse to start APP when PACK does not open (exit 1)"),
    OPT_HELP,
};

const cli_optspec run_optspec = {"run", run_opts, sizeof run_opts / sizeof run_opts[0], 0, 14};

int cmd_run(int argc, char **argv)
{
    /* Options may come before or after PACK; everything after "--" is the
     * application's. */
    run_args ra = {0, 0};
    int operand;
    int rc = cli_opts_run(&run_optspec, usage_run, argc, argv, &ra, &operand);
    if (rc != CLI_OPTS_GO)
        return rc;
    int log = ra.log, strict = ra.strict;
    if (operand >= argc)
        return cli_usage_error("run", "run: expected one pack file (clc-pack run PACK -- APP ARGS...)");
    const char *pack = argv[operand++];
    if (operand < argc && strcmp(argv[operand], "--") == 0)
        operand++;
    if (operand >= argc)
        return cli_usage_error("run", "run: expected the application after the pack (-- APP ARGS...)");
    char **app = argv + operand;
    char msg[PRELOAD_PATH_MAX + 256], lib[PRELOAD_PATH_MAX];
    int not_startable = preload_check_app(app[0], msg, sizeof msg);
    if (not_startable) {
        cli_error("%s", msg);
        return not_startable;
    }
    if (preload_find(lib, msg, sizeof msg) != 0) {
        cli_error("%s", msg);
        return EXIT_FAILURE_STATUS;
    }
    clcpack *p = NULL;
    clcpack_error err;
    if (clcpack_open_file(pack, &p, &err) != CLCPACK_OK) {
        if (strict) {
            cli_error("%s", err.message);
            return EXIT_FAILURE_STATUS;
        }
        /* A launcher with a damaged pack still starts the application; the
         * interposer passes every build to the driver. */
        cli_error("%s; running %s with every program build passed to the driver "
                 "(--strict refuses instead)",
                 err.message, app[0]);
    }
    clcpack_close(p);
    char abs[PRELOAD_PATH_MAX];
    if (absolute_pack(pack, abs) != 0) {
        cli_error("%s: cannot resolve the path", pack);
        return EXIT_FAILURE_STATUS;
    }
    /* A private folder: the forwarding loader's links and, with --log, the
     * process files that say what the interposer saw. */
    char tmp[PRELOAD_PATH_MAX], shim[PRELOAD_PATH_MAX + 16];
    const char *tmpdir = getenv("TMPDIR");
    bfmt(tmp, sizeof tmp, "%s/clcpack-run-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    int have_tmp = mkdtemp(tmp) != NULL;
    bfmt(shim, sizeof shim, "%s/lib/", tmp);
    preload_opts o = {"CLCPACK_PACK", abs, log, log && have_tmp ? tmp : NULL,
                      have_tmp ? tmp : NULL, NULL};
    int status = preload_run(app, &o, msg, sizeof msg);
    if (status < 0) {
        cli_error("%s", msg);
        status = EXIT_FAILURE_STATUS;
    } else if (log && have_tmp) {
        char why[2048];
        if (preload_no_call_reason(tmp, shim, app[0], why, sizeof why) == 0)
            cli_note("%s", why);
    }
    if (have_tmp)
        preload_remove_tree(tmp);
    return status;
}
