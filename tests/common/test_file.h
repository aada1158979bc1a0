/*
 * test_file.h — whole files in and out, for tests that compare what a
 * tool wrote or hand bytes to a driver, and a command's output.
 */
#ifndef CLC_TEST_FILE_H
#define CLC_TEST_FILE_H

#include <stddef.h>

/* The whole file, malloc'd (at least one byte, so an empty file is not
 * NULL), its length in *n; NULL when it cannot be read. */
unsigned char *test_read_file(const char *path, size_t *n);

/* Writes n bytes to path (replacing it). 0, or -1. */
int test_write_file(const char *path, const void *b, size_t n);

/* Runs cmd with sh, its stdout (up to cap-1 bytes, NUL-terminated) into
 * out. Returns pclose's status (0 for a command that exited 0), -1 when it
 * could not be started. */
int test_run_capture(const char *cmd, char *out, size_t cap);

#endif
