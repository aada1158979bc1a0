/* bench_device.c — the device a benchmark runs on (bench_device.h). */
#include "bench_device.h"

#include <string.h>

#include <CL/cl_ext.h>

#include "bounded_fmt.h"

/* Queries an unsigned device property; 0 when the device does not have it
 * (an NVIDIA-only query on another vendor's device, say). */
static unsigned long long info_u(cl_device_id dev, cl_device_info what, size_t size)
{
    cl_ulong v64 = 0;
    cl_uint v32 = 0;
    if (size == sizeof v64)
        return clGetDeviceInfo(dev, what, sizeof v64, &v64, NULL) == CL_SUCCESS ? v64 : 0;
    return clGetDeviceInfo(dev, what, sizeof v32, &v32, NULL) == CL_SUCCESS ? v32 : 0;
}

int bench_device_open(const char *spec, const char *platform, int make_context,
                      bench_device *out, char err[DEVICE_SELECT_ERR_MAX])
{
    static device_select_list all; /* large; one benchmark opens one device */
    memset(out, 0, sizeof *out);
    if (device_select_enumerate(&all, err) != 0)
        return -1;
    size_t sel[DEVICE_SELECT_MAX_DEVICES], n_sel = 0;
    if (device_select(&all, spec ? spec : "default", platform, sel, &n_sel, err) != 0)
        return -1;
    if (n_sel != 1) {
        bfmt(err, DEVICE_SELECT_ERR_MAX, "--device %s selects %zu devices; a benchmark runs on one "
             "(name it with --device N or a part of its name)", spec ? spec : "default", n_sel);
        return -1;
    }
    const device_select_device *d = &all.dev[sel[0]];
    out->platform = d->platform;
    out->dev = d->device;
    out->type = d->type;
    bfmt(out->name, sizeof out->name, "%s", d->name);
    bfmt(out->platform_name, sizeof out->platform_name, "%s",
         all.platform_names[d->platform_index]);
    bfmt(out->version, sizeof out->version, "%s", d->version);
    bfmt(out->driver, sizeof out->driver, "%s", d->driver);
    device_select_slug(d->name, out->slug);
    out->compute_units = (unsigned)info_u(d->device, CL_DEVICE_MAX_COMPUTE_UNITS, 4);
    out->clock_mhz = (unsigned)info_u(d->device, CL_DEVICE_MAX_CLOCK_FREQUENCY, 4);
    out->global_mem = info_u(d->device, CL_DEVICE_GLOBAL_MEM_SIZE, 8);
    out->nv_cc_major = (unsigned)info_u(d->device, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, 4);
    out->nv_cc_minor = (unsigned)info_u(d->device, CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV, 4);
    return make_context ? bench_device_context(out, err) : 0;
}

int bench_device_context(bench_device *d, char err[DEVICE_SELECT_ERR_MAX])
{
    cl_int rc;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)d->platform, 0};
    d->ctx = clCreateContext(props, 1, &d->dev, NULL, NULL, &rc);
    if (rc != CL_SUCCESS || !d->ctx) {
        d->ctx = NULL;
        bfmt(err, DEVICE_SELECT_ERR_MAX, "clCreateContext on %s failed with error %d", d->name, (int)rc);
        return -1;
    }
    return 0;
}

void bench_device_close(bench_device *d)
{
    if (d->ctx)
        clReleaseContext(d->ctx);
    d->ctx = NULL;
}

cl_command_queue bench_queue(const bench_device *d, int profiling, char err[DEVICE_SELECT_ERR_MAX])
{
    cl_int rc;
    cl_command_queue q =
        clCreateCommandQueue(d->ctx, d->dev, profiling ? CL_QUEUE_PROFILING_ENABLE : 0, &rc);
    if (rc != CL_SUCCESS || !q) {
        bfmt(err, DEVICE_SELECT_ERR_MAX, "clCreateCommandQueue on %s failed with error %d", d->name,
             (int)rc);
        return NULL;
    }
    return q;
}

int bench_device_is_cpu(const bench_device *d)
{
    return (d->type & CL_DEVICE_TYPE_CPU) != 0;
}
