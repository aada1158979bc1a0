/*
 * cli_files.h — the files a subcommand reads and writes, each through one
 * check (docs/CLI.md, "Files"): a pack given on the command line is opened
 * only when it is a regular file (a FIFO or a device is refused, never
 * waited on); an output goes through clcpack_write_file_atomic and its
 * output-path rules, or to stdout for an explicit "-" where the command
 * allows it. Each prints its own diagnostic, naming the path once.
 */
#ifndef CLC_CLI_FILES_H
#define CLC_CLI_FILES_H

#include <stddef.h>

#include "clcpack_write.h"

/* Opens the pack at path; NULL after printing why. */
clcpack *cli_open_pack(const char *path);

/* Checks an output path before any work: "-" is stdout when allow_stdout
 * (else a usage error), anything else must pass clcpack_check_output_path.
 * opt names the option ("-o", "--header") for the message. Returns 0, or the
 * exit status after printing why (EXIT_USAGE_STATUS for a bad "-",
 * EXIT_FAILURE_STATUS for a path that cannot be written). */
int cli_check_output(const char *cmd, const char *opt, const char *path, int allow_stdout);

/* Writes size bytes of data to path ("-": stdout) atomically. 0, or -1
 * after printing why. */
int cli_write_output(const char *path, const void *data, size_t size);

#endif /* CLC_CLI_FILES_H */
