/*
 * stub.h — the stub OpenCL driver's objects and the calls between its
 * files (tests/stubs/gpu_driver/README.md says what the stub is for and how it is
 * configured). Nothing here is exported: the ICD loader reaches the stub
 * through the three symbols of stub_entry.c and the dispatch table.
 *
 * Every object starts with the dispatch pointer (cl_khr_icd), then a magic
 * number naming its type, so that a handle of the wrong type (a kernel
 * passed as a program) is refused with the matching CL_INVALID_* instead of
 * being misread. Reference counts are atomic; a program's mutable state is
 * behind its own mutex; the log behind one global mutex.
 */
#ifndef CLCSTUB_H
#define CLCSTUB_H

/* Every OpenCL call the dispatch table has, deprecated ones too. */
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_2_0_APIS

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <CL/cl_icd.h>
#include <CL/cl_ext.h>

#define STUB_MAGIC_PLATFORM 0x504c4154u /* "PLAT" */
#define STUB_MAGIC_DEVICE 0x44455649u   /* "DEVI" */
#define STUB_MAGIC_CONTEXT 0x43545854u  /* "CTXT" */
#define STUB_MAGIC_QUEUE 0x51554555u    /* "QUEU" */
#define STUB_MAGIC_MEM 0x4d454d4fu      /* "MEMO" */
#define STUB_MAGIC_PROGRAM 0x50524f47u  /* "PROG" */
#define STUB_MAGIC_KERNEL 0x4b45524eu   /* "KERN" */
#define STUB_MAGIC_EVENT 0x45564e54u    /* "EVNT" */

#define STUB_MAX_DEVICES 16
#define STUB_LABEL_MAX 96
/* Programs, build options, sources and binaries beyond these are refused
 * (CL_OUT_OF_HOST_MEMORY / CL_INVALID_VALUE), never trusted. */
#define STUB_MAX_BYTES (256u << 20)
#define STUB_MAX_KERNELS 4096
#define STUB_MAX_ARGS 256

enum stub_vendor { STUB_INTEL = 1, STUB_AMD = 2 };

/* An Intel GPU target as ocloc names it (stub_targets.c). */
typedef struct stub_intel_target {
    const char *name;     /* "tgllp" */
    uint32_t ip_version;  /* CL_MAKE_VERSION: what CL_DEVICE_IP_VERSION_INTEL says */
    uint32_t product;     /* PRODUCT_FAMILY: zebin's IntelGT note 1 */
    uint32_t core;        /* GFXCORE_FAMILY: the patchtokens header's Device */
    uint32_t revision;    /* stepping */
    uint32_t pci_id;      /* CL_DEVICE_ID_INTEL */
    const char *marketing; /* CL_DEVICE_NAME */
    uint32_t eus;         /* CL_DEVICE_MAX_COMPUTE_UNITS */
    int fp64;
    int integrated;       /* CL_DEVICE_HOST_UNIFIED_MEMORY */
} stub_intel_target;

/* An AMD GPU processor (stub_targets.c): its EF_AMDGPU_MACH value and
 * which target features it has. */
typedef struct stub_amd_target {
    const char *name;     /* "gfx90a" */
    uint32_t mach;
    int has_xnack, has_sramecc;
    const char *board;    /* CL_DEVICE_BOARD_NAME_AMD */
    uint32_t wavefront;
    uint32_t cus;
} stub_amd_target;

/* A feature of an AMD target id: not given ("any"), off ('-') or on ('+'). */
enum { STUB_FEAT_ANY = 0, STUB_FEAT_OFF = 1, STUB_FEAT_ON = 2 };

struct _cl_platform_id {
    const cl_icd_dispatch *dispatch;
    uint32_t magic;
    int vendor;
    unsigned n_devices;
    cl_device_id devices[STUB_MAX_DEVICES];
    char version[128];    /* CL_PLATFORM_VERSION */
};

