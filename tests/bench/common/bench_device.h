/*
 * bench_device.h — the one OpenCL device a benchmark runs on, picked with
 * the same --device / --platform rules as clc-pack (clc/run/device_select.h),
 * with a context and what the result tables name the device by.
 */
#ifndef BENCH_DEVICE_H
#define BENCH_DEVICE_H

#include "device_select.h"

typedef struct bench_device {
    cl_platform_id platform;
    cl_device_id dev;
    cl_context ctx;             /* NULL until bench_device_open made one */
    cl_device_type type;
    char name[DEVICE_SELECT_NAME_MAX];
    char platform_name[DEVICE_SELECT_NAME_MAX];
    char version[DEVICE_SELECT_NAME_MAX];  /* CL_DEVICE_VERSION */
    char driver[DEVICE_SELECT_NAME_MAX];   /* CL_DRIVER_VERSION */
    char slug[DEVICE_SELECT_SLUG_MAX];     /* as clc-pack names its default pack */
    unsigned compute_units;
    unsigned clock_mhz;
    unsigned long long global_mem;
    unsigned nv_cc_major, nv_cc_minor; /* 0.0 unless NVIDIA */
} bench_device;

/* Picks the device (spec and platform as for clc-pack; NULL means
 * "default" and every platform). A spec that selects several devices is an
 * error: a benchmark speaks of one device. With make_context, also creates
 * a context on it. Returns 0, or -1 with err. */
int bench_device_open(const char *spec, const char *platform, int make_context,
                      bench_device *out, char err[DEVICE_SELECT_ERR_MAX]);

/* Creates the context on an opened device (bench_device_open without
 * make_context), apart so that its cost can be timed alone. Returns 0, or
 * -1 with err. */
int bench_device_context(bench_device *d, char err[DEVICE_SELECT_ERR_MAX]);

/* Releases the context. Safe on a device that failed to open. */
void bench_device_close(bench_device *d);

/* A queue on the device, with event profiling when profiling is set.
 * Returns NULL with err on failure. */
cl_command_queue bench_queue(const bench_device *d, int profiling, char err[DEVICE_SELECT_ERR_MAX]);

/* 1 for a CPU device: the benchmarks reduce their image sizes there. */
int bench_device_is_cpu(const bench_device *d);

#endif /* BENCH_DEVICE_H */
