/*
 * stub_objects.c — contexts, command queues, buffers and events: enough
 * for an application to set a kernel up and "run" it. Nothing executes:
 * clEnqueueNDRangeKernel checks its arguments and completes at once, and
 * buffers keep what was written to them.
 */
#include <stdlib.h>
#include <string.h>

#include "stub.h"

int stub_is_context(cl_context c)
{
    return c && c->magic == STUB_MAGIC_CONTEXT;
}

static int is_queue(cl_command_queue q)
{
    return q && q->magic == STUB_MAGIC_QUEUE;
}

static int is_mem(cl_mem m)
{
    return m && m->magic == STUB_MAGIC_MEM;
}

static int is_event(cl_event e)
{
    return e && e->magic == STUB_MAGIC_EVENT;
}

static cl_int set_err(cl_int *errcode_ret, cl_int rc)
{
    if (errcode_ret)
        *errcode_ret = rc;
    return rc;
}

int stub_context_has(cl_context c, cl_device_id d)
{
    for (cl_uint i = 0; i < c->n_devices; i++)
        if (c->devices[i] == d)
            return 1;
    return 0;
}

void stub_context_retain(cl_context c)
{
    atomic_fetch_add(&c->refs, 1);
}

void stub_context_release(cl_context c)
{
    if (atomic_fetch_sub(&c->refs, 1) == 1) {
        c->magic = 0;
        free(c);
    }
}

/* The platform named by properties (NULL when none is named); -1 on a bad
 * list. */
static int context_platform(const cl_context_properties *props, cl_platform_id *out)
{
    *out = NULL;
    for (size_t i = 0; props && props[i]; i += 2) {
        if (i > 64)
            return -1;
        if (props[i] == CL_CONTEXT_PLATFORM) {
            cl_platform_id p = (cl_platform_id)props[i + 1];
            if (!stub_is_platform(p))
                return -1;
            *out = p;
        } else if (props[i] != CL_CONTEXT_INTEROP_USER_SYNC) {
            return -1;
        }
    }
    return 0;
}

static cl_context new_context(cl_platform_id plat, cl_uint n, const cl_device_id *devs,
                              cl_int *errcode_ret)
{
    cl_context c = calloc(1, sizeof *c);
    if (!c) {
        set_err(errcode_ret, CL_OUT_OF_HOST_MEMORY);
        return NULL;
    }
    c->dispatch = &stub_dispatch;
    c->magic = STUB_MAGIC_CONTEXT;
    atomic_init(&c->refs, 1);
    c->n_devices = n;
    memcpy(c->devices, devs, n * sizeof *devs);
    if (plat) {
        c->props[0] = CL_CONTEXT_PLATFORM;
        c->props[1] = (cl_context_properties)plat;
        c->props[2] = 0;
        c->n_props = 3;
    }
    set_err(errcode_ret, CL_SUCCESS);
    return c;
}

/* new_context, with a log line per device (README.md, "The log"). */
static cl_context logged_context(cl_platform_id plat, cl_uint n, const cl_device_id *devs,
                                 cl_int *errcode_ret)
{
    cl_context c = new_context(plat, n, devs, errcode_ret);
    for (cl_uint i = 0; c && i < n; i++)
        stub_log_call("context", devs[i], 0, NULL, 0, NULL, CL_SUCCESS, "", "", "");
    return c;
}

cl_context CL_API_CALL stub_CreateContext(const cl_context_properties *props, cl_uint n,
                                          const cl_device_id *devs,
                                          void(CL_CALLBACK *notify)(const char *, const void *,
                                                                    size_t, void *),
                                          void *user, cl_int *errcode_ret)
{
    cl_platform_id plat;
    if (!devs || n == 0 || (!notify && user)) {
        set_err(errcode_ret, CL_INVALID_VALUE);
        return NULL;
    }
    if (context_platform(props, &plat) != 0) {
        set_err(errcode_ret, CL_INVALID_PLATFORM);
        return NULL;
    }
    if (n > STUB_MAX_DEVICES) {
        set_err(errcode_ret, CL_INVALID_VALUE);
        return NULL;
    }
    for (cl_uint i = 0; i < n; i++)
        if (!stub_is_device(devs[i]) || (plat && devs[i]->platform != plat)) {
            set_err(errcode_ret, CL_INVALID_DEVICE);
            return NULL;
        }
    return logged_context(plat, n, devs, errcode_ret);
}

