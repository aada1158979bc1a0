/* spare_slots.c — slots lent between build workers (spare_slots.h). */
#include "spare_slots.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_pipe(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
}

void spare_inherit(spare_slots *s)
{
    s->rd = s->wr = -1;
    if (!is_pipe(SPARE_RD_FD) || !is_pipe(SPARE_WR_FD))
        return;
    int rd_flags = fcntl(SPARE_RD_FD, F_GETFL);
    if (rd_flags < 0 || !(rd_flags & O_NONBLOCK) ||
        fcntl(SPARE_RD_FD, F_SETFD, FD_CLOEXEC) != 0 ||
        fcntl(SPARE_WR_FD, F_SETFD, FD_CLOEXEC) != 0)
        return;
    s->rd = SPARE_RD_FD;
    s->wr = SPARE_WR_FD;
}

int spare_take(const spare_slots *s, int most)
{
    if (s->rd < 0 || most <= 0)
        return 0;
    char buf[64];
    if (most > (int)sizeof buf)
        most = (int)sizeof buf;
    for (;;) {
        ssize_t n = read(s->rd, buf, (size_t)most);
        if (n < 0 && errno == EINTR)
            continue;
        return n > 0 ? (int)n : 0;
    }
}

void spare_give(const spare_slots *s, int n)
{
    static const char bytes[64] = {0};
    while (s->wr >= 0 && n > 0) {
        ssize_t w = write(s->wr, bytes, (size_t)(n < 64 ? n : 64));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        n -= (int)w;
    }
}
