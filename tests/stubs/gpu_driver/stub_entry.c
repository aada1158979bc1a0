/*
 * stub_entry.c — what the ICD loader sees of the stub: the three exported
 * symbols cl_khr_icd asks for (clIcdGetPlatformIDsKHR,
 * clGetExtensionFunctionAddress and clGetPlatformInfo, which ocl-icd wants
 * as a symbol too) and the dispatch table every object points to.
 *
 * The table is the Khronos `struct _cl_icd_dispatch` of <CL/cl_icd.h>, filled
 * by member name, so its order is the header's. Members the stub does not
 * implement stay NULL: the ICD loader would call through them without a
 * check, so an application must keep to the calls listed in README.md.
 */
#include <string.h>

#include "stub.h"

static struct _cl_platform_id platforms[2];
static struct _cl_device_id devices[STUB_MAX_DEVICES];
static unsigned n_platforms, n_devices;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
    n_platforms = stub_config_load(platforms, devices, &n_devices);
}

void stub_init(void)
{
    pthread_once(&once, load);
}

unsigned stub_platform_count(void)
{
    stub_init();
    return n_platforms;
}

cl_platform_id stub_platform(unsigned i)
{
    return i < stub_platform_count() ? &platforms[i] : NULL;
}

unsigned stub_device_count(void)
{
    stub_init();
    return n_devices;
}

cl_device_id stub_device(unsigned i)
{
    return i < stub_device_count() ? &devices[i] : NULL;
}

cl_int CL_API_CALL stub_GetPlatformIDs(cl_uint num_entries, cl_platform_id *out, cl_uint *num)
{
    if ((num_entries == 0 && out) || (!out && !num))
        return CL_INVALID_VALUE;
    unsigned n = stub_platform_count();
    if (num)
        *num = n;
    for (unsigned i = 0; out && i < n && i < num_entries; i++)
        out[i] = &platforms[i];
    return n ? CL_SUCCESS : CL_PLATFORM_NOT_FOUND_KHR;
}

/* Extension functions a platform offers: clCreateProgramWithILKHR where
 * its devices take IL (cl_khr_il_program). */
static void *extension_address(cl_platform_id p, const char *name)
{
    if (!name)
        return NULL;
    if (strcmp(name, "clIcdGetPlatformIDsKHR") == 0)
        return (void *)stub_GetPlatformIDs;
    if (strcmp(name, "clCreateProgramWithILKHR") == 0) {
        for (unsigned i = 0; i < stub_platform_count(); i++) {
            cl_platform_id q = &platforms[i];
            if (p && p != q)
                continue;
            for (unsigned d = 0; d < q->n_devices; d++)
                if (q->devices[d]->il_versions[0])
                    return (void *)stub_CreateProgramWithILKHR;
        }
    }
    return NULL;
}

static void *CL_API_CALL stub_GetExtensionFunctionAddressForPlatform(cl_platform_id p,
                                                                     const char *name)
{
    if (!stub_is_platform(p))
        return NULL;
    return extension_address(p, name);
}

static void *CL_API_CALL stub_GetExtensionFunctionAddress(const char *name)
{
    return extension_address(NULL, name);
}

