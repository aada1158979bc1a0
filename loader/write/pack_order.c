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
    if ((c = cmp_u64(a->nv_cc_major, b->nv_cc_major)) || (c = cmp_u64(a->nv_cc_minor, b->nv_cc_minor)) ||
        (c = cmp_u64(a->intel_ip_version, b->intel_ip_version)) ||
        (c = cmp_u64(a->intel_device_id, b->intel_device_id)))
        return c;
    return 0;
}

/* A decimal integer: an optional '-', then one or more digits, of any
 * length. Gives the sign and the digits without leading zeros (at least
 * one digit; zero is never negative). */
static int as_integer(const char *s, int *neg, const char **digits, size_t *n)
{
    const char *p = s;
    *neg = *p == '-';
    if (*neg)
        p++;
    size_t k = strspn(p, "0123456789");
    if (k == 0 || p[k] != '\0')
        return 0;
    while (k > 1 && *p == '0') {
        p++;
        k--;
    }
    if (k == 1 && *p == '0')
        *neg = 0;
    *digits = p;
    *n = k;
    return 1;
}

int clcpk_value_compare(const char *a, const char *b)
{
    /* Numbers as numbers, so widths 3, 5, ..., 31 sit next to each other
     * (the delta codec compresses neighbours best). A total order for any
     * values: every integer before every other value; integers by value
     * (negative first, then by digit count, then digits), with no limit on
     * their length; the rest, and equal numbers spelled differently ("05",
     * "5"), in byte order. */
    int na, nb;
    const char *da, *db;
    size_t la, lb;
    int ia = as_integer(a, &na, &da, &la), ib = as_integer(b, &nb, &db, &lb);
    if (ia != ib)
        return ia ? -1 : 1;
    if (ia) {
        if (na != nb)
            return na ? -1 : 1;
        int c = la != lb ? (la < lb ? -1 : 1) : memcmp(da, db, la);
        if (c)
            return (c < 0) == !na ? -1 : 1;
    }
    int c = strcmp(a, b);
    return c < 0 ? -1 : c > 0;
}
