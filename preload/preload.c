/*
 * preload.c — libclcpack-preload.so: records the OpenCL programs an
 * unmodified application builds from source, and serves them from a pack
 * (docs/RECORD.md). Loaded with LD_PRELOAD; `clc-pack record` and
 * `clc-pack run` set it up.
 *
 * Environment (read once, at the first OpenCL program call):
 *   CLCPACK_RECORD=DIR  record: one capture file per program build and
 *                       device in DIR (capture.h)
 *   CLCPACK_PACK=FILE   replay: programs whose source, options and device
 *                       the pack holds are made from its binaries
 *   CLCPACK_LOG=1       one line per clBuildProgram on stderr
 * With neither RECORD nor PACK set every call goes straight to the driver.
 *
 * The application's handle is always a real driver object: its program is
 * created from source by the driver as usual, and when the pack holds it,
 * clBuildProgram makes a second program from the pack's binary ("served")
 * and the calls that read a built program (info, build info, kernels) are
 * answered by that one. CL_PROGRAM_SOURCE, CL_PROGRAM_CONTEXT and the
 * reference count stay the application's program's; the served program is
 * released with the application's last reference. Anything unexpected
 * leaves the call to the driver.
 *
 * The real functions are found with dlsym(RTLD_NEXT) (then dlvsym for the
 * versioned names of ocl-icd style loaders); when no loader is in the
 * global scope (a Python extension that loaded its own loader privately),
 * calls go through the object's ICD dispatch table, as a loader would.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <CL/cl_icd.h>

#include "capture.h"
#include "clcpack.h"
#include "rec_key.h"

#define EXPORT __attribute__((visibility("default")))
#define MAX_DEVICES 64
#define WHY_MAX 1536

/* ---------------------------------------------------------------------- */
/* The real functions                                                      */

#define REAL_FUNCTIONS(X)                                                                      \
    X(clCreateProgramWithSource)                                                               \
    X(clCreateProgramWithBinary)                                                               \
    X(clCreateProgramWithBuiltInKernels)                                                       \
    X(clCreateProgramWithIL)                                                                   \
    X(clLinkProgram)                                                                           \
    X(clBuildProgram)                                                                          \
    X(clGetProgramInfo)                                                                        \
    X(clGetProgramBuildInfo)                                                                   \
    X(clReleaseProgram)                                                                        \
    X(clSetProgramReleaseCallback)                                                             \
    X(clCreateKernel)                                                                          \
    X(clCreateKernelsInProgram)                                                                \
    X(clGetKernelInfo)                                                                         \
    X(clGetDeviceInfo)                                                                         \
    X(clGetPlatformInfo)                                                                       \
    X(clRetainDevice)                                                                          \
    X(clReleaseDevice)

#define DECLARE_REAL(n) static cl_api_##n real_##n;
REAL_FUNCTIONS(DECLARE_REAL)

/* The ICD dispatch table every OpenCL object starts with. */
#define DISPATCH(obj) (*(cl_icd_dispatch *const *)(const void *)(obj))
/* The real function n, through dlsym when a loader was found, else through
 * obj's dispatch table; ret is what a NULL obj gives. */
#define REAL(n, obj) (real_##n ? real_##n : DISPATCH(obj)->n)

static const char *const versions[] = {"OPENCL_1.0", "OPENCL_1.1", "OPENCL_1.2", "OPENCL_2.0",
                                       "OPENCL_2.1", "OPENCL_2.2", "OPENCL_3.0"};

static void *find_real(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    for (size_t i = 0; !f && i < sizeof versions / sizeof versions[0]; i++)
        f = dlvsym(RTLD_NEXT, name, versions[i]);
    return f;
}

/* ---------------------------------------------------------------------- */
/* Configuration                                                           */

static struct {
    int log;
    const char *record_dir;
    const char *pack_path;
} cfg;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void init(void)
{
#define LOAD_REAL(n) real_##n = (cl_api_##n)find_real(#n);
    REAL_FUNCTIONS(LOAD_REAL)
    const char *log = getenv("CLCPACK_LOG");
    cfg.log = log && *log && strcmp(log, "0") != 0;
    const char *rec = getenv("CLCPACK_RECORD");
    const char *pack = getenv("CLCPACK_PACK");
    cfg.record_dir = rec && *rec ? rec : NULL;
    cfg.pack_path = !cfg.record_dir && pack && *pack ? pack : NULL;
}

static int active(void)
{
    pthread_once(&init_once, init);
    return cfg.record_dir || cfg.pack_path;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    if (!cfg.log)
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    /* One write per line, so that threads do not interleave. */
    fprintf(stderr, "clcpack: %s\n", line);
}

