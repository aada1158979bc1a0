/*
 * path.h — what the tool and the library both say about paths: the folder
 * that holds a file, what kind of file a non-regular one is. In loader/common/:
 * one copy for clc-pack's inputs and libclcpack's atomic writes, on the
 * platform layer's separators and kinds (platform.h).
 */
#ifndef CLCPK_PATH_H
#define CLCPK_PATH_H

/* The folder that holds path, malloc'd: "." when path has no separator,
 * the root itself for a file at the root ("/", "C:\\"). NULL when out of
 * memory. */
char *clcpk_parent_dir(const char *path);

/* The file name at the end of path: what follows its last separator
 * (path itself when it has none). */
const char *clcpk_base_name(const char *path);

/* What a file of kind k (CLCPK_KIND_*, platform.h) is, for a refusal that
 * wants a regular file: "a folder", "a device", "a FIFO", "a socket", "a
 * symbolic link", else "not a regular file". */
const char *clcpk_file_type_name(int kind);

#endif /* CLCPK_PATH_H */
