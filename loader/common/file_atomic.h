/*
 * file_atomic.h — replacing a file atomically, and checking an output path
 * first (file_atomic.c). In loader/common/: the writer, the rebuild cache and the
 * tool all put files on disk this way, from one copy.
 */
#ifndef CLCPACK_FILE_ATOMIC_H
#define CLCPACK_FILE_ATOMIC_H

#include <stddef.h>
#include <stdint.h>

#include "clcpack.h"
#include "platform.h"

/* A file being replaced atomically: begin creates the temporary file
 * beside path, the writes fill it, commit fsyncs and renames it over path
 * (then fsyncs the folder); abort, or any failed step, removes it. */
typedef struct clcpk_atomic {
    const char *path;
    char *tmp, *dir;
    clcpk_fd fd;
} clcpk_atomic;
clcpack_status clcpk_atomic_begin(clcpk_atomic *a, const char *path, clcpack_error *err);
clcpack_status clcpk_atomic_write(clcpk_atomic *a, const void *data, size_t n, clcpack_error *err);
clcpack_status clcpk_atomic_write_at(clcpk_atomic *a, const void *data, size_t n, uint64_t at,
                                     clcpack_error *err);
clcpack_status clcpk_atomic_commit(clcpk_atomic *a, clcpack_error *err);
void clcpk_atomic_abort(clcpk_atomic *a);

/* The work of clcpack_check_output_path and clcpack_write_file_atomic
 * (clcpack_write.h, whose public names loader/write/write_files.c defines
 * over these) for the tool and the library's own files: the public names
 * stay in the stable ABI for applications, these keep the tool's calls out
 * of it. The write takes data of size bytes (data may be NULL only when
 * size is 0). */
clcpack_status clcpk_check_output_path(const char *path, clcpack_error *err);
clcpack_status clcpk_write_file_atomic(const char *path, const void *data, size_t size,
                                       clcpack_error *err);

#endif /* CLCPACK_FILE_ATOMIC_H */
