/* ptx_retarget.c — .target/.version rewriting and the portable form (ptx_retarget.h). */
#include "ptx_retarget.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "bounded_fmt.h"

/* Targets tried for the portable form, oldest first, and the PTX ISA
 * version that introduced each (NVIDIA's PTX ISA reference). A ptxas that
 * does not know one refuses it at once. */
static const struct {
    uint32_t arch, version;
} TARGETS[] = {{50, 40},  {52, 41},  {53, 42},  {60, 50},  {61, 50},  {62, 50},  {70, 60},
               {72, 61},  {75, 63},  {80, 70},  {86, 71},  {87, 74},  {89, 78},  {90, 78},
               {100, 86}, {101, 86}, {103, 88}, {110, 90}, {120, 87}, {121, 88}};
#define N_TARGETS (sizeof TARGETS / sizeof TARGETS[0])

/* PTX ISA versions, in increasing order. */
static const uint32_t VERSIONS[] = {40, 41, 42, 43, 50, 60, 61, 62, 63, 64, 65, 70, 71, 72, 73,
                                    74, 75, 76, 77, 78, 80, 81, 82, 83, 84, 85, 86, 87, 88, 90};
#define N_VERSIONS (sizeof VERSIONS / sizeof VERSIONS[0])

uint32_t ptx_retarget_min_version(uint32_t arch)
{
    for (size_t i = 0; i < N_TARGETS; i++)
        if (TARGETS[i].arch == arch)
            return TARGETS[i].version;
    return 0;
}

/* The span [*start, *end) of the version number after ".version". */
static int version_span(const char *t, size_t len, size_t *start, size_t *end)
{
    size_t i = ptx_text_find_directive(t, len, ".version");
    if (i >= len)
        return -1;
    i += strlen(".version");
    while (i < len && (t[i] == ' ' || t[i] == '\t'))
        i++;
    *start = i;
    while (i < len && (isdigit((unsigned char)t[i]) || t[i] == '.'))
        i++;
    *end = i;
    return *end > *start ? 0 : -1;
}

int ptx_retarget_version(const void *text, size_t len, uint32_t *version)
{
    const char *t = text;
    size_t s, e;
    if (version_span(t, len, &s, &e) != 0)
        return -1;
    uint32_t major = 0;
    size_t i = s;
    while (i < e && isdigit((unsigned char)t[i]) && i - s < 3)
        major = major * 10 + (uint32_t)(t[i++] - '0');
    /* One minor digit: "9.0", "7.8"; what has more is not a known version. */
    if (i == s || i + 2 != e || t[i] != '.' || !isdigit((unsigned char)t[i + 1]))
        return -1;
    *version = major * 10 + (uint32_t)(t[i + 1] - '0');
    return 0;
}

/* The span of the sm_ item of the ".target" directive's list. */
static int target_span(const char *t, size_t len, size_t *start, size_t *end)
{
    size_t i = ptx_text_find_directive(t, len, ".target");
    if (i >= len)
        return -1;
    i += strlen(".target");
    while (i < len && t[i] != '\n') {
        while (i < len && (t[i] == ' ' || t[i] == '\t' || t[i] == ','))
            i++;
        size_t s = i;
        while (i < len && (isalnum((unsigned char)t[i]) || t[i] == '_'))
            i++;
        if (i - s > 3 && memcmp(t + s, "sm_", 3) == 0) {
            *start = s;
            *end = i;
            return 0;
        }
        if (i == s)
            break;
    }
    return -1;
}

static int valid_arch_name(const char *name)
{
    if (strncmp(name, "sm_", 3) != 0 || !isdigit((unsigned char)name[3]))
        return 0;
    const char *c = name + 3;
    while (isdigit((unsigned char)*c))
        c++;
    if (isalpha((unsigned char)*c))
        c++;
    return *c == '\0' && strlen(name) < PTX_TEXT_ARCH_NAME_MAX;
}

