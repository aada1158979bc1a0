/*
 * tune_cmd.h — the timing a user's own command reports for a variant
 * (clc-pack --tune-cmd 'CMD', docs/CLI.md "Your own timing"). The command
 * runs like --check-cmd (check_cmd.h: the same placeholders, environment,
 * time limit) and prints, among anything else, exactly one line
 *
 *   median_ns=N runs=R size=WxH [value=V]
 *
 * N the median kernel time in nanoseconds, R how many timed runs it is the
 * median of, WxH the problem size it was timed at (Nx1 for one dimension),
 * V the run-time value it is for when the kernel takes one as an argument
 * (docs/TUNING.md; default 0: none). The output is untrusted: only its
 * last CHECK_CMD_OUTPUT_MAX bytes are read, a timing line is at most
 * TUNE_CMD_LINE_MAX bytes, and every field is a plain decimal number within its
 * bounds; anything else is an error that quotes the line. Nothing here
 * prints.
 */
#ifndef CLC_TUNE_CMD_H
#define CLC_TUNE_CMD_H

#include "clcpack.h"

#define TUNE_CMD_MSG_MAX 512
#define TUNE_CMD_LINE_MAX 256
#define TUNE_CMD_MAX_RUNS 1000000u
#define TUNE_CMD_MAX_SIDE 2147483647u

/* Finds and parses the timing line in output (NUL-terminated). 0 with *out
 * filled, or -1 with msg saying what is wrong (no line, two lines, a field
 * missing, unknown or out of bounds), quoting the line. */
int tune_cmd_parse(const char *output, clcpack_tuning *out, char msg[TUNE_CMD_MSG_MAX]);

#endif /* CLC_TUNE_CMD_H */
