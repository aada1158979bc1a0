/*
 * device_fp.c — the device fingerprint: reading it from OpenCL, comparing
 * two, and saying in words how they differ.
 *
 * A native binary is only handed to a device whose fingerprint is identical
 * to the one it was built on, so the fingerprint holds everything a driver
 * update or another device changes: names and versions of platform, device,
 * driver and OpenCL C, and the UUIDs and compute capability where the
 * driver reports them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CL/cl_ext.h>

#include "device_cache.h"
#include "device_fp.h"
#include "errors.h"
#include "pack_format.h"
#include "pack_reader.h"
#include "struct_size.h"
#include "target_match.h"

#ifndef CL_DEVICE_UUID_KHR
#define CL_DEVICE_UUID_KHR 0x106A
#endif
#ifndef CL_DRIVER_UUID_KHR
#define CL_DRIVER_UUID_KHR 0x106B
#endif
#ifndef CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV
#define CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV 0x4000
#endif
#ifndef CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV
#define CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV 0x4001
#endif
#ifndef CL_DEVICE_IP_VERSION_INTEL
#define CL_DEVICE_IP_VERSION_INTEL 0x4250
#endif
#ifndef CL_DEVICE_ID_INTEL
#define CL_DEVICE_ID_INTEL 0x4251
#endif

/* Either a device or a platform string query. */
typedef struct str_query {
    cl_device_id dev;
    cl_platform_id plat;
    cl_uint param;
    const char *param_name;
} str_query;

static cl_int run_query(const str_query *q, size_t cap, void *buf, size_t *size)
{
    if (q->dev)
        return clGetDeviceInfo(q->dev, q->param, cap, buf, size);
    return clGetPlatformInfo(q->plat, q->param, cap, buf, size);
}

static clcpack_status query_fail(clcpack_error *err, const str_query *q, cl_int rc)
{
    char code[CLCPK_CL_ERROR_MAX];
    return clcpk_fail(err, CLCPACK_E_OPENCL, "%s(%s) failed: %s",
                   q->dev ? "clGetDeviceInfo" : "clGetPlatformInfo", q->param_name,
                   clcpk_cl_error_name(rc, code, sizeof code));
}

/* Queries a string of any length into a malloc'd NUL-terminated buffer:
 * into `guess` bytes first (one call, the common case: a driver answers
 * CL_INVALID_VALUE when the value does not fit), else its size, then it.
 * At a cold start each call counts: the fingerprint made about 22 of them,
 * 0.056 ms on an H200 host. */
static clcpack_status query_alloc(const str_query *q, size_t guess, char **out,
                                  clcpack_error *err)
{
    size_t size = 0;
    char *first = malloc(guess + 1);
    if (first && run_query(q, guess, first, &size) == CL_SUCCESS && size <= guess) {
        first[size] = '\0';
        *out = first;
        return CLCPACK_OK;
    }
    free(first);
    cl_int rc = run_query(q, 0, NULL, &size);
    if (rc != CL_SUCCESS)
        return query_fail(err, q, rc);
    char *buf = malloc(size + 1);
    if (!buf)
        return clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory querying %s", q->param_name);
    rc = run_query(q, size, buf, NULL);
    if (rc != CL_SUCCESS) {
        free(buf);
        return query_fail(err, q, rc);
    }
    buf[size] = '\0';
    *out = buf;
    return CLCPACK_OK;
}

/* A fingerprint string: trailing spaces and NULs stripped (drivers pad some
 * of them), cut to what clcpack_device_info holds. */
static clcpack_status query_field(const str_query *q, char dst[CLCPACK_FP_STR], clcpack_error *err)
{
    char *s;
    clcpack_status st = query_alloc(q, 2 * CLCPACK_FP_STR, &s, err);
    if (st != CLCPACK_OK)
        return st;
    size_t n = strlen(s);
    while (n && s[n - 1] == ' ')
        n--;
    if (n > CLCPACK_FP_STR - 1)
        n = CLCPACK_FP_STR - 1;
    memset(dst, 0, CLCPACK_FP_STR);
    memcpy(dst, s, n);
    free(s);
    return CLCPACK_OK;
}

/* 1 when the space-separated extension list names ext exactly. */
static int has_extension(const char *list, const char *ext)
{
    size_t n = strlen(ext);
    for (const char *p = list; (p = strstr(p, ext)) != NULL; p += n) {
        int starts = p == list || p[-1] == ' ';
        int ends = p[n] == '\0' || p[n] == ' ';
        if (starts && ends)
            return 1;
    }
    return 0;
}