struct _cl_device_id {
    const cl_icd_dispatch *dispatch;
    uint32_t magic;
    int vendor;
    unsigned index;       /* across the stub's devices, in CLCSTUB_DEVICES order */
    cl_platform_id platform;
    char label[STUB_LABEL_MAX]; /* "intel:tgllp", "amd:gfx90a:xnack-" */
    const stub_intel_target *intel;
    stub_intel_target intel_own; /* another stepping of a known die: intel points here */
    const stub_amd_target *amd;
    int xnack, sramecc;   /* STUB_FEAT_* (AMD) */
    char name[STUB_LABEL_MAX];  /* CL_DEVICE_NAME */
    char driver[128];     /* CL_DRIVER_VERSION */
    char il_versions[256]; /* CL_DEVICE_IL_VERSION; "" when no IL */
    uint8_t device_uuid[16], driver_uuid[16];
};

struct _cl_context {
    const cl_icd_dispatch *dispatch;
    uint32_t magic;
    atomic_uint refs;
    cl_uint n_devices;
    cl_device_id devices[STUB_MAX_DEVICES];
    cl_context_properties props[3]; /* CL_CONTEXT_PLATFORM, p, 0; or {0} */
    size_t n_props;
};

struct _cl_command_queue {
    const cl_icd_dispatch *dispatch;
    uint32_t magic;
    atomic_uint refs;
    cl_context context;
    cl_device_id device;
    cl_command_queue_properties props;
};

struct _cl_mem {
    const cl_icd_dispatch *dispatch;
    uint32_t magic;
    atomic_uint refs;
    cl_context context;
    cl_mem_flags flags;
    size_t size;
    unsigned char *data;  /* owned unless CL_MEM_USE_HOST_PTR */
    void *host_ptr;
};

/* One kernel of a program, as far as the stub knows it: the name, and the
 * parameter declarations when they came from a source (else n_args is
 * 0 and have_args 0: arg info is then "not available"). */
typedef struct stub_kernel_desc {
    char *name;
    int have_args;
    size_t n_args;
    char **arg_decl;      /* "const __global float *x" */
} stub_kernel_desc;

typedef struct stub_kernel_list {
    stub_kernel_desc *k;
    size_t n;
} stub_kernel_list;

/* How a program's bytes are used on one device. */
enum stub_origin {
    STUB_FROM_SOURCE = 1,
    STUB_FROM_IL = 2,
    STUB_FROM_BINARY = 3,  /* a device binary for this device */
    STUB_FROM_IR = 4       /* a binary holding IR only for this device (NEO rebuilds it) */
};

typedef struct stub_prog_dev {
    cl_device_id device;
    int origin;
    char in_sha[65];      /* SHA-256 of the bytes this device was handed */
    size_t in_len;
    cl_build_status status;
    cl_program_binary_type binary_type;
    char *options;        /* of the last build */
    char *log;            /* build log */
    unsigned char *binary; /* what CL_PROGRAM_BINARIES returns */
    size_t binary_len;
    stub_kernel_list kernels; /* after a successful build (or from the binary) */
} stub_prog_dev;

struct _cl_program {
    const cl_icd_dispatch *dispatch;
    uint32_t magic;
    atomic_uint refs;
    atomic_uint kernels_alive; /* kernels made from it (build is refused then) */
    cl_context context;
    unsigned id;          /* per-process number, the log's prog= */
    int origin;           /* STUB_FROM_SOURCE, _IL or _BINARY */
    unsigned char *input; /* the bytes it was created from (source text, IL) */
    size_t input_len;
    char input_sha[65];
    /* Kernels and arguments of the source or IL, before any build. */
    stub_kernel_list scanned;
    cl_uint n_devices;
    stub_prog_dev devs[STUB_MAX_DEVICES];
    pthread_mutex_t lock;
};

struct _cl_kernel {
    const cl_icd_dispatch *dispatch;
    uint32_t magic;
    atomic_uint refs;
    cl_program program;
    stub_kernel_desc desc; /* a copy: the program may be rebuilt */
};

struct _cl_event {
    const cl_icd_dispatch *dispatch;
    uint32_t magic;
    atomic_uint refs;
    cl_context context;
    cl_command_queue queue;
    cl_command_type type;
};