int ptx_retarget(const void *text, size_t len, const char *arch_name, uint32_t version,
                 char **out, size_t *out_len)
{
    const char *t = text;
    *out = NULL;
    *out_len = 0;
    size_t ts, te, vs = 0, ve = 0;
    if (!valid_arch_name(arch_name) || target_span(t, len, &ts, &te) != 0)
        return -1;
    char vtext[16] = "";
    if (version) {
        if (version_span(t, len, &vs, &ve) != 0 || version > 999)
            return -1;
        bfmt(vtext, sizeof vtext, "%u.%u", (unsigned)(version / 10), (unsigned)(version % 10));
    }
    /* Two replacements, in the order they appear in the text. */
    struct replacement {
        size_t start, end;
        const char *with;
    } rep[2] = {{ts, te, arch_name}, {vs, ve, vtext}};
    size_t n_rep = version ? 2 : 1;
    if (n_rep == 2 && rep[1].start < rep[0].start) {
        struct replacement first = rep[1];
        rep[1] = rep[0];
        rep[0] = first;
    }
    size_t total = len + 1;
    for (size_t k = 0; k < n_rep; k++)
        total += strlen(rep[k].with);
    char *buf = malloc(total);
    if (!buf)
        return -1;
    size_t o = 0, from = 0;
    for (size_t k = 0; k < n_rep; k++) {
        memcpy(buf + o, t + from, rep[k].start - from);
        o += rep[k].start - from;
        size_t wl = strlen(rep[k].with);
        memcpy(buf + o, rep[k].with, wl);
        o += wl;
        from = rep[k].end;
    }
    memcpy(buf + o, t + from, len - from);
    o += len - from;
    buf[o] = '\0';
    *out = buf;
    *out_len = o;
    return 0;
}

/* One probe of (arch_name, version); 1, 0 or -1 as the probe answers, -1
 * also when the form cannot be made. */
static int try_form(const void *text, size_t len, const char *arch_name, uint32_t version,
                    ptx_retarget_probe_fn probe, void *ctx, int *tries)
{
    char *form;
    size_t n;
    if (ptx_retarget(text, len, arch_name, version, &form, &n) != 0)
        return -1;
    (*tries)++;
    int r = probe(ctx, form, n, arch_name);
    free(form);
    return r;
}

int ptx_retarget_portable(const void *text, size_t len, ptx_retarget_probe_fn probe, void *ctx, char **out,
                 size_t *out_len, uint32_t *arch, uint32_t *version, int *tries)
{
    char own_name[PTX_TEXT_ARCH_NAME_MAX], name[PTX_TEXT_ARCH_NAME_MAX];
    uint32_t own_arch, own_version;
    *tries = 0;
    if (ptx_text_target(text, len, own_name, &own_arch) != 0 ||
        ptx_retarget_version(text, len, &own_version) != 0)
        return -1;
    /* The lowest target below the text's own that is accepted with the
     * text's own version. */
    uint32_t best_arch = own_arch;
    bfmt(name, sizeof name, "%s", own_name);
    for (size_t i = 0; i < N_TARGETS && TARGETS[i].arch < own_arch; i++) {
        if (TARGETS[i].version > own_version)
            continue;
        char cand[PTX_TEXT_ARCH_NAME_MAX];
        bfmt(cand, sizeof cand, "sm_%u", (unsigned)TARGETS[i].arch);
        int r = try_form(text, len, cand, 0, probe, ctx, tries);
        if (r < 0)
            return -1;
        if (r == 1) {
            best_arch = TARGETS[i].arch;
            bfmt(name, sizeof name, "%s", cand);
            break;
        }
    }
    /* The lowest version with that target: binary search over the known
     * versions from the target's first one up to, not including, the
     * text's own (which is known to work). */
    uint32_t floor = ptx_retarget_min_version(best_arch);
    size_t lo = 0, hi = 0;
    while (lo < N_VERSIONS && VERSIONS[lo] < floor)
        lo++;
    hi = lo;
    while (hi < N_VERSIONS && VERSIONS[hi] < own_version)
        hi++;
    size_t top = hi;
    /* The target's first version first: the code NVIDIA's compiler emits
     * for OpenCL C rarely needs a later one, and then one probe settles it. */
    if (floor && lo < hi) {
        int r = try_form(text, len, name, VERSIONS[lo], probe, ctx, tries);
        if (r < 0)
            return -1;
        if (r == 1)
            hi = lo;
        else
            lo++;
    }
    while (floor && lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int r = try_form(text, len, name, VERSIONS[mid], probe, ctx, tries);
        if (r < 0)
            return -1;
        if (r == 1)
            hi = mid;
        else
            lo = mid + 1;
    }
    uint32_t best_version = (floor && lo < top) ? VERSIONS[lo] : own_version;
    if (ptx_retarget(text, len, name, best_version == own_version ? 0 : best_version, out,
                     out_len) != 0)
        return -1;
    *arch = best_arch;
    *version = best_version;
    return 0;
}
