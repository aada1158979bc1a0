/*
 * stub_icd.c — a small OpenCL driver for the interposer's tests: a real ICD
 * (clIcdGetPlatformIDsKHR and a dispatch table in every object) that an ICD
 * loader loads with OCL_ICD_VENDORS=<this file>. One platform, one device,
 * no compiler: a program "builds" in no time (a source holding "#error"
 * fails), its binary is "STUBBIN\n" followed by the source, and its kernels
 * are the names after each "__kernel void ".
 *
 * What it is for: it calls back synchronously, from inside the call that
 * triggers the callback, as PoCL does — a program's last clReleaseProgram
 * runs its release callbacks and then, when it held its context's last
 * reference, the context's destructor callbacks; a build callback runs
 * inside clBuildProgram. A callback that calls back into the OpenCL API
 * from there is what an interposer must survive (tests/device/test_record_reentry.c,
 * tests/device/test_record_stress.c). Thread-safe: reference counts are atomic.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl_icd.h>

#define EXPORT __attribute__((visibility("default")))
#define BIN_MAGIC "STUBBIN\n"
#define MAX_CB 8

static cl_icd_dispatch dispatch;

struct _cl_platform_id {
    cl_icd_dispatch *d;
};
struct _cl_device_id {
    cl_icd_dispatch *d;
};
typedef struct callback {
    void(CL_CALLBACK *fn)(void *, void *);
    void *user;
} callback;
struct _cl_context {
    cl_icd_dispatch *d;
    int refs;
    callback destructors[MAX_CB];
    int n_destructors;
};
struct _cl_program {
    cl_icd_dispatch *d;
    int refs;
    cl_context ctx;
    char *source;
    size_t size;
    int built;         /* CL_BUILD_* */
    int compiled_only; /* compiled, not linked */
    callback releases[MAX_CB];
    int n_releases;
};
struct _cl_kernel {
    cl_icd_dispatch *d;
    int refs;
    cl_program prog;
    char name[64];
};

static struct _cl_platform_id platform = {&dispatch};
static struct _cl_device_id device = {&dispatch};

static cl_int info(size_t size, void *value, size_t *ret, const void *src, size_t n)
{
    if (value && size < n)
        return CL_INVALID_VALUE;
    if (value)
        memcpy(value, src, n);
    if (ret)
        *ret = n;
    return CL_SUCCESS;
}

static cl_int info_str(size_t size, void *value, size_t *ret, const char *s)
{
    return info(size, value, ret, s, strlen(s) + 1);
}

/* ---------------------------------------------------------------------- */
/* Platform and device                                                     */

static cl_int CL_API_CALL get_platform_ids(cl_uint n, cl_platform_id *out, cl_uint *count)
{
    if (out && n)
        out[0] = &platform;
    if (count)
        *count = 1;
    return CL_SUCCESS;
}

static cl_int CL_API_CALL get_platform_info(cl_platform_id p, cl_platform_info param,
                                            size_t size, void *value, size_t *ret)
{
    (void)p;
    switch (param) {
    case CL_PLATFORM_NAME:
        return info_str(size, value, ret, "clcpack stub");
    case CL_PLATFORM_VENDOR:
        return info_str(size, value, ret, "clcpack tests");
    case CL_PLATFORM_VERSION:
        return info_str(size, value, ret, "OpenCL 3.0 stub");
    case CL_PLATFORM_PROFILE:
        return info_str(size, value, ret, "FULL_PROFILE");
    case CL_PLATFORM_EXTENSIONS:
        return info_str(size, value, ret, "cl_khr_icd");
    case CL_PLATFORM_ICD_SUFFIX_KHR:
        return info_str(size, value, ret, "STUB");
    default:
        return CL_INVALID_VALUE;
    }
}

static cl_int CL_API_CALL get_device_ids(cl_platform_id p, cl_device_type type, cl_uint n,
                                         cl_device_id *out, cl_uint *count)
{
    (void)p;
    (void)type;
    if (out && n)
        out[0] = &device;
    if (count)
        *count = 1;
    return CL_SUCCESS;
}

