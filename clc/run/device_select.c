/* device_select.c — enumerating and choosing OpenCL devices (device_select.h). */
#include "device_select.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bounded_fmt.h"
#include "cl_error_name.h"

#define SLUG_LEN 40

static void info_string(cl_device_id d, cl_device_info what, char out[DEVICE_SELECT_NAME_MAX])
{
    out[0] = '\0';
    if (clGetDeviceInfo(d, what, DEVICE_SELECT_NAME_MAX - 1, out, NULL) != CL_SUCCESS)
        bfmt(out, DEVICE_SELECT_NAME_MAX, "?");
    out[DEVICE_SELECT_NAME_MAX - 1] = '\0';
}

int device_select_enumerate(device_select_list *out, char err[DEVICE_SELECT_ERR_MAX])
{
    memset(out, 0, sizeof *out);
    cl_uint np = 0;
    cl_int rc = clGetPlatformIDs(0, NULL, &np);
    /* -1001 is CL_PLATFORM_NOT_FOUND_KHR: the ICD loader found no driver. */
    if (rc == -1001 || (rc == CL_SUCCESS && np == 0)) {
        bfmt(err, DEVICE_SELECT_ERR_MAX,
             "no OpenCL platform found: no driver is registered in /etc/OpenCL/vendors "
             "(for the CPU, install pocl-opencl-icd)");
        return -1;
    }
    if (rc != CL_SUCCESS) {
        char cl[CLCPK_CL_ERROR_MAX];
        bfmt(err, DEVICE_SELECT_ERR_MAX, "clGetPlatformIDs failed with %s",
             clcpk_cl_error_name(rc, cl, sizeof cl));
        return -1;
    }
    cl_platform_id plats[DEVICE_SELECT_MAX_DEVICES];
    out->n_left_out = 0;
    out->n_platforms_left_out = np > DEVICE_SELECT_MAX_DEVICES ? np - DEVICE_SELECT_MAX_DEVICES : 0;
    if (np > DEVICE_SELECT_MAX_DEVICES)
        np = DEVICE_SELECT_MAX_DEVICES;
    rc = clGetPlatformIDs(np, plats, NULL);
    if (rc != CL_SUCCESS) {
        char cl[CLCPK_CL_ERROR_MAX];
        bfmt(err, DEVICE_SELECT_ERR_MAX, "clGetPlatformIDs failed with %s",
             clcpk_cl_error_name(rc, cl, sizeof cl));
        return -1;
    }
    out->n_platforms = np;
    for (cl_uint p = 0; p < np; p++) {
        char *pname = out->platform_names[p];
        if (clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, DEVICE_SELECT_NAME_MAX - 1, pname, NULL) !=
            CL_SUCCESS)
            bfmt(pname, DEVICE_SELECT_NAME_MAX, "platform %u", (unsigned)p);
        pname[DEVICE_SELECT_NAME_MAX - 1] = '\0';
        cl_uint nd = 0;
        rc = clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
        if (rc == CL_DEVICE_NOT_FOUND || nd == 0)
            continue;
        if (rc != CL_SUCCESS) {
            char cl[CLCPK_CL_ERROR_MAX];
            bfmt(err, DEVICE_SELECT_ERR_MAX, "clGetDeviceIDs on platform %u (%s) failed with %s",
                 (unsigned)p, pname, clcpk_cl_error_name(rc, cl, sizeof cl));
            return -1;
        }
        cl_device_id devs[DEVICE_SELECT_MAX_DEVICES];
        size_t room = DEVICE_SELECT_MAX_DEVICES - out->n;
        out->n_left_out += nd > room ? nd - room : 0;
        if (nd > DEVICE_SELECT_MAX_DEVICES)
            nd = DEVICE_SELECT_MAX_DEVICES;
        rc = clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, nd, devs, NULL);
        if (rc != CL_SUCCESS) {
            char cl[CLCPK_CL_ERROR_MAX];
            bfmt(err, DEVICE_SELECT_ERR_MAX, "clGetDeviceIDs on platform %u (%s) failed with %s",
                 (unsigned)p, pname, clcpk_cl_error_name(rc, cl, sizeof cl));
            return -1;
        }
        for (cl_uint d = 0; d < nd && out->n < DEVICE_SELECT_MAX_DEVICES; d++) {
            device_select_device *dv = &out->dev[out->n];
            dv->platform = plats[p];
            dv->device = devs[d];
            dv->platform_index = p;
            dv->device_index = d;
            dv->ordinal = (unsigned)out->n;
            bfmt(dv->platform_name, DEVICE_SELECT_NAME_MAX, "%s", pname);
            if (clGetDeviceInfo(devs[d], CL_DEVICE_TYPE, sizeof dv->type, &dv->type, NULL) !=
                CL_SUCCESS)
                dv->type = 0;
            info_string(devs[d], CL_DEVICE_NAME, dv->name);
            info_string(devs[d], CL_DEVICE_VERSION, dv->version);
            info_string(devs[d], CL_DRIVER_VERSION, dv->driver);
            out->n++;
        }
    }
    return 0;
}

