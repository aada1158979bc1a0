/*
 * bench_text.h — a growing text buffer for the CSV files the benchmarks
 * write, written out atomically (temporary file, fsync, rename) so a
 * chart script never reads half a file.
 */
#ifndef BENCH_TEXT_H
#define BENCH_TEXT_H

#include <stddef.h>

#include "bounded_fmt.h"

typedef struct bench_text {
    char *buf;
    size_t len, cap;
    int failed;                 /* an allocation failed; the text is incomplete */
} bench_text;

/* Appends formatted text. */
void bench_text_add(bench_text *t, const char *fmt, ...) BFMT_PRINTF(2, 3);

/* Appends s as one CSV field, quoted when it holds a comma, a quote or a
 * line break. */
void bench_text_csv_field(bench_text *t, const char *s);

/* Writes the text to path atomically. Returns 0, or -1 with err (also when
 * an earlier allocation failed). */
int bench_text_write(const bench_text *t, const char *path, char *err, size_t cap);

void bench_text_free(bench_text *t);

#endif /* BENCH_TEXT_H */
