/* input_file.c — opening and reading input files (input_file.h). */
#include "input_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bounded_fmt.h"
#include "path.h"
#include "platform.h"

int in_open(const char *path, char *err, size_t cap)
{
    char clip[BFMT_QUOTE_MAX + 4];
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        bfmt(err, cap, "cannot open '%s': %s", bfmt_clip(path, clip), strerror(errno));
        return -1;
    }
    clcpk_stat st;
    int e = clcpk_os_fstat(fd, &st);
    if (e != 0) {
        bfmt(err, cap, "cannot read '%s': %s", bfmt_clip(path, clip), strerror(e));
        close(fd);
        return -1;
    }
    if (st.kind != CLCPK_KIND_FILE) {
        bfmt(err, cap, "'%s' is %s, not a regular file", bfmt_clip(path, clip),
             clcpk_file_type_name(st.kind));
        close(fd);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

int in_read_all(const char *path, size_t max, char **data, size_t *size, char *err, size_t cap)
{
    char clip[BFMT_QUOTE_MAX + 4];
    *data = NULL;
    *size = 0;
    int fd = in_open(path, err, cap);
    if (fd < 0)
        return -1;
    size_t len = 0, have = 0;
    char *buf = NULL;
    for (;;) {
        if (len == have) {
            size_t grow = have ? 2 * have : 65536;
            if (grow > max + 1)
                grow = max + 1;
            char *b = grow > have ? realloc(buf, grow + 1) : NULL;
            if (!b) {
                if (grow > have)
                    bfmt(err, cap, "'%s': out of memory", bfmt_clip(path, clip));
                else
                    bfmt(err, cap, "'%s' is larger than %zu bytes", bfmt_clip(path, clip), max);
                free(buf);
                close(fd);
                return -1;
            }
            buf = b;
            have = grow;
        }
        ssize_t n = read(fd, buf + len, have - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            bfmt(err, cap, "cannot read '%s': %s", bfmt_clip(path, clip), strerror(errno));
            free(buf);
            close(fd);
            return -1;
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    if (len > max) {
        bfmt(err, cap, "'%s' is larger than %zu bytes", bfmt_clip(path, clip), max);
        free(buf);
        return -1;
    }
    if (!buf && !(buf = malloc(1))) {
        bfmt(err, cap, "'%s': out of memory", bfmt_clip(path, clip));
        return -1;
    }
    buf[len] = '\0';
    *data = buf;
    *size = len;
    return 0;
}

int in_check(const char *path, char *err, size_t cap)
{
    int fd = in_open(path, err, cap);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}
