/*
 * cl_device.h — the OpenCL device the library tests run on: the first
 * device of the first platform that has one (PoCL on a machine without a
 * GPU), with a context for it; and the start of the applications some
 * tests run as a child process: that device and a key of a pack loaded.
 */
#ifndef CLC_TEST_CL_DEVICE_H
#define CLC_TEST_CL_DEVICE_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include "clcpack.h"

/* 0 with *dev and *ctx set (the caller releases ctx), or -1 when there is
 * no OpenCL device or its context cannot be made. */
int test_first_device(cl_device_id *dev, cl_context *ctx);

/* Device nth (from 0) of the first platform whose name contains
 * platform_part ("Portable Computing Language", "Intel(R) OpenCL
 * Graphics", "AMD Accelerated"). 0, or -1 when there is none. */
int test_platform_device(const char *platform_part, unsigned nth, cl_device_id *dev);

/* What one of the tests' applications (a child process the test runs and
 * reads) holds once its key is loaded. */
typedef struct test_app {
    cl_device_id dev;
    cl_context ctx;
    clcpack *pack;
    cl_program prog;
    cl_kernel kernel;
    clcpack_load_report report;
} test_app;

/* test_first_device, clcpack_open_file(pack), then clcpack_create_kernel
 * of key (opts may be NULL) into *app. 0, or -1 after printing "error no
 * device", or "error <message>" and "why <the load report>", to stdout
 * (nothing is left to release then). */
int test_app_load(const char *pack, const clcpack_key *key, const clcpack_load_options *opts,
                  test_app *app);

/* Releases what test_app_load made. */
void test_app_close(test_app *app);

#endif
