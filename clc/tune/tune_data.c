/* tune_data.c — argument data and output checks (tune_data.h). */
#include "tune_data.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bounded_fmt.h"
#include "input_file.h"

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* IEEE half from a float, rounding to nearest even. */
static uint16_t half_of(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u, e = (x >> 23) & 0xff, m = x & 0x7fffffu;
    if (e == 0xff)
        return (uint16_t)(sign | 0x7c00u | (m ? 0x200u : 0));
    int ne = (int)e - 127 + 15;
    if (ne >= 31)
        return (uint16_t)(sign | 0x7c00u);
    if (ne <= 0) {
        if (ne < -10)
            return (uint16_t)sign;
        m |= 0x800000u;
        uint32_t shift = (uint32_t)(14 - ne);
        uint32_t h = m >> shift, rem = m & ((1u << shift) - 1), halfway = 1u << (shift - 1);
        if (rem > halfway || (rem == halfway && (h & 1)))
            h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = ((uint32_t)ne << 10) | (m >> 13), rem = m & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
        h++;
    return (uint16_t)(sign | h);
}

static double half_value(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
    return (h & 0x8000) ? -v : v;
}

static void put_lane(const t1_arg *a, unsigned char *p, double v)
{
    unsigned nb = a->elem.lane_bytes;
    switch (a->elem.base) {
    case T1_B_FLOAT:
        if (nb == 4) {
            float f = (float)v;
            memcpy(p, &f, 4);
        } else {
            memcpy(p, &v, 8);
        }
        return;
    case T1_B_HALF: {
        uint16_t h = half_of((float)v);
        memcpy(p, &h, 2);
        return;
    }
    default: {
        int64_t i = isfinite(v) ? (int64_t)v : 0;
        for (unsigned b = 0; b < nb; b++)
            p[b] = (unsigned char)((uint64_t)i >> (8 * b));
        return;
    }
    }
}

static double get_lane(const t1_arg *a, const unsigned char *p)
{
    unsigned nb = a->elem.lane_bytes;
    switch (a->elem.base) {
    case T1_B_FLOAT:
        if (nb == 4) {
            float f;
            memcpy(&f, p, 4);
            return f;
        } else {
            double d;
            memcpy(&d, p, 8);
            return d;
        }
    case T1_B_HALF: {
        uint16_t h;
        memcpy(&h, p, 2);
        return half_value(h);
    }
    default: {
        uint64_t u = 0;
        for (unsigned b = 0; b < nb; b++)
            u |= (uint64_t)p[b] << (8 * b);
        if (a->elem.base == T1_B_INT && nb < 8 && (u >> (8 * nb - 1)) & 1)
            u |= ~0ull << (8 * nb);
        return a->elem.base == T1_B_INT ? (double)(int64_t)u : (double)u;
    }
    }
}

static int is_float(const t1_arg *a)
{
    return a->elem.base == T1_B_FLOAT || a->elem.base == T1_B_HALF;
}

int tune_data_make(const t1_arg *a, const t1_data *d, void **out, size_t *bytes, char *err,
                   size_t cap)
{
    *out = NULL;
    *bytes = (size_t)(a->count * a->elem_bytes);
    unsigned char *p = malloc(*bytes ? *bytes : 1);
    if (!p) {
        bfmt(err, cap, "argument %s: out of memory for %zu bytes", a->name, *bytes);
        return -1;
    }
    if (d->fill == T1_FILL_BINARY_RAW) {
        char *data = NULL;
        size_t size = 0;
        if (in_read_all(d->path, (size_t)T1_SPEC_ARG_BYTES_MAX + (64u << 20), &data, &size, err,
                        cap) != 0) {
            free(p);
            return -1;
        }
        if (size < *bytes) {
            bfmt(err, cap, "%s: %zu bytes, the argument needs %zu", d->path, size, *bytes);
            free(data);
            free(p);
            return -1;
        }
        memcpy(p, data, *bytes);
        free(data);
        *out = p;
        return 0;
    }
    if (a->elem.base == T1_B_CUSTOM || d->fill == T1_FILL_NONE) {
        memset(p, d->fill == T1_FILL_CONSTANT ? (int)d->value : 0, *bytes);
        *out = p;
        return 0;
    }
    uint64_t seed = d->seed;
    size_t lanes = (size_t)a->count * a->elem.lanes;
    t1_arena arena = {0};
    for (size_t i = 0; i < lanes; i++) {
        double v = d->value;
        if (d->fill == T1_FILL_RANDOM) {
            uint64_t r = splitmix(&seed);
            v = is_float(a) ? (double)(r >> 11) / 9007199254740992.0 : (double)(r % 100);
        } else if (d->fill == T1_FILL_GENERATOR) {
            t1_value slot = {.type = T1_INT, .i = (int64_t)i}, got;
            char e[T1_EXPR_ERR_MAX];
            t1_arena_reset(&arena);
            if (t1_expr_eval(d->generator, &slot, &arena, &got, e, sizeof e) != 0 ||
                (got.type != T1_INT && got.type != T1_FLOAT && got.type != T1_BOOL)) {
                bfmt(err, cap, "argument %s: DataSource at i=%zu: %s", a->name, i,
                     got.type == T1_STRING || got.type == T1_LIST ? "not a number" : e);
                t1_arena_free(&arena);
                free(p);
                return -1;
            }
            v = got.type == T1_FLOAT ? got.f : (double)got.i;
        }
        put_lane(a, p + i * a->elem.lane_bytes, v);
    }
    t1_arena_free(&arena);
    *out = p;
    return 0;
}

/* The common case, floats, without a call per element: outputs of tens
 * of millions of values are checked for every configuration. */
static int compare_floats(const void *got, const void *want, size_t n, int method,
                          double threshold, double *worst, size_t *where)
{
    const float *g = got, *w = want;
    *worst = 0;
    *where = 0;
    /* Most configurations compute the reference's very bits. */
    if (memcmp(got, want, n * sizeof(float)) == 0)
        return 1;
    for (size_t i = 0; i < n; i++) {
        float x, y;
        memcpy(&x, g + i, 4);
        memcpy(&y, w + i, 4);
        if (x == y)
            continue;
        if (isnan(y) && isnan(x))
            continue;
        double diff = fabs((double)x - (double)y);
        if (isnan(x) || isnan(diff)) {
            *worst = INFINITY;
            *where = i;
            return 0;
        }
        double m = method == T1_VALID_SIDE_BY_SIDE ? diff
                 : method == T1_VALID_RELATIVE    ? (y != 0 ? diff / fabs((double)y) : diff)
                                                  : diff / (1 + fabs((double)y));
        if (m > *worst) {
            *worst = m;
            *where = i;
        }
        if (m > threshold)
            return 0;
    }
    return 1;
}

int tune_data_compare(const t1_arg *a, const void *got, const void *want, int method,
                      double threshold, double *worst, size_t *where)
{
    if (a->elem.base == T1_B_CUSTOM) {
        *worst = memcmp(got, want, (size_t)(a->count * a->elem_bytes)) != 0;
        *where = 0;
        return *worst == 0;
    }
    const unsigned char *g = got, *w = want;
    size_t lanes = (size_t)a->count * a->elem.lanes;
    if (a->elem.base == T1_B_FLOAT && a->elem.lane_bytes == 4 && method != T1_VALID_ABS_SUM)
        return compare_floats(got, want, lanes, method, threshold, worst, where);
    double sum = 0;
    *worst = 0;
    *where = 0;
    for (size_t i = 0; i < lanes; i++) {
        double x = get_lane(a, g + i * a->elem.lane_bytes);
        double y = get_lane(a, w + i * a->elem.lane_bytes);
        if (isnan(y) && isnan(x))
            continue;
        double diff = fabs(x - y);
        if (isnan(x) || isnan(diff)) {
            *worst = INFINITY;
            *where = i;
            return 0;
        }
        double m;
        switch (method) {
        case T1_VALID_ABS_SUM:
            sum += diff;
            m = sum;
            break;
        case T1_VALID_SIDE_BY_SIDE:
            m = diff;
            break;
        case T1_VALID_RELATIVE:
            m = y != 0 ? diff / fabs(y) : diff;
            break;
        default:
            m = is_float(a) ? diff / (1 + fabs(y)) : diff;
            if (!is_float(a) && diff != 0) {
                *worst = diff;
                *where = i;
                return 0;
            }
            break;
        }
        if (m > *worst) {
            *worst = m;
            *where = i;
        }
        if (m > threshold)
            return 0;
    }
    return 1;
}
