/*
 * make_corpus.c — writes the small synthetic inputs of tests/fuzz/corpus/:
 * packs that reach the parts of the format real PoCL packs do not (several
 * devices, PTX and cubin forms, several defines, delta chains, tuning
 * fields, a binary-only pack), kept small so the fuzzer mutates structure
 * rather than zlib payload; the zstd_* ones are format 4 (zstd frames,
 * prefixes, a trained dictionary), committed as a format-4 writer made
 * them; the lookup_* ones are format 5 (the same with a lookup table, as
 * every zstd pack is now written). Usage: make_corpus DIR. The real-pack inputs
 * come from clc-pack (docs/ROBUSTNESS.md says how). Not part of any make
 * target (the corpus is committed); build it with
 *   cc -std=c11 -D_POSIX_C_SOURCE=200809L -Iloader/include tests/fuzz/make_corpus.c \
 *      build/libclcpack.a $(make -s print-libs) -o make_corpus
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clcpack_write.h"

static void device(clcpack_device_info *d, const char *name, uint32_t vendor, uint32_t cc)
{
    memset(d, 0, sizeof *d);
    d->struct_size = sizeof *d;
    snprintf(d->platform_name, sizeof d->platform_name, "Plat %s", name);
    snprintf(d->platform_version, sizeof d->platform_version, "OpenCL 3.0");
    snprintf(d->device_name, sizeof d->device_name, "%s", name);
    snprintf(d->device_version, sizeof d->device_version, "OpenCL 3.0");
    snprintf(d->driver_version, sizeof d->driver_version, "1.2.3");
    snprintf(d->opencl_c_version, sizeof d->opencl_c_version, "OpenCL C 1.2");
    d->device_type = cc ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_CPU;
    d->vendor_id = vendor;
    d->address_bits = 64;
    d->has_uuid = cc ? 1 : 0;
    for (int i = 0; cc && i < 16; i++)
        d->device_uuid[i] = (uint8_t)(i * 7 + 1), d->driver_uuid[i] = (uint8_t)(i * 3 + 2);
    d->nv_cc_major = cc / 10;
    d->nv_cc_minor = cc % 10;
}

/* A pack of n_widths variants of kernel k (and NVIDIA forms with nvidia),
 * binaries of bin_n bytes (at most 8192), written with the given codecs. */
static int write_one(const char *dir, const char *name, uint32_t flags, int n_widths,
                     int nvidia, clcpack_compression codecs, size_t bin_n)
{
    clcpack_error err;
    clcpack_writer *w = NULL;
    if (clcpack_writer_new(flags, &w, &err) != CLCPACK_OK ||
        clcpack_writer_set_compression(w, codecs, &err) != CLCPACK_OK)
        goto fail;
    clcpack_device_info cpu = {.struct_size = sizeof cpu}, gpu = {.struct_size = sizeof gpu};
    device(&cpu, "cpu-x", 0x8086, 0);
    device(&gpu, "gpu-y", 0x10DE, 90);
    uint32_t dcpu, dgpu, src;
    const char *text = "__kernel void k(__global float *o) { o[0] = FILTER_WIDTH; }\n";
    if (clcpack_writer_add_device(w, &cpu, &dcpu, &err) != CLCPACK_OK ||
        clcpack_writer_add_device(w, &gpu, &dgpu, &err) != CLCPACK_OK ||
        clcpack_writer_add_source(w, "k.cl", text, strlen(text), &src, &err) != CLCPACK_OK)
        goto fail;
    for (int i = 0; i < n_widths; i++) {
        char width[16];
        static char bin[8192];
        snprintf(width, sizeof width, "%d", 3 + 2 * i);
        /* Mostly identical binaries, as real variants are: the writer
         * stores later ones as deltas. Past 600 bytes, a body of varied
         * bytes they share, which a trained dictionary can hold. */
        uint32_t x = 12345;
        for (size_t b = 0; b < bin_n; b++) {
            x = x * 1103515245u + 12345u;
            bin[b] = (char)(b < 600 ? "binary-of-k-"[b % 12] + (b % 97 == 0 ? i : 0)
                                    : (int)(x >> 24) % 32 + 'A' + (b % 211 == 0 ? i : 0));
        }
        clcpack_define defs[2] = { { "FILTER_WIDTH", width }, { "USE_LOCAL", "" } };
        clcpack_entry_spec e = { sizeof e, "k", "conv", "-cl-fast-relaxed-math -DFILTER_WIDTH=x",
                                 defs, 2, { 8, 8, 0 }, dcpu, src, CLCPACK_KIND_NATIVE, 0,
                                 bin, bin_n, NULL, 0, 0, NULL };
        if (clcpack_writer_add_entry(w, &e, &err) != CLCPACK_OK)
            goto fail;
        if (i == 0 && clcpack_writer_set_tuning(w, &e, 512, 512, 5, 123456, &err) != CLCPACK_OK)
            goto fail;
        if (!nvidia)
            continue;
        e.device = dgpu;
        e.kind = CLCPACK_KIND_PTX;
        e.arch = 90;
        e.binary = ".version 8.0\n.target sm_90\n";
        e.binary_size = strlen(e.binary);
        if (clcpack_writer_add_entry(w, &e, &err) != CLCPACK_OK)
            goto fail;
        e.kind = CLCPACK_KIND_CUBIN;
        e.binary = bin;
        e.binary_size = 100 + (size_t)i;
        if (clcpack_writer_add_entry(w, &e, &err) != CLCPACK_OK)
            goto fail;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (clcpack_writer_write_file(w, path, &err) != CLCPACK_OK)
        goto fail;
    clcpack_writer_free(w);
    return 0;
fail:
    fprintf(stderr, "make_corpus: %s: %s\n", name, err.message);
    clcpack_writer_free(w);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_corpus DIR\n");
        return 2;
    }
    int bad = 0;
    const clcpack_compression zlib = CLCPACK_COMPRESSION_ZLIB, zstd = CLCPACK_COMPRESSION_ZSTD;
    bad |= write_one(argv[1], "synth_one.clcpack", 0, 1, 0, zlib, 600);
    bad |= write_one(argv[1], "synth_delta.clcpack", 0, 5, 0, zlib, 600);
    bad |= write_one(argv[1], "synth_nvidia.clcpack", 0, 3, 1, zlib, 600);
    bad |= write_one(argv[1], "synth_nosrc.clcpack", CLCPACK_WRITE_NO_SOURCES, 2, 1, zlib, 600);
    /* Format 4: zstd, prefixes, and (40 variants of 8 KiB, past the
     * writer's 256 KiB for a class) a trained dictionary. */
    bad |= write_one(argv[1], "zstd_one.clcpack", 0, 1, 0, zstd, 600);
    bad |= write_one(argv[1], "zstd_nvidia.clcpack", 0, 3, 1, zstd, 600);
    bad |= write_one(argv[1], "zstd_dict.clcpack", 0, 40, 0, zstd, 8192);
    bad |= write_one(argv[1], "zstd_dict_nosrc.clcpack", CLCPACK_WRITE_NO_SOURCES, 40, 0, zstd,
                     8192);
    /* Format 5: the lookup table (clcpack_open_file reads it). */
    bad |= write_one(argv[1], "lookup_one.clcpack", 0, 1, 0, zstd, 600);
    bad |= write_one(argv[1], "lookup_nvidia.clcpack", 0, 3, 1, zstd, 600);
    bad |= write_one(argv[1], "lookup_delta.clcpack", CLCPACK_WRITE_NO_SOURCES, 5, 0, zstd, 600);
    return bad;
}