/* ---- stub_entry.c ---- */
extern const cl_icd_dispatch stub_dispatch;
/* The configuration read once, at the first use (CLCSTUB_DEVICES, ...). */
void stub_init(void);
unsigned stub_platform_count(void);
cl_platform_id stub_platform(unsigned i);
unsigned stub_device_count(void);
cl_device_id stub_device(unsigned i);

/* ---- stub_config.c ---- */
/* Builds the platforms and devices from the environment. Returns the
 * number of platforms (0..2) and fills plats; devices go into devs. */
unsigned stub_config_load(struct _cl_platform_id plats[2], struct _cl_device_id *devs,
                          unsigned *n_devs);
/* The value of a switch variable, read at each call (NULL when unset or
 * empty). */
const char *stub_env(const char *name);
/* Whether switch `name` (CLCSTUB_REFUSE_BINARIES, ...) names this device:
 * "1" or "all", the vendor ("intel", "amd") or the device's label. */
int stub_switch_matches(const char *name, cl_device_id dev);

/* ---- stub_targets.c ---- */
/* A target by ocloc's name (or another name ocloc gives it: acm-g10) or
 * its exact IP version; NULL when the stub does not know it. */
const stub_intel_target *stub_intel_find(const char *name_or_ip);
/* Another stepping of a known die: for an IP version "12.55.4" whose
 * major.minor is a known target's, that target at this revision into
 * *out. 0, or -1. */
int stub_intel_stepping(const char *ip_text, stub_intel_target *out);
const stub_amd_target *stub_amd_find(const char *name, size_t len);
const stub_amd_target *stub_amd_by_mach(uint32_t mach);
/* Writes the known names, comma-separated, for error messages. */
void stub_intel_names(char *buf, size_t cap);
void stub_amd_names(char *buf, size_t cap);

/* ---- stub_info.c ---- */
cl_int stub_answer(const void *src, size_t n, size_t cap, void *dst, size_t *ret);
cl_int stub_answer_str(const char *s, size_t cap, void *dst, size_t *ret);
int stub_is_device(cl_device_id d);
/* CL_DEVICE_MAX_WORK_GROUP_SIZE (NEO: 1024, ROCm: 256). */
size_t stub_max_work_group(cl_device_id d);
int stub_is_platform(cl_platform_id p);
int stub_is_context(cl_context c);
cl_int CL_API_CALL stub_GetPlatformInfo(cl_platform_id p, cl_platform_info param, size_t cap,
                                        void *value, size_t *ret);

/* ---- stub_binary.c ---- */
/* What a device makes of a binary handed to clCreateProgramWithBinary:
 * STUB_FROM_BINARY (its own device binary), STUB_FROM_IR (IR only for this
 * device: rebuilt at build time, as NEO does) or 0 (refused; why says why).
 * On acceptance *kernels gets the kernels the binary holds (may be empty
 * when IR's are only known after the rebuild: then from the IR). */
int stub_binary_verdict(cl_device_id dev, const unsigned char *bin, size_t len,
                        stub_kernel_list *kernels, char *why, size_t cap);
/* The binary this device's build of `kernels` makes (malloc'd). */
unsigned char *stub_binary_make(cl_device_id dev, const stub_kernel_list *kernels,
                                const char *options, size_t *len);
/* Checks IL for a device: 0 with the kernels, or a CL error with why. */
cl_int stub_il_check(cl_device_id dev, const unsigned char *il, size_t len,
                     stub_kernel_list *kernels, char *why, size_t cap);

/* ---- stub_source.c ---- */
/* The kernels a source text declares, with their parameter declarations. */
int stub_source_kernels(const char *text, size_t len, stub_kernel_list *out);
void stub_kernels_free(stub_kernel_list *l);
int stub_kernels_copy(stub_kernel_list *dst, const stub_kernel_list *src);
int stub_kernel_desc_copy(stub_kernel_desc *dst, const stub_kernel_desc *src);
void stub_kernel_desc_free(stub_kernel_desc *d);
/* Appends a kernel of that name without argument info; -1 out of memory. */
int stub_kernels_add(stub_kernel_list *l, const char *name, size_t len);
/* Arg info from a declaration: name, type name and qualifiers. */
void stub_arg_info(const char *decl, char *name, size_t name_cap, char *type, size_t type_cap,
                   cl_kernel_arg_address_qualifier *aq, cl_kernel_arg_access_qualifier *acc,
                   cl_kernel_arg_type_qualifier *tq);

