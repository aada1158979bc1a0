/* pack_text.c — names and labels of pack records (pack_text.h). */
#include "pack_text.h"

#include <string.h>

#include "bounded_fmt.h"
#include "text_format.h"

/* Length of the valid UTF-8 sequence at s (2 to 4), or 0. */
static size_t utf8_len(const unsigned char *s)
{
    size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (s[0] > 0xf4)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if (n == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0)))
        return 0; /* overlong, or a UTF-16 surrogate */
    if (n == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90)))
        return 0;
    /* U+0080-U+009F are the C1 controls (0x9b is CSI). */
    if (n == 2 && s[0] == 0xc2 && s[1] < 0xa0)
        return 0;
    return n;
}

const char *pack_text_esc(const char *s, char *buf, size_t cap)
{
    static const char hex[] = "0123456789abcdef";
    size_t len = 0;
    const unsigned char *c = (const unsigned char *)(s ? s : "");
    while (*c) {
        char piece[5];
        size_t n, adv = 1;
        if (*c == '\\') {
            memcpy(piece, "\\\\", 2);
            n = 2;
        } else if (*c >= 0x20 && *c < 0x7f) {
            piece[0] = (char)*c;
            n = 1;
        } else if (*c >= 0x80 && (adv = utf8_len(c)) != 0) {
            memcpy(piece, c, adv);
            n = adv;
        } else {
            adv = 1;
            piece[0] = '\\';
            piece[1] = 'x';
            piece[2] = hex[*c >> 4];
            piece[3] = hex[*c & 15];
            n = 4;
        }
        if (len + n + 1 > cap)
            break;
        memcpy(buf + len, piece, n);
        len += n;
        c += adv;
    }
    if (cap)
        buf[len] = '\0';
    return buf;
}

const char *pack_text_kind_name(clcpack_binary_kind k, char *buf, size_t cap)
{
    switch (k) {
    case CLCPACK_KIND_NATIVE:
        return bfmt(buf, cap, "native");
    case CLCPACK_KIND_PTX:
        return bfmt(buf, cap, "ptx");
    case CLCPACK_KIND_CUBIN:
        return bfmt(buf, cap, "cubin");
    case CLCPACK_KIND_INTEL:
        return bfmt(buf, cap, "intel");
    case CLCPACK_KIND_AMDGCN:
        return bfmt(buf, cap, "amdgcn");
    case CLCPACK_KIND_SPIRV:
        return bfmt(buf, cap, "spirv");
    }
    return bfmt(buf, cap, "kind %u", (unsigned)k);
}

const char *pack_text_codec_name(uint32_t codec, char *buf, size_t cap)
{
    switch (codec) {
    case 0:
        return bfmt(buf, cap, "stored");
    case 1:
        return bfmt(buf, cap, "zlib");
    case 2:
        return bfmt(buf, cap, "xor-delta");
    case 3:
        return bfmt(buf, cap, "zstd");
    case 4:
        return bfmt(buf, cap, "zstd-dict");
    case 5:
        return bfmt(buf, cap, "zstd-prefix");
    }
    return bfmt(buf, cap, "codec %u", (unsigned)codec);
}

int pack_text_parse_codec(const char *name, clcpack_compression *out, char *msg, size_t cap)
{
    if (strcmp(name, "zlib") == 0) {
        *out = CLCPACK_COMPRESSION_ZLIB;
        return 0;
    }
    if (strcmp(name, "zstd") != 0) {
        bfmt(msg, cap, "--codec '%s': expected zlib or zstd", name);
        return -1;
    }
    if (!clcpack_compression_available(CLCPACK_COMPRESSION_ZSTD)) {
        bfmt(msg, cap,
             "--codec zstd: this clc-pack was built without zstd (make ZSTD=0); it writes "
             "zlib packs only");
        return -2;
    }
    *out = CLCPACK_COMPRESSION_ZSTD;
    return 0;
}

void pack_text_wg(const uint32_t wg[3], char *buf, size_t cap)
{
    clcpk_wg_text(wg, "-", buf, cap);
}

void pack_text_defines(const clcpack_entry_info *e, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < e->define_count && len + 1 < cap; i++) {
        char name[256], value[512];
        bfmt(buf + len, cap - len, "%s%s%s%s", i ? "," : "",
             pack_text_esc(e->defines[i].name, name, sizeof name), e->defines[i].value[0] ? "=" : "",
             pack_text_esc(e->defines[i].value, value, sizeof value));
        len = strlen(buf);
    }
    if (e->define_count == 0)
        bfmt(buf, cap, "-");
}

void pack_text_entry_label(const clcpack_entry_info *e, char *buf, size_t cap)
{
    char kernel[256], defs[512], wg[48], kind[32];
    pack_text_defines(e, defs, sizeof defs);
    pack_text_wg(e->wg, wg, sizeof wg);
    pack_text_kind_name(e->kind, kind, sizeof kind);
    bfmt(buf, cap, "%s %s wg=%s %s%s%s", pack_text_esc(e->kernel, kernel, sizeof kernel), defs, wg, kind,
         e->target[0] ? "/" : "", e->target);
}

void pack_text_key_label(const clcpack_entry_info *e, char *buf, size_t cap)
{
    char kernel[256], defs[512], wg[48];
    pack_text_defines(e, defs, sizeof defs);
    pack_text_wg(e->wg, wg, sizeof wg);
    bfmt(buf, cap, "%s %s wg=%s", pack_text_esc(e->kernel, kernel, sizeof kernel), defs, wg);
}


clcpack_key pack_text_key(const clcpack_entry_info *e)
{
    clcpack_key k;
    k.kernel = e->kernel;
    k.defines = e->defines;
    k.define_count = e->define_count;
    memcpy(k.wg, e->wg, sizeof k.wg);
    return k;
}
