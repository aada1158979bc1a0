/*
 * test_public_kernels.c — real kernels of public projects, packed with the
 * direct command line (tests/cli/public_kernels.sh; tests/data/public/README.md
 * says which projects, files and licences).
 *
 * For each project and each of its variants the program is built from
 * source with clCreateProgramWithSource (the project's files concatenated in
 * order, the variant's defines and include folders as build options) and
 * each of its kernels runs on deterministic random input, with every output
 * buffer first filled with a poison byte: each output must differ from the
 * poison. When the project's pack is given, the same kernels are then created
 * from it through libclcpack (clcpack_create_kernel with the kernel's name,
 * the variant's defines and work-group), from a binary, run on the same
 * input into poisoned buffers, and must give the same output bytes; and the
 * pack must hold no variant other than the expected ones (a --where that
 * skipped nothing fails here).
 *
 * Usage: test_public_kernels [PROJECT=PACK ...]
 *        test_public_kernels --check PROJECT BINARY DEFINES WG   (a clc-pack
 *            --check-cmd: the variant from clc-pack's binary against source)
 *   kernels  $CLC_PUBLIC_KERNELS (default build/public-kernels), installed
 *            by scripts/public_kernels.sh; without them the test skips.
 *   data     $CLC_PUBLIC_DATA (default tests/data/public).
 *   packs    PROJECT=PACK arguments, else $CLC_PUBLIC_PACK_<PROJECT> (e.g.
 *            CLC_PUBLIC_PACK_SILX); a project without a pack runs its source
 *            half only. Only the projects named run when any PROJECT=PACK is
 *            given.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "cl_device.h"
#include "clcpack.h"
#include "test_rng.h"

#define POISON 0xA5u
#define MAX_DEFS 40
#define MAX_FILES 8
#define MAX_VARIANTS 8
#define MAX_MEMS 32
#define MAX_KERNELS 8
#define SOURCE_MAX (4u << 20)

/* One variant: its defines on top of the project's common ones, and the
 * work-group recorded for it ({0,0,0}: none). */
typedef struct pk_variant {
    const char *defs[8]; /* "NAME=VALUE", or "NAME" for a define without a value */
    uint32_t wg[3];
} pk_variant;

typedef struct pk_run pk_run;

typedef struct pk_project {
    const char *name;              /* the PROJECT of PROJECT=PACK */
    const char *files[MAX_FILES];  /* concatenated: "K/sub" under the kernels
                                      folder, "D/sub" under the data folder */
    const char *includes[2];       /* -I folders: "K/sub" under the kernels
                                      folder, "D/sub" under the data folder */
    const char *common[32];        /* defines of every variant */
    pk_variant variants[MAX_VARIANTS];
    void (*run)(pk_run *r);        /* runs the kernels, collecting outputs */
} pk_project;

/* One run of one variant's kernels, from source or from the pack. */
struct pk_run {
    cl_context ctx;
    cl_device_id dev;
    cl_command_queue q;
    const pk_project *proj;
    const pk_variant *var;
    char what[512];                /* "project [defines] wg", for messages */
    clcpack_define defs[MAX_DEFS]; /* the variant's full define set */
    size_t ndefs;
    char def_text[4096];           /* the names and values defs points into */
    cl_program prog;               /* source half: the program built here */
    const clcpack *pack;           /* pack half: the pack; NULL otherwise */
    uint64_t rng;
    uint8_t *out;                  /* every output buffer, in order */
    size_t len, cap;
    cl_mem mems[MAX_MEMS];
    size_t nmems;
    cl_kernel kernels[MAX_KERNELS];
    cl_program progs[MAX_KERNELS];
    size_t nkernels;
    int failed;                    /* a step failed (already reported) */
};

static const char *kernels_dir;
static const char *data_dir;

/* ---------------------------------------------------------------------- */
/* Running kernels                                                         */

static void pk_fail(pk_run *r, const char *step, cl_int rc)
{
    CHECK(0, "%s (%s): %s failed with %d", r->what, r->pack ? "pack" : "source", step, rc);
    r->failed = 1;
}

static const char *pk_def(const pk_run *r, const char *name)
{
    for (size_t i = 0; i < r->ndefs; i++)
        if (strcmp(r->defs[i].name, name) == 0)
            return r->defs[i].value;
    return "";
}

static cl_mem pk_mem(pk_run *r, cl_mem_flags flags, size_t size, void *host)
{
    if (r->failed)
        return NULL;
    if (r->nmems == MAX_MEMS) {
        pk_fail(r, "more buffers than MAX_MEMS", 0);
        return NULL;
    }
    cl_int rc;
    cl_mem m = clCreateBuffer(r->ctx, flags, size ? size : 1, host, &rc);
    if (rc != CL_SUCCESS) {
        pk_fail(r, "clCreateBuffer", rc);
        return NULL;
    }
    r->mems[r->nmems++] = m;
    return m;
}

/* A read-only device copy of size bytes. */
static cl_mem pk_in(pk_run *r, const void *data, size_t size)
{
    return pk_mem(r, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, size, (void *)data);
}

/* A device buffer of size bytes, every byte POISON. */
static cl_mem pk_out(pk_run *r, size_t size)
{
    uint8_t *p = malloc(size ? size : 1);
    if (!p) {
        pk_fail(r, "malloc", 0);
        return NULL;
    }
    memset(p, POISON, size ? size : 1);
    cl_mem m = pk_mem(r, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, size, p);
    free(p);
    return m;
}

/* The named kernel: from the source program, or from the pack by
 * (kernel, defines, wg), which must load from a binary. */
static cl_kernel pk_kernel(pk_run *r, const char *name)
{
    if (r->failed)
        return NULL;
    if (r->nkernels == MAX_KERNELS) {
        pk_fail(r, "more kernels than MAX_KERNELS", 0);
        return NULL;
    }
    cl_kernel k = NULL;
    cl_program p = NULL;
    if (!r->pack) {
        cl_int rc;
        k = clCreateKernel(r->prog, name, &rc);
        if (rc != CL_SUCCESS) {
            pk_fail(r, name, rc);
            return NULL;
        }
    } else {
        clcpack_key key = { name, r->defs, r->ndefs, { r->var->wg[0], r->var->wg[1], r->var->wg[2] } };
        clcpack_load_report rep = {.struct_size = sizeof rep};
        clcpack_error err;
        clcpack_status st = clcpack_create_kernel(r->pack, &key, r->ctx, r->dev, NULL, &p, &k, &rep, &err);
        if (!CHECK(st == CLCPACK_OK, "%s: kernel %s from the pack: %s", r->what, name, err.message)) {
            r->failed = 1;
            return NULL;
        }
        /* A binary: native, or on NVIDIA a cubin or PTX; never the source. */
        CHECK(rep.path != CLCPACK_PATH_SOURCE && rep.path != CLCPACK_PATH_NONE,
              "%s: kernel %s came from the pack's %s form (%s)", r->what, name, clcpack_path_name(rep.path),
              rep.why);
    }
    r->kernels[r->nkernels] = k;
    r->progs[r->nkernels] = p;
    r->nkernels++;
    return k;
}

