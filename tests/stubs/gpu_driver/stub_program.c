/*
 * stub_program.c — programs: made from source, IL or binaries, "built",
 * queried. Every hand-over of bytes or options is logged (stub_log.c).
 *
 * A build of source or IL compiles nothing: it takes the kernels the text
 * declares (stub_source.c) or the module's entry points and makes this
 * device's binary of them (stub_binary_make), which CL_PROGRAM_BINARIES
 * returns and clCreateProgramWithBinary takes back. The switches
 * CLCSTUB_FAIL_BUILD, CLCSTUB_BUILD_DELAY_MS and CLCSTUB_CRASH_BUILD make
 * builds fail, slow or crash (README.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stub.h"

#define WHY_MAX 512
/* Build options longer than this are refused (CL_INVALID_BUILD_OPTIONS). */
#define OPTIONS_MAX (64u << 10)

int stub_is_program(cl_program p)
{
    return p && p->magic == STUB_MAGIC_PROGRAM;
}

static void set_err(cl_int *errcode_ret, cl_int rc)
{
    if (errcode_ret)
        *errcode_ret = rc;
}

static cl_program new_program(cl_context ctx, int origin, cl_uint n, const cl_device_id *devs)
{
    cl_program p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->dispatch = &stub_dispatch;
    p->magic = STUB_MAGIC_PROGRAM;
    atomic_init(&p->refs, 1);
    atomic_init(&p->kernels_alive, 0);
    p->context = ctx;
    p->id = stub_next_id();
    p->origin = origin;
    p->n_devices = n;
    for (cl_uint i = 0; i < n; i++) {
        p->devs[i].device = devs[i];
        p->devs[i].origin = origin;
        p->devs[i].status = CL_BUILD_NONE;
        p->devs[i].binary_type = CL_PROGRAM_BINARY_TYPE_NONE;
    }
    pthread_mutex_init(&p->lock, NULL);
    stub_context_retain(ctx);
    return p;
}

static void free_program(cl_program p)
{
    for (cl_uint i = 0; i < p->n_devices; i++) {
        free(p->devs[i].options);
        free(p->devs[i].log);
        free(p->devs[i].binary);
        stub_kernels_free(&p->devs[i].kernels);
    }
    stub_kernels_free(&p->scanned);
    free(p->input);
    pthread_mutex_destroy(&p->lock);
    cl_context c = p->context;
    p->magic = 0;
    free(p);
    stub_context_release(c);
}

/* p when rc is CL_SUCCESS; else p is freed and NULL returned. */
static cl_program created(cl_program p, cl_int rc, cl_int *errcode_ret)
{
    set_err(errcode_ret, rc);
    if (rc == CL_SUCCESS)
        return p;
    free_program(p);
    return NULL;
}

cl_program CL_API_CALL stub_CreateProgramWithSource(cl_context ctx, cl_uint count,
                                                    const char **strings, const size_t *lengths,
                                                    cl_int *errcode_ret)
{
    if (!stub_is_context(ctx)) {
        set_err(errcode_ret, CL_INVALID_CONTEXT);
        return NULL;
    }
    if (count == 0 || !strings) {
        set_err(errcode_ret, CL_INVALID_VALUE);
        return NULL;
    }
    size_t total = 0;
    for (cl_uint i = 0; i < count; i++) {
        if (!strings[i]) {
            set_err(errcode_ret, CL_INVALID_VALUE);
            return NULL;
        }
        size_t n = lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
        if (n > STUB_MAX_BYTES - total) {
            set_err(errcode_ret, CL_OUT_OF_HOST_MEMORY);
            return NULL;
        }
        total += n;
    }
    cl_program p = new_program(ctx, STUB_FROM_SOURCE, ctx->n_devices, ctx->devices);
    if (!p || !(p->input = malloc(total + 1))) {
        if (p)
            free_program(p);
        set_err(errcode_ret, CL_OUT_OF_HOST_MEMORY);
        return NULL;
    }
    size_t at = 0;
    for (cl_uint i = 0; i < count; i++) {
        size_t n = lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
        memcpy(p->input + at, strings[i], n);
        at += n;
    }
    p->input[total] = '\0';
    p->input_len = total;
    stub_sha_hex(p->input, total, p->input_sha);
    if (stub_source_kernels((const char *)p->input, total, &p->scanned) != 0) {
        free_program(p);
        set_err(errcode_ret, CL_OUT_OF_HOST_MEMORY);
        return NULL;
    }
    for (cl_uint i = 0; i < p->n_devices; i++) {
        memcpy(p->devs[i].in_sha, p->input_sha, 65);
        p->devs[i].in_len = total;
        stub_log_call("source", p->devs[i].device, p->id, p->input, total, p->input_sha,
                      CL_SUCCESS, "source", "", "");
    }
    set_err(errcode_ret, CL_SUCCESS);
    return p;
}

