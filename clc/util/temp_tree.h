/*
 * temp_tree.h — temporary folders a process makes for itself and removes
 * with everything in them: a build worker's private folder, the folder of
 * one pack run's workers. Nothing here prints.
 */
#ifndef CLC_TEMP_TREE_H
#define CLC_TEMP_TREE_H

#include <stddef.h>

/* Makes a new folder (mode 0700) named NAME-XXXXXX in parent, or, when
 * parent is NULL, in $TMPDIR (else /tmp); its path into out. 0, or -1
 * with errno. */
int temp_tree_make(const char *parent, const char *name, char *out, size_t cap);

/* Removes path and everything under it, never following a symbolic link
 * out of it. Errors are ignored: it is only clean-up. */
void temp_tree_remove(const char *path);

#endif /* CLC_TEMP_TREE_H */