static void pk_arg(pk_run *r, cl_kernel k, cl_uint i, size_t size, const void *value)
{
    if (r->failed || !k)
        return;
    cl_int rc = clSetKernelArg(k, i, size, value);
    if (rc != CL_SUCCESS) {
        char step[64];
        snprintf(step, sizeof step, "clSetKernelArg %u", i);
        pk_fail(r, step, rc);
    }
}

static void pk_arg_mem(pk_run *r, cl_kernel k, cl_uint i, cl_mem m)
{
    pk_arg(r, k, i, sizeof m, &m);
}

static void pk_launch(pk_run *r, cl_kernel k, cl_uint dims, const size_t *global, const size_t *local)
{
    if (r->failed || !k)
        return;
    cl_int rc = clEnqueueNDRangeKernel(r->q, k, dims, NULL, global, local, 0, NULL, NULL);
    if (rc == CL_SUCCESS)
        rc = clFinish(r->q);
    if (rc != CL_SUCCESS)
        pk_fail(r, "clEnqueueNDRangeKernel", rc);
}

/* Reads size bytes of m and appends them to the run's output; the first run
 * (from source) also checks that the kernel wrote something. */
static void pk_collect(pk_run *r, cl_mem m, size_t size, const char *name)
{
    if (r->failed || !m)
        return;
    if (r->len + size > r->cap) {
        size_t cap = (r->len + size) * 2;
        uint8_t *p = realloc(r->out, cap);
        if (!p) {
            pk_fail(r, "realloc", 0);
            return;
        }
        r->out = p;
        r->cap = cap;
    }
    cl_int rc = clEnqueueReadBuffer(r->q, m, CL_TRUE, 0, size, r->out + r->len, 0, NULL, NULL);
    if (rc != CL_SUCCESS) {
        pk_fail(r, "clEnqueueReadBuffer", rc);
        return;
    }
    if (!r->pack) {
        size_t written = 0;
        for (size_t i = 0; i < size; i++)
            written += r->out[r->len + i] != POISON;
        CHECK(written > 0, "%s: %s wrote nothing into its output (%zu bytes of poison)", r->what,
              name, size);
    }
    r->len += size;
}

static float rng_float(uint64_t *s, float lo, float hi)
{
    return lo + (hi - lo) * (float)(test_rng_next(s) >> 40) / (float)(1u << 24);
}

/* ---------------------------------------------------------------------- */
/* hashcat: markov_le.cl                                                   */

#define HC_CS_WORDS 257 /* cs_t: u32 cs_buf[256]; u32 cs_len */
#define HC_PW_BYTES 260 /* pw_t: u32 i[64]; u32 pw_len */
#define HC_POSITIONS 8
#define HC_ITEMS 256

static void hashcat_run(pk_run *r)
{
    size_t n_root = HC_POSITIONS, n_markov = (size_t)HC_POSITIONS * 256;
    uint32_t *root = malloc(n_root * HC_CS_WORDS * 4);
    uint32_t *markov = malloc(n_markov * HC_CS_WORDS * 4);
    if (!root || !markov) {
        free(root);
        free(markov);
        pk_fail(r, "malloc", 0);
        return;
    }
    /* Character sets: 1..16 characters each, every entry a byte. */
    for (size_t t = 0; t < n_root + n_markov; t++) {
        uint32_t *cs = t < n_root ? root + t * HC_CS_WORDS : markov + (t - n_root) * HC_CS_WORDS;
        for (int c = 0; c < 256; c++)
            cs[c] = (uint32_t)(test_rng_next(&r->rng) & 0xff);
        cs[256] = 1 + (uint32_t)(test_rng_next(&r->rng) % 16);
    }
    cl_mem root_m = pk_in(r, root, n_root * HC_CS_WORDS * 4);
    cl_mem markov_m = pk_in(r, markov, n_markov * HC_CS_WORDS * 4);
    free(root);
    free(markov);

    cl_ulong off = test_rng_next(&r->rng) >> 24; /* beyond 32 bits */
    cl_ulong gid_max = HC_ITEMS - 5;             /* the last items stay poisoned */
    cl_uint mask80 = 0x80808080u, one = 1, zero = 0;
    size_t global = HC_ITEMS, local = r->var->wg[0];

    /* l_markov(pw_t *, cs_t *root, cs_t *markov, ulong off, uint pw_l_len,
     *          uint pw_r_len, uint mask80, uint bits14, uint bits15, ulong gid_max) */
    cl_kernel k = pk_kernel(r, "l_markov");
    cl_mem out = pk_out(r, (size_t)HC_ITEMS * HC_PW_BYTES);
    cl_uint l_len = 4, r_len = 3;
    pk_arg_mem(r, k, 0, out);
    pk_arg_mem(r, k, 1, root_m);
    pk_arg_mem(r, k, 2, markov_m);
    pk_arg(r, k, 3, sizeof off, &off);
    pk_arg(r, k, 4, sizeof l_len, &l_len);
    pk_arg(r, k, 5, sizeof r_len, &r_len);
    pk_arg(r, k, 6, sizeof mask80, &mask80);
    pk_arg(r, k, 7, sizeof one, &one);
    pk_arg(r, k, 8, sizeof zero, &zero);
    pk_arg(r, k, 9, sizeof gid_max, &gid_max);
    pk_launch(r, k, 1, &global, &local);
    pk_collect(r, out, (size_t)HC_ITEMS * HC_PW_BYTES, "l_markov");

    /* r_markov(bf_t *, cs_t *, cs_t *, ulong off, uint pw_r_len, uint mask80,
     *          uint bits14, uint bits15, ulong gid_max) */
    k = pk_kernel(r, "r_markov");
    out = pk_out(r, (size_t)HC_ITEMS * 4);
    pk_arg_mem(r, k, 0, out);
    pk_arg_mem(r, k, 1, root_m);
    pk_arg_mem(r, k, 2, markov_m);
    pk_arg(r, k, 3, sizeof off, &off);
    pk_arg(r, k, 4, sizeof r_len, &r_len);
    pk_arg(r, k, 5, sizeof mask80, &mask80);
    pk_arg(r, k, 6, sizeof zero, &zero);
    pk_arg(r, k, 7, sizeof zero, &zero);
    pk_arg(r, k, 8, sizeof gid_max, &gid_max);
    pk_launch(r, k, 1, &global, &local);
    pk_collect(r, out, (size_t)HC_ITEMS * 4, "r_markov");

    /* C_markov(pw_t *, cs_t *, cs_t *, ulong off, uint pw_len, uint mask80,
     *          uint bits14, uint bits15, ulong gid_max) */
    k = pk_kernel(r, "C_markov");
    out = pk_out(r, (size_t)HC_ITEMS * HC_PW_BYTES);
    cl_uint len = 6;
    pk_arg_mem(r, k, 0, out);
    pk_arg_mem(r, k, 1, root_m);
    pk_arg_mem(r, k, 2, markov_m);
    pk_arg(r, k, 3, sizeof off, &off);
    pk_arg(r, k, 4, sizeof len, &len);
    pk_arg(r, k, 5, sizeof mask80, &mask80);
    pk_arg(r, k, 6, sizeof zero, &zero);
    pk_arg(r, k, 7, sizeof one, &one);
    pk_arg(r, k, 8, sizeof gid_max, &gid_max);
    pk_launch(r, k, 1, &global, &local);
    pk_collect(r, out, (size_t)HC_ITEMS * HC_PW_BYTES, "C_markov");
}