static clcpack_status query_fixed(cl_device_id dev, cl_uint param, const char *name, void *dst,
                                  size_t size, clcpack_error *err)
{
    cl_int rc = clGetDeviceInfo(dev, param, size, dst, NULL);
    if (rc != CL_SUCCESS) {
        char code[CLCPK_CL_ERROR_MAX];
        return clcpk_fail(err, CLCPACK_E_OPENCL, "clGetDeviceInfo(%s) failed: %s", name,
                       clcpk_cl_error_name(rc, code, sizeof code));
    }
    return CLCPACK_OK;
}

/* clcpack_device_query into the library's full struct. */
clcpack_status clcpk_device_query(cl_device_id dev, clcpack_device_info *out, clcpack_error *err)
{
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    cl_platform_id plat;
    clcpack_status st = query_fixed(dev, CL_DEVICE_PLATFORM, "CL_DEVICE_PLATFORM", &plat,
                                    sizeof plat, err);
    if (st != CLCPACK_OK)
        return st;
    const struct {
        str_query q;
        char *dst;
    } strs[] = {
        {{NULL, plat, CL_PLATFORM_NAME, "CL_PLATFORM_NAME"}, out->platform_name},
        {{NULL, plat, CL_PLATFORM_VERSION, "CL_PLATFORM_VERSION"}, out->platform_version},
        {{dev, NULL, CL_DEVICE_NAME, "CL_DEVICE_NAME"}, out->device_name},
        {{dev, NULL, CL_DEVICE_VERSION, "CL_DEVICE_VERSION"}, out->device_version},
        {{dev, NULL, CL_DRIVER_VERSION, "CL_DRIVER_VERSION"}, out->driver_version},
        {{dev, NULL, CL_DEVICE_OPENCL_C_VERSION, "CL_DEVICE_OPENCL_C_VERSION"},
         out->opencl_c_version},
    };
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
        if ((st = query_field(&strs[i].q, strs[i].dst, err)) != CLCPACK_OK)
            return st;

    cl_device_type type;
    cl_uint vendor, bits;
    if ((st = query_fixed(dev, CL_DEVICE_TYPE, "CL_DEVICE_TYPE", &type, sizeof type, err)) ||
        (st = query_fixed(dev, CL_DEVICE_VENDOR_ID, "CL_DEVICE_VENDOR_ID", &vendor, sizeof vendor,
                          err)) ||
        (st = query_fixed(dev, CL_DEVICE_ADDRESS_BITS, "CL_DEVICE_ADDRESS_BITS", &bits,
                          sizeof bits, err)))
        return st;
    out->device_type = type;
    out->vendor_id = vendor;
    out->address_bits = bits;

    char *ext;
    str_query eq = {dev, NULL, CL_DEVICE_EXTENSIONS, "CL_DEVICE_EXTENSIONS"};
    if ((st = query_alloc(&eq, 8192, &ext, err)) != CLCPACK_OK)
        return st;
    if (has_extension(ext, "cl_khr_device_uuid")) {
        if ((st = query_fixed(dev, CL_DEVICE_UUID_KHR, "CL_DEVICE_UUID_KHR", out->device_uuid, 16,
                              err)) ||
            (st = query_fixed(dev, CL_DRIVER_UUID_KHR, "CL_DRIVER_UUID_KHR", out->driver_uuid, 16,
                              err))) {
            free(ext);
            return st;
        }
        out->has_uuid = 1;
    }
    if (has_extension(ext, "cl_nv_device_attribute_query")) {
        cl_uint major, minor;
        if ((st = query_fixed(dev, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV,
                              "CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV", &major, sizeof major, err)) ||
            (st = query_fixed(dev, CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV,
                              "CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV", &minor, sizeof minor,
                              err))) {
            free(ext);
            return st;
        }
        out->nv_cc_major = major;
        out->nv_cc_minor = minor;
    }
    /* NEO's target: what an Intel offline entry's arch is matched with
     * (docs/FORMAT.md, "Offline targets"). Asked only of a device that
     * lists the extension: other drivers may fail the unknown query. */
    if (has_extension(ext, "cl_intel_device_attribute_query")) {
        cl_uint ip, id;
        if ((st = query_fixed(dev, CL_DEVICE_IP_VERSION_INTEL, "CL_DEVICE_IP_VERSION_INTEL", &ip,
                              sizeof ip, err)) ||
            (st = query_fixed(dev, CL_DEVICE_ID_INTEL, "CL_DEVICE_ID_INTEL", &id, sizeof id,
                              err))) {
            free(ext);
            return st;
        }
        out->intel_ip_version = ip;
        out->intel_device_id = id;
    }
    free(ext);
    return CLCPACK_OK;
}

