/*
 * fake_cl.h — a fake OpenCL driver for the load fuzz target (and
 * tests/unit/test_target_load.c): the eleven OpenCL calls libclcpack makes, defined here so that they take the place
 * of the ICD loader's in the program that includes this (definitions in
 * the executable come first). The device is whatever fake_cl_device says;
 * programs and kernels are small heap objects, so a leak or a double
 * release shows under ASan; every binary and source handed over is read
 * to its last byte, so a length the library gets wrong shows too. Each
 * call fails when its bit of fake_cl_fail is set. Include it in one file
 * per program.
 */
#ifndef CLC_FUZZ_FAKE_CL_H
#define CLC_FUZZ_FAKE_CL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CL/cl.h>

#include "clcpack.h"

enum {
    FAKE_FAIL_BINARY = 1,  /* clCreateProgramWithBinary */
    FAKE_FAIL_BIN_STATUS = 2,
    FAKE_FAIL_BUILD = 4,   /* clBuildProgram */
    FAKE_FAIL_KERNEL = 8,  /* clCreateKernel */
    FAKE_FAIL_SOURCE = 16, /* clCreateProgramWithSource */
    FAKE_FAIL_QUERY = 32,  /* clGetDeviceInfo of the vendor id */
    FAKE_FAIL_RETAIN = 64, /* clRetainDevice */
};

static clcpack_device_info fake_cl_device = {.struct_size = sizeof fake_cl_device};
static unsigned fake_cl_fail;
static unsigned long fake_cl_sum; /* of every byte handed to the driver */
static unsigned long fake_cl_binary_sum; /* of the last binary handed over */
static long fake_cl_live;         /* programs and kernels not yet released */

static int fake_device_object, fake_platform_object;
#define FAKE_DEVICE ((cl_device_id)&fake_device_object)
#define FAKE_PLATFORM ((cl_platform_id)&fake_platform_object)

typedef struct fake_object {
    int is_kernel;
} fake_object;