/* ---------------------------------------------------------------------- */
/* silx: sparse.cl                                                         */

#define SILX_ROWS 20

static void silx_run(pk_run *r)
{
    int width = atoi(pk_def(r, "IMAGE_WIDTH"));
    size_t dsize = strcmp(pk_def(r, "DTYPE"), "uchar") == 0 ? 1 : 4;
    int is_float = strcmp(pk_def(r, "DTYPE"), "float") == 0;
    if (width <= 0 || width > 4096) {
        pk_fail(r, "IMAGE_WIDTH", width);
        return;
    }
    /* A CSR matrix of SILX_ROWS x width: about a third of the columns of each
     * row, each column once (two threads writing one column would race). */
    size_t cap = (size_t)SILX_ROWS * (size_t)width;
    uint8_t *data = malloc(cap * 4 + 4);
    uint32_t *ind = malloc(cap * 4 + 4), iptr[SILX_ROWS + 1];
    if (!data || !ind) {
        free(data);
        free(ind);
        pk_fail(r, "malloc", 0);
        return;
    }
    size_t nnz = 0;
    for (int row = 0; row < SILX_ROWS; row++) {
        iptr[row] = (uint32_t)nnz;
        for (int c = 0; c < width; c++) {
            if (test_rng_next(&r->rng) % 3)
                continue;
            ind[nnz] = (uint32_t)c;
            if (is_float) {
                float v = rng_float(&r->rng, -4.0f, 4.0f);
                memcpy(data + nnz * 4, &v, 4);
            } else {
                data[nnz] = (uint8_t)test_rng_next(&r->rng);
            }
            nnz++;
        }
    }
    iptr[SILX_ROWS] = (uint32_t)nnz;
    cl_mem data_m = pk_in(r, data, nnz * dsize);
    cl_mem ind_m = pk_in(r, ind, nnz * 4);
    cl_mem iptr_m = pk_in(r, iptr, sizeof iptr);
    free(data);
    free(ind);

    /* densify_csr(DTYPE *data, IDX_DTYPE *ind, IDX_DTYPE *iptr, DTYPE *output,
     *             int image_height); one work-group per row */
    cl_kernel k = pk_kernel(r, "densify_csr");
    size_t out_size = (size_t)width * SILX_ROWS * dsize;
    cl_mem out = pk_out(r, out_size);
    cl_int rows = SILX_ROWS;
    pk_arg_mem(r, k, 0, data_m);
    pk_arg_mem(r, k, 1, ind_m);
    pk_arg_mem(r, k, 2, iptr_m);
    pk_arg_mem(r, k, 3, out);
    pk_arg(r, k, 4, sizeof rows, &rows);
    size_t local[2] = { r->var->wg[0], r->var->wg[1] };
    size_t global[2] = { local[0], SILX_ROWS * local[1] };
    pk_launch(r, k, 2, global, local);
    pk_collect(r, out, out_size, "densify_csr");
}

/* ---------------------------------------------------------------------- */
/* pyFAI: the CSR integrator's program                                     */

