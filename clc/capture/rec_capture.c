/* rec_capture.c — the record files on disk (rec_capture.h). */
#include "rec_capture.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bounded_fmt.h"

/* The whole regular file at path, of at most max bytes, malloc'd. */
static unsigned char *slurp(const char *path, size_t max, size_t *size, char *err, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        bfmt(err, cap, "%s: cannot open", path);
        return NULL;
    }
    struct stat st;
    unsigned char *buf = NULL;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0 ||
        (uint64_t)st.st_size > max) {
        bfmt(err, cap, "%s: not a regular file of a plausible size", path);
        goto out;
    }
    buf = malloc((size_t)st.st_size ? (size_t)st.st_size : 1);
    if (!buf) {
        bfmt(err, cap, "%s: out of memory", path);
        goto out;
    }
    if (fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
        bfmt(err, cap, "%s: short read", path);
        free(buf);
        buf = NULL;
        goto out;
    }
    *size = (size_t)st.st_size;
out:
    fclose(f);
    return buf;
}

int rec_capture_read(const char *path, capture *c, char *err, size_t cap)
{
    memset(c, 0, sizeof *c);
    size_t size = 0;
    unsigned char *buf = slurp(path, CAPTURE_MAX_FILE, &size, err, cap);
    if (!buf)
        return -1;
    char why[256];
    int rc = capture_decode(buf, size, c, why, sizeof why);
    free(buf);
    if (rc != 0)
        bfmt(err, cap, "%s: %s", path, why);
    return rc;
}

int rec_capture_proc_read(const char *path, proc_status *st)
{
    char err[64];
    size_t size = 0;
    unsigned char *buf = slurp(path, 1 << 16, &size, err, sizeof err);
    if (!buf)
        return -1;
    int rc = proc_status_parse((const char *)buf, size, st);
    free(buf);
    return rc;
}