cl_context CL_API_CALL stub_CreateContextFromType(const cl_context_properties *props,
                                                  cl_device_type type,
                                                  void(CL_CALLBACK *notify)(const char *,
                                                                            const void *, size_t,
                                                                            void *),
                                                  void *user, cl_int *errcode_ret)
{
    cl_platform_id plat;
    if (!notify && user) {
        set_err(errcode_ret, CL_INVALID_VALUE);
        return NULL;
    }
    if (context_platform(props, &plat) != 0) {
        set_err(errcode_ret, CL_INVALID_PLATFORM);
        return NULL;
    }
    if (!plat)
        plat = stub_platform(0);
    cl_device_id devs[STUB_MAX_DEVICES];
    cl_uint n = 0;
    cl_int rc = plat ? stub_GetDeviceIDs(plat, type, STUB_MAX_DEVICES, devs, &n)
                     : CL_DEVICE_NOT_FOUND;
    if (rc != CL_SUCCESS) {
        set_err(errcode_ret, rc);
        return NULL;
    }
    return logged_context(plat, n, devs, errcode_ret);
}

cl_int CL_API_CALL stub_RetainContext(cl_context c)
{
    if (!stub_is_context(c))
        return CL_INVALID_CONTEXT;
    stub_context_retain(c);
    return CL_SUCCESS;
}

cl_int CL_API_CALL stub_ReleaseContext(cl_context c)
{
    if (!stub_is_context(c))
        return CL_INVALID_CONTEXT;
    stub_context_release(c);
    return CL_SUCCESS;
}

cl_int CL_API_CALL stub_GetContextInfo(cl_context c, cl_context_info param, size_t cap,
                                       void *value, size_t *ret)
{
    if (!stub_is_context(c))
        return CL_INVALID_CONTEXT;
    switch (param) {
    case CL_CONTEXT_REFERENCE_COUNT: {
        cl_uint r = atomic_load(&c->refs);
        return stub_answer(&r, sizeof r, cap, value, ret);
    }
    case CL_CONTEXT_NUM_DEVICES:
        return stub_answer(&c->n_devices, sizeof c->n_devices, cap, value, ret);
    case CL_CONTEXT_DEVICES:
        return stub_answer(c->devices, c->n_devices * sizeof c->devices[0], cap, value, ret);
    case CL_CONTEXT_PROPERTIES:
        return stub_answer(c->props, c->n_props * sizeof c->props[0], cap, value, ret);
    default:
        return CL_INVALID_VALUE;
    }
}

/* ---- queues ---- */

static cl_command_queue new_queue(cl_context c, cl_device_id d, cl_command_queue_properties props,
                                  cl_int *errcode_ret)
{
    if (!stub_is_context(c)) {
        set_err(errcode_ret, CL_INVALID_CONTEXT);
        return NULL;
    }
    if (!stub_is_device(d) || !stub_context_has(c, d)) {
        set_err(errcode_ret, CL_INVALID_DEVICE);
        return NULL;
    }
    if (props & ~(cl_command_queue_properties)(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
                                               CL_QUEUE_PROFILING_ENABLE)) {
        set_err(errcode_ret, CL_INVALID_QUEUE_PROPERTIES);
        return NULL;
    }
    cl_command_queue q = calloc(1, sizeof *q);
    if (!q) {
        set_err(errcode_ret, CL_OUT_OF_HOST_MEMORY);
        return NULL;
    }
    q->dispatch = &stub_dispatch;
    q->magic = STUB_MAGIC_QUEUE;
    atomic_init(&q->refs, 1);
    q->context = c;
    q->device = d;
    q->props = props;
    stub_context_retain(c);
    set_err(errcode_ret, CL_SUCCESS);
    return q;
}

cl_command_queue CL_API_CALL stub_CreateCommandQueue(cl_context c, cl_device_id d,
                                                     cl_command_queue_properties props,
                                                     cl_int *errcode_ret)
{
    return new_queue(c, d, props, errcode_ret);
}