static void pyfai_run(pk_run *r)
{
    int nbins = atoi(pk_def(r, "NBINS")), npix = atoi(pk_def(r, "NIMAGE"));
    size_t wg = r->var->wg[0];
    if (nbins <= 0 || nbins > 4096 || npix <= 0 || npix > 1 << 20 || wg == 0) {
        pk_fail(r, "NBINS/NIMAGE/wg", nbins);
        return;
    }
    /* pyFAI's pipeline: a uchar image to float, preprocessed into float4
     * pixels (signal, variance, normalisation, count), integrated into bins. */
    size_t np = (size_t)npix;
    uint8_t *raw = malloc(np);
    /* variance, dark, flat, solid angle, polarization, absorption */
    float *planes = malloc(np * 6 * sizeof(float));
    uint8_t *mask = malloc(np);
    int *indptr = malloc(((size_t)nbins + 1) * sizeof(int));
    int *indices = malloc((size_t)nbins * 40 * sizeof(int));
    float *coefs = malloc((size_t)nbins * 40 * sizeof(float));
    if (!raw || !planes || !mask || !indptr || !indices || !coefs) {
        free(raw);
        free(planes);
        free(mask);
        free(indptr);
        free(indices);
        free(coefs);
        pk_fail(r, "malloc", 0);
        return;
    }
    test_rng_fill(&r->rng, raw, np);
    for (size_t i = 0; i < np; i++) {
        planes[0 * np + i] = rng_float(&r->rng, 0.0f, 10.0f);  /* variance */
        planes[1 * np + i] = rng_float(&r->rng, 0.0f, 5.0f);   /* dark */
        planes[2 * np + i] = rng_float(&r->rng, 0.5f, 1.5f);   /* flat */
        planes[3 * np + i] = rng_float(&r->rng, 0.8f, 1.0f);   /* solid angle */
        planes[4 * np + i] = rng_float(&r->rng, 0.9f, 1.0f);   /* polarization */
        planes[5 * np + i] = rng_float(&r->rng, 0.95f, 1.0f);  /* absorption */
        mask[i] = test_rng_next(&r->rng) % 10 == 0;
    }
    cl_mem raw_m = pk_in(r, raw, np);
    cl_mem plane_m[6];
    for (int k = 0; k < 6; k++)
        plane_m[k] = pk_in(r, planes + (size_t)k * np, np * sizeof(float));
    cl_mem mask_m = pk_in(r, mask, np);
    free(raw);
    free(planes);
    free(mask);

    /* u8_to_float(uchar *array_u8, float *array_float), NIMAGE items */
    cl_kernel k = pk_kernel(r, "u8_to_float");
    cl_mem image_m = pk_out(r, np * sizeof(float));
    pk_arg_mem(r, k, 0, raw_m);
    pk_arg_mem(r, k, 1, image_m);
    pk_launch(r, k, 1, &np, NULL);
    pk_collect(r, image_m, np * sizeof(float), "u8_to_float");

    /* corrections4(float *image, char error_model, float *variance, char
     *              do_dark, float *dark, char do_dark_variance, float *,
     *              char do_flat, float *flat, char do_solidangle, float *,
     *              char do_polarization, float *, char do_absorption,
     *              float *, char do_mask, char *mask, char do_dummy,
     *              float dummy, float delta_dummy, float normalization_factor,
     *              char apply_normalization, float4 *output) */
    k = pk_kernel(r, "corrections4");
    cl_mem weights_m = pk_out(r, np * 4 * sizeof(float));
    cl_char yes = 1, no = 0, error_model = 1; /* variance */
    cl_float dummy = -1.0f, delta_dummy = 0.5f, norm = 2.0f;
    pk_arg_mem(r, k, 0, image_m);
    pk_arg(r, k, 1, 1, &error_model);
    pk_arg_mem(r, k, 2, plane_m[0]);
    pk_arg(r, k, 3, 1, &yes);
    pk_arg_mem(r, k, 4, plane_m[1]);
    pk_arg(r, k, 5, 1, &no);
    pk_arg_mem(r, k, 6, plane_m[0]);
    pk_arg(r, k, 7, 1, &yes);
    pk_arg_mem(r, k, 8, plane_m[2]);
    pk_arg(r, k, 9, 1, &yes);
    pk_arg_mem(r, k, 10, plane_m[3]);
    pk_arg(r, k, 11, 1, &yes);
    pk_arg_mem(r, k, 12, plane_m[4]);
    pk_arg(r, k, 13, 1, &yes);
    pk_arg_mem(r, k, 14, plane_m[5]);
    pk_arg(r, k, 15, 1, &yes);
    pk_arg_mem(r, k, 16, mask_m);
    pk_arg(r, k, 17, 1, &yes);
    pk_arg(r, k, 18, sizeof dummy, &dummy);
    pk_arg(r, k, 19, sizeof delta_dummy, &delta_dummy);
    pk_arg(r, k, 20, sizeof norm, &norm);
    pk_arg(r, k, 21, 1, &yes);
    pk_arg_mem(r, k, 22, weights_m);
    pk_launch(r, k, 1, &np, NULL);
    pk_collect(r, weights_m, np * 4 * sizeof(float), "corrections4");

    /* A CSR matrix bins x pixels, 0..39 pixels per bin; bin 3 is empty so
     * that the "empty" value is written too. */
    int nnz = 0;
    for (int b = 0; b < nbins; b++) {
        indptr[b] = nnz;
        int count = b == 3 ? 0 : (int)(test_rng_next(&r->rng) % 40);
        for (int j = 0; j < count; j++, nnz++) {
            indices[nnz] = (int)(test_rng_next(&r->rng) % (uint64_t)npix);
            coefs[nnz] = rng_float(&r->rng, 0.0f, 1.0f);
        }
    }
    indptr[nbins] = nnz;
    cl_mem coefs_m = pk_in(r, coefs, (size_t)nnz * sizeof(float));
    cl_mem indices_m = pk_in(r, indices, (size_t)nnz * sizeof(int));
    cl_mem indptr_m = pk_in(r, indptr, ((size_t)nbins + 1) * sizeof(int));
    free(indptr);
    free(indices);
    free(coefs);

    /* csr_integrate4(float4 *weights, float *coefs, int *indices, int *indptr,
     *                int nbins, float empty, char error_model, float8 *summed,
     *                float *averint, float *stdevpix, float *stderrmean,
     *                local float8 *shared); one work-group per bin */
    k = pk_kernel(r, "csr_integrate4");
    size_t bins_size = (size_t)nbins * sizeof(float);
    cl_mem summed = pk_out(r, bins_size * 8);
    cl_mem averint = pk_out(r, bins_size), stdevpix = pk_out(r, bins_size);
    cl_mem stderrmean = pk_out(r, bins_size);
    cl_int nb = nbins;
    cl_float empty = -1.0f;
    pk_arg_mem(r, k, 0, weights_m);
    pk_arg_mem(r, k, 1, coefs_m);
    pk_arg_mem(r, k, 2, indices_m);
    pk_arg_mem(r, k, 3, indptr_m);
    pk_arg(r, k, 4, sizeof nb, &nb);
    pk_arg(r, k, 5, sizeof empty, &empty);
    pk_arg(r, k, 6, sizeof error_model, &error_model);
    pk_arg_mem(r, k, 7, summed);
    pk_arg_mem(r, k, 8, averint);
    pk_arg_mem(r, k, 9, stdevpix);
    pk_arg_mem(r, k, 10, stderrmean);
    pk_arg(r, k, 11, wg * 8 * sizeof(float), NULL);
    size_t global = (size_t)nbins * wg;
    pk_launch(r, k, 1, &global, &wg);
    pk_collect(r, summed, bins_size * 8, "csr_integrate4 summed");
    pk_collect(r, averint, bins_size, "csr_integrate4 averint");
    pk_collect(r, stdevpix, bins_size, "csr_integrate4 stdevpix");
    pk_collect(r, stderrmean, bins_size, "csr_integrate4 stderrmean");

    /* test_sum_int_reduction(int *input, int *output, local int *shared) */
    size_t n = 4 * wg;
    int *input = malloc(n * sizeof(int));
    if (!input) {
        pk_fail(r, "malloc", 0);
        return;
    }
    for (size_t i = 0; i < n; i++)
        input[i] = (int)(test_rng_next(&r->rng) % 2001) - 1000;
    cl_mem in_m = pk_in(r, input, n * sizeof(int));
    free(input);
    k = pk_kernel(r, "test_sum_int_reduction");
    cl_mem out = pk_out(r, n * sizeof(int));
    pk_arg_mem(r, k, 0, in_m);
    pk_arg_mem(r, k, 1, out);
    pk_arg(r, k, 2, wg * sizeof(int), NULL);
    pk_launch(r, k, 1, &n, &wg);
    pk_collect(r, out, n * sizeof(int), "test_sum_int_reduction");
}

