/* rcache_key.c — the remote cache's key (rcache_key.h). */
#include "rcache_key.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clcpack_write.h"
#include "sha256.h"
#include "wire.h"

/* One `NAME LEN:VALUE\n` line: the length makes any value unambiguous. */
static void field(strbuf *b, const char *name, const char *value, size_t len)
{
    char head[96];
    int n = snprintf(head, sizeof head, "%s %zu:", name, len);
    sb_put(b, head, (size_t)n);
    sb_put(b, value, len);
    sb_put(b, "\n", 1);
}

static void field_str(strbuf *b, const char *name, const char *value)
{
    field(b, name, value ? value : "", value ? strlen(value) : 0);
}

static void field_fmt(strbuf *b, const char *name, const char *fmt, unsigned long long v)
{
    char num[32];
    int n = snprintf(num, sizeof num, fmt, v);
    field(b, name, num, (size_t)n);
}

void rcache_key_sha256_hex(const void *data, size_t size, char hex[RCACHE_KEY_HEX_SIZE])
{
    uint8_t d[CLCPACK_SHA256_SIZE];
    clcpk_digest_sha256(data, size, d);
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof d; i++) {
        hex[2 * i] = digits[d[i] >> 4];
        hex[2 * i + 1] = digits[d[i] & 15];
    }
    hex[64] = '\0';
}

int rcache_key_is_hex_digest(const char *s, size_t len)
{
    if (len != 64)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

char *rcache_key_text(const rcache_key_target *t, const build_job *job, size_t *len)
{
    const clcpack_device_info *d = t->dev;
    strbuf b;
    sb_init(&b);
    field_str(&b, "clc-pack-key", "1");
    char version[32];
    unsigned v = clcpack_version();
    snprintf(version, sizeof version, "%u.%u.%u", v / 10000, v / 100 % 100, v % 100);
    field_str(&b, "tool", version);
    field_fmt(&b, "epoch", "%llu", RCACHE_KEY_EPOCH);
    field_str(&b, "platform_name", d->platform_name);
    field_str(&b, "platform_version", d->platform_version);
    field_str(&b, "device_name", d->device_name);
    field_str(&b, "device_version", d->device_version);
    field_str(&b, "driver_version", d->driver_version);
    field_str(&b, "opencl_c_version", d->opencl_c_version);
    field_fmt(&b, "device_type", "%llx", (unsigned long long)d->device_type);
    field_fmt(&b, "vendor_id", "%llx", d->vendor_id);
    field_fmt(&b, "address_bits", "%llu", d->address_bits);
    /* The device UUID names one card; two cards of a model and driver
     * build the same bytes (clcpack_device_binary_compatible). */
    char uuid[33] = "-";
    if (d->has_uuid)
        for (int i = 0; i < 16; i++)
            snprintf(uuid + 2 * i, 3, "%02x", d->driver_uuid[i]);
    field_str(&b, "driver_uuid", uuid);
    char cc[32];
    snprintf(cc, sizeof cc, "%u.%u", (unsigned)d->nv_cc_major, (unsigned)d->nv_cc_minor);
    field_str(&b, "nv_cc", cc);
    field_str(&b, "forms", t->forms);
    field_str(&b, "ptxas", t->ptxas);
    field_str(&b, "nv_arch", t->nv_arch);
    field_str(&b, "warmup", t->warmup ? "1" : "0");
    field_str(&b, "pocl_grids", t->pocl_small_grids ? "small" : "all");
    if (t->toolchain)
        field_str(&b, "toolchain", t->toolchain);
    if (t->targets)
        field_str(&b, "targets", t->targets);
    field_str(&b, "entry", job->entry_name);
    field_str(&b, "program_entry", job->program_entry ? "1" : "0");
    field_str(&b, "family", job->family);
    field_fmt(&b, "flags", "%llu", job->entry_flags);
    field_str(&b, "options", job->options);
    for (size_t i = 0; i < job->n_defines; i++) {
        const build_job_define *df = &job->defines[i];
        size_t nl = strlen(df->name), vl = strlen(df->value);
        char *nv = malloc(nl + vl + 2);
        if (!nv) {
            sb_free(&b);
            return NULL;
        }
        memcpy(nv, df->name, nl);
        size_t n = nl;
        if (vl) {
            nv[n++] = '=';
            memcpy(nv + n, df->value, vl);
            n += vl;
        }
        field(&b, "define", nv, n);
        free(nv);
    }
    char wg[48];
    snprintf(wg, sizeof wg, "%u,%u,%u", (unsigned)job->wg[0], (unsigned)job->wg[1],
             (unsigned)job->wg[2]);
    field_str(&b, "wg", wg);
    for (size_t i = 0; i < job->n_kernels; i++)
        field_str(&b, "kernel", job->kernels[i]);
    field_str(&b, "check", job->check);
    char src[RCACHE_KEY_HEX_SIZE + 32];
    rcache_key_sha256_hex(job->source, job->source_size, src);
    snprintf(src + 64, sizeof src - 64, " %zu", job->source_size);
    field_str(&b, "source", src);
    sb_put(&b, "", 1); /* the NUL, not counted */
    if (b.failed) {
        sb_free(&b);
        return NULL;
    }
    *len = b.len - 1;
    return (char *)b.data;
}
