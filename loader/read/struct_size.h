/*
 * struct_size.h — the versioned structs' rule (clcpack.h, "Structs that may
 * grow"): how much of a caller's struct the library reads or writes.
 * Internal to libclcpack.
 */
#ifndef CLCPACK_STRUCT_SIZE_H
#define CLCPACK_STRUCT_SIZE_H

#include <stddef.h>
#include <string.h>

#include "clcpack_inspect.h"

/* The bytes of a struct up to the end of `last`: its size in the version
 * that ended with that field. A caller's struct_size must be at least the
 * 1.0 size. */
#define CLCPK_SIZE_TO(type, last) (offsetof(type, last) + sizeof(((type *)0)->last))

#define CLCPK_DEVICE_INFO_1_0 CLCPK_SIZE_TO(clcpack_device_info, intel_device_id)
#define CLCPK_ENTRY_INFO_1_0 CLCPK_SIZE_TO(clcpack_entry_info, target)
#define CLCPK_SOURCE_INFO_1_0 CLCPK_SIZE_TO(clcpack_source_info, raw_crc32)
#define CLCPK_DICTIONARY_INFO_1_0 CLCPK_SIZE_TO(clcpack_dictionary_info, raw_crc32)
#define CLCPK_CHOICE_1_0 CLCPK_SIZE_TO(clcpack_choice, why)
#define CLCPK_LOAD_REPORT_1_0 CLCPK_SIZE_TO(clcpack_load_report, why)

/* 1 when the caller's struct at s (struct_size first) holds the 1.0 fields. */
static inline int clcpk_size_ok(const void *s, size_t least)
{
    size_t given;
    memcpy(&given, s, sizeof given);
    return given >= least;
}

/* Output: copies the library's full struct (full bytes at src) into the
 * caller's at dst, as far as both reach, leaving dst's struct_size and
 * whatever lies past the library's size as they are. */
static inline void clcpk_copy_out(void *dst, const void *src, size_t full)
{
    size_t given;
    memcpy(&given, dst, sizeof given);
    size_t n = given < full ? given : full;
    if (n > sizeof given)
        memcpy((char *)dst + sizeof given, (const char *)src + sizeof given, n - sizeof given);
}

/* The get functions: item i of n (the library's struct at src + i * stride,
 * `full` bytes) into the caller's out, whose struct_size must reach the
 * 1.0 size `least`. */
static inline clcpack_status clcpk_get_item(const void *src, size_t stride, size_t n, size_t i,
                                            size_t full, size_t least, void *out)
{
    if (!out || !clcpk_size_ok(out, least))
        return CLCPACK_E_INVALID_ARG;
    if (i >= n)
        return CLCPACK_E_NOT_FOUND;
    clcpk_copy_out(out, (const char *)src + i * stride, full);
    return CLCPACK_OK;
}

/* Input: a full struct (full bytes at dst) from the caller's at src, the
 * fields past its struct_size read as 0; dst's struct_size becomes full. */
static inline void clcpk_copy_in(void *dst, const void *src, size_t full)
{
    size_t given;
    memcpy(&given, src, sizeof given);
    memset(dst, 0, full);
    memcpy(dst, src, given < full ? given : full);
    memcpy(dst, &full, sizeof full);
}

#endif /* CLCPACK_STRUCT_SIZE_H */