/* ---------------------------------------------------------------------- */
/* pyclesperanto-prototype: divide_scalar_by_image                         */

static void pyclesperanto_run(pk_run *r)
{
    int w = atoi(pk_def(r, "IMAGE_SIZE_src_WIDTH")), h = atoi(pk_def(r, "IMAGE_SIZE_src_HEIGHT"));
    if (w <= 0 || w > 4096 || h <= 0 || h > 4096) {
        pk_fail(r, "IMAGE_SIZE_src", w);
        return;
    }
    size_t npix = (size_t)w * (size_t)h;
    int src_float = strcmp(pk_def(r, "IMAGE_src_PIXEL_TYPE"), "float") == 0;
    size_t src_size = npix * (src_float ? sizeof(float) : 1);
    uint8_t *src = malloc(src_size);
    if (!src) {
        pk_fail(r, "malloc", 0);
        return;
    }
    if (src_float)
        for (size_t i = 0; i < npix; i++) {
            float v = rng_float(&r->rng, -100.0f, 100.0f);
            memcpy(src + i * sizeof v, &v, sizeof v);
        }
    else
        test_rng_fill(&r->rng, src, npix);
    cl_mem src_m = pk_in(r, src, src_size);
    free(src);

    /* divide_scalar_by_image(IMAGE_src_TYPE src, IMAGE_dst_TYPE dst, float scalar) */
    cl_kernel k = pk_kernel(r, "divide_scalar_by_image");
    cl_mem dst = pk_out(r, npix * sizeof(float));
    cl_float scalar = 3.5f;
    pk_arg_mem(r, k, 0, src_m);
    pk_arg_mem(r, k, 1, dst);
    pk_arg(r, k, 2, sizeof scalar, &scalar);
    size_t global[3] = { (size_t)w, (size_t)h, 1 };
    pk_launch(r, k, 3, global, NULL);
    pk_collect(r, dst, npix * sizeof(float), "divide_scalar_by_image");
}

/* ---------------------------------------------------------------------- */
/* The projects: the same programs, defines and work-groups as their
 * command lines in tests/cli/public_kernels.sh.                              */

/* pyclesperanto's defines of one 2-D image: KEY's pixel type TYPE, whose
 * buffer functions end in ID. */
#define PYCLE_IMAGE(key, type, id)                                                            \
    "IMAGE_" key "_PIXEL_TYPE=" type, "CONVERT_" key "_PIXEL_TYPE=clij_convert_" type "_sat",  \
        "READ_" key "_IMAGE(a,b,c)=read_buffer2d" id                                           \
        "(GET_IMAGE_WIDTH(a),GET_IMAGE_HEIGHT(a),GET_IMAGE_DEPTH(a),a,b,c)",                   \
        "WRITE_" key "_IMAGE(a,b,c)=write_buffer2d" id                                         \
        "(GET_IMAGE_WIDTH(a),GET_IMAGE_HEIGHT(a),GET_IMAGE_DEPTH(a),a,b,c)"
#define PYCLE_POS(key) "POS_" key "_TYPE=int2", "POS_" key "_INSTANCE(pos0,pos1,pos2,pos3)=(int2)(pos0,pos1)"

static const pk_project projects[] = {
    { "hashcat",
      { "K/hashcat/OpenCL/markov_le.cl" },
      { "K/hashcat" },
      { "KERNEL_STATIC", "INCLUDE_PATH=OpenCL", "XM2S(x)=#x", "M2S(x)=XM2S(x)", "DGST_ELEM=4" },
      { { { "VECT_SIZE=1" }, { 64, 1, 1 } }, { { "VECT_SIZE=4" }, { 64, 1, 1 } } },
      hashcat_run },
    { "silx",
      { "K/silx/opencl/sparse.cl" },
      { NULL },
      { NULL },
      { { { "IMAGE_WIDTH=48", "DTYPE=uchar", "IDX_DTYPE=int" }, { 48, 1, 1 } },
        { { "IMAGE_WIDTH=48", "DTYPE=uchar", "IDX_DTYPE=uint" }, { 48, 1, 1 } },
        { { "IMAGE_WIDTH=48", "DTYPE=float", "IDX_DTYPE=int" }, { 48, 1, 1 } },
        { { "IMAGE_WIDTH=48", "DTYPE=float", "IDX_DTYPE=uint" }, { 48, 1, 1 } } },
      silx_run },
    { "pyfai",
      { "K/silx/opencl/doubleword.cl", "K/pyfai/openCL/preprocess.cl", "K/pyfai/openCL/memset.cl",
        "K/pyfai/openCL/ocl_azim_CSR.cl", "K/pyfai/openCL/collective/reduction.cl",
        "K/pyfai/openCL/collective/scan.cl" },
      { "D/pyfai/include" },
      { "NBINS=16", "NIMAGE=512" },
      { { { NULL }, { 32, 1, 1 } }, { { NULL }, { 64, 1, 1 } } },
      pyfai_run },
    { "pyclesperanto",
      { "D/pyclesperanto/image_types.h", "K/pyclesperanto/_tier0/preamble.cl",
        "K/pyclesperanto/_tier1/divide_scalar_by_image.cl" },
      { NULL },
      { "MAX_ARRAY_SIZE=1000", "GET_IMAGE_WIDTH(image_key)=IMAGE_SIZE_##image_key##_WIDTH",
        "GET_IMAGE_HEIGHT(image_key)=IMAGE_SIZE_##image_key##_HEIGHT",
        "GET_IMAGE_DEPTH(image_key)=IMAGE_SIZE_##image_key##_DEPTH", PYCLE_POS("src"), PYCLE_POS("dst"),
        PYCLE_IMAGE("dst", "float", "f"), "IMAGE_SIZE_src_HEIGHT=24", "IMAGE_SIZE_src_DEPTH=1",
        "IMAGE_SIZE_dst_HEIGHT=24", "IMAGE_SIZE_dst_DEPTH=1" },
      { { { PYCLE_IMAGE("src", "uchar", "uc"), "IMAGE_SIZE_src_WIDTH=40",
            "IMAGE_SIZE_dst_WIDTH=40" }, { 0, 0, 0 } },
        { { PYCLE_IMAGE("src", "uchar", "uc"), "IMAGE_SIZE_src_WIDTH=64",
            "IMAGE_SIZE_dst_WIDTH=64" }, { 0, 0, 0 } },
        { { PYCLE_IMAGE("src", "float", "f"), "IMAGE_SIZE_src_WIDTH=40",
            "IMAGE_SIZE_dst_WIDTH=40" }, { 0, 0, 0 } },
        { { PYCLE_IMAGE("src", "float", "f"), "IMAGE_SIZE_src_WIDTH=64",
            "IMAGE_SIZE_dst_WIDTH=64" }, { 0, 0, 0 } } },
      pyclesperanto_run },
};
#define N_PROJECTS (sizeof projects / sizeof projects[0])

