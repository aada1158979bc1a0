/*
 * device_select.h — the OpenCL platforms and devices of this machine, and
 * the --device / --platform selection rules (docs/CLI.md, "Devices").
 *
 * Spec (case-insensitive):
 *   default      the first GPU, else the first CPU, else the first device
 *   gpu|cpu|accelerator   the first device of that type
 *   all          every device
 *   N            device N in --list-devices numbering
 *   NAME         the first device whose name contains NAME
 * --platform NAME keeps only the platforms whose name contains NAME, before
 * the spec is applied (device numbers keep their --list-devices values).
 */
#ifndef CLC_DEVICE_SELECT_H
#define CLC_DEVICE_SELECT_H

#include <stddef.h>
#include <stdio.h>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#define DEVICE_SELECT_MAX_DEVICES 64
#define DEVICE_SELECT_NAME_MAX 256
#define DEVICE_SELECT_ERR_MAX 2048
#define DEVICE_SELECT_SLUG_MAX 48

typedef struct device_select_device {
    cl_platform_id platform;
    cl_device_id device;
    unsigned platform_index;    /* in clGetPlatformIDs order */
    unsigned device_index;      /* in clGetDeviceIDs(CL_DEVICE_TYPE_ALL) order */
    unsigned ordinal;           /* N of --device N and --list-devices */
    cl_device_type type;
    char platform_name[DEVICE_SELECT_NAME_MAX];
    char name[DEVICE_SELECT_NAME_MAX];
    char version[DEVICE_SELECT_NAME_MAX];  /* CL_DEVICE_VERSION */
    char driver[DEVICE_SELECT_NAME_MAX];   /* CL_DRIVER_VERSION */
} device_select_device;

typedef struct device_select_list {
    size_t n;
    device_select_device dev[DEVICE_SELECT_MAX_DEVICES];
    size_t n_platforms;
    char platform_names[DEVICE_SELECT_MAX_DEVICES][DEVICE_SELECT_NAME_MAX];
    /* Past the bound, not listed: the devices of the listed platforms
     * beyond the first DEVICE_SELECT_MAX_DEVICES, and the platforms beyond
     * as many (whose devices are not asked for). --list-devices and a
     * --device N past the list say so. */
    size_t n_left_out, n_platforms_left_out;
} device_select_list;

/* Enumerates every platform and device. Returns 0 (n may be 0 when the
 * platforms have no device), or -1 with err saying why (no ICD, no
 * platform, a failing query). */
int device_select_enumerate(device_select_list *out, char err[DEVICE_SELECT_ERR_MAX]);

/* Looks up one device by its (platform, device) indices, as a worker
 * process does. Returns 0 or -1 with err. */
int device_select_find_by_index(const device_select_list *all, unsigned platform_index, unsigned device_index,
                     const device_select_device **out, char err[DEVICE_SELECT_ERR_MAX]);

/* Applies spec and platform_filter (either may be NULL: "default", every
 * platform). Writes up to DEVICE_SELECT_MAX_DEVICES indices into all->dev to sel and
 * their count to *n_sel. Returns 0, or -1 with err saying what was asked
 * for and listing what was found. Pure: does not call OpenCL. */
int device_select(const device_select_list *all, const char *spec, const char *platform_filter,
              size_t sel[DEVICE_SELECT_MAX_DEVICES], size_t *n_sel, char err[DEVICE_SELECT_ERR_MAX]);

/* "GPU", "CPU", "accelerator", "custom" or "other". */
const char *device_select_type_name(cl_device_type t);

/* The default output name part for a device name: lowercased, runs of
 * non-alphanumerics made one '-', trimmed, at most 40 characters,
 * "device" when nothing is left; trademark marks, "Processor" and
 * everything from an '@' (the clock) dropped. */
void device_select_slug(const char *name, char out[DEVICE_SELECT_SLUG_MAX]);

/* Prints every platform and device, one line each, marking the one the
 * default spec picks (--list-devices). */
void device_select_print(FILE *f, const device_select_list *all);

#endif /* CLC_DEVICE_SELECT_H */
