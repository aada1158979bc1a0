/*
 * synth_pack.c — see synth_pack.h.
 */
#include "synth_pack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_rng.h"

static const uint32_t nv_archs[] = {75, 80, 86, 89, 90, 100, 120};
#define N_ARCHS (sizeof nv_archs / sizeof nv_archs[0])

static void make_device(clcpack_device_info *d, const char *plat, const char *name, int nvidia)
{
    memset(d, 0, sizeof *d);
    d->struct_size = sizeof *d;
    snprintf(d->platform_name, sizeof d->platform_name, "%s", plat);
    snprintf(d->platform_version, sizeof d->platform_version, "OpenCL 3.0 %s", plat);
    snprintf(d->device_name, sizeof d->device_name, "%s", name);
    snprintf(d->device_version, sizeof d->device_version, "OpenCL 3.0");
    snprintf(d->driver_version, sizeof d->driver_version, "%s", nvidia ? "580.1" : "3.1");
    snprintf(d->opencl_c_version, sizeof d->opencl_c_version, "OpenCL C 1.2");
    d->device_type = nvidia ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_CPU;
    d->vendor_id = nvidia ? 0x10DE : 0x10006;
    d->address_bits = 64;
    d->nv_cc_major = nvidia ? 9 : 0;
}

static synth_entry *add(synth_corpus *c, const char *kernel, size_t value, uint32_t device,
                        clcpack_binary_kind kind, uint32_t arch, size_t size)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 256;
        synth_entry *e = realloc(c->entries, cap * sizeof *e);
        if (!e)
            return NULL;
        c->entries = e;
        c->cap = cap;
    }
    synth_entry *e = &c->entries[c->n];
    memset(e, 0, sizeof *e);
    if (!(e->bin = malloc(size ? size : 1)))
        return NULL;
    c->n++;
    snprintf(e->kernel, sizeof e->kernel, "%s", kernel);
    snprintf(e->value, sizeof e->value, "%zu", value);
    e->device = device;
    e->kind = kind;
    e->arch = arch;
    e->size = size;
    return e;
}

/* Machine-code-like bytes: 16-byte words drawn from a small dictionary,
 * some with a random immediate. */
static void code_like(uint64_t *rng, const uint8_t dict[64][16], uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i += 16) {
        uint8_t w[16];
        memcpy(w, dict[test_rng_next(rng) % 64], 16);
        if (test_rng_next(rng) % 4 == 0)
            w[test_rng_next(rng) % 16] = (uint8_t)test_rng_next(rng);
        memcpy(p + i, w, n - i < 16 ? n - i : 16);
    }
}

/* Changes about one byte in `per` of p. */
static void mutate(uint64_t *rng, uint8_t *p, size_t n, size_t per)
{
    for (size_t k = 0; k < n / per + 1; k++)
        p[test_rng_next(rng) % n] ^= (uint8_t)(1 + test_rng_next(rng) % 255);
}

static int make_nvidia(synth_corpus *c, size_t kernels, size_t variants, size_t min, size_t max,
                       uint64_t *rng)
{
    uint8_t dict[64][16];
    for (size_t k = 0; k < kernels; k++) {
        char name[32];
        snprintf(name, sizeof name, "nv_kernel_%zu", k);
        test_rng_fill(rng, &dict[0][0], sizeof dict);
        size_t size = min + (max > min ? test_rng_next(rng) % (max - min + 1) : 0);
        uint8_t *body = malloc(size + 16 * variants);
        if (!body)
            return -1;
        code_like(rng, (const uint8_t(*)[16])dict, body, size + 16 * variants);
        for (size_t v = 0; v < variants; v++) {
            size_t n = size + 16 * v; /* a larger filter, a little more code */
            synth_entry *ptx = add(c, name, 3 + 2 * v, 0, CLCPACK_KIND_PTX, 90, n);
            if (!ptx) {
                free(body);
                return -1;
            }
            for (size_t i = 0; i < n; i++) /* text: PTX lines */
                ptx->bin[i] = (uint8_t)("\tld.global.f32 %f1, [%rd4+0];\n"[i % 30] + (body[i] % 3 == 0));
            mutate(rng, body, n, 200);
            const uint8_t *prev = body;
            for (size_t a = 0; a < N_ARCHS; a++) {
                synth_entry *e = add(c, name, 3 + 2 * v, 0, CLCPACK_KIND_CUBIN, nv_archs[a], n);
                if (!e) {
                    free(body);
                    return -1;
                }
                memcpy(e->bin, prev, n);
                mutate(rng, e->bin, n, 100);
                prev = e->bin;
            }
        }
        free(body);
    }
    return 0;
}

/* CPU groups: incompressible with small changes, tiny near-identical, and
 * unrelated random binaries. */
static int make_others(synth_corpus *c, uint64_t *rng)
{
    uint8_t base[3000], tiny[8];
    test_rng_fill(rng, base, sizeof base);
    test_rng_fill(rng, tiny, sizeof tiny);
    for (size_t v = 0; v < 24; v++) {
        synth_entry *e = add(c, "cpu_random_body", v, 1, CLCPACK_KIND_NATIVE, 0, sizeof base);
        if (!e)
            return -1;
        memcpy(e->bin, base, sizeof base);
        mutate(rng, e->bin, e->size, 500);
        synth_entry *t = add(c, "cpu_tiny", v, 1, CLCPACK_KIND_NATIVE, 0, sizeof tiny);
        if (!t)
            return -1;
        memcpy(t->bin, tiny, sizeof tiny);
        if (v % 5 == 4)
            t->bin[v % sizeof tiny] ^= 0x5a;
        synth_entry *r = add(c, "cpu_unrelated", v, 1, CLCPACK_KIND_NATIVE, 0, 500 + 37 * v);
        if (!r)
            return -1;
        test_rng_fill(rng, r->bin, r->size);
    }
    return 0;
}

