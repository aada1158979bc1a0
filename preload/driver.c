/* driver.c — configuration and the next implementation of each function
 * (preload.h).
 *
 * The interposer links no OpenCL loader. As an LD_PRELOAD library it finds
 * each real function with dlsym(RTLD_NEXT), then dlvsym with the versioned
 * names of ocl-icd style loaders; when no loader is in the global scope (a
 * Python extension, or an application that dlopen()ed the loader), calls go
 * through the object's ICD dispatch table, as a loader would. As a layer
 * (layer.c) the loader hands it the table of the next layer or of the
 * loader itself, and every call goes there. */
#include "preload.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

interposer_config interposer_cfg;
cl_icd_dispatch interposer_real;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static const cl_icd_dispatch *layer_next; /* published once, atomically */
static cl_icd_dispatch layer_copy;
static unsigned long n_calls;

static const char *const versions[] = {"OPENCL_1.0", "OPENCL_1.1", "OPENCL_1.2", "OPENCL_2.0",
                                       "OPENCL_2.1", "OPENCL_2.2", "OPENCL_3.0"};

static void *find_real(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    for (size_t i = 0; !f && i < sizeof versions / sizeof versions[0]; i++)
        f = dlvsym(RTLD_NEXT, name, versions[i]);
    return f;
}

/* What the interposer calls: the functions it wraps and those libclcpack
 * and the capture use. */
#define NEXT_FUNCTIONS(X)                                                                      \
    X(clCreateProgramWithSource)                                                               \
    X(clCreateProgramWithBinary)                                                               \
    X(clCreateProgramWithBuiltInKernels)                                                       \
    X(clCreateProgramWithIL)                                                                   \
    X(clCompileProgram)                                                                        \
    X(clLinkProgram)                                                                           \
    X(clBuildProgram)                                                                          \
    X(clGetProgramInfo)                                                                        \
    X(clGetProgramBuildInfo)                                                                   \
    X(clRetainProgram)                                                                         \
    X(clReleaseProgram)                                                                        \
    X(clSetProgramReleaseCallback)                                                             \
    X(clCreateKernel)                                                                          \
    X(clCreateKernelsInProgram)                                                                \
    X(clGetKernelInfo)                                                                         \
    X(clGetContextInfo)                                                                        \
    X(clGetDeviceInfo)                                                                         \
    X(clGetPlatformInfo)                                                                       \
    X(clRetainDevice)                                                                          \
    X(clReleaseDevice)

static void init(void)
{
#define LOAD_REAL(n) interposer_real.n = (cl_api_##n)find_real(#n);
    NEXT_FUNCTIONS(LOAD_REAL)
    const char *log = getenv("CLCPACK_LOG");
    interposer_cfg.log = log && *log && strcmp(log, "0") != 0;
    const char *rec = getenv("CLCPACK_RECORD");
    const char *pack = getenv("CLCPACK_PACK");
    const char *status = getenv("CLCPACK_STATUS");
    interposer_cfg.record_dir = rec && *rec ? rec : NULL;
    interposer_cfg.pack_path = !interposer_cfg.record_dir && pack && *pack ? pack : NULL;
    interposer_cfg.status_dir = status && *status ? status : NULL;
}

void interposer_init(void)
{
    pthread_once(&init_once, init);
}

int interposer_active(void)
{
    interposer_init();
    return interposer_cfg.record_dir || interposer_cfg.pack_path;
}

void interposer_count_call(void)
{
    __atomic_add_fetch(&n_calls, 1, __ATOMIC_RELAXED);
}

unsigned long interposer_calls(void)
{
    return __atomic_load_n(&n_calls, __ATOMIC_RELAXED);
}

int interposer_layer_active(void)
{
    return __atomic_load_n(&layer_next, __ATOMIC_ACQUIRE) != NULL;
}

const cl_icd_dispatch *interposer_next(void)
{
    const cl_icd_dispatch *t = __atomic_load_n(&layer_next, __ATOMIC_ACQUIRE);
    return t ? t : &interposer_real;
}

void interposer_layer_set_target(const cl_icd_dispatch *target, size_t n)
{
    /* The first loader's table: a process with two loaders (a Python
     * extension's own beside the system's) dispatches through objects in
     * both, so either table reaches the driver of any object. */
    static int taken;
    if (__atomic_exchange_n(&taken, 1, __ATOMIC_ACQ_REL))
        return;
    size_t max = sizeof layer_copy / sizeof(void *);
    memcpy(&layer_copy, target, (n < max ? n : max) * sizeof(void *));
    __atomic_store_n(&layer_next, &layer_copy, __ATOMIC_RELEASE);
}

void interposer_say(const char *fmt, ...)
{
    if (!interposer_cfg.log)
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    /* One write per line, so that threads do not interleave. */
    fprintf(stderr, "clcpack: %s\n", line);
}

void interposer_why(char *why, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
}

double interposer_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

int interposer_program_devices(cl_program p, cl_uint nd, const cl_device_id *list, cl_device_id *out,
                       cl_uint *n)
{
    if (nd && list) {
        if (nd > MAX_DEVICES)
            return -1;
        memcpy(out, list, nd * sizeof *list);
        *n = nd;
        return 0;
    }
    cl_uint k = 0;
    if (DRV(clGetProgramInfo, p)(p, CL_PROGRAM_NUM_DEVICES, sizeof k, &k, NULL) != CL_SUCCESS ||
        k == 0 || k > MAX_DEVICES)
        return -1;
    if (DRV(clGetProgramInfo, p)(p, CL_PROGRAM_DEVICES, k * sizeof *out, out, NULL) !=
        CL_SUCCESS)
        return -1;
    *n = k;
    return 0;
}

/* ---------------------------------------------------------------------- */
/* For libclcpack's device fingerprint and cache: not exported, so the
 * application's own calls never come here.                                */

cl_int CL_API_CALL clGetDeviceInfo(cl_device_id d, cl_device_info param, size_t size,
                                   void *value, size_t *ret)
{
    if (!interposer_next()->clGetDeviceInfo && !d)
        return CL_INVALID_DEVICE;
    return DRV(clGetDeviceInfo, d)(d, param, size, value, ret);
}

cl_int CL_API_CALL clGetPlatformInfo(cl_platform_id pl, cl_platform_info param, size_t size,
                                     void *value, size_t *ret)
{
    if (!interposer_next()->clGetPlatformInfo && !pl)
        return CL_INVALID_PLATFORM;
    return DRV(clGetPlatformInfo, pl)(pl, param, size, value, ret);
}

cl_int CL_API_CALL clRetainDevice(cl_device_id d)
{
    if (!interposer_next()->clRetainDevice && !d)
        return CL_INVALID_DEVICE;
    return DRV(clRetainDevice, d)(d);
}

cl_int CL_API_CALL clReleaseDevice(cl_device_id d)
{
    if (!interposer_next()->clReleaseDevice && !d)
        return CL_INVALID_DEVICE;
    return DRV(clReleaseDevice, d)(d);
}
