/*
 * self_run.h — for the tests that run themselves as an application under
 * the interposer (test_record_threads, test_record_reentry,
 * test_record_stress): the build folder, shell commands under a timeout,
 * and reading back what they printed.
 */
#ifndef CLC_TEST_SELF_RUN_H
#define CLC_TEST_SELF_RUN_H

#include <limits.h>
#include <stddef.h>

#include "check.h"

/* self: the test's absolute path; build: the build folder two levels up
 * (BUILD/tests/test_X). 0, or -1. */
int sr_paths(const char *argv0, char self[PATH_MAX], char build[PATH_MAX]);

/* Runs the shell command made from fmt; returns its exit status, 128+N for
 * signal N, -1 when it could not run. */
int sr_system(const char *fmt, ...) CHECK_PRINTF(1, 2);

/* Whether an exit status of a command run under `timeout` says it hung. */
#define SR_HUNG(rc) ((rc) == 124 || (rc) == 137)

/* The file at path (at most max - 1 bytes, NUL-terminated), malloc'd; NULL
 * when it cannot be read. */
char *sr_slurp(const char *path, size_t max);

/* How many times what occurs in text (NULL: 0). */
int sr_count(const char *text, const char *what);

/* snprintf into buf without gcc's truncation warnings (command lines are
 * sized well over their use). */
void sr_fmt(char *buf, size_t cap, const char *fmt, ...) CHECK_PRINTF(3, 4);

#endif
