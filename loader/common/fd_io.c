/* fd_io.c — whole transfers on an open file or pipe (fd_io.h). */
#include "fd_io.h"

#include <errno.h>

int clcpk_fd_write_all(clcpk_fd fd, const void *p, size_t n)
{
    int e = clcpk_os_write(fd, p, n);
    if (e) {
        errno = e;
        return -1;
    }
    return 0;
}

int clcpk_fd_read_all(clcpk_fd fd, void *p, size_t n)
{
    unsigned char *c = p;
    while (n > 0) {
        size_t got;
        int e = clcpk_os_read(fd, c, n, &got);
        if (e || got == 0) {
            errno = e ? e : EIO;
            return -1;
        }
        c += got;
        n -= got;
    }
    return 0;
}
