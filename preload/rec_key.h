/*
 * rec_key.h — the content key of a recorded program build (docs/RECORD.md,
 * "The key"): SHA-256 over the exact source bytes, the build options with
 * their path-valued -I arguments removed, and the headers those -I folders
 * provide to the program. The key does not change when the application's
 * folder moves; the exact options are stored beside it.
 *
 * Nothing here prints; every function is thread-safe (no shared state).
 */
#ifndef CLCPACK_PRELOAD_REC_KEY_H
#define CLCPACK_PRELOAD_REC_KEY_H

#include <stddef.h>

#define RK_PREFIX "rec:"
#define RK_KEY_MAX 72      /* "rec:" + 64 hex digits + NUL */

/* The options without path-valued -I arguments ("-I DIR", "-IDIR"), the
 * remaining words joined by one space; *dirs gets the -I folders in order
 * (quotes removed). All malloc'd: free with rk_free_dirs and free(). NULL
 * options means "". 0, or -1 when out of memory. */
int rk_normalize(const char *options, char **norm, char ***dirs, size_t *n_dirs);
void rk_free_dirs(char **dirs, size_t n);

/* Writes the key ("rec:<hex>") of (source, options) into out. 0, or -1 when
 * out of memory. Headers are found by their #include lines, looked up in
 * the -I folders in order (at most RK_MAX_HEADERS, each at most
 * RK_MAX_HEADER_BYTES; one that cannot be read is left out). */
#define RK_MAX_HEADERS 256
#define RK_MAX_HEADER_BYTES (16u << 20)
int rk_key(const char *source, size_t size, const char *options, char out[RK_KEY_MAX]);

#endif /* CLCPACK_PRELOAD_REC_KEY_H */
