/* fd_io.c — whole transfers on a file descriptor (fd_io.h). */
#include "fd_io.h"

#include <errno.h>
#include <unistd.h>

int clcpk_fd_write_all(int fd, const void *p, size_t n)
{
    const unsigned char *c = p;
    while (n > 0) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO; /* so that a message's strerror says something */
            return -1;
        }
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

int clcpk_fd_read_all(int fd, void *p, size_t n)
{
    unsigned char *c = p;
    while (n > 0) {
        ssize_t r = read(fd, c, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        c += r;
        n -= (size_t)r;
    }
    return 0;
}
