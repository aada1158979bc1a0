/*
 * path.h — what the tool and the library both say about paths: the folder
 * that holds a file, what kind of file a non-regular one is. In common/:
 * one copy for clc-pack's inputs and libclcpack's atomic writes.
 */
#ifndef CLCPK_PATH_H
#define CLCPK_PATH_H

#include <sys/types.h>

/* The folder that holds path, malloc'd: "." when path has no slash, "/"
 * for a file at the root. NULL when out of memory. */
char *clcpk_parent_dir(const char *path);

/* What a file of mode m is, for a refusal that wants a regular file:
 * "a folder", "a device", "a FIFO", "a socket", "a symbolic link" (an
 * lstat's mode), else "not a regular file". */
const char *clcpk_file_type_name(mode_t m);

#endif /* CLCPK_PATH_H */
