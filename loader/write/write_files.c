/*
 * write_files.c — the functions of clcpack_write.h that are not the
 * writer's own: the output-path rules and the atomic file writer by their
 * public names, over loader/common/file_atomic.c (which the rebuild cache
 * and the tool call by their clcpk_* names), and clcpack_free for what
 * clcpack_writer_write_memory returns. Here, with the writer, so that the
 * load-only library (libclcpack_load) has none of them.
 */
#include <stdlib.h>

#include "clcpack_write.h"
#include "errors.h"
#include "file_atomic.h"

clcpack_status clcpack_check_output_path(const char *path, clcpack_error *err)
{
    return clcpk_check_output_path(path, err);
}

clcpack_status clcpack_write_file_atomic(const char *path, const void *data, size_t size,
                                         uint32_t flags, clcpack_error *err)
{
    if (flags != 0)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG,
                          "clcpack_write_file_atomic: flags must be 0, not 0x%x",
                          (unsigned)flags);
    if (!data && size)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "clcpack_write_file_atomic: data is NULL");
    return clcpk_write_file_atomic(path, data, size, err);
}

/* Memory the library hands out is malloc'd; freeing it here keeps an
 * application with another allocator (or another C runtime) correct. */
void clcpack_free(void *data) { free(data); }