cl_program CL_API_CALL stub_CreateProgramWithBinary(cl_context ctx, cl_uint n,
                                                    const cl_device_id *devs,
                                                    const size_t *lengths,
                                                    const unsigned char **binaries,
                                                    cl_int *status, cl_int *errcode_ret)
{
    if (!stub_is_context(ctx)) {
        set_err(errcode_ret, CL_INVALID_CONTEXT);
        return NULL;
    }
    if (n == 0 || !devs || n > STUB_MAX_DEVICES) {
        set_err(errcode_ret, CL_INVALID_VALUE);
        return NULL;
    }
    for (cl_uint i = 0; i < n; i++)
        if (!stub_is_device(devs[i]) || !stub_context_has(ctx, devs[i])) {
            set_err(errcode_ret, CL_INVALID_DEVICE);
            return NULL;
        }
    if (!lengths || !binaries) {
        set_err(errcode_ret, CL_INVALID_VALUE);
        return NULL;
    }
    cl_program p = new_program(ctx, STUB_FROM_BINARY, n, devs);
    if (!p) {
        set_err(errcode_ret, CL_OUT_OF_HOST_MEMORY);
        return NULL;
    }
    cl_int rc = CL_SUCCESS;
    for (cl_uint i = 0; i < n; i++) {
        stub_prog_dev *d = &p->devs[i];
        char why[WHY_MAX] = "";
        cl_int st = CL_SUCCESS;
        const char *how = "-";
        size_t len = lengths[i];
        if (!binaries[i] || len == 0 || len > STUB_MAX_BYTES) {
            st = CL_INVALID_VALUE;
            snprintf(why, sizeof why, "%s", !binaries[i] ? "no binary" : "length 0 or too large");
            len = binaries[i] && len <= STUB_MAX_BYTES ? len : 0;
        } else {
            d->origin = stub_binary_verdict(devs[i], binaries[i], len, &d->kernels, why,
                                            sizeof why);
            if (!d->origin) {
                st = CL_INVALID_BINARY;
            } else if (!(d->binary = malloc(len))) {
                st = CL_OUT_OF_HOST_MEMORY;
            } else {
                memcpy(d->binary, binaries[i], len);
                d->binary_len = len;
                d->binary_type = d->origin == STUB_FROM_IR ? CL_PROGRAM_BINARY_TYPE_INTERMEDIATE
                                                           : CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
                how = d->origin == STUB_FROM_IR ? "ir" : "binary";
            }
        }
        stub_sha_hex(binaries[i] ? binaries[i] : (const unsigned char *)"", len, d->in_sha);
        d->in_len = len;
        stub_log_call("binary", devs[i], p->id, binaries[i], len, d->in_sha, st, how, why, "");
        if (status)
            status[i] = st;
        if (st != CL_SUCCESS && rc == CL_SUCCESS)
            rc = st;
    }
    return created(p, rc, errcode_ret);
}