int clcpk_device_nvidia_identity(cl_device_id dev, clcpack_device_info *out)
{
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    /* NVIDIA's driver always answers the compute capability; asked of
     * another vendor's device only after its vendor ID said NVIDIA. */
    cl_uint vendor, major, minor;
    if (clGetDeviceInfo(dev, CL_DEVICE_VENDOR_ID, sizeof vendor, &vendor, NULL) != CL_SUCCESS ||
        vendor != PK_NVIDIA_VENDOR_ID ||
        clGetDeviceInfo(dev, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, sizeof major, &major, NULL) !=
            CL_SUCCESS ||
        clGetDeviceInfo(dev, CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV, sizeof minor, &minor, NULL) !=
            CL_SUCCESS)
        return 0;
    out->vendor_id = vendor;
    out->nv_cc_major = major;
    out->nv_cc_minor = minor;
    return 1;
}

clcpack_status clcpack_device_query(cl_device_id dev, clcpack_device_info *out, clcpack_error *err)
{
    if (!dev || !out)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "clcpack_device_query: %s is NULL",
                          dev ? "out" : "device");
    if (!clcpk_size_ok(out, CLCPK_DEVICE_INFO_1_0))
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG,
                          "clcpack_device_query: out->struct_size %zu is too small (set it to "
                          "sizeof(clcpack_device_info))",
                          out->struct_size);
    clcpack_device_info full;
    clcpack_status st = clcpk_device_query(dev, &full, err);
    if (st == CLCPACK_OK)
        clcpk_copy_out(out, &full, sizeof full);
    return st;
}

static int str_differs(const char *a, const char *b)
{
    return strncmp(a, b, CLCPACK_FP_STR - 1) != 0;
}

/* Every field but the device UUID; clcpack_device_equal adds that. */
static int same_but_device_uuid(const clcpack_device_info *a, const clcpack_device_info *b)
{
    if (str_differs(a->platform_name, b->platform_name) ||
        str_differs(a->platform_version, b->platform_version) ||
        str_differs(a->device_name, b->device_name) ||
        str_differs(a->device_version, b->device_version) ||
        str_differs(a->driver_version, b->driver_version) ||
        str_differs(a->opencl_c_version, b->opencl_c_version))
        return 0;
    if (a->device_type != b->device_type || a->vendor_id != b->vendor_id ||
        a->address_bits != b->address_bits || a->has_uuid != b->has_uuid ||
        a->nv_cc_major != b->nv_cc_major || a->nv_cc_minor != b->nv_cc_minor ||
        a->intel_ip_version != b->intel_ip_version || a->intel_device_id != b->intel_device_id)
        return 0;
    if (a->has_uuid && memcmp(a->driver_uuid, b->driver_uuid, 16) != 0)
        return 0;
    return 1;
}

int clcpk_device_compatible(const clcpack_device_info *a, const clcpack_device_info *b)
{
    return same_but_device_uuid(a, b);
}

/* A caller's fingerprint as the library's full struct; 0 when it is NULL
 * or too small. */
static int device_in(const clcpack_device_info *in, clcpack_device_info *full)
{
    if (!in || !clcpk_size_ok(in, CLCPK_DEVICE_INFO_1_0))
        return 0;
    clcpk_copy_in(full, in, sizeof *full);
    return 1;
}

int clcpack_device_binary_compatible(const clcpack_device_info *a, const clcpack_device_info *b)
{
    clcpack_device_info fa, fb;
    return device_in(a, &fa) && device_in(b, &fb) && same_but_device_uuid(&fa, &fb);
}

/* clcpack_inspect.h's, here for the fingerprint code it shares; left out
 * with the rest of that header (make LOAD_INSPECT=0, loader/README.md). */
#ifndef CLCPK_NO_INSPECT
int clcpack_device_equal(const clcpack_device_info *a, const clcpack_device_info *b)
{
    clcpack_device_info fa, fb;
    return device_in(a, &fa) && device_in(b, &fb) && same_but_device_uuid(&fa, &fb) &&
           (!fa.has_uuid || memcmp(fa.device_uuid, fb.device_uuid, 16) == 0);
}
#endif

static void uuid_hex(const uint8_t u[16], char out[33])
{
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", u[i]);
}

static const char *type_name(uint64_t t, char *buf, size_t cap)
{
    switch (t) {
    case CL_DEVICE_TYPE_CPU: return "CPU";
    case CL_DEVICE_TYPE_GPU: return "GPU";
    case CL_DEVICE_TYPE_ACCELERATOR: return "accelerator";
    case CL_DEVICE_TYPE_CUSTOM: return "custom";
    }
    snprintf(buf, cap, "0x%llx", (unsigned long long)t);
    return buf;
}

