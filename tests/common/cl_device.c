#include "cl_device.h"

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
