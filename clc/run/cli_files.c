/* cli_files.c — input packs and output files of the subcommands (cli_files.h). */
#include "cli_files.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_report.h"
#include "file_atomic.h"
#include "input_file.h"
#include "fd_io.h"

clcpack *cli_open_pack(const char *path)
{
    char why[1024];
    if (in_check(path, why, sizeof why) != 0) {
        cli_error("%s", why);
        return NULL;
    }
    clcpack *p = NULL;
    clcpack_error e;
    if (clcpack_open_file(path, &p, &e) != CLCPACK_OK) {
        /* The library's message names the file already. */
        cli_error("%s", e.message);
        return NULL;
    }
    return p;
}

int cli_check_output(const char *cmd, const char *opt, const char *path, int allow_stdout)
{
    if (strcmp(path, "-") == 0) {
        if (allow_stdout)
            return 0;
        return cli_usage_error(cmd, "%s%s%s -: this output cannot go to stdout (for a file "
                               "named '-', give ./-)",
                               cmd ? cmd : "", cmd ? ": " : "", opt);
    }
    clcpack_error e;
    if (clcpk_check_output_path(path, &e) != CLCPACK_OK) {
        /* Someone who gave /dev/stdout or a terminal wanted stdout. */
        struct stat st;
        int special = allow_stdout && lstat(path, &st) == 0 && !S_ISREG(st.st_mode) &&
                      !S_ISDIR(st.st_mode);
        cli_error("%s%s%s: %s%s", cmd ? cmd : "", cmd ? ": " : "", opt, e.message,
                  special ? " (-o - writes to stdout)" : "");
        return EXIT_FAILURE_STATUS;
    }
    return 0;
}

int cli_write_output(const char *path, const void *data, size_t size)
{
    if (strcmp(path, "-") == 0) {
        if (clcpk_fd_write_all(1, data, size) != 0) {
            cli_error("writing to stdout failed: %s", strerror(errno));
            return -1;
        }
        return 0;
    }
    clcpack_error e;
    if (clcpk_write_file_atomic(path, data, size, &e) != CLCPACK_OK) {
        cli_error("%s", e.message);
        return -1;
    }
    return 0;
}