static cl_int fake_answer(const void *value, size_t n, size_t cap, void *out, size_t *size_ret)
{
    if (size_ret)
        *size_ret = n;
    if (out) {
        if (cap < n)
            return CL_INVALID_VALUE;
        memcpy(out, value, n);
    }
    return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clGetDeviceInfo(cl_device_id dev, cl_device_info param,
                                                size_t cap, void *out, size_t *size_ret)
{
    const clcpack_device_info *d = &fake_cl_device;
    if (dev != FAKE_DEVICE)
        return CL_INVALID_DEVICE;
    cl_platform_id plat = FAKE_PLATFORM;
    cl_uint u;
    cl_device_type type = (cl_device_type)d->device_type;
    char ext[192];
    switch (param) {
    case CL_DEVICE_PLATFORM: return fake_answer(&plat, sizeof plat, cap, out, size_ret);
    case CL_DEVICE_NAME: return fake_answer(d->device_name, strlen(d->device_name) + 1, cap, out, size_ret);
    case CL_DEVICE_VERSION:
        return fake_answer(d->device_version, strlen(d->device_version) + 1, cap, out, size_ret);
    case CL_DRIVER_VERSION:
        return fake_answer(d->driver_version, strlen(d->driver_version) + 1, cap, out, size_ret);
    case CL_DEVICE_OPENCL_C_VERSION:
        return fake_answer(d->opencl_c_version, strlen(d->opencl_c_version) + 1, cap, out, size_ret);
    case CL_DEVICE_TYPE: return fake_answer(&type, sizeof type, cap, out, size_ret);
    case CL_DEVICE_VENDOR_ID:
        if (fake_cl_fail & FAKE_FAIL_QUERY)
            return CL_OUT_OF_HOST_MEMORY;
        u = d->vendor_id;
        return fake_answer(&u, sizeof u, cap, out, size_ret);
    case CL_DEVICE_ADDRESS_BITS:
        u = d->address_bits;
        return fake_answer(&u, sizeof u, cap, out, size_ret);
    case CL_DEVICE_EXTENSIONS:
        snprintf(ext, sizeof ext, "cl_khr_fp64%s%s%s", d->has_uuid ? " cl_khr_device_uuid" : "",
                 d->nv_cc_major ? " cl_nv_device_attribute_query" : "",
                 d->intel_ip_version ? " cl_intel_device_attribute_query" : "");
        return fake_answer(ext, strlen(ext) + 1, cap, out, size_ret);
    case 0x106A: return fake_answer(d->device_uuid, 16, cap, out, size_ret); /* CL_DEVICE_UUID_KHR */
    case 0x106B: return fake_answer(d->driver_uuid, 16, cap, out, size_ret); /* CL_DRIVER_UUID_KHR */
    case 0x4000: u = d->nv_cc_major; return fake_answer(&u, sizeof u, cap, out, size_ret);
    case 0x4001: u = d->nv_cc_minor; return fake_answer(&u, sizeof u, cap, out, size_ret);
    case 0x4250: u = d->intel_ip_version; return fake_answer(&u, sizeof u, cap, out, size_ret);
    case 0x4251: u = d->intel_device_id; return fake_answer(&u, sizeof u, cap, out, size_ret);
    default: return CL_INVALID_VALUE;
    }
}

CL_API_ENTRY cl_int CL_API_CALL clGetPlatformInfo(cl_platform_id plat, cl_platform_info param,
                                                  size_t cap, void *out, size_t *size_ret)
{
    const clcpack_device_info *d = &fake_cl_device;
    if (plat != FAKE_PLATFORM)
        return CL_INVALID_PLATFORM;
    if (param == CL_PLATFORM_NAME)
        return fake_answer(d->platform_name, strlen(d->platform_name) + 1, cap, out, size_ret);
    if (param == CL_PLATFORM_VERSION)
        return fake_answer(d->platform_version, strlen(d->platform_version) + 1, cap, out, size_ret);
    return CL_INVALID_VALUE;
}

CL_API_ENTRY cl_int CL_API_CALL clRetainDevice(cl_device_id dev)
{
    return dev == FAKE_DEVICE && !(fake_cl_fail & FAKE_FAIL_RETAIN) ? CL_SUCCESS : CL_INVALID_DEVICE;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseDevice(cl_device_id dev)
{
    return dev == FAKE_DEVICE ? CL_SUCCESS : CL_INVALID_DEVICE;
}

static cl_program fake_program(cl_int *rc, unsigned fail_bit)
{
    if (fake_cl_fail & fail_bit) {
        if (rc)
            *rc = CL_INVALID_BINARY;
        return NULL;
    }
    fake_object *o = calloc(1, sizeof *o);
    if (rc)
        *rc = o ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
    fake_cl_live += o != NULL;
    return (cl_program)(void *)o;
}

static void fake_read(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fake_cl_sum += p[i];
}

CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithBinary(
    cl_context ctx, cl_uint n, const cl_device_id *devs, const size_t *lengths,
    const unsigned char **binaries, cl_int *status, cl_int *rc)
{
    (void)ctx;
    if (n != 1 || !devs || devs[0] != FAKE_DEVICE || !lengths || !binaries || !binaries[0] ||
        lengths[0] == 0) {
        if (rc)
            *rc = CL_INVALID_VALUE;
        return NULL;
    }
    unsigned long before = fake_cl_sum;
    fake_read(binaries[0], lengths[0]);
    fake_cl_binary_sum = fake_cl_sum - before;
    if (status)
        *status = fake_cl_fail & FAKE_FAIL_BIN_STATUS ? CL_INVALID_BINARY : CL_SUCCESS;
    return fake_program(rc, FAKE_FAIL_BINARY);
}

CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithSource(cl_context ctx, cl_uint n,
                                                              const char **texts,
                                                              const size_t *lengths, cl_int *rc)
{
    (void)ctx;
    if (n != 1 || !texts || !texts[0]) {
        if (rc)
            *rc = CL_INVALID_VALUE;
        return NULL;
    }
    fake_read((const unsigned char *)texts[0], lengths && lengths[0] ? lengths[0] : strlen(texts[0]));
    return fake_program(rc, FAKE_FAIL_SOURCE);
}

CL_API_ENTRY cl_int CL_API_CALL clBuildProgram(cl_program prog, cl_uint n, const cl_device_id *devs,
                                               const char *options,
                                               void(CL_CALLBACK *notify)(cl_program, void *),
                                               void *user)
{
    (void)notify;
    (void)user;
    if (!prog || n != 1 || !devs || devs[0] != FAKE_DEVICE)
        return CL_INVALID_VALUE;
    if (options)
        fake_read((const unsigned char *)options, strlen(options));
    return fake_cl_fail & FAKE_FAIL_BUILD ? CL_BUILD_PROGRAM_FAILURE : CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clGetProgramBuildInfo(cl_program prog, cl_device_id dev,
                                                      cl_program_build_info param, size_t cap,
                                                      void *out, size_t *size_ret)
{
    static const char log[] = "fake: error: a build log\nline two\n";
    if (!prog || dev != FAKE_DEVICE || param != CL_PROGRAM_BUILD_LOG)
        return CL_INVALID_VALUE;
    return fake_answer(log, sizeof log, cap, out, size_ret);
}

CL_API_ENTRY cl_kernel CL_API_CALL clCreateKernel(cl_program prog, const char *name, cl_int *rc)
{
    if (!prog || !name || !name[0] || (fake_cl_fail & FAKE_FAIL_KERNEL)) {
        if (rc)
            *rc = CL_INVALID_KERNEL_NAME;
        return NULL;
    }
    fake_read((const unsigned char *)name, strlen(name));
    fake_object *o = calloc(1, sizeof *o);
    if (o) {
        o->is_kernel = 1;
        fake_cl_live++;
    }
    if (rc)
        *rc = o ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
    return (cl_kernel)(void *)o;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseProgram(cl_program prog)
{
    fake_object *o = (fake_object *)(void *)prog;
    if (!o || o->is_kernel)
        return CL_INVALID_PROGRAM;
    fake_cl_live--;
    free(o);
    return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseKernel(cl_kernel k)
{
    fake_object *o = (fake_object *)(void *)k;
    if (!o || !o->is_kernel)
        return CL_INVALID_KERNEL;
    fake_cl_live--;
    free(o);
    return CL_SUCCESS;
}

#endif /* CLC_FUZZ_FAKE_CL_H */
