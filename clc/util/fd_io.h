/*
 * fd_io.h — whole transfers on a file descriptor: retried on EINTR and on
 * short reads and writes, so a pipe or a slow disk gives all the bytes or
 * an error.
 */
#ifndef CLC_FD_IO_H
#define CLC_FD_IO_H

#include <stddef.h>

/* Writes exactly n bytes. 0, or -1 on an error. */
int fd_write_all(int fd, const void *p, size_t n);
/* Reads exactly n bytes. 0, or -1 on an error or an early end of file. */
int fd_read_all(int fd, void *p, size_t n);

#endif /* CLC_FD_IO_H */