cl_program CL_API_CALL stub_CreateProgramWithIL(cl_context ctx, const void *il, size_t len,
                                                cl_int *errcode_ret)
{
    if (!stub_is_context(ctx)) {
        set_err(errcode_ret, CL_INVALID_CONTEXT);
        return NULL;
    }
    if (!il || len == 0 || len > STUB_MAX_BYTES) {
        set_err(errcode_ret, CL_INVALID_VALUE);
        return NULL;
    }
    cl_program p = new_program(ctx, STUB_FROM_IL, ctx->n_devices, ctx->devices);
    if (!p || !(p->input = malloc(len))) {
        if (p)
            free_program(p);
        set_err(errcode_ret, CL_OUT_OF_HOST_MEMORY);
        return NULL;
    }
    memcpy(p->input, il, len);
    p->input_len = len;
    stub_sha_hex(il, len, p->input_sha);
    /* CL_INVALID_OPERATION when no device takes IL; CL_INVALID_VALUE when
     * one does but not this module. */
    int takes = 0, bad = 0;
    for (cl_uint i = 0; i < p->n_devices; i++) {
        stub_prog_dev *d = &p->devs[i];
        char why[WHY_MAX] = "";
        stub_kernel_list k;
        cl_int st = stub_il_check(d->device, il, len, &k, why, sizeof why);
        memcpy(d->in_sha, p->input_sha, 65);
        d->in_len = len;
        if (st != CL_INVALID_OPERATION)
            takes = 1;
        if (st == CL_INVALID_VALUE)
            bad = 1;
        if (st == CL_SUCCESS && !p->scanned.n) {
            p->scanned = k;
        } else {
            stub_kernels_free(&k);
        }
        stub_log_call("il", d->device, p->id, il, len, p->input_sha, st,
                      st == CL_SUCCESS ? "il" : "-", why, "");
    }
    cl_int rc = !takes ? CL_INVALID_OPERATION : bad ? CL_INVALID_VALUE : CL_SUCCESS;
    return created(p, rc, errcode_ret);
}

cl_program CL_API_CALL stub_CreateProgramWithILKHR(cl_context ctx, const void *il, size_t len,
                                                   cl_int *errcode_ret)
{
    return stub_CreateProgramWithIL(ctx, il, len, errcode_ret);
}

cl_program CL_API_CALL stub_CreateProgramWithBuiltInKernels(cl_context ctx, cl_uint n,
                                                            const cl_device_id *devs,
                                                            const char *names,
                                                            cl_int *errcode_ret)
{
    (void)n;
    (void)devs;
    (void)names;
    set_err(errcode_ret, stub_is_context(ctx) ? CL_INVALID_VALUE : CL_INVALID_CONTEXT);
    return NULL;
}

cl_int CL_API_CALL stub_RetainProgram(cl_program p)
{
    if (!stub_is_program(p))
        return CL_INVALID_PROGRAM;
    atomic_fetch_add(&p->refs, 1);
    return CL_SUCCESS;
}

cl_int CL_API_CALL stub_ReleaseProgram(cl_program p)
{
    if (!stub_is_program(p))
        return CL_INVALID_PROGRAM;
    if (atomic_fetch_sub(&p->refs, 1) == 1)
        free_program(p);
    return CL_SUCCESS;
}

static void build_delay(void)
{
    const char *v = stub_env("CLCSTUB_BUILD_DELAY_MS");
    long ms = v ? strtol(v, NULL, 10) : 0;
    if (ms <= 0)
        return;
    if (ms > 60000)
        ms = 60000;
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* Whether CLCSTUB_FAIL_BUILD fails this build: "1"/"all", or a text found
 * in the options or the program's source. */
static const char *build_fails(const cl_program p, const char *options)
{
    const char *v = stub_env("CLCSTUB_FAIL_BUILD");
    if (!v || strcmp(v, "0") == 0)
        return NULL;
    if (strcmp(v, "1") == 0 || strcmp(v, "all") == 0)
        return v;
    if (strstr(options, v))
        return v;
    if (p->origin == STUB_FROM_SOURCE && p->input && strstr((const char *)p->input, v))
        return v;
    return NULL;
}

static char *str_dup_printf(const char *fmt, const char *a, const char *b)
{
    size_t n = strlen(fmt) + strlen(a) + strlen(b) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, fmt, a, b);
    return s;
}

