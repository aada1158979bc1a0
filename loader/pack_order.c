/*
 * pack_order.c — the orderings that make a pack independent of the order
 * things were added in (docs/FORMAT.md, "Ordering").
 */
#include <string.h>

#include "pack_writer.h"

static int cmp_u64(uint64_t a, uint64_t b) { return a < b ? -1 : a > b; }

int clcpk_device_compare(const clcpack_device_info *a, const clcpack_device_info *b)
{
    const char *sa[] = {a->platform_name,  a->platform_version, a->device_name,
                        a->device_version, a->driver_version,   a->opencl_c_version};
    const char *sb[] = {b->platform_name,  b->platform_version, b->device_name,
                        b->device_version, b->driver_version,   b->opencl_c_version};
    for (size_t i = 0; i < sizeof sa / sizeof sa[0]; i++) {
        int c = strncmp(sa[i], sb[i], CLCPACK_FP_STR - 1);
        if (c)
            return c < 0 ? -1 : 1;
    }
    int c;
    if ((c = cmp_u64(a->device_type, b->device_type)) || (c = cmp_u64(a->vendor_id, b->vendor_id)) ||
        (c = cmp_u64(a->address_bits, b->address_bits)) || (c = cmp_u64(a->has_uuid, b->has_uuid)))
        return c;
    if ((c = memcmp(a->device_uuid, b->device_uuid, 16)) ||
        (c = memcmp(a->driver_uuid, b->driver_uuid, 16)))
        return c < 0 ? -1 : 1;
    if ((c = cmp_u64(a->nv_cc_major, b->nv_cc_major)) || (c = cmp_u64(a->nv_cc_minor, b->nv_cc_minor)))
        return c;
    return 0;
}

/* A decimal integer: optional '-', then 1 to 18 digits (so it fits). */
static int as_integer(const char *s, long long *v)
{
    const char *p = s;
    int neg = *p == '-';
    if (neg)
        p++;
    size_t n = strspn(p, "0123456789");
    if (n == 0 || n > 18 || p[n] != '\0')
        return 0;
    long long x = 0;
    for (size_t i = 0; i < n; i++)
        x = x * 10 + (p[i] - '0');
    *v = neg ? -x : x;
    return 1;
}

int clcpk_value_compare(const char *a, const char *b)
{
    long long x, y;
    /* Numbers as numbers, so widths 3, 5, ..., 31 sit next to each other
     * (the delta codec compresses neighbours best); equal numbers spelled
     * differently ("05", "5") fall through to byte order. */
    if (as_integer(a, &x) && as_integer(b, &y) && x != y)
        return x < y ? -1 : 1;
    int c = strcmp(a, b);
    return c < 0 ? -1 : c > 0;
}