cl_command_queue CL_API_CALL stub_CreateCommandQueueWithProperties(
    cl_context c, cl_device_id d, const cl_queue_properties *props, cl_int *errcode_ret)
{
    cl_command_queue_properties bits = 0;
    for (size_t i = 0; props && props[i]; i += 2) {
        if (i > 64 || props[i] != CL_QUEUE_PROPERTIES) {
            set_err(errcode_ret, CL_INVALID_VALUE);
            return NULL;
        }
        bits = (cl_command_queue_properties)props[i + 1];
    }
    return new_queue(c, d, bits, errcode_ret);
}

cl_int CL_API_CALL stub_RetainCommandQueue(cl_command_queue q)
{
    if (!is_queue(q))
        return CL_INVALID_COMMAND_QUEUE;
    atomic_fetch_add(&q->refs, 1);
    return CL_SUCCESS;
}

cl_int CL_API_CALL stub_ReleaseCommandQueue(cl_command_queue q)
{
    if (!is_queue(q))
        return CL_INVALID_COMMAND_QUEUE;
    if (atomic_fetch_sub(&q->refs, 1) == 1) {
        cl_context c = q->context;
        q->magic = 0;
        free(q);
        stub_context_release(c);
    }
    return CL_SUCCESS;
}

cl_int CL_API_CALL stub_GetCommandQueueInfo(cl_command_queue q, cl_command_queue_info param,
                                            size_t cap, void *value, size_t *ret)
{
    if (!is_queue(q))
        return CL_INVALID_COMMAND_QUEUE;
    switch (param) {
    case CL_QUEUE_CONTEXT: return stub_answer(&q->context, sizeof q->context, cap, value, ret);
    case CL_QUEUE_DEVICE: return stub_answer(&q->device, sizeof q->device, cap, value, ret);
    case CL_QUEUE_PROPERTIES: return stub_answer(&q->props, sizeof q->props, cap, value, ret);
    case CL_QUEUE_REFERENCE_COUNT: {
        cl_uint r = atomic_load(&q->refs);
        return stub_answer(&r, sizeof r, cap, value, ret);
    }
    default: return CL_INVALID_VALUE;
    }
}

cl_int CL_API_CALL stub_Flush(cl_command_queue q)
{
    return is_queue(q) ? CL_SUCCESS : CL_INVALID_COMMAND_QUEUE;
}

cl_int CL_API_CALL stub_Finish(cl_command_queue q)
{
    return is_queue(q) ? CL_SUCCESS : CL_INVALID_COMMAND_QUEUE;
}

/* ---- buffers ---- */

cl_mem CL_API_CALL stub_CreateBuffer(cl_context c, cl_mem_flags flags, size_t size, void *host,
                                     cl_int *errcode_ret)
{
    if (!stub_is_context(c)) {
        set_err(errcode_ret, CL_INVALID_CONTEXT);
        return NULL;
    }
    int use = (flags & CL_MEM_USE_HOST_PTR) != 0;
    int copy = (flags & CL_MEM_COPY_HOST_PTR) != 0;
    if ((use || copy) != (host != NULL) || (use && copy)) {
        set_err(errcode_ret, CL_INVALID_HOST_PTR);
        return NULL;
    }
    if (size == 0 || size > ((size_t)4 << 30)) {
        set_err(errcode_ret, CL_INVALID_BUFFER_SIZE);
        return NULL;
    }
    cl_mem m = calloc(1, sizeof *m);
    if (m && !use && !(m->data = calloc(1, size))) {
        free(m);
        m = NULL;
    }
    if (!m) {
        set_err(errcode_ret, CL_MEM_OBJECT_ALLOCATION_FAILURE);
        return NULL;
    }
    m->dispatch = &stub_dispatch;
    m->magic = STUB_MAGIC_MEM;
    atomic_init(&m->refs, 1);
    m->context = c;
    m->flags = flags;
    m->size = size;
    m->host_ptr = use ? host : NULL;
    if (use)
        m->data = host;
    else if (copy)
        memcpy(m->data, host, size);
    stub_context_retain(c);
    set_err(errcode_ret, CL_SUCCESS);
    return m;
}

cl_int CL_API_CALL stub_RetainMemObject(cl_mem m)
{
    if (!is_mem(m))
        return CL_INVALID_MEM_OBJECT;
    atomic_fetch_add(&m->refs, 1);
    return CL_SUCCESS;
}

