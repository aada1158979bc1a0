/*
 * stub_targets.c — the GPUs the stub can impersonate.
 *
 * Intel: the ocloc 22.43 target names with what that ocloc writes into
 * their binaries (measured on Debian 12's intel-opencl-icd): the IP version
 * (`ocloc ids NAME`), the product family of a zebin's .note.intelgt.compat
 * (note type 1) and the GFXCORE family and stepping of a patchtokens
 * binary's program header. The PCI ids and names are one real device of
 * each target.
 *
 * AMD: every gfx processor clang-15 knows, with the EF_AMDGPU_MACH value
 * it writes into e_flags and whether it writes the xnack (0x100) and
 * sramecc (0x400) "any" bits for it, which says the processor has those
 * features (measured with clang-15 -target amdgcn-amd-amdhsa -mcpu=gfxN;
 * tests/device/test_gpu_stub.c compares the table with clang-15 when it is there).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stub.h"

#define V(a, b, c) CL_MAKE_VERSION(a, b, c)

static const stub_intel_target intel_targets[] = {
    {"skl", V(9, 0, 9), 18, 12, 9, 0x1912, "Intel(R) HD Graphics 530", 24, 1, 1},
    {"tgllp", V(12, 0, 0), 29, 18, 0, 0x9a49, "Intel(R) Iris(R) Xe Graphics", 96, 0, 1},
    {"adl-s", V(12, 2, 0), 31, 18, 0, 0x4680, "Intel(R) UHD Graphics 770", 32, 0, 1},
    {"dg1", V(12, 10, 0), 1210, 18, 0, 0x4905, "Intel(R) Iris(R) Xe MAX Graphics", 96, 0, 0},
    {"dg2-g10", V(12, 55, 8), 1270, 3079, 8, 0x56a0, "Intel(R) Arc(TM) A770 Graphics", 512, 0,
     0},
    {"dg2-g11", V(12, 56, 5), 1270, 3079, 5, 0x5693, "Intel(R) Arc(TM) A370M Graphics", 128, 0,
     0},
    {"pvc", V(12, 60, 7), 1271, 3080, 7, 0x0bd5, "Intel(R) Data Center GPU Max 1550", 1024, 1,
     0},
};

static const stub_amd_target amd_targets[] = {
    {"gfx600", 0x20, 0, 0, "AMD Radeon HD 7970", 64, 32},
    {"gfx601", 0x21, 0, 0, "AMD Radeon HD 7790", 64, 14},
    {"gfx602", 0x3a, 0, 0, "AMD Radeon Graphics", 64, 8},
    {"gfx700", 0x22, 0, 0, "AMD FirePro W9100", 64, 44},
    {"gfx701", 0x23, 0, 0, "AMD FirePro W9100", 64, 44},
    {"gfx702", 0x24, 0, 0, "AMD Radeon R9 290", 64, 40},
    {"gfx703", 0x25, 0, 0, "AMD Radeon Graphics", 64, 8},
    {"gfx704", 0x26, 0, 0, "AMD Radeon Graphics", 64, 8},
    {"gfx705", 0x3b, 0, 0, "AMD Radeon Graphics", 64, 8},
    {"gfx801", 0x28, 1, 0, "AMD Radeon Graphics", 64, 8},
    {"gfx802", 0x29, 0, 0, "AMD Radeon R9 285", 64, 28},
    {"gfx803", 0x2a, 0, 0, "AMD Radeon RX 580", 64, 36},
    {"gfx805", 0x3c, 0, 0, "AMD Radeon Graphics", 64, 8},
    {"gfx810", 0x2b, 1, 0, "AMD Radeon Graphics", 64, 8},
    {"gfx900", 0x2c, 1, 0, "Radeon RX Vega", 64, 64},
    {"gfx902", 0x2d, 1, 0, "AMD Radeon Vega 8 Graphics", 64, 8},
    {"gfx904", 0x2e, 1, 0, "Radeon RX Vega", 64, 56},
    {"gfx906", 0x2f, 1, 1, "AMD Radeon VII", 64, 60},
    {"gfx908", 0x30, 1, 1, "AMD Instinct MI100", 64, 120},
    {"gfx909", 0x31, 1, 0, "AMD Radeon Graphics", 64, 8},
    {"gfx90a", 0x3f, 1, 1, "AMD Instinct MI210", 64, 104},
    {"gfx90c", 0x32, 1, 0, "AMD Radeon Graphics", 64, 8},
    {"gfx940", 0x40, 1, 1, "AMD Instinct MI300", 64, 228},
    {"gfx1010", 0x33, 1, 0, "AMD Radeon RX 5700 XT", 32, 40},
    {"gfx1011", 0x34, 1, 0, "AMD Radeon Pro V520", 32, 36},
    {"gfx1012", 0x35, 1, 0, "AMD Radeon RX 5500 XT", 32, 22},
    {"gfx1013", 0x42, 1, 0, "AMD Radeon Graphics", 32, 8},
    {"gfx1030", 0x36, 0, 0, "AMD Radeon RX 6800 XT", 32, 72},
    {"gfx1031", 0x37, 0, 0, "AMD Radeon RX 6700 XT", 32, 40},
    {"gfx1032", 0x38, 0, 0, "AMD Radeon RX 6600 XT", 32, 32},
    {"gfx1033", 0x39, 0, 0, "AMD Custom GPU 0405", 32, 8},
    {"gfx1034", 0x3e, 0, 0, "AMD Radeon RX 6500 XT", 32, 16},
    {"gfx1035", 0x3d, 0, 0, "AMD Radeon 680M", 32, 12},
    {"gfx1036", 0x45, 0, 0, "AMD Radeon Graphics", 32, 2},
    {"gfx1100", 0x41, 0, 0, "AMD Radeon RX 7900 XTX", 32, 96},
    {"gfx1101", 0x46, 0, 0, "AMD Radeon RX 7800 XT", 32, 60},
    {"gfx1102", 0x47, 0, 0, "AMD Radeon RX 7600", 32, 32},
    {"gfx1103", 0x44, 0, 0, "AMD Radeon 780M", 32, 12},
};

#define N_INTEL (sizeof intel_targets / sizeof intel_targets[0])
#define N_AMD (sizeof amd_targets / sizeof amd_targets[0])

/* "12.55.8" as a cl_version, or 0. */
static uint32_t parse_ip(const char *s)
{
    unsigned a, b, c;
    char tail;
    if (sscanf(s, "%u.%u.%u%c", &a, &b, &c, &tail) != 3 || a > 1023 || b > 1023 || c > 4095)
        return 0;
    return V(a, b, c);
}

