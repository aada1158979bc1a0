/*
 * make_dirs.h — `mkdir -p`: a folder and the missing folders above it.
 */
#ifndef CLC_MAKE_DIRS_H
#define CLC_MAKE_DIRS_H

#include <sys/types.h>

/* Creates path and its missing parents with mode (less the umask); folders
 * already there are left as they are. 0, or -1 with errno. */
int make_dirs(const char *path, mode_t mode);

#endif /* CLC_MAKE_DIRS_H */
