/* target_match.c — offline targets, parsed and matched (target_match.h). */
#include "target_match.h"

#include <stdio.h>
#include <string.h>

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* One ":name+" or ":name-" item at s (after the colon) of length n. */
static int parse_feature(const char *s, size_t n, int allow_other, pk_gfx *g, unsigned seen[2])
{
    if (n < 2 || (s[n - 1] != '+' && s[n - 1] != '-'))
        return -1;
    unsigned v = s[n - 1] == '+' ? PK_FEAT_ON : PK_FEAT_OFF;
    size_t name = n - 1;
    if (name == 7 && memcmp(s, "sramecc", 7) == 0) {
        if (seen[0]++)
            return -1;
        g->sramecc = v;
        return 0;
    }
    if (name == 5 && memcmp(s, "xnack", 5) == 0) {
        if (seen[1]++)
            return -1;
        g->xnack = v;
        return 0;
    }
    for (size_t i = 0; i < name; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return -1;
    return allow_other ? 0 : -1;
}

int clcpk_gfx_parse(const char *id, int allow_other, pk_gfx *out)
{
    memset(out, 0, sizeof *out);
    if (!id || strncmp(id, "gfx", 3) != 0)
        return -1;
    const char *p = id + 3;
    size_t n = strcspn(p, ":");
    if (n < 3 || n > 4)
        return -1;
    unsigned major = 0;
    for (size_t i = 0; i + 2 < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        major = major * 10 + (unsigned)(p[i] - '0');
    }
    int minor = hex_digit(p[n - 2]), stepping = hex_digit(p[n - 1]);
    if (major == 0 || minor < 0 || stepping < 0 || (n == 4 && p[0] == '0'))
        return -1;
    out->major = major;
    out->minor = (unsigned)minor;
    out->stepping = (unsigned)stepping;
    unsigned seen[2] = {0, 0};
    for (p += n; *p == ':';) {
        p++;
        size_t k = strcspn(p, ":");
        if (parse_feature(p, k, allow_other, out, seen) != 0)
            return -1;
        p += k;
    }
    return *p == '\0' ? 0 : -1;
}

uint32_t clcpk_gfx_arch(const pk_gfx *g)
{
    return (uint32_t)g->xnack << 28 | (uint32_t)g->sramecc << 26 | (uint32_t)g->major << 16 |
           (uint32_t)g->minor << 8 | (uint32_t)g->stepping;
}

void clcpk_gfx_from_arch(uint32_t arch, pk_gfx *g)
{
    g->xnack = arch >> 28 & 3;
    g->sramecc = arch >> 26 & 3;
    g->major = arch >> 16 & 0xff;
    g->minor = arch >> 8 & 0xff;
    g->stepping = arch & 0xff;
}

void clcpk_gfx_name(const pk_gfx *g, char *buf, size_t cap)
{
    static const char digits[] = "0123456789abcdef";
    snprintf(buf, cap, "gfx%u%c%c%s%s%s%s", g->major, digits[g->minor & 15],
             digits[g->stepping & 15], g->sramecc ? ":sramecc" : "",
             g->sramecc == PK_FEAT_ON ? "+" : g->sramecc ? "-" : "", g->xnack ? ":xnack" : "",
             g->xnack == PK_FEAT_ON ? "+" : g->xnack ? "-" : "");
}

int clcpk_gfx_fits(const pk_gfx *entry, const pk_gfx *dev)
{
    if (entry->major != dev->major || entry->minor != dev->minor ||
        entry->stepping != dev->stepping)
        return 0;
    /* A device name without the feature says nothing of it: only an entry
     * that leaves it unspecified is sure to fit. */
    return (entry->sramecc == PK_FEAT_ANY || entry->sramecc == dev->sramecc) &&
           (entry->xnack == PK_FEAT_ANY || entry->xnack == dev->xnack);
}

/* "M.m" at s: *word and the characters read, or 0. */
static size_t parse_version(const char *s, uint32_t *word)
{
    unsigned major = 0, minor = 0;
    size_t i = 0, digits = 0;
    while (s[i] >= '0' && s[i] <= '9' && digits < 3)
        major = major * 10 + (unsigned)(s[i++] - '0'), digits++;
    if (!digits || s[i] != '.')
        return 0;
    i++;
    digits = 0;
    while (s[i] >= '0' && s[i] <= '9' && digits < 3)
        minor = minor * 10 + (unsigned)(s[i++] - '0'), digits++;
    if (!digits || major > 255 || minor > 255)
        return 0;
    *word = major << 16 | minor << 8;
    return i;
}

int clcpk_spirv_parse(const char *text, uint32_t *word)
{
    if (!text || strncmp(text, "SPIR-V", 6) != 0 || (text[6] != '_' && text[6] != ' '))
        return -1;
    size_t n = parse_version(text + 7, word);
    return n && text[7 + n] == '\0' ? 0 : -1;
}

int clcpk_il_takes(const char *il, uint32_t word)
{
    for (const char *p = il; p && *p;) {
        p += strspn(p, " \t");
        size_t n = strcspn(p, " \t");
        uint32_t v;
        if (n > 7 && strncmp(p, "SPIR-V", 6) == 0 && (p[6] == '_' || p[6] == ' ') &&
            parse_version(p + 7, &v) == n - 7 && v >= word)
            return 1;
        p += n;
    }
    return 0;
}

const char *clcpk_kind_name(uint32_t kind)
{
    static const char *const names[] = {"native", "ptx", "cubin", "intel", "amdgcn", "spirv"};
    return kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}

void clcpk_version_text(uint32_t v, char *buf, size_t cap)
{
    snprintf(buf, cap, "%u.%u.%u", v >> 22, v >> 12 & 0x3ff, v & 0xfff);
}

const char *clcpk_target_problem(uint32_t kind, uint32_t arch, const char *target)
{
    size_t n = target ? strlen(target) : 0;
    if (kind < CLCPACK_KIND_INTEL)
        return n ? "a target on an entry of kind 0-2" : NULL;
    if (n == 0)
        return "no target on an offline entry";
    if (n > CLCPACK_TARGET_MAX)
        return "a target name longer than 63 bytes";
    if (kind == CLCPACK_KIND_AMDGCN) {
        pk_gfx g;
        char canon[64];
        if (clcpk_gfx_parse(target, 0, &g) != 0)
            return "the target is not a gfx target ID";
        clcpk_gfx_name(&g, canon, sizeof canon);
        if (strcmp(canon, target) != 0)
            return "the target ID is not in its canonical spelling";
        return clcpk_gfx_arch(&g) == arch ? NULL : "the arch is not the target ID's";
    }
    if (kind == CLCPACK_KIND_SPIRV) {
        uint32_t w;
        if (clcpk_spirv_parse(target, &w) != 0 || target[6] != '_')
            return "the target is not SPIR-V_M.m";
        return w == arch ? NULL : "the arch is not the SPIR-V version's";
    }
    return kind == CLCPACK_KIND_INTEL && arch != 0 ? NULL : "an Intel entry of arch 0";
}