static cl_int CL_API_CALL get_device_info(cl_device_id d, cl_device_info param, size_t size,
                                          void *value, size_t *ret)
{
    (void)d;
    cl_device_type type = CL_DEVICE_TYPE_CPU;
    cl_uint u = 0;
    cl_platform_id pl = &platform;
    switch (param) {
    case CL_DEVICE_NAME:
        return info_str(size, value, ret, "stub device");
    case CL_DEVICE_VERSION:
        return info_str(size, value, ret, "OpenCL 3.0 stub");
    case CL_DRIVER_VERSION:
        return info_str(size, value, ret, "1.0");
    case CL_DEVICE_OPENCL_C_VERSION:
        return info_str(size, value, ret, "OpenCL C 1.2 stub");
    case CL_DEVICE_EXTENSIONS:
        return info_str(size, value, ret, "");
    case CL_DEVICE_VENDOR:
        return info_str(size, value, ret, "clcpack tests");
    case CL_DEVICE_TYPE:
        return info(size, value, ret, &type, sizeof type);
    case CL_DEVICE_VENDOR_ID:
        u = 0x5354;
        return info(size, value, ret, &u, sizeof u);
    case CL_DEVICE_ADDRESS_BITS:
        u = 64;
        return info(size, value, ret, &u, sizeof u);
    case CL_DEVICE_PLATFORM:
        return info(size, value, ret, &pl, sizeof pl);
    default:
        return CL_INVALID_VALUE;
    }
}

static cl_int CL_API_CALL retain_device(cl_device_id d)
{
    (void)d;
    return CL_SUCCESS;
}

/* ---------------------------------------------------------------------- */
/* Contexts                                                                */

static cl_context CL_API_CALL create_context(const cl_context_properties *props, cl_uint n,
                                             const cl_device_id *devs,
                                             void(CL_CALLBACK *notify)(const char *, const void *,
                                                                       size_t, void *),
                                             void *user, cl_int *err)
{
    (void)props;
    (void)n;
    (void)devs;
    (void)notify;
    (void)user;
    cl_context c = calloc(1, sizeof *c);
    c->d = &dispatch;
    c->refs = 1;
    if (err)
        *err = CL_SUCCESS;
    return c;
}

static cl_int CL_API_CALL retain_context(cl_context c)
{
    __atomic_add_fetch(&c->refs, 1, __ATOMIC_ACQ_REL);
    return CL_SUCCESS;
}

static cl_int CL_API_CALL release_context(cl_context c)
{
    if (__atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL) > 0)
        return CL_SUCCESS;
    /* Synchronously, in reverse order of registration (OpenCL 3.0). */
    for (int i = c->n_destructors - 1; i >= 0; i--)
        c->destructors[i].fn(c, c->destructors[i].user);
    free(c);
    return CL_SUCCESS;
}

static cl_int CL_API_CALL set_context_destructor(cl_context c,
                                                 void(CL_CALLBACK *fn)(cl_context, void *),
                                                 void *user)
{
    if (!fn || c->n_destructors == MAX_CB)
        return CL_INVALID_VALUE;
    c->destructors[c->n_destructors++] =
        (callback){(void(CL_CALLBACK *)(void *, void *))(void *)fn, user};
    return CL_SUCCESS;
}

static cl_int CL_API_CALL get_context_info(cl_context c, cl_context_info param, size_t size,
                                           void *value, size_t *ret)
{
    cl_device_id d = &device;
    cl_uint one = 1, refs = (cl_uint)__atomic_load_n(&c->refs, __ATOMIC_ACQUIRE);
    switch (param) {
    case CL_CONTEXT_DEVICES:
        return info(size, value, ret, &d, sizeof d);
    case CL_CONTEXT_NUM_DEVICES:
        return info(size, value, ret, &one, sizeof one);
    case CL_CONTEXT_REFERENCE_COUNT:
        return info(size, value, ret, &refs, sizeof refs);
    default:
        return CL_INVALID_VALUE;
    }
}

/* ---------------------------------------------------------------------- */
/* Programs                                                                */

static cl_program new_program(cl_context ctx, const char *src, size_t size)
{
    cl_program p = calloc(1, sizeof *p);
    p->d = &dispatch;
    p->refs = 1;
    p->ctx = ctx;
    p->source = malloc(size + 1);
    memcpy(p->source, src, size);
    p->source[size] = '\0';
    p->size = size;
    p->built = CL_BUILD_NONE;
    retain_context(ctx);
    return p;
}

