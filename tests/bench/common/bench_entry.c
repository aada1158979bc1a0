/* bench_entry.c — pack entries as manifest variants (bench_entry.h). */
#include "bench_entry.h"

#include <stdlib.h>
#include <string.h>

#include "bounded_fmt.h"
#include "entry_key.h"
#include "pack_text.h"

int bench_entry_variant(const manifest_file *m, const clcpack_entry_info *e, manifest_variant *v)
{
    memset(v, 0, sizeof *v);
    v->kernel = manifest_find(m, e->kernel);
    if (!v->kernel || e->define_count > MANIFEST_MAX_DEFINES)
        return -1;
    v->n_defines = e->define_count;
    for (size_t i = 0; i < e->define_count; i++) {
        if (strlen(e->defines[i].name) >= sizeof v->define_names[i] ||
            strlen(e->defines[i].value) >= sizeof v->define_values[i])
            return -1;
        bfmt(v->define_names[i], sizeof v->define_names[i], "%s", e->defines[i].name);
        bfmt(v->define_values[i], sizeof v->define_values[i], "%s", e->defines[i].value);
    }
    memcpy(v->wg, e->wg, sizeof v->wg);
    if (strlen(e->options) >= sizeof v->options)
        return -1;
    bfmt(v->options, sizeof v->options, "%s", e->options);
    return 0;
}

int bench_entry_filter_width(const clcpack_entry_info *e)
{
    for (size_t i = 0; i < e->define_count; i++)
        if (strcmp(e->defines[i].name, "FILTER_WIDTH") == 0)
            return atoi(e->defines[i].value);
    return 0;
}

void bench_key_label(const clcpack_entry_info *e, char *buf, size_t cap)
{
    char defs[512], wg[32];
    pack_text_defines(e, defs, sizeof defs);
    pack_text_wg(e->wg, wg, sizeof wg);
    bfmt(buf, cap, "%s %s wg=%s", e->kernel, defs, wg);
}

void bench_wg_text(const uint32_t wg[3], char *buf, size_t cap)
{
    pack_text_wg(wg, buf, cap);
}

int bench_distinct_keys(const clcpack *p, size_t **first, size_t *n)
{
    size_t ne = clcpack_entry_count(p);
    *first = malloc((ne ? ne : 1) * sizeof **first);
    *n = 0;
    if (!*first)
        return -1;
    for (size_t i = 0; i < ne; i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        if (clcpack_get_entry(p, i, &e) != CLCPACK_OK) {
            free(*first);
            *first = NULL;
            return -1;
        }
        int seen = 0;
        for (size_t k = 0; k < *n && !seen; k++) {
            clcpack_entry_info o = {.struct_size = sizeof o};
            seen = clcpack_get_entry(p, (*first)[k], &o) == CLCPACK_OK && clcpk_same_key(&e, &o);
        }
        if (!seen)
            (*first)[(*n)++] = i;
    }
    return 0;
}