int device_select_find_by_index(const device_select_list *all, unsigned platform_index, unsigned device_index,
                     const device_select_device **out, char err[DEVICE_SELECT_ERR_MAX])
{
    for (size_t i = 0; i < all->n; i++) {
        if (all->dev[i].platform_index == platform_index &&
            all->dev[i].device_index == device_index) {
            *out = &all->dev[i];
            return 0;
        }
    }
    bfmt(err, DEVICE_SELECT_ERR_MAX, "no device %u on platform %u", device_index, platform_index);
    return -1;
}

const char *device_select_type_name(cl_device_type t)
{
    if (t & CL_DEVICE_TYPE_GPU)
        return "GPU";
    if (t & CL_DEVICE_TYPE_CPU)
        return "CPU";
    if (t & CL_DEVICE_TYPE_ACCELERATOR)
        return "accelerator";
#ifdef CL_DEVICE_TYPE_CUSTOM
    if (t & CL_DEVICE_TYPE_CUSTOM)
        return "custom";
#endif
    return "other";
}

/* Case-insensitive substring test. */
static int contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    if (n == 0)
        return 1;
    for (const char *h = hay; *h; h++) {
        size_t i = 0;
        while (i < n && h[i] &&
               tolower((unsigned char)h[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return 1;
    }
    return 0;
}

static int equal_nocase(const char *a, const char *b)
{
    while (*a && *b && tolower((unsigned char)*a) == tolower((unsigned char)*b)) {
        a++;
        b++;
    }
    return *a == '\0' && *b == '\0';
}

/* "N more devices not listed ..." for a list cut at its bound ("" when
 * it is not), into out. */
static void left_out_text(const device_select_list *all, char *out, size_t cap)
{
    out[0] = '\0';
    if (!all->n_left_out && !all->n_platforms_left_out)
        return;
    char plats[64] = "";
    if (all->n_platforms_left_out)
        bfmt(plats, sizeof plats, "%s%zu more platform%s", all->n_left_out ? " and " : "",
             all->n_platforms_left_out, all->n_platforms_left_out == 1 ? "" : "s");
    char devs[64] = "";
    if (all->n_left_out)
        bfmt(devs, sizeof devs, "%zu more device%s", all->n_left_out, all->n_left_out == 1 ? "" : "s");
    bfmt(out, cap, "%s%s not listed: clc-pack takes the first %d of a machine's "
                   "(DEVICE_SELECT_MAX_DEVICES)",
         devs, plats, DEVICE_SELECT_MAX_DEVICES);
}

/* "; N more devices not listed ..." after err, for a --device N past a
 * list cut at its bound. */
static void append_left_out(const device_select_list *all, char err[DEVICE_SELECT_ERR_MAX])
{
    char cut[256];
    left_out_text(all, cut, sizeof cut);
    size_t len = strlen(err);
    if (cut[0])
        bfmt(err + len, DEVICE_SELECT_ERR_MAX - len, "; %s", cut);
}

/* Appends "; found: [0] NAME (TYPE, PLATFORM), ..." so an error says what exists. */
static void append_found(const device_select_list *all, char err[DEVICE_SELECT_ERR_MAX])
{
    size_t len = strlen(err);
    if (all->n == 0) {
        bfmt(err + len, DEVICE_SELECT_ERR_MAX - len, "; found no device at all (%zu platform%s)",
             all->n_platforms, all->n_platforms == 1 ? "" : "s");
        return;
    }
    bfmt(err + len, DEVICE_SELECT_ERR_MAX - len, "; found:");
    for (size_t i = 0; i < all->n; i++) {
        len = strlen(err);
        const device_select_device *d = &all->dev[i];
        bfmt(err + len, DEVICE_SELECT_ERR_MAX - len, "%s [%u] %s (%s, platform '%s')", i ? "," : "",
             d->ordinal, d->name, device_select_type_name(d->type), d->platform_name);
    }
}

int device_select(const device_select_list *all, const char *spec, const char *platform_filter,
              size_t sel[DEVICE_SELECT_MAX_DEVICES], size_t *n_sel, char err[DEVICE_SELECT_ERR_MAX])
{
    *n_sel = 0;
    if (spec == NULL || *spec == '\0')
        spec = "default";
    /* Candidates after --platform, in --list-devices order. */
    char clip[BFMT_QUOTE_MAX + 4]; /* a quoted argument in a message */
    size_t cand[DEVICE_SELECT_MAX_DEVICES], nc = 0;
    for (size_t i = 0; i < all->n; i++)
        if (!platform_filter || contains_nocase(all->dev[i].platform_name, platform_filter))
            cand[nc++] = i;
    if (nc == 0) {
        if (platform_filter)
            bfmt(err, DEVICE_SELECT_ERR_MAX, "--platform '%s' matches no platform with a device",
                 bfmt_clip(platform_filter, clip));
        else
            bfmt(err, DEVICE_SELECT_ERR_MAX, "no OpenCL device");
        append_found(all, err);
        return -1;
    }
    const char *where = platform_filter ? " on the platforms matching --platform" : "";

    if (equal_nocase(spec, "all")) {
        for (size_t i = 0; i < nc; i++)
            sel[(*n_sel)++] = cand[i];
        return 0;
    }
    if (equal_nocase(spec, "default")) {
        const cl_device_type order[] = {CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_CPU};
        for (size_t t = 0; t < 2; t++)
            for (size_t i = 0; i < nc; i++)
                if (all->dev[cand[i]].type & order[t]) {
                    sel[(*n_sel)++] = cand[i];
                    return 0;
                }
        sel[(*n_sel)++] = cand[0];
        return 0;
    }
    cl_device_type want = 0;
    if (equal_nocase(spec, "gpu"))
        want = CL_DEVICE_TYPE_GPU;
    else if (equal_nocase(spec, "cpu"))
        want = CL_DEVICE_TYPE_CPU;
    else if (equal_nocase(spec, "accelerator"))
        want = CL_DEVICE_TYPE_ACCELERATOR;
    if (want) {
        for (size_t i = 0; i < nc; i++)
            if (all->dev[cand[i]].type & want) {
                sel[(*n_sel)++] = cand[i];
                return 0;
            }
        bfmt(err, DEVICE_SELECT_ERR_MAX, "--device %s: no %s device%s", spec, device_select_type_name(want), where);
        append_found(all, err);
        return -1;
    }
    int digits = 1;
    for (const char *c = spec; *c; c++)
        if (!isdigit((unsigned char)*c))
            digits = 0;
    if (digits) {
        unsigned long n = strlen(spec) > 6 ? (unsigned long)-1 : strtoul(spec, NULL, 10);
        for (size_t i = 0; i < nc; i++)
            if (all->dev[cand[i]].ordinal == n) {
                sel[(*n_sel)++] = cand[i];
                return 0;
            }
        bfmt(err, DEVICE_SELECT_ERR_MAX, "--device %s: there is no device %s%s (see --list-devices)",
             bfmt_clip(spec, clip), bfmt_clip(spec, clip), where);
        append_left_out(all, err);
        append_found(all, err);
        return -1;
    }
    for (size_t i = 0; i < nc; i++)
        if (contains_nocase(all->dev[cand[i]].name, spec)) {
            sel[(*n_sel)++] = cand[i];
            return 0;
        }
    bfmt(err, DEVICE_SELECT_ERR_MAX, "--device '%s': no device name contains it%s", bfmt_clip(spec, clip),
         where);
    append_found(all, err);
    return -1;
}

/* Words of a device name that say nothing about which device it is. */
static size_t noise_length(const char *c)
{
    static const char *const noise[] = {"(R)", "(TM)", "(C)", "Processor"};
    for (size_t i = 0; i < sizeof noise / sizeof noise[0]; i++) {
        size_t n = strlen(noise[i]);
        if (strncasecmp(c, noise[i], n) == 0 && !isalnum((unsigned char)c[n]))
            return n;
    }
    return 0;
}

void device_select_slug(const char *name, char out[DEVICE_SELECT_SLUG_MAX])
{
    size_t o = 0;
    int dash = 0;
    for (const char *c = name; *c && *c != '@' && o < SLUG_LEN; c++) {
        /* A noise word counts only at the start of a word. */
        int word_start = c == name || !isalnum((unsigned char)c[-1]) || !isalnum((unsigned char)*c);
        size_t skip = word_start ? noise_length(c) : 0;
        if (skip) {
            c += skip - 1;
            dash = 1;
        } else if (isalnum((unsigned char)*c)) {
            if (dash && o > 0 && o + 1 < SLUG_LEN)
                out[o++] = '-';
            dash = 0;
            out[o++] = (char)tolower((unsigned char)*c);
        } else {
            dash = 1;
        }
    }
    out[o] = '\0';
    if (o == 0)
        bfmt(out, DEVICE_SELECT_SLUG_MAX, "device");
}

void device_select_print(FILE *f, const device_select_list *all)
{
    size_t def[DEVICE_SELECT_MAX_DEVICES], n_def = 0;
    char err[DEVICE_SELECT_ERR_MAX];
    if (device_select(all, "default", NULL, def, &n_def, err) != 0)
        n_def = 0;
    for (size_t p = 0; p < all->n_platforms; p++) {
        fprintf(f, "platform %zu: %s\n", p, all->platform_names[p]);
        int any = 0;
        for (size_t i = 0; i < all->n; i++) {
            const device_select_device *d = &all->dev[i];
            if (d->platform_index != p)
                continue;
            any = 1;
            fprintf(f, "  device %u: %s [%s] %s, driver %s%s\n", d->ordinal, d->name,
                    device_select_type_name(d->type), d->version, d->driver,
                    (n_def == 1 && def[0] == i) ? "  (default)" : "");
        }
        if (!any)
            fprintf(f, "  (no devices)\n");
    }
    char cut[256];
    left_out_text(all, cut, sizeof cut);
    if (cut[0])
        fprintf(f, "(%s)\n", cut);
}