cl_int CL_API_CALL stub_ReleaseMemObject(cl_mem m)
{
    if (!is_mem(m))
        return CL_INVALID_MEM_OBJECT;
    if (atomic_fetch_sub(&m->refs, 1) == 1) {
        cl_context c = m->context;
        if (!m->host_ptr)
            free(m->data);
        m->magic = 0;
        free(m);
        stub_context_release(c);
    }
    return CL_SUCCESS;
}

cl_int CL_API_CALL stub_GetMemObjectInfo(cl_mem m, cl_mem_info param, size_t cap, void *value,
                                         size_t *ret)
{
    if (!is_mem(m))
        return CL_INVALID_MEM_OBJECT;
    switch (param) {
    case CL_MEM_TYPE: {
        cl_mem_object_type t = CL_MEM_OBJECT_BUFFER;
        return stub_answer(&t, sizeof t, cap, value, ret);
    }
    case CL_MEM_FLAGS: return stub_answer(&m->flags, sizeof m->flags, cap, value, ret);
    case CL_MEM_SIZE: return stub_answer(&m->size, sizeof m->size, cap, value, ret);
    case CL_MEM_HOST_PTR: return stub_answer(&m->host_ptr, sizeof m->host_ptr, cap, value, ret);
    case CL_MEM_CONTEXT: return stub_answer(&m->context, sizeof m->context, cap, value, ret);
    case CL_MEM_REFERENCE_COUNT: {
        cl_uint r = atomic_load(&m->refs);
        return stub_answer(&r, sizeof r, cap, value, ret);
    }
    default: return CL_INVALID_VALUE;
    }
}

/* ---- events: every command is complete when enqueued ---- */

static cl_int check_wait_list(cl_uint n, const cl_event *list)
{
    if ((n == 0) != (list == NULL))
        return CL_INVALID_EVENT_WAIT_LIST;
    for (cl_uint i = 0; i < n; i++)
        if (!is_event(list[i]))
            return CL_INVALID_EVENT_WAIT_LIST;
    return CL_SUCCESS;
}

static cl_int new_event(cl_command_queue q, cl_command_type type, cl_event *out)
{
    if (!out)
        return CL_SUCCESS;
    cl_event e = calloc(1, sizeof *e);
    if (!e)
        return CL_OUT_OF_HOST_MEMORY;
    e->dispatch = &stub_dispatch;
    e->magic = STUB_MAGIC_EVENT;
    atomic_init(&e->refs, 1);
    e->context = q->context;
    e->queue = q;
    e->type = type;
    atomic_fetch_add(&q->refs, 1); /* released with the event */
    *out = e;
    return CL_SUCCESS;
}

static cl_int buffer_command(cl_command_queue q, cl_mem m, size_t offset, size_t size,
                             const void *ptr, cl_uint n_wait, const cl_event *wait)
{
    if (!is_queue(q))
        return CL_INVALID_COMMAND_QUEUE;
    if (!is_mem(m))
        return CL_INVALID_MEM_OBJECT;
    if (m->context != q->context)
        return CL_INVALID_CONTEXT;
    if (!ptr || offset > m->size || size > m->size - offset)
        return CL_INVALID_VALUE;
    return check_wait_list(n_wait, wait);
}

cl_int CL_API_CALL stub_EnqueueReadBuffer(cl_command_queue q, cl_mem m, cl_bool blocking,
                                          size_t offset, size_t size, void *ptr, cl_uint n_wait,
                                          const cl_event *wait, cl_event *ev)
{
    (void)blocking;
    cl_int rc = buffer_command(q, m, offset, size, ptr, n_wait, wait);
    if (rc != CL_SUCCESS)
        return rc;
    memmove(ptr, m->data + offset, size);
    return new_event(q, CL_COMMAND_READ_BUFFER, ev);
}

cl_int CL_API_CALL stub_EnqueueWriteBuffer(cl_command_queue q, cl_mem m, cl_bool blocking,
                                           size_t offset, size_t size, const void *ptr,
                                           cl_uint n_wait, const cl_event *wait, cl_event *ev)
{
    (void)blocking;
    cl_int rc = buffer_command(q, m, offset, size, ptr, n_wait, wait);
    if (rc != CL_SUCCESS)
        return rc;
    memmove(m->data + offset, ptr, size);
    return new_event(q, CL_COMMAND_WRITE_BUFFER, ev);
}