/* Builds p for device slot d; returns its status. Called with p locked. */
static cl_int build_one(cl_program p, stub_prog_dev *d, const char *options)
{
    free(d->options);
    free(d->log);
    d->options = strdup(options);
    d->log = NULL;
    const char *from = d->origin == STUB_FROM_SOURCE ? "source"
                       : d->origin == STUB_FROM_IL   ? "il"
                       : d->origin == STUB_FROM_IR   ? "ir"
                                                     : "binary";
    cl_int rc = CL_SUCCESS;
    char why[WHY_MAX] = "";
    if (d->origin == STUB_FROM_BINARY) {
        d->log = strdup("");
    } else {
        build_delay();
        if (stub_switch_matches("CLCSTUB_CRASH_BUILD", d->device)) {
            stub_log_call("build", d->device, p->id, NULL, d->in_len, d->in_sha, CL_SUCCESS,
                          from, "CLCSTUB_CRASH_BUILD: crashing", options);
            abort(); /* SIGABRT: a sanitizer lets it kill the process, as a SIGSEGV would not */
        }
        const char *fail = build_fails(p, options);
        if (d->origin == STUB_FROM_IL && !d->device->il_versions[0])
            snprintf(why, sizeof why, "this device takes no IL");
        else if (fail)
            snprintf(why, sizeof why, "CLCSTUB_FAIL_BUILD=%s", fail);
        if (why[0]) {
            d->log = str_dup_printf("clcstub: error: build failed on %s: %s\n", d->device->label,
                                    why);
            d->status = CL_BUILD_ERROR;
            rc = CL_BUILD_PROGRAM_FAILURE;
        } else {
            const stub_kernel_list *src = &p->scanned;
            stub_kernel_list kept = {NULL, 0};
            if (d->origin == STUB_FROM_IR) {
                kept = d->kernels; /* the IR's entry points */
                d->kernels.k = NULL;
                d->kernels.n = 0;
                src = &kept;
            }
            stub_kernels_free(&d->kernels);
            size_t len = 0;
            unsigned char *bin = NULL;
            if (stub_kernels_copy(&d->kernels, src) != 0 ||
                !(bin = stub_binary_make(d->device, &d->kernels, options, &len))) {
                rc = CL_OUT_OF_HOST_MEMORY;
            } else {
                free(d->binary);
                d->binary = bin;
                d->binary_len = len;
                d->binary_type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
                char count[32];
                snprintf(count, sizeof count, "%zu", d->kernels.n);
                d->log = str_dup_printf("clcstub: compiled %s kernel(s) for %s\n", count,
                                        d->device->label);
            }
            stub_kernels_free(&kept);
        }
    }
    if (rc == CL_SUCCESS)
        d->status = CL_BUILD_SUCCESS;
    else if (d->status != CL_BUILD_ERROR)
        d->status = CL_BUILD_ERROR;
    stub_log_call("build", d->device, p->id, NULL, d->in_len, d->in_sha, rc, from, why, options);
    return rc;
}

cl_int CL_API_CALL stub_BuildProgram(cl_program p, cl_uint n, const cl_device_id *devs,
                                     const char *options,
                                     void(CL_CALLBACK *notify)(cl_program, void *), void *user)
{
    if (!stub_is_program(p))
        return CL_INVALID_PROGRAM;
    if ((n == 0) != (devs == NULL) || (!notify && user))
        return CL_INVALID_VALUE;
    if (!options)
        options = "";
    if (strlen(options) > OPTIONS_MAX)
        return CL_INVALID_BUILD_OPTIONS;
    for (cl_uint i = 0; i < n; i++) {
        int found = 0;
        for (cl_uint k = 0; k < p->n_devices; k++)
            found |= p->devs[k].device == devs[i];
        if (!found)
            return CL_INVALID_DEVICE;
    }
    if (atomic_load(&p->kernels_alive) > 0)
        return CL_INVALID_OPERATION;
    cl_int rc = CL_SUCCESS;
    pthread_mutex_lock(&p->lock);
    for (cl_uint k = 0; k < p->n_devices; k++) {
        int wanted = n == 0;
        for (cl_uint i = 0; i < n; i++)
            wanted |= p->devs[k].device == devs[i];
        if (!wanted)
            continue;
        cl_int r = build_one(p, &p->devs[k], options);
        if (r != CL_SUCCESS && rc == CL_SUCCESS)
            rc = r;
    }
    pthread_mutex_unlock(&p->lock);
    if (notify)
        notify(p, user);
    return rc;
}

