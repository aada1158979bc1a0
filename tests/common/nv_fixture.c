/* nv_fixture.c — NVIDIA packs made without a GPU (nv_fixture.h). */
#include "nv_fixture.h"

#include "clcpack_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CL/cl.h>

const nvfx_entry nvfx_fixture[] = {
    {"Convolve_Def", "conv-grey", "conv_fw3.ptx", "amd_convolve.cl",
     {"FILTER_WIDTH"}, {"3"}, 1, {16, 16, 1}, 0},
    {"Convolve_Def", "conv-grey", "conv_fw7.ptx", "amd_convolve.cl",
     {"FILTER_WIDTH"}, {"7"}, 1, {16, 16, 1}, 0},
    {"reda_local", "conv-rgba", "reda_local_fw5.ptx", NULL,
     {"FILTER_WIDTH", "HALF_FILTER_SIZE", "TWICE_HALF_FILTER_SIZE"}, {"5", "2", "4"}, 3,
     {8, 8, 1}, 0},
    {"poly_naive", "poly", "poly_wg64.ptx", "intel_poly.cl", {NULL}, {NULL}, 0, {64, 1, 1}, 0},
};
const size_t nvfx_fixture_count = sizeof nvfx_fixture / sizeof nvfx_fixture[0];

void nvfx_h200(clcpack_device_info *d)
{
    memset(d, 0, sizeof *d);
    d->struct_size = sizeof *d;
    strcpy(d->platform_name, "NVIDIA CUDA");
    strcpy(d->platform_version, "OpenCL 3.0 CUDA 13.0.98");
    strcpy(d->device_name, "NVIDIA H200");
    strcpy(d->device_version, "OpenCL 3.0 CUDA");
    strcpy(d->driver_version, "580.159.04");
    strcpy(d->opencl_c_version, "OpenCL C 1.2 ");
    d->device_type = CL_DEVICE_TYPE_GPU;
    d->vendor_id = 0x10de;
    d->address_bits = 64;
    d->nv_cc_major = 9;
    d->nv_cc_minor = 0;
}

static unsigned char *slurp(const char *dir, const char *name, size_t *size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *buf = malloc(1 << 20);
    size_t n = buf ? fread(buf, 1, 1 << 20, f) : 0;
    fclose(f);
    if (!buf || n == 0 || n == 1 << 20) {
        free(buf);
        return NULL;
    }
    *size = n;
    return buf;
}

/* The sm number of the PTX's ".target sm_N". */
static unsigned ptx_arch(const unsigned char *t, size_t n)
{
    for (size_t i = 0; i + 11 < n; i++)
        if (memcmp(t + i, ".target sm_", 11) == 0)
            return (unsigned)strtoul((const char *)t + i + 11, NULL, 10);
    return 0;
}

int nvfx_write_pack(const clcpack_device_info *dev, const char *data_dir,
                    const char *kernels_dir, const nvfx_entry *e, size_t n, const char *out,
                    char *err)
{
    clcpack_writer *w = NULL;
    clcpack_error ce;
    clcpack_device_info h200 = {.struct_size = sizeof h200};
    nvfx_h200(&h200);
    if (!dev)
        dev = &h200;
    uint32_t di;
    int rc = -1;
    if (clcpack_writer_new(0, &w, &ce) != CLCPACK_OK ||
        clcpack_writer_add_device(w, dev, &di, &ce) != CLCPACK_OK) {
        snprintf(err, 256, "writer: %.200s", ce.message);
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        size_t size, src_size = 0;
        unsigned char *ptx = slurp(data_dir, e[i].ptx_file, &size);
        if (!ptx) {
            snprintf(err, 256, "cannot read %.150s/%.80s", data_dir, e[i].ptx_file);
            goto out;
        }
        uint32_t si = CLCPACK_NONE;
        unsigned char *src = e[i].source ? slurp(kernels_dir, e[i].source, &src_size) : NULL;
        if (src && clcpack_writer_add_source(w, e[i].source, src, src_size, &si, &ce) != CLCPACK_OK)
            si = CLCPACK_NONE;
        free(src);
        clcpack_define defs[4];
        char options[256] = "";
        for (size_t k = 0; k < e[i].define_count; k++) {
            defs[k].name = e[i].define_names[k];
            defs[k].value = e[i].define_values[k];
            size_t len = strlen(options);
            snprintf(options + len, sizeof options - len, "%s-D%s=%s", len ? " " : "",
                     defs[k].name, defs[k].value);
        }
        size_t len = strlen(options);
        snprintf(options + len, sizeof options - len, "%s-DWG_X=%u -DWG_Y=%u", len ? " " : "",
                 e[i].wg[0], e[i].wg[1]);
        clcpack_entry_spec spec;
        memset(&spec, 0, sizeof spec);
        spec.struct_size = sizeof spec;
        spec.kernel = e[i].kernel;
        spec.family = e[i].family;
        spec.options = options;
        spec.defines = defs;
        spec.define_count = e[i].define_count;
        memcpy(spec.wg, e[i].wg, sizeof spec.wg);
        spec.device = di;
        spec.source = si;
        spec.kind = CLCPACK_KIND_PTX;
        spec.arch = ptx_arch(ptx, size);
        spec.binary = ptx;
        spec.binary_size = size;
        clcpack_status st = clcpack_writer_add_entry(w, &spec, &ce);
        if (st == CLCPACK_OK && e[i].tune_ns) {
            clcpack_tuning t = {0, 2048, 2048, 11, e[i].tune_ns};
            st = clcpack_writer_add_tuning(w, &spec, &t, &ce);
        }
        free(ptx);
        if (st != CLCPACK_OK) {
            snprintf(err, 256, "%.40s: %.200s", e[i].ptx_file, ce.message);
            goto out;
        }
    }
    if (clcpack_writer_write_file(w, out, &ce) != CLCPACK_OK) {
        snprintf(err, 256, "%.50s: %.200s", out, ce.message);
        goto out;
    }
    rc = 0;
out:
    clcpack_writer_free(w);
    return rc;
}