/* ---------------------------------------------------------------------- */
/* Building from source                                                    */

/* Fills r->defs from the project's common defines and the variant's, and
 * r->what. -1 when they do not fit. */
static int pk_set_defines(pk_run *r)
{
    size_t used = 0;
    r->ndefs = 0;
    const char *const *lists[2] = { r->proj->common, r->var->defs };
    size_t lens[2] = { sizeof r->proj->common / sizeof r->proj->common[0],
                       sizeof r->var->defs / sizeof r->var->defs[0] };
    int n = snprintf(r->what, sizeof r->what, "%s [", r->proj->name);
    for (int l = 0; l < 2; l++)
        for (size_t i = 0; i < lens[l] && lists[l][i]; i++) {
            const char *d = lists[l][i];
            size_t len = strlen(d);
            if (r->ndefs == MAX_DEFS || used + len + 2 > sizeof r->def_text)
                return -1;
            char *name = r->def_text + used;
            memcpy(name, d, len + 1);
            used += len + 2; /* room for a "" value */
            char *eq = strchr(name, '=');
            if (eq) {
                *eq = '\0';
                r->defs[r->ndefs].value = eq + 1;
            } else {
                name[len + 1] = '\0';
                r->defs[r->ndefs].value = name + len + 1;
            }
            r->defs[r->ndefs].name = name;
            r->ndefs++;
            if (l == 1 && n > 0 && (size_t)n < sizeof r->what)
                n += snprintf(r->what + n, sizeof r->what - (size_t)n, "%s%s",
                              r->var->defs[0] == d ? "" : " ", d);
        }
    if (n > 0 && (size_t)n < sizeof r->what)
        snprintf(r->what + n, sizeof r->what - (size_t)n, "] wg %ux%ux%u", r->var->wg[0], r->var->wg[1],
                 r->var->wg[2]);
    return 0;
}

/* Appends s to buf (cap bytes, len used); -1 when it does not fit. */
static int append(char *buf, size_t cap, size_t *len, const char *s)
{
    size_t n = strlen(s);
    if (*len + n + 1 > cap)
        return -1;
    memcpy(buf + *len, s, n + 1);
    *len += n;
    return 0;
}

/* The build options: -D NAME[=VALUE] for each define (double-quoted when the
 * value has a space, which PoCL accepts), -I for each include folder. */
static int pk_options(const pk_run *r, char *opt, size_t cap)
{
    size_t len = 0;
    opt[0] = '\0';
    for (size_t i = 0; i < r->ndefs; i++) {
        const clcpack_define *d = &r->defs[i];
        int quote = strchr(d->value, ' ') != NULL;
        if (append(opt, cap, &len, quote ? " -D \"" : " -D ") || append(opt, cap, &len, d->name) ||
            (d->value[0] && (append(opt, cap, &len, "=") || append(opt, cap, &len, d->value))) ||
            (quote && append(opt, cap, &len, "\"")))
            return -1;
    }
    for (int i = 0; i < 2 && r->proj->includes[i]; i++) {
        const char *inc = r->proj->includes[i];
        const char *root = inc[0] == 'K' ? kernels_dir : data_dir;
        if (append(opt, cap, &len, " -I ") || append(opt, cap, &len, root) || append(opt, cap, &len, inc + 1))
            return -1;
    }
    return 0;
}

/* The project's files, concatenated in order (a newline after a file that
 * does not end with one). malloc'd; NULL on error (reported). */
static char *pk_source(const pk_project *p)
{
    char *text = malloc(SOURCE_MAX);
    size_t len = 0;
    if (!text)
        return NULL;
    for (int i = 0; i < MAX_FILES && p->files[i]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s%s", p->files[i][0] == 'K' ? kernels_dir : data_dir, p->files[i] + 1);
        FILE *f = fopen(path, "rb");
        if (!CHECK(f != NULL, "%s: cannot open %s", p->name, path)) {
            free(text);
            return NULL;
        }
        size_t got = fread(text + len, 1, SOURCE_MAX - len - 2, f);
        fclose(f);
        len += got;
        if (!CHECK(len < SOURCE_MAX - 2, "%s: %s is too large", p->name, path)) {
            free(text);
            return NULL;
        }
        if (len && text[len - 1] != '\n')
            text[len++] = '\n';
    }
    text[len] = '\0';
    return text;
}

static void pk_release(pk_run *r)
{
    for (size_t i = 0; i < r->nkernels; i++) {
        if (r->kernels[i])
            clReleaseKernel(r->kernels[i]);
        if (r->progs[i])
            clReleaseProgram(r->progs[i]);
    }
    for (size_t i = 0; i < r->nmems; i++)
        clReleaseMemObject(r->mems[i]);
    r->nkernels = r->nmems = 0;
}

static size_t pk_variant_count(const pk_project *p)
{
    /* A variant has defines of its own, or a work-group, or both. */
    size_t n = 0;
    while (n < MAX_VARIANTS && (p->variants[n].defs[0] || p->variants[n].wg[0]))
        n++;
    return n;
}

/* 1 when entry e of the pack has the define set and work-group of one of
 * the project's variants. */
static int pk_expected_entry(const pk_project *p, const clcpack_entry_info *e)
{
    for (size_t v = 0; v < pk_variant_count(p); v++) {
        pk_run r;
        memset(&r, 0, sizeof r);
        r.proj = p;
        r.var = &p->variants[v];
        if (pk_set_defines(&r) != 0 || r.ndefs != e->define_count ||
            memcmp(r.var->wg, e->wg, sizeof e->wg) != 0)
            continue;
        size_t same = 0;
        for (size_t i = 0; i < r.ndefs; i++)
            for (size_t j = 0; j < e->define_count; j++)
                if (strcmp(r.defs[i].name, e->defines[j].name) == 0 &&
                    strcmp(r.defs[i].value, e->defines[j].value) == 0)
                    same++;
        if (same == r.ndefs)
            return 1;
    }
    return 0;
}

