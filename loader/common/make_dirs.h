/*
 * make_dirs.h — `mkdir -p`: a folder and the missing folders above it.
 * In loader/common/: the tool's folders and the library's rebuild cache are made
 * by this one copy, through the platform layer (platform.h), so it serves
 * the Windows library too ("C:\\cache\\clcpack").
 */
#ifndef CLCPK_MAKE_DIRS_H
#define CLCPK_MAKE_DIRS_H

/* Creates path with leaf_mode and its missing parents with parent_mode
 * (both less the umask; ignored on Windows); folders already there, and a
 * drive that refuses to be made but is one, are left as they are.
 * 0, or -1 with errno. */
int clcpk_make_dirs(const char *path, unsigned parent_mode, unsigned leaf_mode);

#endif /* CLCPK_MAKE_DIRS_H */