const cl_icd_dispatch stub_dispatch = {
    .clGetPlatformIDs = stub_GetPlatformIDs,
    .clGetPlatformInfo = stub_GetPlatformInfo,
    .clGetDeviceIDs = stub_GetDeviceIDs,
    .clGetDeviceInfo = stub_GetDeviceInfo,
    .clCreateContext = stub_CreateContext,
    .clCreateContextFromType = stub_CreateContextFromType,
    .clRetainContext = stub_RetainContext,
    .clReleaseContext = stub_ReleaseContext,
    .clGetContextInfo = stub_GetContextInfo,
    .clCreateCommandQueue = stub_CreateCommandQueue,
    .clRetainCommandQueue = stub_RetainCommandQueue,
    .clReleaseCommandQueue = stub_ReleaseCommandQueue,
    .clGetCommandQueueInfo = stub_GetCommandQueueInfo,
    .clCreateBuffer = stub_CreateBuffer,
    .clRetainMemObject = stub_RetainMemObject,
    .clReleaseMemObject = stub_ReleaseMemObject,
    .clGetMemObjectInfo = stub_GetMemObjectInfo,
    .clCreateProgramWithSource = stub_CreateProgramWithSource,
    .clCreateProgramWithBinary = stub_CreateProgramWithBinary,
    .clRetainProgram = stub_RetainProgram,
    .clReleaseProgram = stub_ReleaseProgram,
    .clBuildProgram = stub_BuildProgram,
    .clUnloadCompiler = stub_UnloadCompiler,
    .clGetProgramInfo = stub_GetProgramInfo,
    .clGetProgramBuildInfo = stub_GetProgramBuildInfo,
    .clCreateKernel = stub_CreateKernel,
    .clCreateKernelsInProgram = stub_CreateKernelsInProgram,
    .clRetainKernel = stub_RetainKernel,
    .clReleaseKernel = stub_ReleaseKernel,
    .clSetKernelArg = stub_SetKernelArg,
    .clGetKernelInfo = stub_GetKernelInfo,
    .clGetKernelWorkGroupInfo = stub_GetKernelWorkGroupInfo,
    .clWaitForEvents = stub_WaitForEvents,
    .clGetEventInfo = stub_GetEventInfo,
    .clRetainEvent = stub_RetainEvent,
    .clReleaseEvent = stub_ReleaseEvent,
    .clGetEventProfilingInfo = stub_GetEventProfilingInfo,
    .clFlush = stub_Flush,
    .clFinish = stub_Finish,
    .clEnqueueReadBuffer = stub_EnqueueReadBuffer,
    .clEnqueueWriteBuffer = stub_EnqueueWriteBuffer,
    .clEnqueueNDRangeKernel = stub_EnqueueNDRangeKernel,
    .clGetExtensionFunctionAddress = stub_GetExtensionFunctionAddress,
    .clCreateSubDevices = stub_CreateSubDevices,
    .clRetainDevice = stub_RetainDevice,
    .clReleaseDevice = stub_ReleaseDevice,
    .clCreateProgramWithBuiltInKernels = stub_CreateProgramWithBuiltInKernels,
    .clCompileProgram = stub_CompileProgram,
    .clLinkProgram = stub_LinkProgram,
    .clUnloadPlatformCompiler = stub_UnloadPlatformCompiler,
    .clGetKernelArgInfo = stub_GetKernelArgInfo,
    .clGetExtensionFunctionAddressForPlatform = stub_GetExtensionFunctionAddressForPlatform,
    .clCreateCommandQueueWithProperties = stub_CreateCommandQueueWithProperties,
    .clCreateProgramWithIL = stub_CreateProgramWithIL,
};

/* ---- exported (exports.map) ---- */

#define STUB_EXPORT __attribute__((visibility("default")))

STUB_EXPORT CL_API_ENTRY cl_int CL_API_CALL clIcdGetPlatformIDsKHR(cl_uint num_entries,
                                                       cl_platform_id *platforms_out,
                                                       cl_uint *num_platforms)
{
    return stub_GetPlatformIDs(num_entries, platforms_out, num_platforms);
}

STUB_EXPORT CL_API_ENTRY void *CL_API_CALL clGetExtensionFunctionAddress(const char *name)
{
    return stub_GetExtensionFunctionAddress(name);
}

STUB_EXPORT CL_API_ENTRY cl_int CL_API_CALL clGetPlatformInfo(cl_platform_id p, cl_platform_info param,
                                                  size_t cap, void *value, size_t *ret)
{
    return stub_GetPlatformInfo(p, param, cap, value, ret);
}