/* ---- stub_log.c ---- */
/* Appends one line to $CLCSTUB_LOG (nothing when unset), and writes bytes
 * to $CLCSTUB_SAVE_DIR when set. dev may be NULL. */
void stub_log_call(const char *call, cl_device_id dev, unsigned prog, const void *bytes,
                   size_t n, const char *sha_hex, cl_int result, const char *how,
                   const char *why, const char *options);
/* SHA-256 of n bytes as 64 hex digits and a NUL. */
void stub_sha_hex(const void *bytes, size_t n, char out[65]);
/* The name of an OpenCL status ("CL_INVALID_BINARY"), or its number. */
const char *stub_status_name(cl_int rc, char *buf, size_t cap);
/* A monotonic number for program ids and log lines. */
unsigned stub_next_id(void);

/* ---- stub_program.c / stub_kernel.c / stub_objects.c: the API ---- */
#define STUB_API(ret, name, params) ret CL_API_CALL stub_##name params
STUB_API(cl_program, CreateProgramWithSource,
         (cl_context, cl_uint, const char **, const size_t *, cl_int *));
STUB_API(cl_program, CreateProgramWithBinary,
         (cl_context, cl_uint, const cl_device_id *, const size_t *, const unsigned char **,
          cl_int *, cl_int *));
STUB_API(cl_program, CreateProgramWithIL, (cl_context, const void *, size_t, cl_int *));
STUB_API(cl_program, CreateProgramWithBuiltInKernels,
         (cl_context, cl_uint, const cl_device_id *, const char *, cl_int *));
STUB_API(cl_int, RetainProgram, (cl_program));
STUB_API(cl_int, ReleaseProgram, (cl_program));
STUB_API(cl_int, BuildProgram,
         (cl_program, cl_uint, const cl_device_id *, const char *,
          void(CL_CALLBACK *)(cl_program, void *), void *));
STUB_API(cl_int, CompileProgram,
         (cl_program, cl_uint, const cl_device_id *, const char *, cl_uint, const cl_program *,
          const char **, void(CL_CALLBACK *)(cl_program, void *), void *));
STUB_API(cl_program, LinkProgram,
         (cl_context, cl_uint, const cl_device_id *, const char *, cl_uint, const cl_program *,
          void(CL_CALLBACK *)(cl_program, void *), void *, cl_int *));
STUB_API(cl_int, UnloadPlatformCompiler, (cl_platform_id));
STUB_API(cl_int, UnloadCompiler, (void));
STUB_API(cl_int, GetProgramInfo, (cl_program, cl_program_info, size_t, void *, size_t *));
STUB_API(cl_int, GetProgramBuildInfo,
         (cl_program, cl_device_id, cl_program_build_info, size_t, void *, size_t *));
/* Finds a kernel by name in a built program (locks it). */
cl_int stub_program_kernel(cl_program p, const char *name, stub_kernel_desc *out);
int stub_is_program(cl_program p);

STUB_API(cl_kernel, CreateKernel, (cl_program, const char *, cl_int *));
STUB_API(cl_int, CreateKernelsInProgram, (cl_program, cl_uint, cl_kernel *, cl_uint *));
STUB_API(cl_int, RetainKernel, (cl_kernel));
STUB_API(cl_int, ReleaseKernel, (cl_kernel));
STUB_API(cl_int, SetKernelArg, (cl_kernel, cl_uint, size_t, const void *));
STUB_API(cl_int, GetKernelInfo, (cl_kernel, cl_kernel_info, size_t, void *, size_t *));
STUB_API(cl_int, GetKernelArgInfo,
         (cl_kernel, cl_uint, cl_kernel_arg_info, size_t, void *, size_t *));
