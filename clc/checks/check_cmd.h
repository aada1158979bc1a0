/*
 * check_cmd.h — a user's own command run on each variant's binary: its
 * test (clc-pack --check-cmd 'CMD') or its timing (--tune-cmd 'CMD',
 * tune_cmd.h); docs/CLI.md.
 *
 * In CMD, {binary} (the path of a file holding the variant's binary),
 * {defines} ("TS=32,WPT=8,USE_X"), {wg} ("16x16", "64", "" for none),
 * {device} (the device's number as --list-devices shows it) and {kernel}
 * (the entry's program or kernel name) are replaced by those values, each
 * as one shell word (as it is when it holds only letters, digits and
 * _=,.:/+-, else single-quoted); the same values are in the environment as
 * CLCPACK_BINARY, CLCPACK_DEFINES, CLCPACK_WG, CLCPACK_DEVICE and
 * CLCPACK_KERNEL. `{{` and `}}` stand for a brace. CMD runs under /bin/sh
 * in its own process group, with a time limit, in the folder and with the
 * environment a check_cmd_place gives; a non-zero exit fails the variant. Nothing
 * here prints.
 */
#ifndef CLC_CHECK_CMD_H
#define CLC_CHECK_CMD_H

#include <stddef.h>

#define CHECK_CMD_MSG_MAX 1024
#define CHECK_CMD_OUTPUT_MAX (16u << 10) /* the end of the command's output kept */

typedef struct check_cmd_vars {
    const char *binary, *defines, *wg, *device, *kernel;
} check_cmd_vars;

/* Where the command runs. A build worker works in a folder of its own and
 * sets PoCL's variables for its builds (build_worker.h); the user's command
 * is the user's: it runs in the folder clc-pack was started in (relative
 * paths in CMD resolve there), and the variables the worker changed get
 * back the values the user gave them. */
#define CHECK_CMD_MAX_ENV 4
typedef struct check_cmd_place {
    const char *dir;                   /* absolute; NULL or "": the current folder */
    size_t n_env;
    const char *env_name[CHECK_CMD_MAX_ENV];
    const char *env_value[CHECK_CMD_MAX_ENV]; /* NULL: unset in the command */
} check_cmd_place;

/* Checks that cmd's placeholders are known and its braces balanced.
 * 0, or -1 with msg naming the option ("--check-cmd") and the offending
 * placeholder. */
int check_cmd_validate(const char *option, const char *cmd, char msg[CHECK_CMD_MSG_MAX]);

/* Runs cmd for v in where (NULL: here, as it is), at most timeout_s
 * seconds. Returns 0 when it exited 0, 1 when it exited non-zero, died or
 * ran out of time (msg says which, calling the command `what`: "the check
 * command", and the folder it ran in), -1 when it could not be run.
 * *output gets the end of its stdout and stderr (malloc'd, maybe empty;
 * NULL on -1). */
int check_cmd_run(const char *what, const char *cmd, const check_cmd_vars *v, const check_cmd_place *where,
           int timeout_s, char **output, char msg[CHECK_CMD_MSG_MAX]);

#endif /* CLC_CHECK_CMD_H */
