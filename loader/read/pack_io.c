/*
 * pack_io.c — where an open pack's bytes come from: memory the caller
 * holds (clcpack_open_memory, pinned files), or the file itself, read with
 * an offset (clcpk_os_pread) when a blob is decoded (clcpack_open_file). ARCHITECTURE.md,
 * "Reading a pack", says why pread and not a mapping: a file cut short
 * under a mapping kills the process with SIGBUS, while a short read is an
 * error the caller gets.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "pack_io.h"
#include "pack_reader.h"

clcpack_status clcpk_read_at(clcpk_fd fd, const char *path, uint8_t *buf, size_t n, uint64_t at,
                             _Atomic uint64_t *counter, char *why, size_t why_cap)
{
    char msg[128];
    size_t got = 0;
    while (got < n) {
        size_t r;
        int e = clcpk_os_pread(fd, buf + got, n - got, at + got, &r);
        if (e) {
            snprintf(why, why_cap, "cannot read '%s' at offset %llu: %s", path,
                     (unsigned long long)(at + got), clcpk_errno_text(e, msg, sizeof msg));
            return CLCPACK_E_IO;
        }
        if (r == 0) {
            /* The read began wherever the index pointed, often far past
             * the end of a cut file: the end is the file's size now. Where
             * that cannot be had, the last offset read is all there is. */
            clcpk_stat st;
            uint64_t end = clcpk_os_fstat(fd, &st) == 0 ? st.size : at + got;
            snprintf(why, why_cap,
                     "'%s' shrank while open: it ends at %llu, bytes up to %llu were expected",
                     path, (unsigned long long)end, (unsigned long long)(at + n));
            return CLCPACK_E_IO;
        }
        got += r;
    }
    if (counter)
        atomic_fetch_add_explicit(counter, n, memory_order_relaxed);
    return CLCPACK_OK;
}

clcpack_status clcpk_pack_read(const clcpack *p, uint64_t offset, size_t n, uint8_t *dst,
                               char *why, size_t why_cap)
{
    if (p->data) {
        if (n)
            memcpy(dst, p->data + offset, n);
        return CLCPACK_OK;
    }
    return clcpk_read_at(p->fd, p->path, dst, n, offset, &((clcpack *)p)->file_read, why,
                         why_cap);
}

clcpack_status clcpk_pack_bytes(const clcpack *p, uint64_t offset, size_t n, const uint8_t **view,
                                uint8_t **owned, char *why, size_t why_cap)
{
    *owned = NULL;
    if (p->data) {
        *view = p->data + offset;
        return CLCPACK_OK;
    }
    *view = NULL;
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) {
        snprintf(why, why_cap, "out of memory for %zu bytes of '%s'", n, p->path);
        return CLCPACK_E_NOMEM;
    }
    clcpack_status st = clcpk_pack_read(p, offset, n, buf, why, why_cap);
    if (st != CLCPACK_OK) {
        free(buf);
        return st;
    }
    *view = *owned = buf;
    return CLCPACK_OK;
}

uint64_t clcpk_file_bytes_read(const clcpack *p)
{
    return atomic_load_explicit(&((clcpack *)p)->file_read, memory_order_relaxed);
}