cl_int CL_API_CALL stub_EnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dims,
                                             const size_t *offset, const size_t *global,
                                             const size_t *local, cl_uint n_wait,
                                             const cl_event *wait, cl_event *ev)
{
    (void)offset;
    if (!is_queue(q))
        return CL_INVALID_COMMAND_QUEUE;
    if (!stub_is_kernel(k))
        return CL_INVALID_KERNEL;
    if (k->program->context != q->context)
        return CL_INVALID_CONTEXT;
    if (dims < 1 || dims > 3)
        return CL_INVALID_WORK_DIMENSION;
    if (!global)
        return CL_INVALID_GLOBAL_WORK_SIZE;
    size_t max_wg = stub_max_work_group(q->device), items = 1;
    for (cl_uint i = 0; i < dims; i++) {
        if (global[i] == 0)
            return CL_INVALID_GLOBAL_WORK_SIZE;
        if (local) {
            if (local[i] == 0 || global[i] % local[i] != 0)
                return CL_INVALID_WORK_GROUP_SIZE;
            items *= local[i];
        }
    }
    if (items > max_wg)
        return CL_INVALID_WORK_GROUP_SIZE;
    cl_int rc = check_wait_list(n_wait, wait);
    return rc != CL_SUCCESS ? rc : new_event(q, CL_COMMAND_NDRANGE_KERNEL, ev);
}

cl_int CL_API_CALL stub_WaitForEvents(cl_uint n, const cl_event *list)
{
    if (n == 0 || !list)
        return CL_INVALID_VALUE;
    return check_wait_list(n, list) == CL_SUCCESS ? CL_SUCCESS : CL_INVALID_EVENT;
}

cl_int CL_API_CALL stub_GetEventInfo(cl_event e, cl_event_info param, size_t cap, void *value,
                                     size_t *ret)
{
    if (!is_event(e))
        return CL_INVALID_EVENT;
    switch (param) {
    case CL_EVENT_COMMAND_QUEUE: return stub_answer(&e->queue, sizeof e->queue, cap, value, ret);
    case CL_EVENT_CONTEXT: return stub_answer(&e->context, sizeof e->context, cap, value, ret);
    case CL_EVENT_COMMAND_TYPE: return stub_answer(&e->type, sizeof e->type, cap, value, ret);
    case CL_EVENT_COMMAND_EXECUTION_STATUS: {
        cl_int s = CL_COMPLETE;
        return stub_answer(&s, sizeof s, cap, value, ret);
    }
    case CL_EVENT_REFERENCE_COUNT: {
        cl_uint r = atomic_load(&e->refs);
        return stub_answer(&r, sizeof r, cap, value, ret);
    }
    default: return CL_INVALID_VALUE;
    }
}

cl_int CL_API_CALL stub_GetEventProfilingInfo(cl_event e, cl_profiling_info param, size_t cap,
                                              void *value, size_t *ret)
{
    if (!is_event(e))
        return CL_INVALID_EVENT;
    if (!(e->queue->props & CL_QUEUE_PROFILING_ENABLE))
        return CL_PROFILING_INFO_NOT_AVAILABLE;
    if (param < CL_PROFILING_COMMAND_QUEUED || param > CL_PROFILING_COMMAND_COMPLETE)
        return CL_INVALID_VALUE;
    cl_ulong t = 1000;
    return stub_answer(&t, sizeof t, cap, value, ret);
}

cl_int CL_API_CALL stub_RetainEvent(cl_event e)
{
    if (!is_event(e))
        return CL_INVALID_EVENT;
    atomic_fetch_add(&e->refs, 1);
    return CL_SUCCESS;
}

cl_int CL_API_CALL stub_ReleaseEvent(cl_event e)
{
    if (!is_event(e))
        return CL_INVALID_EVENT;
    if (atomic_fetch_sub(&e->refs, 1) == 1) {
        cl_command_queue q = e->queue;
        e->magic = 0;
        free(e);
        stub_ReleaseCommandQueue(q);
    }
    return CL_SUCCESS;
}
