/*
 * stub_log.c — the record of every hand-over (README.md, "The log"): one
 * line per call and device, appended to $CLCSTUB_LOG with one write(2) on
 * an O_APPEND descriptor, so the lines of several threads and processes
 * (a tool and its worker processes) never interleave; and, with
 * $CLCSTUB_SAVE_DIR, the bytes themselves in <pid>-<seq>.bin.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sha256.h"
#include "stub.h"

#define LINE_MAX_BYTES 16384

static atomic_uint next_id = 1;

unsigned stub_next_id(void)
{
    return atomic_fetch_add(&next_id, 1);
}

void stub_sha_hex(const void *bytes, size_t n, char out[65])
{
    clcpk_sha256 s;
    uint8_t d[32];
    clcpk_sha256_init(&s);
    clcpk_sha256_update(&s, bytes, n);
    clcpk_sha256_final(&s, d);
    clcpk_hex(d, 32, out);
}

const char *stub_status_name(cl_int rc, char *buf, size_t cap)
{
    static const struct {
        cl_int rc;
        const char *name;
    } names[] = {
        {CL_SUCCESS, "CL_SUCCESS"},
        {CL_DEVICE_NOT_FOUND, "CL_DEVICE_NOT_FOUND"},
        {CL_OUT_OF_HOST_MEMORY, "CL_OUT_OF_HOST_MEMORY"},
        {CL_BUILD_PROGRAM_FAILURE, "CL_BUILD_PROGRAM_FAILURE"},
        {CL_INVALID_VALUE, "CL_INVALID_VALUE"},
        {CL_INVALID_DEVICE, "CL_INVALID_DEVICE"},
        {CL_INVALID_CONTEXT, "CL_INVALID_CONTEXT"},
        {CL_INVALID_BINARY, "CL_INVALID_BINARY"},
        {CL_INVALID_BUILD_OPTIONS, "CL_INVALID_BUILD_OPTIONS"},
        {CL_INVALID_PROGRAM, "CL_INVALID_PROGRAM"},
        {CL_INVALID_PROGRAM_EXECUTABLE, "CL_INVALID_PROGRAM_EXECUTABLE"},
        {CL_INVALID_KERNEL_NAME, "CL_INVALID_KERNEL_NAME"},
        {CL_INVALID_OPERATION, "CL_INVALID_OPERATION"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].rc == rc)
            return names[i].name;
    snprintf(buf, cap, "%d", (int)rc);
    return buf;
}

/* Appends "key=\"text\"" with ", \, control bytes and non-ASCII escaped
 * (\", \\, \n, \t, \xNN), so a line stays one line and splits on spaces
 * outside quotes. */
static size_t put_quoted(char *line, size_t n, size_t cap, const char *key, const char *text)
{
    n += (size_t)snprintf(line + n, n < cap ? cap - n : 0, " %s=\"", key);
    for (const unsigned char *s = (const unsigned char *)(text ? text : ""); *s && n + 8 < cap;
         s++) {
        if (*s == '"' || *s == '\\')
            n += (size_t)snprintf(line + n, cap - n, "\\%c", *s);
        else if (*s == '\n')
            n += (size_t)snprintf(line + n, cap - n, "\\n");
        else if (*s == '\t')
            n += (size_t)snprintf(line + n, cap - n, "\\t");
        else if (*s < 0x20 || *s >= 0x7f)
            n += (size_t)snprintf(line + n, cap - n, "\\x%02x", *s);
        else
            line[n++] = (char)*s;
    }
    if (n + 2 < cap)
        line[n++] = '"';
    line[n] = '\0';
    return n;
}

static void write_all(int fd, const char *buf, size_t n)
{
    while (n) {
        ssize_t w = write(fd, buf, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        buf += w;
        n -= (size_t)w;
    }
}

static void save_bytes(unsigned seq, const void *bytes, size_t n)
{
    const char *dir = stub_env("CLCSTUB_SAVE_DIR");
    if (!dir || !bytes)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s/%ld-%u.bin", dir, (long)getpid(), seq);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    write_all(fd, bytes, n);
    close(fd);
}

void stub_log_call(const char *call, cl_device_id dev, unsigned prog, const void *bytes, size_t n,
                   const char *sha_hex, cl_int result, const char *how, const char *why,
                   const char *options)
{
    const char *path = stub_env("CLCSTUB_LOG");
    if (!path)
        return;
    unsigned seq = stub_next_id();
    char code[24], sha[65];
    if (!sha_hex) {
        stub_sha_hex(bytes ? bytes : "", bytes ? n : 0, sha);
        sha_hex = sha;
    }
    char *line = malloc(LINE_MAX_BYTES);
    if (!line)
        return;
    size_t len = (size_t)snprintf(
        line, LINE_MAX_BYTES, "pid=%ld seq=%u call=%s dev=%s idx=%d prog=%u bytes=%zu sha256=%s "
                              "result=%s how=%s",
        (long)getpid(), seq, call, dev ? dev->label : "-", dev ? (int)dev->index : -1, prog, n,
        sha_hex, stub_status_name(result, code, sizeof code), how && *how ? how : "-");
    len = put_quoted(line, len, LINE_MAX_BYTES - 2, "why", why);
    len = put_quoted(line, len, LINE_MAX_BYTES - 2, "options", options);
    line[len++] = '\n';
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0) {
        write_all(fd, line, len);
        close(fd);
    }
    free(line);
    save_bytes(seq, bytes, n);
}
