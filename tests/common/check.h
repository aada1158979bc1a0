/*
 * check.h — the small assertion layer every C test uses.
 *
 * CHECK(cond, fmt, ...) counts a check; a failed one is printed with its file
 * and line. CHECK_SKIP(fmt, ...) counts a part of the test that could not
 * run here (a tool or data missing) and prints "skipped: why". check_summary()
 * prints "checks: P passed, F failed, S skipped" (the line tests/run_tests.sh
 * adds up) and returns the process exit status.
 */
#ifndef CLC_TEST_CHECK_H
#define CLC_TEST_CHECK_H

#include <stdio.h>

#if defined(__MINGW32__)
/* MinGW's "printf" is msvcrt's (no %zu); the tests build with
 * __USE_MINGW_ANSI_STDIO, whose printf is C99's. */
#define CHECK_PRINTF(a, b) __attribute__((format(gnu_printf, a, b)))
#elif defined(__GNUC__)
#define CHECK_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define CHECK_PRINTF(a, b)
#endif

/* Records one check; returns ok so a test can stop early on a failure. */
int check_report(int ok, const char *file, int line, const char *fmt, ...) CHECK_PRINTF(4, 5);
/* Prints the summary line; returns 0 when nothing failed, else 1. */
int check_summary(void);
/* Number of failed checks so far. */
int check_failures(void);
/* Counts one skipped part and prints "skipped: <why>". A skip is never a
 * pass: the closing line of make test counts it apart. */
void check_skip(const char *fmt, ...) CHECK_PRINTF(1, 2);

#define CHECK(cond, ...) check_report(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define CHECK_SKIP(...) check_skip(__VA_ARGS__)

#endif
