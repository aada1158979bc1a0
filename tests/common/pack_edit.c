/* pack_edit.c — a pack's copy for another driver (pack_edit.h). */
#include "pack_edit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clcpack_write.h"

/* Copies entry i of p into w with its device and source renumbered. */
static clcpack_status copy_entry(const clcpack *p, size_t i, clcpack_writer *w,
                                 const uint32_t *dev_map, const uint32_t *src_map,
                                 clcpack_error *e)
{
    clcpack_entry_info ei = {.struct_size = sizeof ei};
    clcpack_status st = clcpack_get_entry(p, i, &ei);
    size_t n = 0;
    if (st == CLCPACK_OK)
        st = clcpack_read_binary(p, i, NULL, 0, &n, e);
    void *bin = st == CLCPACK_OK ? malloc(n ? n : 1) : NULL;
    if (st == CLCPACK_OK && !bin)
        st = CLCPACK_E_NOMEM;
    if (st == CLCPACK_OK)
        st = clcpack_read_binary(p, i, bin, n, &n, e);
    if (st == CLCPACK_OK) {
        clcpack_entry_spec s;
        memset(&s, 0, sizeof s);
        s.struct_size = sizeof s;
        s.kernel = ei.kernel;
        s.family = "";
        clcpack_get_entry_family(p, i, &s.family);
        s.options = ei.options;
        s.defines = ei.defines;
        s.define_count = ei.define_count;
        memcpy(s.wg, ei.wg, sizeof s.wg);
        s.device = dev_map[ei.device];
        s.source = ei.source == CLCPACK_NONE ? CLCPACK_NONE : src_map[ei.source];
        s.kind = ei.kind;
        s.arch = ei.arch;
        s.binary = bin;
        s.binary_size = n;
        s.kernel_names = ei.kernel_names;
        s.kernel_name_count = ei.kernel_name_count;
        s.flags = ei.flags;
        st = clcpack_writer_add_entry(w, &s, e);
    }
    free(bin);
    return st;
}

int pack_copy_for_driver(const char *in, const char *out, const char *driver, char *err,
                         size_t cap)
{
    clcpack *p = NULL;
    clcpack_writer *w = NULL;
    clcpack_error e;
    e.message[0] = '\0';
    clcpack_status st = clcpack_open_file(in, &p, &e);
    if (st == CLCPACK_OK)
        st = clcpack_writer_new(0, &w, &e);
    size_t nd = p ? clcpack_device_count(p) : 0, ns = p ? clcpack_source_count(p) : 0;
    uint32_t *dev_map = calloc(nd + 1, sizeof *dev_map), *src_map = calloc(ns + 1, sizeof *src_map);
    if (st == CLCPACK_OK && (!dev_map || !src_map))
        st = CLCPACK_E_NOMEM;
    for (size_t i = 0; st == CLCPACK_OK && i < nd; i++) {
        clcpack_device_info d = {.struct_size = sizeof d};
        st = clcpack_get_device(p, i, &d);
        snprintf(d.driver_version, sizeof d.driver_version, "%s", driver);
        if (st == CLCPACK_OK)
            st = clcpack_writer_add_device(w, &d, &dev_map[i], &e);
    }
    for (size_t i = 0; st == CLCPACK_OK && i < ns; i++) {
        clcpack_source_info si = {.struct_size = sizeof si};
        size_t n = 0;
        st = clcpack_get_source(p, i, &si);
        if (st == CLCPACK_OK)
            st = clcpack_read_source(p, i, NULL, 0, &n, &e);
        char *text = st == CLCPACK_OK ? malloc(n ? n : 1) : NULL;
        if (st == CLCPACK_OK && !text)
            st = CLCPACK_E_NOMEM;
        if (st == CLCPACK_OK)
            st = clcpack_read_source(p, i, text, n, &n, &e);
        if (st == CLCPACK_OK)
            st = clcpack_writer_add_source(w, si.name, text, n, &src_map[i], &e);
        free(text);
    }
    for (size_t i = 0; st == CLCPACK_OK && p && i < clcpack_entry_count(p); i++)
        st = copy_entry(p, i, w, dev_map, src_map, &e);
    if (st == CLCPACK_OK)
        st = clcpack_writer_write_file(w, out, &e);
    if (st != CLCPACK_OK)
        snprintf(err, cap, "%s: %s", e.message[0] ? e.message : clcpack_strerror(st), in);
    free(dev_map);
    free(src_map);
    clcpack_writer_free(w);
    clcpack_close(p);
    return st == CLCPACK_OK ? 0 : -1;
}
