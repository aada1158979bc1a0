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
#define RK_LINK_PREFIX "rec-link:"
#define RK_COMPILE_PREFIX "rec-compile:"
#define RK_KEY_MAX 80      /* "rec-compile:" + 64 hex digits + NUL */

/* How many of the first bytes of a program's source (size bytes at src) are
 * its text for the record and the key: the source less text a tool appended
 * that is certain to change nothing the driver builds for the application
 * (docs/RECORD.md, "Text PyOpenCL adds"). One such text is known: PyOpenCL,
 * on a miss in its binary cache, appends
 *     "\n\n__constant int pyopencl_defeat_cache_" <32 hex digits> " = 0;"
 * (a uuid4's hex digits), so that no two processes build the same text; it
 * is recognised only at the very end of the source, in exactly that form,
 * with a name the rest of the source never uses. Any other source gives
 * size. The record stores these bytes and the key hashes them (rk_key), so
 * both sides of a replay see one text. */
size_t rk_canonical_size(const char *src, size_t size);

/* The options without path-valued -I arguments ("-I DIR", "-IDIR"), the
 * remaining words joined by one space; *dirs gets the -I folders in order
 * (quotes removed). All malloc'd: free with rk_free_dirs and free(). NULL
 * options means "". 0, or -1 when out of memory. */
int rk_normalize(const char *options, char **norm, char ***dirs, size_t *n_dirs);
void rk_free_dirs(char **dirs, size_t n);
/* The next word of options s from *pos on, split as rk_normalize splits
 * (white space; double quotes group): [*start, *end), quotes included, and
 * *pos past it. 0 when none is left. */
int rk_next_word(const char *s, size_t *pos, size_t *start, size_t *end);

/* Writes the key ("rec:<hex>") of (source, options) into out: of the
 * source's first rk_canonical_size bytes.  0, or -1 when
 * out of memory. Headers are found by their #include lines, looked up in
 * the -I folders in order (at most RK_MAX_HEADERS, each at most
 * RK_MAX_HEADER_BYTES; one that cannot be read is left out). */
#define RK_MAX_HEADERS 256
#define RK_MAX_HEADER_BYTES (16u << 20)
int rk_key(const char *source, size_t size, const char *options, char out[RK_KEY_MAX]);

/* The compile key of a clCompileProgram input (docs/RECORD.md, "The link
 * description"): its build key (rk_key of its source and compile options)
 * and the header programs it was given, names[i] with sources[i] of
 * sizes[i] bytes. 0, or -1 when out of memory. */
int rk_compile_key(const char *build_key, size_t n_headers, char *const *names,
                   char *const *sources, const size_t *sizes, char out[RK_KEY_MAX]);

/* The key of a link ("rec-link:<hex>"): its normalized options and its
 * description (formats/capture_format.h, link_desc_encode). 0, or -1 when
 * out of memory. */
int rk_link_key(const char *norm_options, const void *desc, size_t size, char out[RK_KEY_MAX]);

#endif /* CLCPACK_PRELOAD_REC_KEY_H */
