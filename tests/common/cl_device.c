#include "cl_device.h"

#include <stdio.h>
#include <string.h>

int test_first_device(cl_device_id *dev, cl_context *ctx)
{
    cl_platform_id plats[8];
    cl_uint np = 0;
    if (clGetPlatformIDs(8, plats, &np) != CL_SUCCESS || np == 0)
        return -1;
    if (np > 8)
        np = 8;
    for (cl_uint i = 0; i < np; i++)
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 1, dev, NULL) == CL_SUCCESS) {
            cl_int rc;
            *ctx = clCreateContext(NULL, 1, dev, NULL, NULL, &rc);
            return rc == CL_SUCCESS ? 0 : -1;
        }
    return -1;
}

int test_platform_device(const char *platform_part, unsigned nth, cl_device_id *dev)
{
    cl_platform_id plats[8];
    cl_uint np = 0;
    if (clGetPlatformIDs(8, plats, &np) != CL_SUCCESS)
        return -1;
    for (cl_uint i = 0; i < np && i < 8; i++) {
        char name[256] = "";
        cl_device_id devs[16];
        cl_uint nd = 0;
        if (clGetPlatformInfo(plats[i], CL_PLATFORM_NAME, sizeof name - 1, name, NULL) !=
                CL_SUCCESS ||
            !strstr(name, platform_part))
            continue;
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 16, devs, &nd) != CL_SUCCESS ||
            nth >= nd)
            return -1;
        *dev = devs[nth];
        return 0;
    }
    return -1;
}

int test_app_load(const char *pack, const clcpack_key *key, const clcpack_load_options *opts,
                  test_app *app)
{
    memset(app, 0, sizeof *app);
    app->report.struct_size = sizeof app->report;
    if (test_first_device(&app->dev, &app->ctx) != 0) {
        printf("error no device\n");
        return -1;
    }
    clcpack_error e;
    if (clcpack_open_file(pack, &app->pack, &e) != CLCPACK_OK) {
        printf("error %s\n", e.message);
        clReleaseContext(app->ctx);
        return -1;
    }
    if (clcpack_create_kernel(app->pack, key, app->ctx, app->dev, opts, &app->prog,
                              &app->kernel, &app->report, &e) != CLCPACK_OK) {
        printf("error %s\nwhy %s\n", e.message, app->report.why);
        clcpack_close(app->pack);
        clReleaseContext(app->ctx);
        return -1;
    }
    return 0;
}

void test_app_close(test_app *app)
{
    clReleaseKernel(app->kernel);
    clReleaseProgram(app->prog);
    clReleaseContext(app->ctx);
    clcpack_close(app->pack);
}