/* The seed of variant v's input: the same for every run of the variant. */
static uint64_t pk_seed(size_t v)
{
    return 0x9E3779B97F4A7C15ull ^ (uint64_t)(v + 1) * 0x100000001B3ull;
}

/* Builds r->prog from the source text, or from a binary when binary is not
 * NULL, with the options opt, and runs the project's kernels on it (the
 * input of variant v). 0 when it ran; else -1, reported. */
static int pk_run_program(pk_run *r, const char *from, const char *source, const unsigned char *binary,
                          size_t binary_size, const char *opt, size_t v)
{
    cl_int rc, status = CL_SUCCESS;
    if (binary)
        r->prog = clCreateProgramWithBinary(r->ctx, 1, &r->dev, &binary_size, &binary, &status, &rc);
    else
        r->prog = clCreateProgramWithSource(r->ctx, 1, &source, NULL, &rc);
    if (rc == CL_SUCCESS)
        rc = status;
    if (rc == CL_SUCCESS)
        rc = clBuildProgram(r->prog, 1, &r->dev, opt, NULL, NULL);
    if (rc != CL_SUCCESS) {
        static char log[16384];
        log[0] = '\0';
        if (r->prog)
            clGetProgramBuildInfo(r->prog, r->dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        log[sizeof log - 1] = '\0';
        CHECK(0, "%s: build from %s failed (%d) with options%s:\n%.2000s", r->what, from, rc, opt, log);
        if (r->prog)
            clReleaseProgram(r->prog);
        r->prog = NULL;
        return -1;
    }
    r->rng = pk_seed(v);
    r->proj->run(r);
    pk_release(r);
    clReleaseProgram(r->prog);
    r->prog = NULL;
    CHECK(!r->failed && r->len > 0, "%s: ran from %s (%zu output bytes)", r->what, from, r->len);
    return r->failed || r->len == 0 ? -1 : 0;
}

/* Checks that run b gave the same output bytes as run a. */
static void pk_compare(const pk_run *a, const pk_run *b, const char *how)
{
    size_t at = 0;
    while (at < a->len && at < b->len && a->out[at] == b->out[at])
        at++;
    CHECK(b->len == a->len && at == a->len, "%s: %s, %zu output bytes, first difference at byte %zu of %zu",
          a->what, how, b->len, at, a->len);
}

/* Runs one project: every variant from source, then, with a pack, from the
 * pack; and checks the pack holds no other variant. */
static void pk_project_run(const pk_project *p, const char *pack_path, cl_context ctx, cl_device_id dev,
                           cl_command_queue q)
{
    clcpack *pack = NULL;
    if (pack_path) {
        clcpack_error err;
        if (!CHECK(clcpack_open_file(pack_path, &pack, &err) == CLCPACK_OK, "%s: open %s: %s", p->name,
                   pack_path, err.message))
            return;
        size_t n = clcpack_entry_count(pack), unexpected = 0;
        for (size_t i = 0; i < n; i++) {
            clcpack_entry_info e = {.struct_size = sizeof e};
            if (clcpack_get_entry(pack, i, &e) == CLCPACK_OK && !pk_expected_entry(p, &e)) {
                if (unexpected++ < 3)
                    printf("  %s: pack entry %zu (%s, %zu defines, wg %ux%ux%u) is no expected variant\n",
                           p->name, i, e.kernel, e.define_count, e.wg[0], e.wg[1], e.wg[2]);
            }
        }
        CHECK(n > 0 && unexpected == 0, "%s: %zu of the pack's %zu entries are no expected variant", p->name,
              unexpected, n);
    }
    char *source = pk_source(p);
    if (!source) {
        clcpack_close(pack);
        return;
    }
    size_t nvar = pk_variant_count(p);
    for (size_t v = 0; v < nvar; v++) {
        pk_run r;
        memset(&r, 0, sizeof r);
        r.ctx = ctx;
        r.dev = dev;
        r.q = q;
        r.proj = p;
        r.var = &p->variants[v];
        if (!CHECK(pk_set_defines(&r) == 0, "%s: variant %zu: too many defines", p->name, v))
            continue;
        char opt[8192];
        if (!CHECK(pk_options(&r, opt, sizeof opt) == 0, "%s: build options too long", r.what))
            continue;

        if (pk_run_program(&r, "source", source, NULL, 0, opt, v) != 0 || !pack) {
            free(r.out);
            continue;
        }

        /* From the pack, on the same input (the same seed). */
        pk_run s = r;
        s.pack = pack;
        s.out = NULL;
        s.len = s.cap = 0;
        s.failed = 0;
        s.rng = pk_seed(v);
        p->run(&s);
        pk_release(&s);
        if (!s.failed)
            pk_compare(&r, &s, "from the pack");
        free(r.out);
        free(s.out);
    }
    free(source);
    clcpack_close(pack);
}

/* The pack for a project: a PROJECT=PACK argument, else the environment. */
static const char *pk_pack_path(const char *name, int argc, char **argv, int *named)
{
    size_t n = strlen(name);
    for (int i = 1; i < argc; i++)
        if (strncmp(argv[i], name, n) == 0 && argv[i][n] == '=') {
            *named = 1;
            return argv[i] + n + 1;
        }
    char var[64] = "CLC_PUBLIC_PACK_";
    size_t at = strlen(var);
    for (size_t i = 0; name[i] && at + 1 < sizeof var; i++)
        var[at++] = (char)toupper((unsigned char)name[i]);
    var[at] = '\0';
    const char *path = getenv(var);
    return path && *path ? path : NULL;
}

/* The device clc-pack packs for by default: the first GPU, else the first
 * device of the first platform that has one. 0, or -1 when there is none. */
static int pk_device(cl_device_id *dev, cl_context *ctx)
{
    cl_platform_id plats[8];
    cl_uint np = 0;
    if (clGetPlatformIDs(8, plats, &np) == CL_SUCCESS)
        for (cl_uint i = 0; i < np && i < 8; i++)
            if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_GPU, 1, dev, NULL) == CL_SUCCESS) {
                cl_int rc;
                *ctx = clCreateContext(NULL, 1, dev, NULL, NULL, &rc);
                return rc == CL_SUCCESS ? 0 : -1;
            }
    return test_first_device(dev, ctx);
}

