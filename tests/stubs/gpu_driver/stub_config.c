/*
 * stub_config.c — the stub's identity, from the environment
 * (tests/stubs/gpu_driver/README.md, "Configuration"). CLCSTUB_DEVICES and the
 * driver and IL versions are read once, when the ICD loader first asks for
 * the platforms; the switches (CLCSTUB_REFUSE_BINARIES, ...) at each call.
 * A device the stub cannot impersonate is reported on stderr and left out.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sha256.h"
#include "stub.h"

#define DEFAULT_DEVICES "intel:tgllp,amd:gfx1030"
#define DEFAULT_INTEL_DRIVER "22.43.24595.41"
#define DEFAULT_AMD_DRIVER "3513.0 (HSA1.1,LC)"
#define DEFAULT_INTEL_IL "SPIR-V_1.0 SPIR-V_1.1 SPIR-V_1.2 SPIR-V_1.3 SPIR-V_1.4 SPIR-V_1.5"

const char *stub_env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

int stub_switch_matches(const char *name, cl_device_id dev)
{
    const char *v = stub_env(name);
    if (!v || strcmp(v, "0") == 0)
        return 0;
    if (strcmp(v, "1") == 0 || strcmp(v, "all") == 0)
        return 1;
    if (!dev)
        return 0;
    /* A comma-separated list of vendors and labels. */
    const char *vendor = dev->vendor == STUB_INTEL ? "intel" : "amd";
    size_t ll = strlen(dev->label), vl = strlen(vendor);
    for (const char *p = v; *p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if ((n == ll && memcmp(p, dev->label, n) == 0) || (n == vl && memcmp(p, vendor, n) == 0))
            return 1;
        p += n + (end ? 1 : 0);
    }
    return 0;
}

static void warn(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "clcstub: ");
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\n");
}

/* "gfx90a:sramecc+:xnack-": the processor and its features; 0 or -1. */
static int parse_amd(const char *id, struct _cl_device_id *d)
{
    const char *colon = strchr(id, ':');
    size_t n = colon ? (size_t)(colon - id) : strlen(id);
    d->amd = stub_amd_find(id, n);
    if (!d->amd) {
        char names[1024];
        stub_amd_names(names, sizeof names);
        warn("CLCSTUB_DEVICES: unknown AMD processor '%s' (known: %s)", id, names);
        return -1;
    }
    d->xnack = d->sramecc = STUB_FEAT_ANY;
    while (colon) {
        const char *f = colon + 1;
        colon = strchr(f, ':');
        size_t len = colon ? (size_t)(colon - f) : strlen(f);
        int *slot = NULL, supported = 0;
        if (len == 6 && strncmp(f, "xnack", 5) == 0) {
            slot = &d->xnack;
            supported = d->amd->has_xnack;
        } else if (len == 8 && strncmp(f, "sramecc", 7) == 0) {
            slot = &d->sramecc;
            supported = d->amd->has_sramecc;
        }
        char sign = len ? f[len - 1] : 0;
        if (!slot || (sign != '+' && sign != '-')) {
            warn("CLCSTUB_DEVICES: '%s': unknown feature in '%s' (xnack+/-, sramecc+/-)", id, f);
            return -1;
        }
        if (!supported) {
            warn("CLCSTUB_DEVICES: '%s': the processor has no such feature ('%s')", id, f);
            return -1;
        }
        *slot = sign == '+' ? STUB_FEAT_ON : STUB_FEAT_OFF;
    }
    snprintf(d->name, sizeof d->name, "%s", id);
    return 0;
}

static void make_uuids(struct _cl_device_id *d)
{
    char text[256];
    uint8_t digest[32];
    clcpk_sha256 s;
    /* The driver UUID follows the driver version (as NEO's does): a driver
     * update changes it. The device UUID names the card. */
    snprintf(text, sizeof text, "clcstub driver %d %s", d->vendor, d->driver);
    clcpk_sha256_init(&s);
    clcpk_sha256_update(&s, text, strlen(text));
    clcpk_sha256_final(&s, digest);
    memcpy(d->driver_uuid, digest, 16);
    snprintf(text, sizeof text, "clcstub device %u %s", d->index, d->label);
    clcpk_sha256_init(&s);
    clcpk_sha256_update(&s, text, strlen(text));
    clcpk_sha256_final(&s, digest);
    memcpy(d->device_uuid, digest, 16);
}

