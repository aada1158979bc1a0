/*
 * cl_device.h — the OpenCL device the library tests run on: the first
 * device of the first platform that has one (PoCL on a machine without a
 * GPU), with a context for it.
 */
#ifndef CLC_TEST_CL_DEVICE_H
#define CLC_TEST_CL_DEVICE_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

/* 0 with *dev and *ctx set (the caller releases ctx), or -1 when there is
 * no OpenCL device or its context cannot be made. */
int test_first_device(cl_device_id *dev, cl_context *ctx);

/* Device nth (from 0) of the first platform whose name contains
 * platform_part ("Portable Computing Language", "Intel(R) OpenCL
 * Graphics", "AMD Accelerated"). 0, or -1 when there is none. */
int test_platform_device(const char *platform_part, unsigned nth, cl_device_id *dev);

#endif