static cl_program CL_API_CALL create_with_source(cl_context ctx, cl_uint count,
                                                 const char **strings, const size_t *lengths,
                                                 cl_int *err)
{
    size_t total = 0;
    for (cl_uint i = 0; i < count; i++)
        total += lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
    char *s = malloc(total + 1), *at = s;
    for (cl_uint i = 0; i < count; i++) {
        size_t n = lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
        memcpy(at, strings[i], n);
        at += n;
    }
    cl_program p = new_program(ctx, s, total);
    free(s);
    if (err)
        *err = CL_SUCCESS;
    return p;
}

static cl_program CL_API_CALL create_with_binary(cl_context ctx, cl_uint n,
                                                 const cl_device_id *devs, const size_t *lengths,
                                                 const unsigned char **bins, cl_int *status,
                                                 cl_int *err)
{
    (void)devs;
    size_t m = sizeof BIN_MAGIC - 1;
    if (n != 1 || lengths[0] < m || memcmp(bins[0], BIN_MAGIC, m) != 0) {
        if (status)
            status[0] = CL_INVALID_BINARY;
        if (err)
            *err = CL_INVALID_BINARY;
        return NULL;
    }
    cl_program p = new_program(ctx, (const char *)bins[0] + m, lengths[0] - m);
    if (status)
        status[0] = CL_SUCCESS;
    if (err)
        *err = CL_SUCCESS;
    return p;
}

static cl_int CL_API_CALL retain_program(cl_program p)
{
    __atomic_add_fetch(&p->refs, 1, __ATOMIC_ACQ_REL);
    return CL_SUCCESS;
}

static cl_int CL_API_CALL release_program(cl_program p)
{
    if (__atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) > 0)
        return CL_SUCCESS;
    for (int i = p->n_releases - 1; i >= 0; i--)
        p->releases[i].fn(p, p->releases[i].user);
    cl_context ctx = p->ctx;
    free(p->source);
    free(p);
    /* The program held its context: its last reference goes now, with
     * the destructor callbacks, inside this clReleaseProgram. */
    return release_context(ctx);
}

static cl_int CL_API_CALL set_release_callback(cl_program p,
                                               void(CL_CALLBACK *fn)(cl_program, void *),
                                               void *user)
{
    if (!fn || p->n_releases == MAX_CB)
        return CL_INVALID_VALUE;
    p->releases[p->n_releases++] =
        (callback){(void(CL_CALLBACK *)(void *, void *))(void *)fn, user};
    return CL_SUCCESS;
}

static cl_int do_build(cl_program p, int compile_only)
{
    int bad = strstr(p->source, "#error") != NULL;
    p->built = bad ? CL_BUILD_ERROR : CL_BUILD_SUCCESS;
    p->compiled_only = compile_only;
    return bad ? (compile_only ? CL_COMPILE_PROGRAM_FAILURE : CL_BUILD_PROGRAM_FAILURE)
               : CL_SUCCESS;
}

static cl_int CL_API_CALL build_program(cl_program p, cl_uint n, const cl_device_id *devs,
                                        const char *options,
                                        void(CL_CALLBACK *notify)(cl_program, void *),
                                        void *user)
{
    (void)n;
    (void)devs;
    (void)options;
    cl_int rc = do_build(p, 0);
    if (notify)
        notify(p, user); /* synchronously, inside the call */
    return rc;
}

static cl_int CL_API_CALL compile_program(cl_program p, cl_uint n, const cl_device_id *devs,
                                          const char *options, cl_uint nh,
                                          const cl_program *headers, const char **names,
                                          void(CL_CALLBACK *notify)(cl_program, void *),
                                          void *user)
{
    (void)n;
    (void)devs;
    (void)options;
    (void)nh;
    (void)headers;
    (void)names;
    cl_int rc = do_build(p, 1);
    if (notify)
        notify(p, user);
    return rc;
}

static cl_program CL_API_CALL link_program(cl_context ctx, cl_uint n, const cl_device_id *devs,
                                           const char *options, cl_uint ni,
                                           const cl_program *inputs,
                                           void(CL_CALLBACK *notify)(cl_program, void *),
                                           void *user, cl_int *err)
{
    (void)n;
    (void)devs;
    (void)options;
    size_t total = 0;
    for (cl_uint i = 0; i < ni; i++) {
        if (!inputs[i]->compiled_only || inputs[i]->built != CL_BUILD_SUCCESS) {
            if (err)
                *err = CL_INVALID_OPERATION;
            return NULL;
        }
        total += inputs[i]->size;
    }
    char *s = malloc(total + 1), *at = s;
    for (cl_uint i = 0; i < ni; i++) {
        memcpy(at, inputs[i]->source, inputs[i]->size);
        at += inputs[i]->size;
    }
    cl_program p = new_program(ctx, s, total);
    free(s);
    p->built = CL_BUILD_SUCCESS;
    if (notify)
        notify(p, user);
    if (err)
        *err = CL_SUCCESS;
    return p;
}