static void trim_copy(char *dst, size_t cap, const char *s, size_t n)
{
    while (n && isspace((unsigned char)*s)) {
        s++;
        n--;
    }
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, s, n);
    dst[n] = '\0';
}

unsigned stub_config_load(struct _cl_platform_id plats[2], struct _cl_device_id *devs,
                          unsigned *n_devs)
{
    const char *spec = stub_env("CLCSTUB_DEVICES");
    if (!spec)
        spec = DEFAULT_DEVICES;
    const char *intel_driver = stub_env("CLCSTUB_INTEL_DRIVER_VERSION");
    const char *amd_driver = stub_env("CLCSTUB_AMD_DRIVER_VERSION");
    /* Set but empty means "no IL": getenv, not stub_env. */
    const char *il = getenv("CLCSTUB_INTEL_IL_VERSION");
    if (!il)
        il = DEFAULT_INTEL_IL;
    *n_devs = 0;
    for (const char *p = spec; *p && *n_devs < STUB_MAX_DEVICES;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        struct _cl_device_id *d = &devs[*n_devs];
        memset(d, 0, sizeof *d);
        trim_copy(d->label, sizeof d->label, p, n);
        p += n + (end ? 1 : 0);
        if (!d->label[0])
            continue;
        d->dispatch = &stub_dispatch;
        d->magic = STUB_MAGIC_DEVICE;
        d->index = *n_devs;
        const char *target = strchr(d->label, ':');
        int ok = -1;
        if (target && strncmp(d->label, "intel:", 6) == 0) {
            d->vendor = STUB_INTEL;
            d->intel = stub_intel_find(target + 1);
            if (!d->intel && stub_intel_stepping(target + 1, &d->intel_own) == 0)
                d->intel = &d->intel_own;
            if (d->intel) {
                snprintf(d->name, sizeof d->name, "%s", d->intel->marketing);
                snprintf(d->driver, sizeof d->driver, "%s",
                         intel_driver ? intel_driver : DEFAULT_INTEL_DRIVER);
                snprintf(d->il_versions, sizeof d->il_versions, "%s", il);
                ok = 0;
            } else {
                char names[512];
                stub_intel_names(names, sizeof names);
                warn("CLCSTUB_DEVICES: unknown Intel target '%s' (known: %s, or an IP version "
                     "of one of them, any revision, such as 12.55.4)",
                     target + 1, names);
            }
        } else if (target && strncmp(d->label, "amd:", 4) == 0) {
            d->vendor = STUB_AMD;
            ok = parse_amd(target + 1, d);
            snprintf(d->driver, sizeof d->driver, "%s", amd_driver ? amd_driver : DEFAULT_AMD_DRIVER);
        } else {
            warn("CLCSTUB_DEVICES: '%s' is not intel:TARGET or amd:GFX%s", d->label, "");
        }
        if (ok != 0)
            continue;
        make_uuids(d);
        (*n_devs)++;
    }
    /* One platform per vendor, in the order the vendors first appear. */
    unsigned n_plats = 0;
    for (unsigned i = 0; i < *n_devs; i++) {
        cl_platform_id pl = NULL;
        for (unsigned k = 0; k < n_plats; k++)
            if (plats[k].vendor == devs[i].vendor)
                pl = &plats[k];
        if (!pl) {
            pl = &plats[n_plats++];
            memset(pl, 0, sizeof *pl);
            pl->dispatch = &stub_dispatch;
            pl->magic = STUB_MAGIC_PLATFORM;
            pl->vendor = devs[i].vendor;
            if (pl->vendor == STUB_INTEL) {
                snprintf(pl->version, sizeof pl->version, "OpenCL 3.0 ");
            } else {
                /* ROCm: "OpenCL 2.1 AMD-APP (3513.0)", the driver's first word. */
                size_t w = strcspn(devs[i].driver, " ");
                snprintf(pl->version, sizeof pl->version, "OpenCL 2.1 AMD-APP (%.*s)", (int)w,
                         devs[i].driver);
            }
        }
        devs[i].platform = pl;
        pl->devices[pl->n_devices++] = &devs[i];
    }
    return n_plats;
}