/* Sets the reason a program passes through (truncated, never overflows). */
static void set_why(char *why, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_why(char *why, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* ---------------------------------------------------------------------- */
/* Programs made from source                                               */

typedef struct prog {
    cl_program app;       /* the application's handle */
    cl_program served;    /* made from the pack's binary, or NULL */
    char *source;
    size_t size;
    /* Record: the capture files of its build, one per device, written
     * again at each release with the binaries of that moment (on PoCL they
     * then hold the work-group functions its launches compiled). */
    cl_uint n_rec;
    cl_device_id *rec_devs;
    char (*rec_names)[CAPTURE_NAME_MAX];
    char *options;
    char key[RK_KEY_MAX];
    struct prog *next;
} prog;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static prog *progs;
static int n_served; /* changed under lock (atomically); read without it as a hint */

static void prog_free(prog *r)
{
    free(r->source);
    free(r->rec_devs);
    free(r->rec_names);
    free(r->options);
    free(r);
}

static prog **find_locked(cl_program p)
{
    prog **pp = &progs;
    while (*pp && (*pp)->app != p)
        pp = &(*pp)->next;
    return pp;
}

/* A handle the driver just returned is new: an entry with that address is
 * left over from a program the driver destroyed without our seeing it. */
static void forget(cl_program p)
{
    pthread_mutex_lock(&lock);
    prog **pp = find_locked(p);
    prog *r = *pp;
    if (r) {
        *pp = r->next;
        if (r->served)
            __atomic_sub_fetch(&n_served, 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&lock);
    if (r)
        prog_free(r);
}

static void remember(cl_program p, char *source, size_t size)
{
    forget(p);
    prog *r = calloc(1, sizeof *r);
    if (!r) {
        free(source);
        return;
    }
    r->app = p;
    r->source = source;
    r->size = size;
    pthread_mutex_lock(&lock);
    r->next = progs;
    progs = r;
    pthread_mutex_unlock(&lock);
}

/* The program that answers for p: its served program, or p. */
static cl_program answering(cl_program p)
{
    if (!__atomic_load_n(&n_served, __ATOMIC_RELAXED))
        return p;
    pthread_mutex_lock(&lock);
    prog *r = *find_locked(p);
    cl_program q = r && r->served ? r->served : p;
    pthread_mutex_unlock(&lock);
    return q;
}

/* The application's handle for a served program q, or q. */
static cl_program app_handle(cl_program q)
{
    if (!__atomic_load_n(&n_served, __ATOMIC_RELAXED))
        return q;
    pthread_mutex_lock(&lock);
    cl_program p = q;
    for (prog *r = progs; r; r = r->next)
        if (r->served == q) {
            p = r->app;
            break;
        }
    pthread_mutex_unlock(&lock);
    return p;
}

/* ---------------------------------------------------------------------- */
/* Helpers over real calls                                                 */

static int program_devices(cl_program p, cl_uint nd, const cl_device_id *list,
                           cl_device_id *out, cl_uint *n)
{
    if (nd && list) {
        if (nd > MAX_DEVICES)
            return -1;
        memcpy(out, list, nd * sizeof *list);
        *n = nd;
        return 0;
    }
    cl_uint k = 0;
    if (REAL(clGetProgramInfo, p)(p, CL_PROGRAM_NUM_DEVICES, sizeof k, &k, NULL) != CL_SUCCESS ||
        k == 0 || k > MAX_DEVICES)
        return -1;
    if (REAL(clGetProgramInfo, p)(p, CL_PROGRAM_DEVICES, k * sizeof *out, out, NULL) !=
        CL_SUCCESS)
        return -1;
    *n = k;
    return 0;
}

/* ---------------------------------------------------------------------- */
/* Record                                                                  */

/* Writes one capture per device of devs[0..n) into names[i] ("" makes a new
 * file); returns how many were written. */
static int record_build(cl_program p, cl_uint n, const cl_device_id *devs, const char *options,
                        const char *src, size_t size, const char *key,
                        char (*names)[CAPTURE_NAME_MAX], char *why, size_t cap)
{
    cl_device_id all[MAX_DEVICES];
    cl_uint n_all = 0;
    if (program_devices(p, 0, NULL, all, &n_all))
        return set_why(why, cap, "cannot list the program's devices"), 0;
    size_t sizes[MAX_DEVICES] = {0};
    unsigned char *bins[MAX_DEVICES] = {0};
    int ok = REAL(clGetProgramInfo, p)(p, CL_PROGRAM_BINARY_SIZES, n_all * sizeof(size_t), sizes,
                                       NULL) == CL_SUCCESS;
    for (cl_uint i = 0; ok && i < n_all; i++)
        if (sizes[i] && !(bins[i] = malloc(sizes[i])))
            ok = 0;
    if (ok)
        ok = REAL(clGetProgramInfo, p)(p, CL_PROGRAM_BINARIES, n_all * sizeof(unsigned char *),
                                       bins, NULL) == CL_SUCCESS;
    /* The kernels the program holds: the pack's entry names them. */
    char names_buf[4096] = "";
    size_t names_size = 0;
    if (REAL(clGetProgramInfo, p)(p, CL_PROGRAM_KERNEL_NAMES, 0, NULL, &names_size) !=
            CL_SUCCESS ||
        names_size > sizeof names_buf ||
        REAL(clGetProgramInfo, p)(p, CL_PROGRAM_KERNEL_NAMES, sizeof names_buf, names_buf,
                                  NULL) != CL_SUCCESS)
        names_buf[0] = '\0';
    names_buf[sizeof names_buf - 1] = '\0';
    int written = 0;
    for (cl_uint i = 0; i < n; i++) {
        clcpack_device_info here;
        if (clcpack_device_query(devs[i], &here, NULL) != CLCPACK_OK) {
            set_why(why, cap, "cannot fingerprint device %u", (unsigned)i);
            continue;
        }
        cl_uint j = 0;
        while (j < n_all && all[j] != devs[i])
            j++;
        capture c = {key, src, size, options ? options : "", names_buf, &here,
                     ok && j < n_all ? bins[j] : NULL, ok && j < n_all ? sizes[j] : 0};
        if (capture_write(cfg.record_dir, &c, names[i]) == 0)
            written++;
        else
            set_why(why, cap, "cannot write a capture file in %s", cfg.record_dir);
    }
    for (cl_uint i = 0; i < n_all; i++)
        free(bins[i]);
    return written;
}

/* Keeps what record_build wrote for program p, to write it again at its
 * releases; takes names. */
static void keep_record(cl_program p, cl_uint n, const cl_device_id *devs,
                        char (*names)[CAPTURE_NAME_MAX], const char *options, const char *key)
{
    cl_device_id *d = malloc(n * sizeof *d);
    char *o = strdup(options ? options : "");
    if (!d || !o) {
        free(d);
        free(o);
        free(names);
        return;
    }
    memcpy(d, devs, n * sizeof *d);
    pthread_mutex_lock(&lock);
    prog *r = *find_locked(p);
    if (r) {
        free(r->rec_devs);
        free(r->rec_names);
        free(r->options);
        r->n_rec = n;
        r->rec_devs = d;
        r->rec_names = names;
        r->options = o;
        memcpy(r->key, key, RK_KEY_MAX);
        d = NULL;
        o = NULL;
        names = NULL;
    }
    pthread_mutex_unlock(&lock);
    free(d);
    free(o);
    free(names);
}

/* ---------------------------------------------------------------------- */
/* Replay                                                                  */

static pthread_once_t pack_once = PTHREAD_ONCE_INIT;
static clcpack *pack;
static char pack_error[CLCPACK_MESSAGE_MAX + 64];

static void open_pack(void)
{
    clcpack_error err;
    if (clcpack_open_file(cfg.pack_path, &pack, &err) != CLCPACK_OK) {
        pack = NULL;
        snprintf(pack_error, sizeof pack_error, "cannot open pack %s: %s", cfg.pack_path,
                 err.message);
    }
}

/* The entry among idx[0..n) to load on `here`: a native binary of a
 * compatible device, else (NVIDIA) a cubin for its compute capability,
 * else PTX for at most it. CLCPACK_NONE when none. */
static uint32_t pick_entry(const size_t *idx, size_t n, const clcpack_device_info *here,
                           char *why, size_t cap)
{
    uint32_t cc = here->nv_cc_major * 10 + here->nv_cc_minor, best_ptx = CLCPACK_NONE,
             best_arch = 0, cubin = CLCPACK_NONE;
    clcpack_device_info first;
    int have_first = 0;
    for (size_t i = 0; i < n; i++) {
        clcpack_entry_info e;
        clcpack_device_info d;
        if (clcpack_get_entry(pack, idx[i], &e) != CLCPACK_OK ||
            clcpack_get_device(pack, e.device, &d) != CLCPACK_OK)
            continue;
        if (e.kind == CLCPACK_KIND_NATIVE) {
            if (clcpack_device_binary_compatible(&d, here))
                return (uint32_t)idx[i];
            if (!have_first) {
                first = d;
                have_first = 1;
            }
        } else if (cc && e.kind == CLCPACK_KIND_CUBIN && e.arch == cc) {
            cubin = (uint32_t)idx[i];
        } else if (cc && e.kind == CLCPACK_KIND_PTX && e.arch <= cc && e.arch >= best_arch) {
            if (best_ptx == CLCPACK_NONE || e.arch > best_arch)
                best_ptx = (uint32_t)idx[i];
            best_arch = e.arch;
        }
    }
    if (cubin != CLCPACK_NONE)
        return cubin;
    if (best_ptx != CLCPACK_NONE)
        return best_ptx;
    if (have_first) {
        char diff[256];
        clcpack_device_describe_difference(&first, here, diff, sizeof diff);
        set_why(why, cap, "no binary for device %s: %s", here->device_name, diff);
    } else {
        set_why(why, cap, "no binary for device %s", here->device_name);
    }
    return CLCPACK_NONE;
}

/* Checks that entry e was recorded from exactly this source and these
 * options (after the hash matched), and reads its binary (CRC-checked). */
static int check_and_read(uint32_t e, const char *src, size_t size, const char *norm,
                          unsigned char **bin, size_t *bin_size, char *why, size_t cap)
{
    clcpack_entry_info info;
    clcpack_error err;
    if (clcpack_get_entry(pack, e, &info) != CLCPACK_OK || info.source == CLCPACK_NONE)
        return set_why(why, cap, "entry %u has no source to compare", (unsigned)e), -1;
    size_t n = 0;
    if (clcpack_read_source(pack, info.source, NULL, 0, &n, &err) != CLCPACK_OK)
        return set_why(why, cap, "entry %u: %s", (unsigned)e, err.message), -1;
    if (n != size)
        return set_why(why, cap, "entry %u: key matches but the source differs", (unsigned)e),
               -1;
    char *stored = malloc(n ? n : 1);
    if (!stored)
        return set_why(why, cap, "out of memory"), -1;
    int same = clcpack_read_source(pack, info.source, stored, n, &n, &err) == CLCPACK_OK &&
               memcmp(stored, src, size) == 0;
    free(stored);
    if (!same)
        return set_why(why, cap, "entry %u: source unreadable or different", (unsigned)e), -1;
    char *stored_norm = NULL, **dirs = NULL;
    size_t n_dirs = 0;
    if (rk_normalize(info.options, &stored_norm, &dirs, &n_dirs) != 0)
        return set_why(why, cap, "out of memory"), -1;
    same = strcmp(stored_norm, norm) == 0;
    free(stored_norm);
    rk_free_dirs(dirs, n_dirs);
    if (!same)
        return set_why(why, cap, "entry %u: key matches but the options differ", (unsigned)e),
               -1;
    if (clcpack_read_binary(pack, e, NULL, 0, bin_size, &err) != CLCPACK_OK || !*bin_size)
        return set_why(why, cap, "entry %u: %s", (unsigned)e, err.message), -1;
    if (!(*bin = malloc(*bin_size)))
        return set_why(why, cap, "out of memory"), -1;
    if (clcpack_read_binary(pack, e, *bin, *bin_size, bin_size, &err) != CLCPACK_OK) {
        free(*bin);
        *bin = NULL;
        return set_why(why, cap, "entry %u: %s", (unsigned)e, err.message), -1;
    }
    return 0;
}

/* Makes and builds the served program for app's build. 0 with *out, or -1
 * with why. */
static int serve(cl_program app, cl_uint nd, const cl_device_id *list, const char *options,
                 const char *src, size_t size, const char *key, cl_program *out, char *why,
                 size_t cap)
{
    pthread_once(&pack_once, open_pack);
    if (!pack)
        return set_why(why, cap, "%s", pack_error), -1;
    /* The driver's own copy of the source must be what was kept for this
     * handle: a handle the driver reused for a program made some way this
     * library does not see is never served. */
    size_t n_src = 0;
    char *real_src = NULL;
    int same_src = REAL(clGetProgramInfo, app)(app, CL_PROGRAM_SOURCE, 0, NULL, &n_src) ==
                       CL_SUCCESS &&
                   (n_src == size + 1 || n_src == size) && (real_src = malloc(n_src + 1)) &&
                   REAL(clGetProgramInfo, app)(app, CL_PROGRAM_SOURCE, n_src, real_src, NULL) ==
                       CL_SUCCESS &&
                   memcmp(real_src, src, size) == 0;
    free(real_src);
    if (!same_src)
        return set_why(why, cap, "the program's CL_PROGRAM_SOURCE is not the source it was "
                                 "created with"),
               -1;
    cl_device_id devs[MAX_DEVICES];
    cl_uint n = 0;
    cl_context ctx = NULL;
    if (program_devices(app, 0, NULL, devs, &n) != 0 ||
        REAL(clGetProgramInfo, app)(app, CL_PROGRAM_CONTEXT, sizeof ctx, &ctx, NULL) !=
            CL_SUCCESS)
        return set_why(why, cap, "cannot query the program's devices and context"), -1;
    /* The served program answers for the application's: it has the same
     * devices in the same order, so a build for some of them only passes. */
    if (nd && list) {
        int covers = nd == n;
        for (cl_uint i = 0; covers && i < nd; i++) {
            cl_uint k = 0;
            while (k < n && devs[k] != list[i])
                k++;
            covers = k < n;
        }
        if (!covers)
            return set_why(why, cap, "the build is for some of the program's devices only"), -1;
    }
    clcpack_key k = {key, NULL, 0, {0, 0, 0}};
    size_t idx[256], count = 0;
    if (clcpack_find(pack, &k, idx, sizeof idx / sizeof idx[0], &count, NULL) != CLCPACK_OK)
        return set_why(why, cap, "no entry for this source and options"), -1;
    if (count > sizeof idx / sizeof idx[0])
        count = sizeof idx / sizeof idx[0];
    char *norm = NULL, **dirs = NULL;
    size_t n_dirs = 0;
    if (rk_normalize(options, &norm, &dirs, &n_dirs) != 0)
        return set_why(why, cap, "out of memory"), -1;
    rk_free_dirs(dirs, n_dirs);
    unsigned char *bins[MAX_DEVICES] = {0};
    size_t sizes[MAX_DEVICES] = {0};
    int rc = -1;
    for (cl_uint i = 0; i < n; i++) {
        clcpack_device_info here;
        clcpack_error err;
        if (clcpack_device_query(devs[i], &here, &err) != CLCPACK_OK) {
            set_why(why, cap, "device fingerprint: %s", err.message);
            goto out;
        }
        uint32_t e = pick_entry(idx, count, &here, why, cap);
        if (e == CLCPACK_NONE ||
            check_and_read(e, src, size, norm, &bins[i], &sizes[i], why, cap) != 0)
            goto out;
    }
    cl_int status[MAX_DEVICES], err_code = CL_SUCCESS;
    cl_program q = REAL(clCreateProgramWithBinary, ctx)(
        ctx, n, devs, sizes, (const unsigned char **)bins, status, &err_code);
    if (!q) {
        set_why(why, cap, "the driver refused the binary (error %d)", (int)err_code);
        goto out;
    }
    cl_int b = REAL(clBuildProgram, q)(q, n, devs, options, NULL, NULL);
    if (b != CL_SUCCESS) {
        REAL(clReleaseProgram, q)(q);
        set_why(why, cap, "building the pack's binary failed (error %d)", (int)b);
        goto out;
    }
    *out = q;
    rc = 0;
out:
    for (cl_uint i = 0; i < n; i++)
        free(bins[i]);
    free(norm);
    return rc;
}

/* ---------------------------------------------------------------------- */
/* The interposed functions                                                */

static int join_sources(cl_uint count, const char **strings, const size_t *lengths, char **out,
                        size_t *size)
{
    size_t total = 0;
    if (!strings)
        return -1;
    for (cl_uint i = 0; i < count; i++) {
        if (!strings[i])
            return -1;
        size_t n = lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
        if (n > SIZE_MAX - total - 1)
            return -1;
        total += n;
    }
    char *s = malloc(total + 1);
    if (!s)
        return -1;
    size_t k = 0;
    for (cl_uint i = 0; i < count; i++) {
        size_t n = lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
        memcpy(s + k, strings[i], n);
        k += n;
    }
    s[k] = '\0';
    *out = s;
    *size = total;
    return 0;
}

EXPORT cl_program CL_API_CALL clCreateProgramWithSource(cl_context ctx, cl_uint count,
                                                        const char **strings,
                                                        const size_t *lengths, cl_int *errcode)
{
    pthread_once(&init_once, init);
    if (!real_clCreateProgramWithSource && !ctx) {
        if (errcode)
            *errcode = CL_INVALID_CONTEXT;
        return NULL;
    }
    cl_program p = REAL(clCreateProgramWithSource, ctx)(ctx, count, strings, lengths, errcode);
    if (p && active()) {
        char *src;
        size_t size;
        if (join_sources(count, strings, lengths, &src, &size) == 0)
            remember(p, src, size);
        else
            forget(p);
    }
    return p;
}

EXPORT cl_program CL_API_CALL clCreateProgramWithBinary(cl_context ctx, cl_uint n,
                                                        const cl_device_id *devs,
                                                        const size_t *lengths,
                                                        const unsigned char **bins,
                                                        cl_int *status, cl_int *errcode)
{
    pthread_once(&init_once, init);
    if (!real_clCreateProgramWithBinary && !ctx) {
        if (errcode)
            *errcode = CL_INVALID_CONTEXT;
        return NULL;
    }
    cl_program p =
        REAL(clCreateProgramWithBinary, ctx)(ctx, n, devs, lengths, bins, status, errcode);
    if (p && active()) {
        forget(p);
        if (cfg.record_dir)
            capture_note_binary(cfg.record_dir);
    }
    return p;
}

EXPORT cl_program CL_API_CALL clCreateProgramWithBuiltInKernels(cl_context ctx, cl_uint n,
                                                                const cl_device_id *devs,
                                                                const char *names,
                                                                cl_int *errcode)
{
    pthread_once(&init_once, init);
    if (!real_clCreateProgramWithBuiltInKernels && !ctx) {
        if (errcode)
            *errcode = CL_INVALID_CONTEXT;
        return NULL;
    }
    cl_program p = REAL(clCreateProgramWithBuiltInKernels, ctx)(ctx, n, devs, names, errcode);
    if (p && active())
        forget(p);
    return p;
}

EXPORT cl_program CL_API_CALL clCreateProgramWithIL(cl_context ctx, const void *il, size_t size,
                                                    cl_int *errcode)
{
    pthread_once(&init_once, init);
    if (!real_clCreateProgramWithIL && !ctx) {
        if (errcode)
            *errcode = CL_INVALID_CONTEXT;
        return NULL;
    }
    cl_program p = REAL(clCreateProgramWithIL, ctx)(ctx, il, size, errcode);
    if (p && active())
        forget(p);
    return p;
}

EXPORT cl_program CL_API_CALL clLinkProgram(cl_context ctx, cl_uint nd, const cl_device_id *devs,
                                            const char *options, cl_uint n_inputs,
                                            const cl_program *inputs,
                                            void(CL_CALLBACK *notify)(cl_program, void *),
                                            void *user_data, cl_int *errcode)
{
    pthread_once(&init_once, init);
    if (!real_clLinkProgram && !ctx) {
        if (errcode)
            *errcode = CL_INVALID_CONTEXT;
        return NULL;
    }
    cl_program p = REAL(clLinkProgram, ctx)(ctx, nd, devs, options, n_inputs, inputs, notify,
                                            user_data, errcode);
    if (p && active())
        forget(p);
    return p;
}

EXPORT cl_int CL_API_CALL clBuildProgram(cl_program program, cl_uint nd,
                                         const cl_device_id *list, const char *options,
                                         void(CL_CALLBACK *notify)(cl_program, void *),
                                         void *user_data)
{
    pthread_once(&init_once, init);
    if (!real_clBuildProgram && !program)
        return CL_INVALID_PROGRAM;
    if (!active())
        return REAL(clBuildProgram, program)(program, nd, list, options, notify, user_data);
    double t0 = now_ms();
    char *src = NULL;
    size_t size = 0;
    cl_program served = NULL;
    int known = 0;
    pthread_mutex_lock(&lock);
    prog *r = *find_locked(program);
    if (r) {
        known = 1;
        served = r->served;
        if (!served && (src = malloc(r->size + 1)) != NULL) {
            memcpy(src, r->source, r->size + 1);
            size = r->size;
        }
    }
    pthread_mutex_unlock(&lock);

    if (served) {
        /* Built again: the served program answers, as it did the first time. */
        cl_int rc = REAL(clBuildProgram, served)(served, nd, list, options, NULL, NULL);
        if (rc == CL_SUCCESS && notify)
            notify(program, user_data);
        say("program %p: served from the pack again (built again) in %.3f ms", (void *)program,
            now_ms() - t0);
        return rc;
    }
    char key[RK_KEY_MAX];
    if (!known || !src || rk_key(src, size, options, key) != 0) {
        free(src);
        cl_int rc = REAL(clBuildProgram, program)(program, nd, list, options, notify, user_data);
        say("program %p: passed through (%s): build %s in %.3f ms", (void *)program,
            known ? "out of memory" : "not created from source", rc ? "failed" : "done",
            now_ms() - t0);
        return rc;
    }

    char why[WHY_MAX] = "";
    if (cfg.pack_path) {
        cl_program q = NULL;
        if (serve(program, nd, list, options, src, size, key, &q, why, sizeof why) == 0) {
            pthread_mutex_lock(&lock);
            r = *find_locked(program);
            if (r && !r->served) {
                r->served = q;
                __atomic_add_fetch(&n_served, 1, __ATOMIC_RELAXED);
                q = NULL;
            }
            pthread_mutex_unlock(&lock);
            if (!q) {
                free(src);
                if (notify)
                    notify(program, user_data);
                say("program %p: served from the pack (key %.16s) in %.3f ms", (void *)program,
                    key, now_ms() - t0);
                return CL_SUCCESS;
            }
            REAL(clReleaseProgram, q)(q);
            set_why(why, sizeof why, "the program was released or built during the build");
        }
        cl_int rc = REAL(clBuildProgram, program)(program, nd, list, options, notify, user_data);
        free(src);
        say("program %p: passed through (%s): build %s in %.3f ms", (void *)program, why,
            rc ? "failed" : "done", now_ms() - t0);
        return rc;
    }

    cl_int rc = REAL(clBuildProgram, program)(program, nd, list, options, notify, user_data);
    double build_ms = now_ms() - t0;
    if (rc == CL_SUCCESS) {
        cl_device_id devs[MAX_DEVICES];
        cl_uint nd_rec = 0;
        char(*names)[CAPTURE_NAME_MAX] = NULL;
        int n = 0;
        if (program_devices(program, nd, list, devs, &nd_rec) != 0)
            set_why(why, sizeof why, "cannot list the build's devices");
        else if (!(names = calloc(nd_rec, sizeof *names)))
            set_why(why, sizeof why, "out of memory");
        else
            n = record_build(program, nd_rec, devs, options, src, size, key, names, why,
                             sizeof why);
        if (n > 0)
            keep_record(program, nd_rec, devs, names, options, key);
        else
            free(names);
        say("program %p: recorded (key %.16s, %d device%s%s%s): build done in %.3f ms",
            (void *)program, key, n, n == 1 ? "" : "s", why[0] ? "; " : "", why, build_ms);
    } else {
        say("program %p: not recorded: build failed (error %d) in %.3f ms", (void *)program,
            (int)rc, build_ms);
    }
    free(src);
    return rc;
}

EXPORT cl_int CL_API_CALL clGetProgramInfo(cl_program p, cl_program_info param, size_t size,
                                           void *value, size_t *ret)
{
    pthread_once(&init_once, init);
    if (!real_clGetProgramInfo && !p)
        return CL_INVALID_PROGRAM;
    if (param == CL_PROGRAM_SOURCE || param == CL_PROGRAM_CONTEXT)
        return REAL(clGetProgramInfo, p)(p, param, size, value, ret);
    cl_program q = answering(p);
    if (param != CL_PROGRAM_REFERENCE_COUNT || q == p)
        return REAL(clGetProgramInfo, q)(q, param, size, value, ret);
    /* The application's references are on its program, its kernels' on the
     * served one (which holds one more, ours): together, what a source
     * build would count. */
    cl_uint mine = 0, served = 0;
    cl_int rc = REAL(clGetProgramInfo, p)(p, param, size, value, ret);
    if (rc != CL_SUCCESS || !value || size < sizeof mine)
        return rc;
    memcpy(&mine, value, sizeof mine);
    if (REAL(clGetProgramInfo, q)(q, param, sizeof served, &served, NULL) == CL_SUCCESS &&
        served > 1)
        mine += served - 1;
    memcpy(value, &mine, sizeof mine);
    return rc;
}

/* A release callback of a served program: called with the application's
 * handle when the served program, which the kernels keep, goes. */
typedef struct release_hook {
    cl_program app;
    void(CL_CALLBACK *notify)(cl_program, void *);
    void *user_data;
} release_hook;

static void CL_CALLBACK release_trampoline(cl_program q, void *arg)
{
    (void)q;
    release_hook h = *(release_hook *)arg;
    free(arg);
    h.notify(h.app, h.user_data);
}

EXPORT cl_int CL_API_CALL clSetProgramReleaseCallback(cl_program p,
                                                      void(CL_CALLBACK *notify)(cl_program,
                                                                                void *),
                                                      void *user_data)
{
    pthread_once(&init_once, init);
    if (!real_clSetProgramReleaseCallback && !p)
        return CL_INVALID_PROGRAM;
    cl_program q = answering(p);
    release_hook *h = q != p && notify ? malloc(sizeof *h) : NULL;
    if (!h)
        return REAL(clSetProgramReleaseCallback, p)(p, notify, user_data);
    *h = (release_hook){p, notify, user_data};
    cl_int rc = REAL(clSetProgramReleaseCallback, q)(q, release_trampoline, h);
    if (rc != CL_SUCCESS)
        free(h);
    return rc;
}

EXPORT cl_int CL_API_CALL clGetProgramBuildInfo(cl_program p, cl_device_id dev,
                                                cl_program_build_info param, size_t size,
                                                void *value, size_t *ret)
{
    pthread_once(&init_once, init);
    if (!real_clGetProgramBuildInfo && !p)
        return CL_INVALID_PROGRAM;
    cl_program q = answering(p);
    return REAL(clGetProgramBuildInfo, q)(q, dev, param, size, value, ret);
}

EXPORT cl_kernel CL_API_CALL clCreateKernel(cl_program p, const char *name, cl_int *errcode)
{
    pthread_once(&init_once, init);
    if (!real_clCreateKernel && !p) {
        if (errcode)
            *errcode = CL_INVALID_PROGRAM;
        return NULL;
    }
    cl_program q = answering(p);
    return REAL(clCreateKernel, q)(q, name, errcode);
}

EXPORT cl_int CL_API_CALL clCreateKernelsInProgram(cl_program p, cl_uint n, cl_kernel *kernels,
                                                   cl_uint *n_ret)
{
    pthread_once(&init_once, init);
    if (!real_clCreateKernelsInProgram && !p)
        return CL_INVALID_PROGRAM;
    cl_program q = answering(p);
    return REAL(clCreateKernelsInProgram, q)(q, n, kernels, n_ret);
}

EXPORT cl_int CL_API_CALL clGetKernelInfo(cl_kernel k, cl_kernel_info param, size_t size,
                                          void *value, size_t *ret)
{
    pthread_once(&init_once, init);
    if (!real_clGetKernelInfo && !k)
        return CL_INVALID_KERNEL;
    cl_int rc = REAL(clGetKernelInfo, k)(k, param, size, value, ret);
    if (rc == CL_SUCCESS && param == CL_KERNEL_PROGRAM && value && size >= sizeof(cl_program))
        *(cl_program *)value = app_handle(*(cl_program *)value);
    return rc;
}

EXPORT cl_int CL_API_CALL clReleaseProgram(cl_program p)
{
    pthread_once(&init_once, init);
    if (!real_clReleaseProgram && !p)
        return CL_INVALID_PROGRAM;
    if (!active())
        return REAL(clReleaseProgram, p)(p);
    /* Under the lock, so that two last releases cannot both miss the end. */
    pthread_mutex_lock(&lock);
    prog **pp = find_locked(p);
    prog *r = *pp;
    cl_uint refs = 0;
    if (r && REAL(clGetProgramInfo, p)(p, CL_PROGRAM_REFERENCE_COUNT, sizeof refs, &refs,
                                       NULL) != CL_SUCCESS)
        refs = 0;
    if (r && r->n_rec && cfg.record_dir) {
        char why[WHY_MAX];
        record_build(p, r->n_rec, r->rec_devs, r->options, r->source, r->size, r->key,
                     r->rec_names, why, sizeof why);
    }
    cl_int rc = REAL(clReleaseProgram, p)(p);
    if (r && rc == CL_SUCCESS && refs == 1) {
        *pp = r->next;
        if (r->served)
            __atomic_sub_fetch(&n_served, 1, __ATOMIC_RELAXED);
    } else {
        r = NULL;
    }
    pthread_mutex_unlock(&lock);
    if (r) {
        if (r->served)
            REAL(clReleaseProgram, r->served)(r->served);
        prog_free(r);
    }
    return rc;
}

/* ---------------------------------------------------------------------- */
/* For libclcpack's device fingerprint and cache: not exported, so the
 * application's own calls never come here.                                */

cl_int CL_API_CALL clGetDeviceInfo(cl_device_id d, cl_device_info param, size_t size,
                                   void *value, size_t *ret)
{
    if (!real_clGetDeviceInfo && !d)
        return CL_INVALID_DEVICE;
    return REAL(clGetDeviceInfo, d)(d, param, size, value, ret);
}

cl_int CL_API_CALL clGetPlatformInfo(cl_platform_id pl, cl_platform_info param, size_t size,
                                     void *value, size_t *ret)
{
    if (!real_clGetPlatformInfo && !pl)
        return CL_INVALID_PLATFORM;
    return REAL(clGetPlatformInfo, pl)(pl, param, size, value, ret);
}

cl_int CL_API_CALL clRetainDevice(cl_device_id d)
{
    if (!real_clRetainDevice && !d)
        return CL_INVALID_DEVICE;
    return REAL(clRetainDevice, d)(d);
}

cl_int CL_API_CALL clReleaseDevice(cl_device_id d)
{
    if (!real_clReleaseDevice && !d)
        return CL_INVALID_DEVICE;
    return REAL(clReleaseDevice, d)(d);
}