cl_int CL_API_CALL stub_CompileProgram(cl_program p, cl_uint n, const cl_device_id *devs,
                                       const char *options, cl_uint n_headers,
                                       const cl_program *headers, const char **names,
                                       void(CL_CALLBACK *notify)(cl_program, void *), void *user)
{
    (void)n;
    (void)devs;
    (void)options;
    (void)n_headers;
    (void)headers;
    (void)names;
    (void)notify;
    (void)user;
    return stub_is_program(p) ? CL_INVALID_OPERATION : CL_INVALID_PROGRAM;
}

cl_program CL_API_CALL stub_LinkProgram(cl_context ctx, cl_uint n, const cl_device_id *devs,
                                        const char *options, cl_uint n_progs,
                                        const cl_program *progs,
                                        void(CL_CALLBACK *notify)(cl_program, void *), void *user,
                                        cl_int *errcode_ret)
{
    (void)n;
    (void)devs;
    (void)options;
    (void)n_progs;
    (void)progs;
    (void)notify;
    (void)user;
    set_err(errcode_ret, stub_is_context(ctx) ? CL_INVALID_OPERATION : CL_INVALID_CONTEXT);
    return NULL;
}

cl_int CL_API_CALL stub_UnloadPlatformCompiler(cl_platform_id plat)
{
    return stub_is_platform(plat) ? CL_SUCCESS : CL_INVALID_PLATFORM;
}

cl_int CL_API_CALL stub_UnloadCompiler(void)
{
    return CL_SUCCESS;
}

/* The first device slot built successfully, or NULL. */
static const stub_prog_dev *built(const cl_program p)
{
    for (cl_uint i = 0; i < p->n_devices; i++)
        if (p->devs[i].status == CL_BUILD_SUCCESS)
            return &p->devs[i];
    return NULL;
}

static cl_int program_info(cl_program p, cl_program_info param, size_t cap, void *value,
                           size_t *ret)
{
    switch (param) {
    case CL_PROGRAM_REFERENCE_COUNT: {
        cl_uint r = atomic_load(&p->refs);
        return stub_answer(&r, sizeof r, cap, value, ret);
    }
    case CL_PROGRAM_CONTEXT: return stub_answer(&p->context, sizeof p->context, cap, value, ret);
    case CL_PROGRAM_NUM_DEVICES:
        return stub_answer(&p->n_devices, sizeof p->n_devices, cap, value, ret);
    case CL_PROGRAM_DEVICES: {
        cl_device_id ids[STUB_MAX_DEVICES];
        for (cl_uint i = 0; i < p->n_devices; i++)
            ids[i] = p->devs[i].device;
        return stub_answer(ids, p->n_devices * sizeof ids[0], cap, value, ret);
    }
    case CL_PROGRAM_SOURCE:
        if (p->origin != STUB_FROM_SOURCE)
            return stub_answer_str("", cap, value, ret);
        return stub_answer(p->input, p->input_len + 1, cap, value, ret);
    case CL_PROGRAM_IL:
        if (p->origin != STUB_FROM_IL)
            return stub_answer("", 0, cap, value, ret);
        return stub_answer(p->input, p->input_len, cap, value, ret);
    case CL_PROGRAM_BINARY_SIZES: {
        size_t sizes[STUB_MAX_DEVICES];
        for (cl_uint i = 0; i < p->n_devices; i++)
            sizes[i] = p->devs[i].binary_type == CL_PROGRAM_BINARY_TYPE_NONE ? 0
                                                                             : p->devs[i].binary_len;
        return stub_answer(sizes, p->n_devices * sizeof sizes[0], cap, value, ret);
    }
    case CL_PROGRAM_BINARIES: {
        size_t need = p->n_devices * sizeof(unsigned char *);
        if (ret)
            *ret = need;
        if (!value)
            return CL_SUCCESS;
        if (cap < need)
            return CL_INVALID_VALUE;
        unsigned char **out = value;
        for (cl_uint i = 0; i < p->n_devices; i++)
            if (out[i] && p->devs[i].binary_type != CL_PROGRAM_BINARY_TYPE_NONE &&
                p->devs[i].binary)
                memcpy(out[i], p->devs[i].binary, p->devs[i].binary_len);
        return CL_SUCCESS;
    }
    case CL_PROGRAM_NUM_KERNELS: {
        const stub_prog_dev *d = built(p);
        if (!d)
            return CL_INVALID_PROGRAM_EXECUTABLE;
        size_t n = d->kernels.n;
        return stub_answer(&n, sizeof n, cap, value, ret);
    }
    case CL_PROGRAM_KERNEL_NAMES: {
        const stub_prog_dev *d = built(p);
        if (!d)
            return CL_INVALID_PROGRAM_EXECUTABLE;
        size_t n = 1;
        for (size_t i = 0; i < d->kernels.n; i++)
            n += strlen(d->kernels.k[i].name) + 1;
        char *names = malloc(n);
        if (!names)
            return CL_OUT_OF_HOST_MEMORY;
        names[0] = '\0';
        for (size_t i = 0; i < d->kernels.n; i++) {
            if (i)
                strcat(names, ";");
            strcat(names, d->kernels.k[i].name);
        }
        cl_int rc = stub_answer_str(names, cap, value, ret);
        free(names);
        return rc;
    }
    case CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT:
    case CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT: {
        cl_bool f = CL_FALSE;
        return stub_answer(&f, sizeof f, cap, value, ret);
    }
    default: return CL_INVALID_VALUE;
    }
}

