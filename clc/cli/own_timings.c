/* own_timings.c — a pack's timings of programs other than the bundled
 * kernels, by their own defines and work-group (own_timings.h). */
#include "own_timings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounded_fmt.h"
#include "entry_filter.h"
#include "pack_text.h"

const char *const own_bundled_families[OWN_N_BUNDLED] = {"conv-grey", "conv-rgba", "poly"};

int own_is_bundled_family(const char *name)
{
    for (size_t i = 0; i < OWN_N_BUNDLED; i++)
        if (strcmp(name, own_bundled_families[i]) == 0)
            return 1;
    return 0;
}

typedef struct own_row {
    uint32_t entry;
    const char *program; /* the entry's kernel or program name */
    clcpack_tuning t;
} own_row;

/* A program's rows together; in it, one problem size (and run-time value)
 * after the other, fastest first. */
static int row_order(const void *a, const void *b)
{
    const own_row *x = a, *y = b;
    int c = strcmp(x->program, y->program);
    if (c)
        return c;
#define BY(f)                                                                                      \
    if (x->t.f != y->t.f)                                                                          \
        return x->t.f < y->t.f ? -1 : 1;
    BY(runtime_value)
    BY(width)
    BY(height)
    BY(median_ns)
#undef BY
    return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* The timings of device d's entries that are no bundled family's and
 * that name keeps; malloc'd (NULL with *n 0 when there is none). */
static own_row *gather(const clcpack *p, uint32_t d, const char *name, size_t *n, int *nomem)
{
    own_row *rows = NULL;
    size_t cap = 0;
    *n = 0;
    *nomem = 0;
    for (size_t i = 0; i < clcpack_entry_count(p); i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        const char *family = NULL;
        if (clcpack_get_entry(p, i, &e) != CLCPACK_OK || e.device != d ||
            (name && !entry_filter_named(&e, name)) ||
            (clcpack_get_entry_family(p, i, &family) == CLCPACK_OK && family &&
             own_is_bundled_family(family)))
            continue;
        size_t nt = clcpack_entry_tuning_count(p, i);
        for (size_t k = 0; k < nt; k++) {
            if (*n == cap) {
                own_row *more = realloc(rows, (cap = cap ? 2 * cap : 64) * sizeof *rows);
                if (!more) {
                    free(rows);
                    *n = 0;
                    *nomem = 1;
                    return NULL;
                }
                rows = more;
            }
            own_row *r = &rows[*n];
            r->entry = (uint32_t)i;
            r->program = e.kernel;
            if (clcpack_get_entry_tuning(p, i, k, &r->t) == CLCPACK_OK)
                (*n)++;
        }
    }
    return rows;
}

/* "## blur (box_blur, sharpen) on device 0: NAME (driver V)" and the
 * table's header. */
static void table_head(const clcpack *p, const own_row *r, uint32_t d,
                       const clcpack_device_info *dev)
{
    clcpack_entry_info e = {.struct_size = sizeof e};
    char held[1024] = "";
    if (clcpack_get_entry(p, r->entry, &e) == CLCPACK_OK)
        entry_filter_kernels_text(&e, held, sizeof held);
    char prog[256], dname[4 * CLCPACK_FP_STR], driver[4 * CLCPACK_FP_STR];
    printf("\n## %s%s on device %u: %s (driver %s)\n\n", pack_text_esc(r->program, prog, sizeof prog),
           held, (unsigned)d, pack_text_esc(dev->device_name, dname, sizeof dname),
           pack_text_esc(dev->driver_version, driver, sizeof driver));
    printf("| defines | wg | size | median us | runs | vs fastest |\n");
    printf("|---|---|---|---:|---:|---:|\n");
}

static void table_row(const clcpack *p, const own_row *r, uint64_t fastest_ns)
{
    clcpack_entry_info e = {.struct_size = sizeof e};
    char defs[512] = "-", wg[48] = "-", size[64], vs[32] = "fastest";
    if (clcpack_get_entry(p, r->entry, &e) == CLCPACK_OK) {
        pack_text_defines(&e, defs, sizeof defs);
        pack_text_wg(e.wg, wg, sizeof wg);
    }
    bfmt(size, sizeof size, "%ux%u", (unsigned)r->t.width, (unsigned)r->t.height);
    if (r->t.runtime_value) {
        size_t len = strlen(size);
        bfmt(size + len, sizeof size - len, ", value %u", (unsigned)r->t.runtime_value);
    }
    if (r->t.median_ns != fastest_ns && fastest_ns)
        bfmt(vs, sizeof vs, "+%.1f%%",
             100.0 * ((double)r->t.median_ns / (double)fastest_ns - 1.0));
    printf("| %s | %s | %s | %.1f | %u | %s |\n", defs, wg, size,
           (double)r->t.median_ns / 1000.0, (unsigned)r->t.runs, vs);
}

int own_report(const clcpack *p, uint32_t d, const clcpack_device_info *dev, const char *name)
{
    size_t n;
    int nomem;
    own_row *rows = gather(p, d, name, &n, &nomem);
    if (nomem)
        return -1;
    if (n)
        qsort(rows, n, sizeof *rows, row_order);
    uint64_t fastest = 0;
    for (size_t i = 0; i < n; i++) {
        const own_row *r = &rows[i], *prev = i ? &rows[i - 1] : NULL;
        int new_program = !prev || strcmp(prev->program, r->program) != 0;
        if (new_program)
            table_head(p, r, d, dev);
        if (new_program || prev->t.runtime_value != r->t.runtime_value ||
            prev->t.width != r->t.width || prev->t.height != r->t.height)
            fastest = r->t.median_ns; /* sorted: the first of its size is the fastest */
        table_row(p, r, fastest);
    }
    free(rows);
    return n > 0;
}
