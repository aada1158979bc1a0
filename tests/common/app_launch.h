/*
 * app_launch.h — the one start of the small OpenCL applications the record
 * tests run under the interposer (tests/data/record/launch_app.c and the
 * "--app" side of tests/device/test_record_threads.c, test_record_reentry.c,
 * test_record_stress.c): the first device of the first platform and a
 * context on it. Header-only, so that launch_app.c, which the shell tests
 * compile alone with `cc FILE -lOpenCL`, includes it too.
 */
#ifndef CLC_TEST_APP_LAUNCH_H
#define CLC_TEST_APP_LAUNCH_H

#include <stdio.h>

#include <CL/cl.h>

/* 0 with *dev and *ctx set; else prints why on stdout, where the tests
 * compare the application's output, and returns 1 (the exit status). */
static inline int app_launch(cl_device_id *dev, cl_context *ctx)
{
    cl_platform_id plat;
    cl_int rc;
    if (clGetPlatformIDs(1, &plat, NULL) != CL_SUCCESS ||
        clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, dev, NULL) != CL_SUCCESS) {
        printf("no OpenCL device\n");
        return 1;
    }
    *ctx = clCreateContext(NULL, 1, dev, NULL, NULL, &rc);
    if (!*ctx) {
        printf("no context\n");
        return 1;
    }
    return 0;
}

#endif