int synth_make(synth_corpus *c, size_t kernels, size_t variants, size_t min, size_t max,
               int others, uint64_t seed)
{
    memset(c, 0, sizeof *c);
    uint64_t rng = seed ? seed : 1;
    make_device(&c->devices[0], "NVIDIA CUDA", "NVIDIA Synthetic GPU", 1);
    make_device(&c->devices[1], "Portable Computing Language", "cpu-synthetic", 0);
    c->source_size = 5000;
    if (!(c->source = malloc(c->source_size)))
        return -1;
    for (size_t i = 0; i < c->source_size; i++)
        c->source[i] = "__kernel void f(__global float *o) { o[0] = V; }\n"[i % 50];
    if (make_nvidia(c, kernels, variants, min, max, &rng) != 0 ||
        (others && make_others(c, &rng) != 0)) {
        synth_free(c);
        return -1;
    }
    return 0;
}

void synth_free(synth_corpus *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->entries[i].bin);
    free(c->entries);
    free(c->source);
    memset(c, 0, sizeof *c);
}

static void spec_of(const synth_entry *e, clcpack_define *def, clcpack_entry_spec *s)
{
    memset(s, 0, sizeof *s);
    s->struct_size = sizeof *s;
    s->kernel = e->kernel;
    def->name = "V";
    def->value = e->value;
    s->defines = def;
    s->define_count = 1;
    s->wg[0] = 16;
    s->wg[1] = 16;
    s->wg[2] = 1;
    s->kind = e->kind;
    s->arch = e->arch;
    s->binary = e->bin;
    s->binary_size = e->size;
}

clcpack_writer *synth_writer(const synth_corpus *c, uint32_t flags, clcpack_error *err)
{
    clcpack_writer *w = NULL;
    uint32_t dev[2], src;
    if (clcpack_writer_new(flags, &w, err) != CLCPACK_OK)
        return NULL;
    if (clcpack_writer_add_device(w, &c->devices[0], &dev[0], err) != CLCPACK_OK ||
        clcpack_writer_add_device(w, &c->devices[1], &dev[1], err) != CLCPACK_OK ||
        clcpack_writer_add_source(w, "synth.cl", c->source, c->source_size, &src, err) !=
            CLCPACK_OK) {
        clcpack_writer_free(w);
        return NULL;
    }
    for (size_t i = 0; i < c->n; i++) {
        clcpack_define def;
        clcpack_entry_spec s;
        spec_of(&c->entries[i], &def, &s);
        s.device = dev[c->entries[i].device];
        s.source = src;
        if (clcpack_writer_add_entry(w, &s, err) != CLCPACK_OK) {
            clcpack_writer_free(w);
            return NULL;
        }
    }
    return w;
}

int synth_check_entry(const clcpack *p, size_t i, const synth_corpus *c, char *why, size_t cap)
{
    clcpack_entry_info info = {.struct_size = sizeof info};
    clcpack_device_info dev = {.struct_size = sizeof dev};
    if (clcpack_get_entry(p, i, &info) != CLCPACK_OK ||
        clcpack_get_device(p, info.device, &dev) != CLCPACK_OK || info.define_count != 1) {
        snprintf(why, cap, "entry %zu: cannot be read", i);
        return -1;
    }
    const synth_entry *e = NULL;
    for (size_t k = 0; k < c->n && !e; k++) {
        const synth_entry *x = &c->entries[k];
        if (strcmp(x->kernel, info.kernel) == 0 && strcmp(x->value, info.defines[0].value) == 0 &&
            x->kind == info.kind && x->arch == info.arch &&
            clcpack_device_equal(&dev, &c->devices[x->device]))
            e = x;
    }
    if (!e) {
        snprintf(why, cap, "entry %zu (%s): not in the corpus", i, info.kernel);
        return -1;
    }
    uint8_t *buf = malloc(e->size ? e->size : 1);
    size_t got = 0;
    clcpack_error err;
    clcpack_status st = buf ? clcpack_read_binary(p, i, buf, e->size, &got, &err) : CLCPACK_E_NOMEM;
    int ok = st == CLCPACK_OK && got == e->size && memcmp(buf, e->bin, e->size) == 0;
    if (!ok)
        snprintf(why, cap, "entry %zu (%s V=%s arch %u, codec %u): %s", i, info.kernel,
                 info.defines[0].value, info.arch, info.codec,
                 st != CLCPACK_OK ? err.message : "other bytes");
    free(buf);
    return ok ? 0 : -1;
}

clcpack_status synth_add_program(clcpack_writer *w, const clcpack_define *defs,
                                 size_t define_count, const void *bin, size_t bin_size,
                                 clcpack_entry_spec *spec, clcpack_error *err)
{
    static const char *const names[2] = {"alpha", "beta"};
    *spec = (clcpack_entry_spec){.struct_size = sizeof *spec};
    spec->kernel = "prog";
    spec->defines = defs;
    spec->define_count = define_count;
    spec->wg[0] = 8;
    spec->device = 1;
    spec->source = CLCPACK_NONE;
    spec->kind = CLCPACK_KIND_NATIVE;
    spec->binary = bin;
    spec->binary_size = bin_size;
    spec->kernel_names = names;
    spec->kernel_name_count = 2;
    return clcpack_writer_add_entry(w, spec, err);
}
