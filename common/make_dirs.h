/*
 * make_dirs.h — `mkdir -p`: a folder and the missing folders above it.
 * In common/: the tool's folders and the library's rebuild cache are made
 * by this one copy.
 */
#ifndef CLCPK_MAKE_DIRS_H
#define CLCPK_MAKE_DIRS_H

#include <sys/types.h>

/* Creates path with leaf_mode and its missing parents with parent_mode
 * (both less the umask); folders already there are left as they are.
 * 0, or -1 with errno. */
int clcpk_make_dirs(const char *path, mode_t parent_mode, mode_t leaf_mode);

#endif /* CLCPK_MAKE_DIRS_H */