clcpack_status clcpack_device_describe_difference(const clcpack_device_info *in_pack,
                                                  const clcpack_device_info *here, char *buf,
                                                  size_t cap)
{
    if (!buf || !cap)
        return CLCPACK_E_INVALID_ARG;
    clcpack_device_info fa, fb;
    if (!device_in(in_pack, &fa) || !device_in(here, &fb)) {
        snprintf(buf, cap, "no fingerprint to compare (%s)",
                 !in_pack || !here ? "NULL" : "struct_size too small");
        return CLCPACK_E_INVALID_ARG;
    }
    clcpk_device_difference(&fa, &fb, buf, cap);
    return CLCPACK_OK;
}

void clcpk_device_difference(const clcpack_device_info *a, const clcpack_device_info *b,
                             char *buf, size_t cap)
{
    /* Most telling first: another device says more than another version. */
    const struct {
        const char *field;
        const char *x, *y;
    } strs[] = {
        {"platform name", a->platform_name, b->platform_name},
        {"device name", a->device_name, b->device_name},
    }, versions[] = {
        {"platform version", a->platform_version, b->platform_version},
        {"device version", a->device_version, b->device_version},
        {"driver version", a->driver_version, b->driver_version},
        {"OpenCL C version", a->opencl_c_version, b->opencl_c_version},
    };
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
        if (str_differs(strs[i].x, strs[i].y)) {
            snprintf(buf, cap, "%s differs: %.255s in pack, %.255s here", strs[i].field, strs[i].x,
                     strs[i].y);
            return;
        }
    char t1[32], t2[32];
    if (a->vendor_id != b->vendor_id) {
        snprintf(buf, cap, "vendor id differs: 0x%x in pack, 0x%x here", a->vendor_id,
                 b->vendor_id);
        return;
    }
    if (a->device_type != b->device_type) {
        snprintf(buf, cap, "device type differs: %s in pack, %s here",
                 type_name(a->device_type, t1, sizeof t1), type_name(b->device_type, t2, sizeof t2));
        return;
    }
    if (a->address_bits != b->address_bits) {
        snprintf(buf, cap, "address bits differ: %u in pack, %u here", a->address_bits,
                 b->address_bits);
        return;
    }
    if (a->nv_cc_major != b->nv_cc_major || a->nv_cc_minor != b->nv_cc_minor) {
        snprintf(buf, cap, "compute capability differs: %u.%u in pack, %u.%u here", a->nv_cc_major,
                 a->nv_cc_minor, b->nv_cc_major, b->nv_cc_minor);
        return;
    }
    if (a->intel_ip_version != b->intel_ip_version || a->intel_device_id != b->intel_device_id) {
        char v1[32], v2[32];
        clcpk_version_text(a->intel_ip_version, v1, sizeof v1);
        clcpk_version_text(b->intel_ip_version, v2, sizeof v2);
        snprintf(buf, cap, "Intel IP version or device id differs: %s (0x%x) in pack, %s (0x%x) here",
                 v1, a->intel_device_id, v2, b->intel_device_id);
        return;
    }
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++)
        if (str_differs(versions[i].x, versions[i].y)) {
            snprintf(buf, cap, "%s differs: %.255s in pack, %.255s here", versions[i].field,
                     versions[i].x, versions[i].y);
            return;
        }
    if (a->has_uuid != b->has_uuid) {
        snprintf(buf, cap, "device UUID %s in pack, %s here", a->has_uuid ? "present" : "absent",
                 b->has_uuid ? "present" : "absent");
        return;
    }
    char u1[33], u2[33];
    if (a->has_uuid && memcmp(a->driver_uuid, b->driver_uuid, 16) != 0) {
        uuid_hex(a->driver_uuid, u1);
        uuid_hex(b->driver_uuid, u2);
        snprintf(buf, cap, "driver UUID differs: %s in pack, %s here", u1, u2);
        return;
    }
    if (a->has_uuid && memcmp(a->device_uuid, b->device_uuid, 16) != 0) {
        uuid_hex(a->device_uuid, u1);
        uuid_hex(b->device_uuid, u2);
        snprintf(buf, cap, "device UUID differs: %s in pack, %s here", u1, u2);
        return;
    }
    snprintf(buf, cap, "device fingerprints are identical");
}

void clcpk_device_label(const clcpack_device_info *d, char *buf, size_t cap)
{
    snprintf(buf, cap, "'%.255s (driver %.255s)'", d->device_name, d->driver_version);
}

clcpack_status clcpk_device_fingerprint(const clcpack *p, cl_device_id dev,
                                        clcpack_device_info *scratch,
                                        const clcpack_device_info **out, clcpack_error *err)
{
    const clcpack_device_info *hit = clcpk_device_cached(p, dev);
    *out = hit ? hit : scratch;
    if (hit)
        return CLCPACK_OK;
    clcpack_status st = clcpk_device_query(dev, scratch, err);
    if (st != CLCPACK_OK)
        return st;
    hit = clcpk_device_cache_keep(p, dev, scratch);
    *out = hit ? hit : scratch;
    return CLCPACK_OK;
}
