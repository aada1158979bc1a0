/*
 * fd_io.h — whole transfers on an open file or pipe: retried on
 * interruptions and on short reads and writes, so a pipe or a slow disk
 * gives all the bytes or an error. In loader/common/, on the platform layer
 * (platform.h): the tool's pipes and files and the interposer's capture
 * files, from one copy.
 */
#ifndef CLCPK_FD_IO_H
#define CLCPK_FD_IO_H

#include <stddef.h>

#include "platform.h"

/* Writes exactly n bytes. 0, or -1 with errno (EIO for a write that
 * wrote nothing). */
int clcpk_fd_write_all(clcpk_fd fd, const void *p, size_t n);
/* Reads exactly n bytes. 0, or -1 with errno on an error or an early end
 * of file (EIO). */
int clcpk_fd_read_all(clcpk_fd fd, void *p, size_t n);

#endif /* CLCPK_FD_IO_H */