/* ocloc's other names of a target (`ocloc ids acm-g10` is 12.55.8 too). */
static const char *const intel_aliases[][2] = {
    {"acm-g10", "dg2-g10"},
    {"acm-g11", "dg2-g11"},
};

const stub_intel_target *stub_intel_find(const char *name_or_ip)
{
    uint32_t ip = parse_ip(name_or_ip);
    for (size_t a = 0; a < sizeof intel_aliases / sizeof intel_aliases[0]; a++)
        if (strcmp(name_or_ip, intel_aliases[a][0]) == 0)
            name_or_ip = intel_aliases[a][1];
    for (size_t i = 0; i < N_INTEL; i++)
        if ((ip && intel_targets[i].ip_version == ip) ||
            strcmp(intel_targets[i].name, name_or_ip) == 0)
            return &intel_targets[i];
    return NULL;
}

int stub_intel_stepping(const char *ip_text, stub_intel_target *out)
{
    uint32_t ip = parse_ip(ip_text);
    for (size_t i = 0; ip && i < N_INTEL; i++)
        if (CL_VERSION_MAJOR(intel_targets[i].ip_version) == CL_VERSION_MAJOR(ip) &&
            CL_VERSION_MINOR(intel_targets[i].ip_version) == CL_VERSION_MINOR(ip)) {
            *out = intel_targets[i];
            out->ip_version = ip;
            out->revision = CL_VERSION_PATCH(ip);
            return 0;
        }
    return -1;
}

const stub_amd_target *stub_amd_find(const char *name, size_t len)
{
    for (size_t i = 0; i < N_AMD; i++)
        if (strlen(amd_targets[i].name) == len && memcmp(amd_targets[i].name, name, len) == 0)
            return &amd_targets[i];
    return NULL;
}

const stub_amd_target *stub_amd_by_mach(uint32_t mach)
{
    for (size_t i = 0; i < N_AMD; i++)
        if (amd_targets[i].mach == mach)
            return &amd_targets[i];
    return NULL;
}

void stub_intel_names(char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < N_INTEL && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? ", " : "", intel_targets[i].name);
}

void stub_amd_names(char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < N_AMD && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? ", " : "", amd_targets[i].name);
}
