/* stub_icd.c — the stub driver from C tests (stub_icd.h). */
#include "gpu_stub.h"

#include "clcpack_write.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int stub_icd_path(char *out, size_t cap)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    if ((size_t)snprintf(out, cap, "%s/libclcstub.so", self) >= cap)
        return -1;
    return access(out, R_OK) == 0 ? 0 : -1;
}

static int write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* Copies the PoCL .icd files of the system folder into vendors. */
static void copy_pocl(const char *vendors)
{
    DIR *d = opendir("/etc/OpenCL/vendors");
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) {
        if (!strstr(de->d_name, "pocl") || !strstr(de->d_name, ".icd"))
            continue;
        char src[600], dst[4400], line[4096] = "";
        snprintf(src, sizeof src, "/etc/OpenCL/vendors/%s", de->d_name);
        snprintf(dst, sizeof dst, "%s/%s", vendors, de->d_name);
        FILE *f = fopen(src, "r");
        if (f) {
            if (!fgets(line, sizeof line, f))
                line[0] = '\0';
            fclose(f);
        }
        if (line[0])
            write_text(dst, line);
    }
    if (d)
        closedir(d);
}

int stub_icd_use(const char *dir, const char *devices, char *log, size_t log_cap, int with_pocl)
{
    char lib[4096], vendors[4096], icd[4200], logp[4200];
    if (stub_icd_path(lib, sizeof lib - 1) != 0)
        return -1;
    snprintf(vendors, sizeof vendors, "%s/vendors", dir);
    if (mkdir(vendors, 0755) != 0 && access(vendors, W_OK) != 0)
        return -1;
    snprintf(icd, sizeof icd, "%s/clcstub.icd", vendors);
    strcat(lib, "\n");
    if (write_text(icd, lib) != 0)
        return -1;
    if (with_pocl)
        copy_pocl(vendors);
    snprintf(logp, sizeof logp, "%s/stub.log", dir);
    if (write_text(logp, "") != 0)
        return -1;
    if (log && (size_t)snprintf(log, log_cap, "%s", logp) >= log_cap)
        return -1;
    setenv("OCL_ICD_VENDORS", vendors, 1);
    setenv("CLCSTUB_LOG", logp, 1);
    if (devices)
        setenv("CLCSTUB_DEVICES", devices, 1);
    else
        unsetenv("CLCSTUB_DEVICES");
    static const char *const switches[] = {"CLCSTUB_REFUSE_BINARIES", "CLCSTUB_FAIL_BUILD",
                                           "CLCSTUB_BUILD_DELAY_MS", "CLCSTUB_CRASH_BUILD",
                                           "CLCSTUB_INTEL_RECOMPILE", "CLCSTUB_SAVE_DIR"};
    for (size_t i = 0; i < sizeof switches / sizeof switches[0]; i++)
        unsetenv(switches[i]);
    return 0;
}

/* Copies the value of key=VALUE (or key="QUOTED" with \-escapes) from line
 * into out; 0, or -1 when the key is not there. */
static int field(const char *line, const char *key, char *out, size_t cap)
{
    size_t kl = strlen(key);
    const char *p = line;
    for (;;) {
        p = strstr(p, key);
        if (!p)
            return -1;
        if ((p == line || p[-1] == ' ') && p[kl] == '=')
            break;
        p += kl;
    }
    p += kl + 1;
    size_t n = 0;
    if (*p == '"') {
        for (p++; *p && *p != '"' && n + 1 < cap; p++) {
            if (*p == '\\' && p[1]) {
                p++;
                if (*p == 'n')
                    out[n++] = '\n';
                else if (*p == 't')
                    out[n++] = '\t';
                else if (*p == 'x' && p[1] && p[2]) {
                    char hex[3] = {p[1], p[2], 0};
                    out[n++] = (char)strtol(hex, NULL, 16);
                    p += 2;
                } else
                    out[n++] = *p;
            } else {
                out[n++] = *p;
            }
        }
    } else {
        while (*p && *p != ' ' && n + 1 < cap)
            out[n++] = *p++;
    }
    out[n] = '\0';
    return 0;
}

int stub_log_parse(const char *line, stub_log_line *out)
{
    char num[32];
    memset(out, 0, sizeof *out);
    if (field(line, "pid", num, sizeof num) != 0)
        return -1;
    out->pid = strtol(num, NULL, 10);
    if (field(line, "seq", num, sizeof num) != 0)
        return -1;
    out->seq = (unsigned)strtoul(num, NULL, 10);
    if (field(line, "idx", num, sizeof num) != 0)
        return -1;
    out->idx = (int)strtol(num, NULL, 10);
    if (field(line, "prog", num, sizeof num) != 0)
        return -1;
    out->prog = (unsigned)strtoul(num, NULL, 10);
    if (field(line, "bytes", num, sizeof num) != 0)
        return -1;
    out->bytes = strtoull(num, NULL, 10);
    if (field(line, "call", out->call, sizeof out->call) != 0 ||
        field(line, "dev", out->dev, sizeof out->dev) != 0 ||
        field(line, "sha256", out->sha256, sizeof out->sha256) != 0 ||
        field(line, "result", out->result, sizeof out->result) != 0 ||
        field(line, "how", out->how, sizeof out->how) != 0 ||
        field(line, "why", out->why, sizeof out->why) != 0 ||
        field(line, "options", out->options, sizeof out->options) != 0)
        return -1;
    return 0;
}

int stub_log_find(const char *path, const char *call, const char *dev, const void *bytes,
                  size_t n, const char *result, stub_log_line *out)
{
    char sha[65] = "";
    if (bytes) {
        uint8_t d[CLCPACK_SHA256_SIZE];
        clcpack_digest_sha256(bytes, n, d);
        for (int i = 0; i < CLCPACK_SHA256_SIZE; i++)
            snprintf(sha + 2 * i, 3, "%02x", d[i]);
    }
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    static char line[32768];
    int count = 0;
    stub_log_line l;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (stub_log_parse(line, &l) != 0)
            continue;
        if ((call && strcmp(l.call, call) != 0) || (dev && strcmp(l.dev, dev) != 0) ||
            (bytes && (strcmp(l.sha256, sha) != 0 || l.bytes != n)) ||
            (result && strcmp(l.result, result) != 0))
            continue;
        count++;
        if (out)
            *out = l;
    }
    fclose(f);
    return count;
}

int stub_log_count(const char *path, const char *call, const char *dev, const void *bytes,
                   size_t n, const char *result)
{
    return stub_log_find(path, call, dev, bytes, n, result, NULL);
}

int stub_log_count_entry(const char *path, const char *call, const char *dev, const clcpack *p,
                         size_t entry, const char *result)
{
    size_t n = 0;
    if (clcpack_read_binary(p, entry, NULL, 0, &n, NULL) != CLCPACK_OK)
        return -1;
    void *buf = malloc(n ? n : 1);
    if (!buf)
        return -1;
    int count = -1;
    if (clcpack_read_binary(p, entry, buf, n, &n, NULL) == CLCPACK_OK)
        count = stub_log_count(path, call, dev, buf, n, result);
    free(buf);
    return count;
}
