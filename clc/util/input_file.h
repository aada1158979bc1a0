/*
 * input_file.h — opening a file clc-pack reads (a manifest, a pack, a
 * kernel source) the one safe way: O_RDONLY|O_NONBLOCK|O_CLOEXEC, so that
 * a FIFO or a device given as input never blocks the open, then fstat: only
 * a regular file is read (docs/ROBUSTNESS.md, "Input files").
 */
#ifndef CLC_INPUT_FILE_H
#define CLC_INPUT_FILE_H

#include <stddef.h>

/* Opens path for reading; the descriptor is blocking again once it is
 * known to be a regular file. Returns it, or -1 with err naming path once
 * ("'P' is a FIFO, not a regular file", "cannot open 'P': ..."). */
int in_open(const char *path, char *err, size_t cap);

/* Reads the whole regular file into a malloc'd buffer with a NUL after the
 * last byte (*size excludes it; the caller frees). A file of more than max
 * bytes is refused. 0, or -1 with err. */
int in_read_all(const char *path, size_t max, char **data, size_t *size, char *err, size_t cap);

/* 0 when path can be opened as above and is a regular file, else -1 with
 * err (opens and closes it; reads nothing). */
int in_check(const char *path, char *err, size_t cap);

#endif /* CLC_INPUT_FILE_H */
