/*
 * device_fp.h — the functions of device_fp.c: a device's fingerprint,
 * asked of the driver (once per pack and device, through the read side's
 * cache), compared and described. Internal to libclcpack.
 */
#ifndef CLCPACK_DEVICE_FP_H
#define CLCPACK_DEVICE_FP_H

#include <stddef.h>
#include <stdint.h>

#include "pack_reader.h"

/* The fingerprint of dev, queried once per pack and device and then kept
 * (the library retains the device until clcpack_close, so the handle cannot
 * be reused for another device meanwhile). *out points into the cache,
 * valid until clcpack_close, or at `scratch` filled by a fresh query when
 * the device could not be kept. Safe from many threads. */
clcpack_status clcpk_device_fingerprint(const clcpack *p, cl_device_id dev,
                                        clcpack_device_info *scratch,
                                        const clcpack_device_info **out, clcpack_error *err);

/* What telling a cubin and PTX apart needs of an NVIDIA device, in three
 * driver calls where the whole fingerprint takes 15: out zeroed but for
 * its vendor ID and compute capability. 1 when dev is an NVIDIA device
 * that answered, else 0 (the caller takes the whole fingerprint). */
int clcpk_device_nvidia_identity(cl_device_id dev, clcpack_device_info *out);

/* The library's own forms of the device functions, on full structs (the
 * library's size of clcpack_device_info, as the pack, the cache and
 * clcpk_device_query hold them): clcpack_device_query,
 * clcpack_device_binary_compatible, clcpack_device_describe_difference. */
clcpack_status clcpk_device_query(cl_device_id dev, clcpack_device_info *out, clcpack_error *err);
int clcpk_device_compatible(const clcpack_device_info *a, const clcpack_device_info *b);
void clcpk_device_difference(const clcpack_device_info *a, const clcpack_device_info *b,
                             char *buf, size_t cap);

/* A short label for a device in messages: "'NAME (driver VERSION)'". */
void clcpk_device_label(const clcpack_device_info *d, char *buf, size_t cap);

#endif /* CLCPACK_DEVICE_FP_H */