cl_int CL_API_CALL stub_GetProgramInfo(cl_program p, cl_program_info param, size_t cap,
                                       void *value, size_t *ret)
{
    if (!stub_is_program(p))
        return CL_INVALID_PROGRAM;
    pthread_mutex_lock(&p->lock);
    cl_int rc = program_info(p, param, cap, value, ret);
    pthread_mutex_unlock(&p->lock);
    return rc;
}

cl_int CL_API_CALL stub_GetProgramBuildInfo(cl_program p, cl_device_id dev,
                                            cl_program_build_info param, size_t cap, void *value,
                                            size_t *ret)
{
    if (!stub_is_program(p))
        return CL_INVALID_PROGRAM;
    stub_prog_dev *d = NULL;
    for (cl_uint i = 0; i < p->n_devices; i++)
        if (p->devs[i].device == dev)
            d = &p->devs[i];
    if (!d)
        return CL_INVALID_DEVICE;
    pthread_mutex_lock(&p->lock);
    cl_int rc;
    switch (param) {
    case CL_PROGRAM_BUILD_STATUS: rc = stub_answer(&d->status, sizeof d->status, cap, value, ret); break;
    case CL_PROGRAM_BUILD_OPTIONS:
        rc = stub_answer_str(d->options ? d->options : "", cap, value, ret);
        break;
    case CL_PROGRAM_BUILD_LOG: rc = stub_answer_str(d->log ? d->log : "", cap, value, ret); break;
    case CL_PROGRAM_BINARY_TYPE:
        rc = stub_answer(&d->binary_type, sizeof d->binary_type, cap, value, ret);
        break;
    case CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE: {
        size_t z = 0;
        rc = stub_answer(&z, sizeof z, cap, value, ret);
        break;
    }
    default: rc = CL_INVALID_VALUE;
    }
    pthread_mutex_unlock(&p->lock);
    return rc;
}

cl_int stub_program_kernel(cl_program p, const char *name, stub_kernel_desc *out)
{
    pthread_mutex_lock(&p->lock);
    const stub_prog_dev *d = built(p);
    cl_int rc = d ? CL_INVALID_KERNEL_NAME : CL_INVALID_PROGRAM_EXECUTABLE;
    for (size_t i = 0; d && i < d->kernels.n; i++)
        if (strcmp(d->kernels.k[i].name, name) == 0) {
            rc = stub_kernel_desc_copy(out, &d->kernels.k[i]) == 0 ? CL_SUCCESS
                                                                   : CL_OUT_OF_HOST_MEMORY;
            break;
        }
    pthread_mutex_unlock(&p->lock);
    return rc;
}
