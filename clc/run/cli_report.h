/*
 * cli_report.h — how clc-pack talks to its user: exit statuses, and
 * diagnostics on stderr prefixed "clc-pack: ". Only the CLI prints; the
 * library and the build code report through return values and messages.
 */
#ifndef CLC_CLI_REPORT_H
#define CLC_CLI_REPORT_H

#include "bounded_fmt.h"

/* Exit statuses (docs/CLI.md). */
enum {
    EXIT_OK_STATUS = 0,      /* everything asked for was done */
    EXIT_FAILURE_STATUS = 1, /* a build failed, a check failed, a pack is bad, I/O failed */
    EXIT_USAGE_STATUS = 2    /* a bad option, list or value: nothing was done */
};

/* -q is -1, default 0, each -v adds 1. */
extern int cli_verbosity;
/* Non-zero: every diagnostic below is dropped, errors too. For a step
 * run ahead whose messages the real run gives again (pack_run_standby_start). */
extern int cli_muted;
/* main's argv[0], for re-executing the tool as a worker. */
extern const char *cli_argv0;
/* The executable worker processes run: NULL (the default) for this program
 * itself. A test that runs a subcommand in its own process sets the built
 * clc-pack here, or the workers would be copies of the test. */
extern const char *cli_worker_exe;

/* The path of the executable to start workers from (cli_worker_exe, else
 * this program). 0, or -1. */
int cli_worker_path(char *out, size_t cap);

/* "clc-pack: <message>\n" on stderr. */
void cli_error(const char *fmt, ...) BFMT_PRINTF(1, 2);
/* "clc-pack: <message>\nTry 'clc-pack <cmd> --help'.\n"; returns EXIT_USAGE_STATUS. */
int cli_usage_error(const char *cmd, const char *fmt, ...) BFMT_PRINTF(2, 3);
/* "clc-pack: note: <message>" unless -q. */
void cli_note(const char *fmt, ...) BFMT_PRINTF(1, 2);

/* Parses a whole decimal number in [lo, hi]; 0 or -1. */
int cli_parse_long(const char *s, long lo, long hi, long *out);

#endif /* CLC_CLI_REPORT_H */