STUB_API(cl_int, GetKernelWorkGroupInfo,
         (cl_kernel, cl_device_id, cl_kernel_work_group_info, size_t, void *, size_t *));
int stub_is_kernel(cl_kernel k);

STUB_API(cl_int, GetPlatformIDs, (cl_uint, cl_platform_id *, cl_uint *));
STUB_API(cl_int, GetDeviceIDs, (cl_platform_id, cl_device_type, cl_uint, cl_device_id *, cl_uint *));
STUB_API(cl_int, GetDeviceInfo, (cl_device_id, cl_device_info, size_t, void *, size_t *));
STUB_API(cl_int, RetainDevice, (cl_device_id));
STUB_API(cl_int, ReleaseDevice, (cl_device_id));
STUB_API(cl_int, CreateSubDevices,
         (cl_device_id, const cl_device_partition_property *, cl_uint, cl_device_id *, cl_uint *));

STUB_API(cl_context, CreateContext,
         (const cl_context_properties *, cl_uint, const cl_device_id *,
          void(CL_CALLBACK *)(const char *, const void *, size_t, void *), void *, cl_int *));
STUB_API(cl_context, CreateContextFromType,
         (const cl_context_properties *, cl_device_type,
          void(CL_CALLBACK *)(const char *, const void *, size_t, void *), void *, cl_int *));
STUB_API(cl_int, RetainContext, (cl_context));
STUB_API(cl_int, ReleaseContext, (cl_context));
STUB_API(cl_int, GetContextInfo, (cl_context, cl_context_info, size_t, void *, size_t *));
void stub_context_retain(cl_context c);
void stub_context_release(cl_context c);
int stub_context_has(cl_context c, cl_device_id d);

STUB_API(cl_command_queue, CreateCommandQueue,
         (cl_context, cl_device_id, cl_command_queue_properties, cl_int *));
STUB_API(cl_command_queue, CreateCommandQueueWithProperties,
         (cl_context, cl_device_id, const cl_queue_properties *, cl_int *));
STUB_API(cl_int, RetainCommandQueue, (cl_command_queue));
STUB_API(cl_int, ReleaseCommandQueue, (cl_command_queue));
STUB_API(cl_int, GetCommandQueueInfo,
         (cl_command_queue, cl_command_queue_info, size_t, void *, size_t *));
STUB_API(cl_int, Flush, (cl_command_queue));
STUB_API(cl_int, Finish, (cl_command_queue));

STUB_API(cl_mem, CreateBuffer, (cl_context, cl_mem_flags, size_t, void *, cl_int *));
STUB_API(cl_int, RetainMemObject, (cl_mem));
STUB_API(cl_int, ReleaseMemObject, (cl_mem));
STUB_API(cl_int, GetMemObjectInfo, (cl_mem, cl_mem_info, size_t, void *, size_t *));
STUB_API(cl_int, EnqueueReadBuffer,
         (cl_command_queue, cl_mem, cl_bool, size_t, size_t, void *, cl_uint, const cl_event *,
          cl_event *));
STUB_API(cl_int, EnqueueWriteBuffer,
         (cl_command_queue, cl_mem, cl_bool, size_t, size_t, const void *, cl_uint,
          const cl_event *, cl_event *));
STUB_API(cl_int, EnqueueNDRangeKernel,
         (cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *, const size_t *,
          cl_uint, const cl_event *, cl_event *));
STUB_API(cl_int, WaitForEvents, (cl_uint, const cl_event *));
STUB_API(cl_int, GetEventInfo, (cl_event, cl_event_info, size_t, void *, size_t *));
STUB_API(cl_int, RetainEvent, (cl_event));
STUB_API(cl_int, ReleaseEvent, (cl_event));
STUB_API(cl_int, GetEventProfilingInfo, (cl_event, cl_profiling_info, size_t, void *, size_t *));

/* clCreateProgramWithILKHR, reached through
 * clGetExtensionFunctionAddressForPlatform. */
cl_program CL_API_CALL stub_CreateProgramWithILKHR(cl_context, const void *, size_t, cl_int *);

#endif /* CLCSTUB_H */