/* The kernel names of a source, ';'-separated, into out. */
static void kernel_names(const char *src, char *out, size_t cap)
{
    out[0] = '\0';
    size_t len = 0;
    for (const char *k = strstr(src, "__kernel void "); k; k = strstr(k + 1, "__kernel void ")) {
        const char *name = k + strlen("__kernel void ");
        size_t n = strcspn(name, "( \n");
        if (len + n + 2 > cap)
            break;
        if (len)
            out[len++] = ';';
        memcpy(out + len, name, n);
        len += n;
        out[len] = '\0';
    }
}

static cl_int CL_API_CALL get_program_info(cl_program p, cl_program_info param, size_t size,
                                           void *value, size_t *ret)
{
    cl_uint one = 1, refs = (cl_uint)__atomic_load_n(&p->refs, __ATOMIC_ACQUIRE);
    cl_device_id d = &device;
    char names[1024];
    size_t bin_size = sizeof BIN_MAGIC - 1 + p->size, nk = 0;
    switch (param) {
    case CL_PROGRAM_REFERENCE_COUNT:
        return info(size, value, ret, &refs, sizeof refs);
    case CL_PROGRAM_CONTEXT:
        return info(size, value, ret, &p->ctx, sizeof p->ctx);
    case CL_PROGRAM_NUM_DEVICES:
        return info(size, value, ret, &one, sizeof one);
    case CL_PROGRAM_DEVICES:
        return info(size, value, ret, &d, sizeof d);
    case CL_PROGRAM_SOURCE:
        return info(size, value, ret, p->source, p->size + 1);
    case CL_PROGRAM_BINARY_SIZES:
        return info(size, value, ret, &bin_size, sizeof bin_size);
    case CL_PROGRAM_BINARIES:
        if (value && size < sizeof(unsigned char *))
            return CL_INVALID_VALUE;
        if (value && ((unsigned char **)value)[0]) {
            memcpy(((unsigned char **)value)[0], BIN_MAGIC, sizeof BIN_MAGIC - 1);
            memcpy(((unsigned char **)value)[0] + sizeof BIN_MAGIC - 1, p->source, p->size);
        }
        if (ret)
            *ret = sizeof(unsigned char *);
        return CL_SUCCESS;
    case CL_PROGRAM_KERNEL_NAMES:
        if (p->built != CL_BUILD_SUCCESS || p->compiled_only)
            return CL_INVALID_PROGRAM_EXECUTABLE;
        kernel_names(p->source, names, sizeof names);
        return info_str(size, value, ret, names);
    case CL_PROGRAM_NUM_KERNELS:
        if (p->built != CL_BUILD_SUCCESS || p->compiled_only)
            return CL_INVALID_PROGRAM_EXECUTABLE;
        kernel_names(p->source, names, sizeof names);
        nk = names[0] ? 1 : 0;
        for (const char *c = names; *c; c++)
            nk += *c == ';';
        return info(size, value, ret, &nk, sizeof nk);
    default:
        return CL_INVALID_VALUE;
    }
}

static cl_int CL_API_CALL get_build_info(cl_program p, cl_device_id d,
                                         cl_program_build_info param, size_t size, void *value,
                                         size_t *ret)
{
    (void)d;
    cl_build_status st = p->built;
    switch (param) {
    case CL_PROGRAM_BUILD_STATUS:
        return info(size, value, ret, &st, sizeof st);
    case CL_PROGRAM_BUILD_LOG:
        return info_str(size, value, ret, st == CL_BUILD_ERROR ? "stub: #error" : "");
    case CL_PROGRAM_BUILD_OPTIONS:
        return info_str(size, value, ret, "");
    default:
        return CL_INVALID_VALUE;
    }
}

/* ---------------------------------------------------------------------- */
/* Kernels                                                                 */

