/*
 * depfile.h — a make-format dependency file, as `cc -MD -MF FILE -MP`
 * writes one: "target: prereq prereq ...", then an empty rule per
 * prerequisite so that a deleted header does not stop make
 * (docs/CLI.md, "Dependency files").
 *
 * The list knows nothing of where its paths come from: the pack command
 * adds the manifest and every file the source folding reads.
 */
#ifndef CLC_DEPFILE_H
#define CLC_DEPFILE_H

#include <stddef.h>

typedef struct depfile_list {
    char **paths;       /* in the order first added, no repeats */
    size_t n, cap;
    int failed;         /* out of memory: the write reports it */
} depfile_list;

void depfile_init(depfile_list *l);
void depfile_free(depfile_list *l);

/* Adds path unless it is already there (a "./" prefix is dropped first). */
void depfile_add(depfile_list *l, const char *path);

/* The text of the rule (malloc'd, NUL-terminated; *len without the NUL),
 * or NULL when out of memory. Spaces, '#', '$' and '\' before a space are
 * escaped as make reads them. */
char *depfile_format(const depfile_list *l, const char *target, size_t *len);

/* Writes the rule to path atomically. Returns 0, or -1 with err naming
 * the file. */
int depfile_write(const depfile_list *l, const char *target, const char *path, char *err, size_t cap);

#endif /* CLC_DEPFILE_H */
