/*
 * fd_io.h — whole transfers on a file descriptor: retried on EINTR and on
 * short reads and writes, so a pipe or a slow disk gives all the bytes or
 * an error. In common/: the tool's pipes and files, the library's atomic
 * writes and rebuild cache, the interposer's capture files, from one copy.
 */
#ifndef CLCPK_FD_IO_H
#define CLCPK_FD_IO_H

#include <stddef.h>

/* Writes exactly n bytes. 0, or -1 with errno (EIO for a write that
 * wrote nothing). */
int clcpk_fd_write_all(int fd, const void *p, size_t n);
/* Reads exactly n bytes. 0, or -1 on an error or an early end of file. */
int clcpk_fd_read_all(int fd, void *p, size_t n);

#endif /* CLCPK_FD_IO_H */