static cl_kernel CL_API_CALL create_kernel(cl_program p, const char *name, cl_int *err)
{
    char names[1024], want[80];
    if (p->built != CL_BUILD_SUCCESS || p->compiled_only) {
        if (err)
            *err = CL_INVALID_PROGRAM_EXECUTABLE;
        return NULL;
    }
    kernel_names(p->source, names, sizeof names);
    snprintf(want, sizeof want, ";%s;", name);
    char padded[1100];
    snprintf(padded, sizeof padded, ";%s;", names);
    if (strlen(name) >= 64 || !strstr(padded, want)) {
        if (err)
            *err = CL_INVALID_KERNEL_NAME;
        return NULL;
    }
    cl_kernel k = calloc(1, sizeof *k);
    k->d = &dispatch;
    k->refs = 1;
    k->prog = p;
    snprintf(k->name, sizeof k->name, "%s", name);
    retain_program(p);
    if (err)
        *err = CL_SUCCESS;
    return k;
}

static cl_int CL_API_CALL retain_kernel(cl_kernel k)
{
    __atomic_add_fetch(&k->refs, 1, __ATOMIC_ACQ_REL);
    return CL_SUCCESS;
}

static cl_int CL_API_CALL release_kernel(cl_kernel k)
{
    if (__atomic_sub_fetch(&k->refs, 1, __ATOMIC_ACQ_REL) > 0)
        return CL_SUCCESS;
    cl_program p = k->prog;
    free(k);
    return release_program(p);
}

static cl_int CL_API_CALL get_kernel_info(cl_kernel k, cl_kernel_info param, size_t size,
                                          void *value, size_t *ret)
{
    switch (param) {
    case CL_KERNEL_FUNCTION_NAME:
        return info_str(size, value, ret, k->name);
    case CL_KERNEL_PROGRAM:
        return info(size, value, ret, &k->prog, sizeof k->prog);
    default:
        return CL_INVALID_VALUE;
    }
}

/* ---------------------------------------------------------------------- */
/* The ICD entry points                                                    */

/* Before any call: the loader may call from several threads. */
__attribute__((constructor)) static void init_dispatch(void)
{
    dispatch.clGetPlatformIDs = get_platform_ids;
    dispatch.clGetPlatformInfo = get_platform_info;
    dispatch.clGetDeviceIDs = get_device_ids;
    dispatch.clGetDeviceInfo = get_device_info;
    dispatch.clRetainDevice = retain_device;
    dispatch.clReleaseDevice = retain_device;
    dispatch.clCreateContext = create_context;
    dispatch.clRetainContext = retain_context;
    dispatch.clReleaseContext = release_context;
    dispatch.clGetContextInfo = get_context_info;
    dispatch.clSetContextDestructorCallback = set_context_destructor;
    dispatch.clCreateProgramWithSource = create_with_source;
    dispatch.clCreateProgramWithBinary = create_with_binary;
    dispatch.clRetainProgram = retain_program;
    dispatch.clReleaseProgram = release_program;
    dispatch.clSetProgramReleaseCallback = set_release_callback;
    dispatch.clBuildProgram = build_program;
    dispatch.clCompileProgram = compile_program;
    dispatch.clLinkProgram = link_program;
    dispatch.clGetProgramInfo = get_program_info;
    dispatch.clGetProgramBuildInfo = get_build_info;
    dispatch.clCreateKernel = create_kernel;
    dispatch.clRetainKernel = retain_kernel;
    dispatch.clReleaseKernel = release_kernel;
    dispatch.clGetKernelInfo = get_kernel_info;
}

EXPORT cl_int CL_API_CALL clIcdGetPlatformIDsKHR(cl_uint n, cl_platform_id *out,
                                                 cl_uint *count);
EXPORT cl_int CL_API_CALL clIcdGetPlatformIDsKHR(cl_uint n, cl_platform_id *out, cl_uint *count)
{
    return get_platform_ids(n, out, count);
}

EXPORT void *CL_API_CALL clGetExtensionFunctionAddress(const char *name);
EXPORT void *CL_API_CALL clGetExtensionFunctionAddress(const char *name)
{
    if (strcmp(name, "clIcdGetPlatformIDsKHR") == 0)
        return (void *)(size_t)clIcdGetPlatformIDsKHR;
    return NULL;
}

EXPORT cl_int CL_API_CALL clGetPlatformInfo(cl_platform_id p, cl_platform_info param,
                                            size_t size, void *value, size_t *ret);
EXPORT cl_int CL_API_CALL clGetPlatformInfo(cl_platform_id p, cl_platform_info param,
                                            size_t size, void *value, size_t *ret)
{
    return get_platform_info(p, param, size, value, ret);
}