/* 1 when text, "NAME=VALUE,NAME,..." as clc-pack's --check-cmd writes
 * {defines} (split at the commas outside parentheses, so that
 * "M2S(x)=XM2S(x)" and "READ_src_IMAGE(a,b,c)=f(a,b,c)" are one item each),
 * is r's define set. */
static int pk_same_defines(const pk_run *r, const char *text)
{
    size_t items = 0, matched = 0;
    const char *start = text;
    int depth = 0;
    for (const char *c = text;; c++) {
        if (*c == '(')
            depth++;
        else if (*c == ')')
            depth--;
        if (*c && (*c != ',' || depth > 0))
            continue;
        size_t n = (size_t)(c - start);
        if (n > 0) {
            items++;
            const char *eq = memchr(start, '=', n);
            size_t name_len = eq ? (size_t)(eq - start) : n;
            const char *value = eq ? eq + 1 : "";
            size_t value_len = eq ? n - name_len - 1 : 0;
            for (size_t i = 0; i < r->ndefs; i++)
                if (strlen(r->defs[i].name) == name_len && memcmp(r->defs[i].name, start, name_len) == 0 &&
                    strlen(r->defs[i].value) == value_len && memcmp(r->defs[i].value, value, value_len) == 0)
                    matched++;
        }
        if (!*c)
            break;
        start = c + 1;
    }
    return items == r->ndefs && matched == r->ndefs;
}

/* test_public_kernels --check PROJECT BINARY DEFINES WG: a --check-cmd for
 * clc-pack (tests/cli/public_kernels.sh): the variant of PROJECT with those
 * defines and work-group ("64", "48x1", "" for none), its program created
 * from the binary clc-pack built, must compute the same bytes as the same
 * program built here from source. */
static int pk_check_mode(int argc, char **argv)
{
    if (!CHECK(argc == 6, "usage: test_public_kernels --check PROJECT BINARY DEFINES WG"))
        return check_summary();
    const pk_project *p = NULL;
    for (size_t i = 0; i < N_PROJECTS; i++)
        if (strcmp(projects[i].name, argv[2]) == 0)
            p = &projects[i];
    if (!CHECK(p != NULL, "--check: no project %s", argv[2]))
        return check_summary();
    uint32_t wg[3] = {0, 0, 0};
    if (argv[5][0]) {
        char *end = argv[5];
        for (int d = 0; d < 3; d++) {
            wg[d] = 1;
            if (*end && (d == 0 || *end == 'x'))
                wg[d] = (uint32_t)strtoul(d == 0 ? end : end + 1, &end, 10);
        }
    }
    size_t nvar = pk_variant_count(p), v;
    pk_run r;
    for (v = 0; v < nvar; v++) {
        memset(&r, 0, sizeof r);
        r.proj = p;
        r.var = &p->variants[v];
        if (pk_set_defines(&r) == 0 && memcmp(wg, r.var->wg, sizeof wg) == 0 && pk_same_defines(&r, argv[4]))
            break;
    }
    if (!CHECK(v < nvar, "--check %s: no variant has the defines '%s' and work-group '%s'", p->name, argv[4],
               argv[5]))
        return check_summary();

    FILE *f = fopen(argv[3], "rb");
    unsigned char *bin = malloc(256u << 20);
    size_t size = f && bin ? fread(bin, 1, 256u << 20, f) : 0;
    if (f)
        fclose(f);
    cl_device_id dev;
    cl_context ctx;
    char *source = NULL;
    char opt[8192];
    if (CHECK(size > 0, "--check: cannot read the binary %s", argv[3]) &&
        CHECK(pk_device(&dev, &ctx) == 0, "no OpenCL device")) {
        cl_int rc;
        cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &rc);
        source = pk_source(p);
        r.ctx = ctx;
        r.dev = dev;
        r.q = q;
        if (rc == CL_SUCCESS && source && CHECK(pk_options(&r, opt, sizeof opt) == 0, "options too long")) {
            pk_run s = r;
            if (pk_run_program(&r, "source", source, NULL, 0, opt, v) == 0 &&
                pk_run_program(&s, "clc-pack's binary", NULL, bin, size, opt, v) == 0)
                pk_compare(&r, &s, "from clc-pack's binary");
            free(s.out);
        }
        free(r.out);
        if (q)
            clReleaseCommandQueue(q);
        clReleaseContext(ctx);
    }
    free(source);
    free(bin);
    return check_summary();
}

int main(int argc, char **argv)
{
    kernels_dir = getenv("CLC_PUBLIC_KERNELS");
    if (!kernels_dir || !*kernels_dir)
        kernels_dir = "build/public-kernels";
    data_dir = getenv("CLC_PUBLIC_DATA");
    if (!data_dir || !*data_dir)
        data_dir = "tests/data/public";
    if (argc > 1 && strcmp(argv[1], "--check") == 0)
        return pk_check_mode(argc, argv);
    for (int i = 1; i < argc; i++)
        if (!CHECK(strchr(argv[i], '=') != NULL, "usage: test_public_kernels [PROJECT=PACK ...] (not %s)",
                   argv[i]))
            return check_summary();

    char stamp[1024];
    struct stat st;
    snprintf(stamp, sizeof stamp, "%s/VERSIONS", kernels_dir);
    if (stat(stamp, &st) != 0) {
        CHECK_SKIP("the public projects' kernels are not installed in %s "
                   "(sh scripts/public_kernels.sh %s installs them)",
                   kernels_dir, kernels_dir);
        return check_summary();
    }

    cl_device_id dev;
    cl_context ctx;
    if (pk_device(&dev, &ctx) != 0) {
        CHECK(0, "no OpenCL device");
        return check_summary();
    }
    cl_int rc;
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &rc);
    if (!CHECK(rc == CL_SUCCESS, "clCreateCommandQueue: %d", rc)) {
        clReleaseContext(ctx);
        return check_summary();
    }

    int any_named = 0;
    for (size_t i = 0; i < N_PROJECTS; i++) {
        int named = 0;
        (void)pk_pack_path(projects[i].name, argc, argv, &named);
        any_named |= named;
    }
    for (size_t i = 0; i < N_PROJECTS; i++) {
        int named = 0;
        const char *pack = pk_pack_path(projects[i].name, argc, argv, &named);
        if (any_named && !named)
            continue;
        printf("%s: %zu variants from source%s%s\n", projects[i].name, pk_variant_count(&projects[i]),
               pack ? ", then from " : " (no pack given: source half only)", pack ? pack : "");
        pk_project_run(&projects[i], pack, ctx, dev, q);
    }
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return check_summary();
}
