/*
 * tool_run.h — running an offline compiler (ptxas, ocloc, clang,
 * llvm-spirv) without a shell: a private mkdtemp folder for its files,
 * fork/execv with an argv array (only async-signal-safe calls between
 * them: the caller may have OpenCL driver threads), its output into a log
 * file read back as one line, and the folder removed. Nothing here prints.
 */
#ifndef CLC_TOOL_RUN_H
#define CLC_TOOL_RUN_H

#include <stddef.h>

#define TOOL_PATH_MAX 4096
#define TOOL_MSG_MAX 1024

/* Where an executable named `name` is: the first on $PATH, else each of
 * the NULL-terminated fallbacks. 0 with the path in out, or -1. */
int tool_find(const char *name, const char *const *fallbacks, char out[TOOL_PATH_MAX]);

/* 1 when path is a regular file we may execute. */
int tool_is_executable(const char *path);

/* A private folder "<TMPDIR or /tmp>/clc-pack-<what>-XXXXXX" into dir.
 * 0, or -1 with msg. */
int tool_temp_dir(const char *what, char dir[TOOL_PATH_MAX], char *msg, size_t cap);

/* Removes the folder and every file directly in it. */
void tool_remove_dir(const char *dir);

/* Writes size bytes to the new file path (mode 0600). 0, or -1. */
int tool_write_file(const char *path, const void *data, size_t size);

/* Reads a whole file of at most max bytes into a malloc'd buffer. 0, or -1. */
int tool_read_file(const char *path, size_t max, unsigned char **out, size_t *size);

/* Runs argv (argv[0] the program's path) in folder cwd (NULL: ours), its
 * stdin /dev/null and its stdout and stderr into the file log_path. 0 when
 * it exited with status 0; else -1 with msg: "<program> exited with status
 * N: <its first output, one line>", "... died of signal N", or why it
 * could not run. */
int tool_run(char *const argv[], const char *cwd, const char *log_path, char *msg, size_t cap);

/* The file's text as one line (newlines as spaces, non-printing bytes as
 * '?'), cut to cap. */
void tool_read_messages(const char *path, char *dst, size_t cap);

#endif /* CLC_TOOL_RUN_H */
