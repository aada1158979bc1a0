/*
 * test_fast_load.c — what makes a load cheap, checked without a device:
 *  - the key index built at open finds exactly what a scan of every entry
 *    finds, in ascending order, whatever order the defines are given in;
 *  - the cubins of the device's own architecture are compressed by default
 *    in a zstd pack and stored in a zlib pack; CLCPACK_WRITE_STORE_CUBINS
 *    stores them with zstd, CLCPACK_WRITE_COMPRESS_CUBINS compresses them
 *    with zlib, and the writer refuses both at once;
 *  - stored entry blobs start at multiples of 64 bytes, the loader checks
 *    them in place without a copy, copies them when the memory is
 *    unaligned, and refuses them, in place or not, when a byte is damaged;
 *  - an entry that is the delta base of others goes to the driver from the
 *    base cache, decoded once: its view is the cache's bytes, and the entry
 *    coded against it then decodes its own blob alone.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base_cache.h"
#include "check.h"
#include "clcpack_write.h"
#include "key_hash.h"
#include "pack_decode.h"
#include "pack_format.h"
#include "pack_reader.h"
#include "test_rng.h"

static uint64_t rng = 0x243F6A8885A308D3ull;

static uint64_t rnd(void) { return test_rng_next(&rng); }

static void make_device(clcpack_device_info *d, const char *name, uint32_t vendor, uint32_t cc)
{
    memset(d, 0, sizeof *d);
    d->struct_size = sizeof *d;
    snprintf(d->platform_name, sizeof d->platform_name, "Test Platform");
    snprintf(d->platform_version, sizeof d->platform_version, "OpenCL 3.0");
    snprintf(d->device_name, sizeof d->device_name, "%s", name);
    snprintf(d->device_version, sizeof d->device_version, "OpenCL 3.0");
    snprintf(d->driver_version, sizeof d->driver_version, "1.0");
    snprintf(d->opencl_c_version, sizeof d->opencl_c_version, "OpenCL C 1.2");
    d->device_type = CL_DEVICE_TYPE_GPU;
    d->vendor_id = vendor;
    d->address_bits = 64;
    d->nv_cc_major = cc / 10;
    d->nv_cc_minor = cc % 10;
}

/* A binary that zlib shrinks a lot: text-like, with some variety. */
static uint8_t *compressible(size_t n, unsigned salt)
{
    uint8_t *b = malloc(n);
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)("\177ELF cubin section .text.kernel "[i % 32] + (i / 997 + salt) % 3);
    return b;
}

/* ------------------------------------------------------------------ */
/* The key index against a scan                                        */

#define N_KERNELS 7
#define DEF_NAMES 4

typedef struct key_buf {
    char kernel[16];
    char names[DEF_NAMES][16], values[DEF_NAMES][16];
    clcpack_define defs[DEF_NAMES];
    clcpack_key key;
} key_buf;

/* A random key: kernel k0..k6, any subset of four defines with small
 * values (some bare), one of three work-groups. */
static void random_key(key_buf *k)
{
    memset(k, 0, sizeof *k);
    snprintf(k->kernel, sizeof k->kernel, "k%u", (unsigned)(rnd() % N_KERNELS));
    size_t n = 0;
    for (int d = 0; d < DEF_NAMES; d++) {
        if (rnd() % 2)
            continue;
        snprintf(k->names[n], sizeof k->names[n], "D%d", d);
        unsigned v = (unsigned)(rnd() % 4);
        if (v)
            snprintf(k->values[n], sizeof k->values[n], "%u", v);
        k->defs[n].name = k->names[n];
        k->defs[n].value = v ? k->values[n] : (rnd() % 2 ? "" : NULL);
        n++;
    }
    static const uint32_t wgs[3][3] = {{16, 16, 1}, {8, 8, 1}, {0, 0, 0}};
    const uint32_t *wg = wgs[rnd() % 3];
    k->key = (clcpack_key){k->kernel, k->defs, n, {wg[0], wg[1], wg[2]}};
}

static void reverse_defines(key_buf *k)
{
    for (size_t i = 0, j = k->key.define_count; j-- > i + 1; i++) {
        clcpack_define t = k->defs[i];
        k->defs[i] = k->defs[j];
        k->defs[j] = t;
    }
}

/* Compares clcpack_find with a scan of every entry for one key. */
/* The key's defines are all in e with the same values, name and wg match. */
static int within(const clcpack_entry_info *e, const clcpack_key *key)
{
    if (!clcpk_entry_has_name(e, key->kernel) || memcmp(e->wg, key->wg, sizeof e->wg) != 0 ||
        key->define_count > e->define_count)
        return 0;
    for (size_t k = 0; k < key->define_count; k++) {
        size_t d = 0;
        while (d < e->define_count && strcmp(e->defines[d].name, key->defines[k].name) != 0)
            d++;
        const char *v = key->defines[k].value ? key->defines[k].value : "";
        if (d == e->define_count || strcmp(e->defines[d].value, v) != 0)
            return 0;
    }
    return 1;
}

static int same_set(const clcpack_entry_info *a, const clcpack_entry_info *b)
{
    if (a->define_count != b->define_count)
        return 0;
    for (size_t d = 0; d < a->define_count; d++)
        if (strcmp(a->defines[d].name, b->defines[d].name) != 0 ||
            strcmp(a->defines[d].value, b->defines[d].value) != 0)
            return 0;
    return 1;
}

/* clcpack_find against a scan of every entry: the exact matches, else the
 * entries whose define set holds the key's when they share one set (else
 * CLCPACK_E_AMBIGUOUS). */
static int find_agrees(const clcpack *p, const clcpack_key *key)
{
    size_t want[512], n_want = 0, got[512], n_got = 0;
    for (size_t i = 0; i < p->n_entries; i++)
        if (clcpk_entry_matches(&p->entries[i].info, key))
            want[n_want++] = i;
    int ambiguous = 0;
    if (n_want == 0)
        for (size_t i = 0; i < p->n_entries; i++) {
            if (!within(&p->entries[i].info, key))
                continue;
            ambiguous |= n_want && !same_set(&p->entries[want[0]].info, &p->entries[i].info);
            if (n_want < 512)
                want[n_want++] = i;
        }
    clcpack_status st = clcpack_find(p, key, got, 512, &n_got, NULL);
    if (ambiguous)
        return st == CLCPACK_E_AMBIGUOUS;
    if (n_want == 0)
        return st == CLCPACK_E_NOT_FOUND && n_got == 0;
    return st == CLCPACK_OK && n_got == n_want && memcmp(got, want, n_want * sizeof *want) == 0;
}

static void test_key_index(void)
{
    clcpack_device_info devs[2];
    make_device(&devs[0], "GPU A", 0x1234, 0);
    make_device(&devs[1], "GPU B", 0x10DE, 90);
    clcpack_writer *w = NULL;
    clcpack_error err;
    if (!CHECK(clcpack_writer_new(0, &w, &err) == CLCPACK_OK, "writer_new"))
        return;
    uint32_t di[2];
    clcpack_writer_add_device(w, &devs[0], &di[0], &err);
    clcpack_writer_add_device(w, &devs[1], &di[1], &err);
    uint8_t bin[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    size_t added = 0;
    for (int i = 0; i < 400; i++) {
        key_buf k;
        random_key(&k);
        clcpack_entry_spec s;
        memset(&s, 0, sizeof s);
        s.struct_size = sizeof s;
        s.kernel = k.key.kernel;
        s.defines = k.key.defines;
        s.define_count = k.key.define_count;
        memcpy(s.wg, k.key.wg, sizeof s.wg);
        s.device = di[i % 2];
        s.source = CLCPACK_NONE;
        s.kind = i % 2 ? CLCPACK_KIND_CUBIN : CLCPACK_KIND_NATIVE;
        s.arch = i % 2 ? 90 : 0;
        s.binary = bin;
        s.binary_size = sizeof bin;
        /* A key drawn twice for the same device is a no-op (same bytes). */
        added += clcpack_writer_add_entry(w, &s, &err) == CLCPACK_OK;
    }
    void *data = NULL;
    size_t size = 0;
    clcpack *p = NULL;
    if (!CHECK(clcpack_writer_write_memory(w, &data, &size, &err) == CLCPACK_OK &&
                   clcpack_open_memory(data, size, &p, &err) == CLCPACK_OK,
               "key index pack: %s", err.message)) {
        clcpack_writer_free(w);
        clcpack_free(data);
        return;
    }
    /* Every entry's own key, its defines in stored and in reverse order. */
    size_t agree = 0, several = 0;
    for (size_t i = 0; i < p->n_entries; i++) {
        const clcpack_entry_info *e = &p->entries[i].info;
        key_buf k = {0};
        for (size_t d = 0; d < e->define_count; d++)
            k.defs[d] = e->defines[d];
        k.key = (clcpack_key){e->kernel, k.defs, e->define_count, {e->wg[0], e->wg[1], e->wg[2]}};
        size_t n = 0;
        clcpack_find(p, &k.key, NULL, 0, &n, NULL);
        several += n > 1;
        agree += find_agrees(p, &k.key);
        reverse_defines(&k);
        agree += find_agrees(p, &k.key);
    }
    CHECK(agree == 2 * p->n_entries && several > 0,
          "the index finds what a scan finds for all %zu entries' keys, defines in either order "
          "(%zu agree; %zu keys with several entries)",
          p->n_entries, agree, several);
    /* Random keys, most of them in no entry, and near misses of real ones. */
    size_t random_agree = 0, absent = 0;
    for (int i = 0; i < 3000; i++) {
        key_buf k;
        random_key(&k);
        if (i % 3 == 0 && k.key.define_count)
            k.key.define_count--; /* a subset of a drawn set */
        if (i % 5 == 0)
            k.key.wg[2] = 2;
        size_t n = 0;
        absent += clcpack_find(p, &k.key, NULL, 0, &n, NULL) == CLCPACK_E_NOT_FOUND;
        random_agree += find_agrees(p, &k.key);
    }
    CHECK(random_agree == 3000 && absent > 0 && absent < 3000,
          "3000 random keys: index and scan agree on %zu (%zu absent)", random_agree, absent);
    key_buf miss = {0};
    miss.key = (clcpack_key){"k1", NULL, 0, {1, 2, 3}};
    CHECK(clcpack_find(p, &miss.key, NULL, 0, NULL, &err) == CLCPACK_E_NOT_FOUND &&
              strstr(err.message, "entries of k1, none with this define set"),
          "a missing key still counts the kernel's entries: %s", err.message);
    printf("key index: %zu entries (%zu added), %zu slots\n", p->n_entries, added,
           p->slot_mask + 1);
    clcpack_close(p);
    clcpack_free(data);
    clcpack_writer_free(w);
}

/* ------------------------------------------------------------------ */
/* Stored cubins                                                       */

#define N_CUBINS 6

/* A pack with a PTX entry and N_CUBINS cubins (and a source), written with
 * `mode`'s codecs. */
static void *cubin_pack(uint32_t flags, clcpack_compression mode, size_t *size)
{
    clcpack_device_info d = {.struct_size = sizeof d};
    make_device(&d, "NVIDIA Test", 0x10DE, 90);
    clcpack_writer *w = NULL;
    clcpack_error err;
    void *data = NULL;
    if (clcpack_writer_new(flags, &w, &err) != CLCPACK_OK ||
        clcpack_writer_set_compression(w, mode, &err) != CLCPACK_OK) {
        clcpack_writer_free(w);
        return NULL;
    }
    uint32_t di, si;
    static const char src[] = "__kernel void conv(void) {}\n";
    clcpack_writer_add_device(w, &d, &di, &err);
    clcpack_writer_add_source(w, "conv.cl", src, sizeof src - 1, &si, &err);
    int ok = 1;
    for (int i = 0; i <= N_CUBINS; i++) {
        char value[8];
        snprintf(value, sizeof value, "%d", 3 + 2 * i);
        clcpack_define def = {"FILTER_WIDTH", value};
        clcpack_entry_spec s;
        memset(&s, 0, sizeof s);
        s.struct_size = sizeof s;
        s.kernel = "conv";
        s.defines = &def;
        s.define_count = 1;
        s.wg[0] = s.wg[1] = 16;
        s.wg[2] = 1;
        s.device = di;
        s.source = si;
        /* The first is a PTX entry: compressed, so the cubins after it
         * start at odd places unless the writer pads. */
        s.kind = i ? CLCPACK_KIND_CUBIN : CLCPACK_KIND_PTX;
        s.arch = 90;
        size_t n = 1000 + 337 * (size_t)i;
        uint8_t *b = compressible(n, (unsigned)i);
        s.binary = b;
        s.binary_size = n;
        ok &= clcpack_writer_add_entry(w, &s, &err) == CLCPACK_OK;
        free(b);
    }
    if (!ok || clcpack_writer_write_memory(w, &data, size, &err) != CLCPACK_OK)
        data = NULL;
    clcpack_writer_free(w);
    return data;
}

/* How many of the pack's cubins are stored (codec 0); -1 when it cannot be
 * written or opened. */
static int stored_cubins(uint32_t flags, clcpack_compression mode)
{
    size_t size = 0;
    uint8_t *data = cubin_pack(flags, mode, &size);
    clcpack *p = NULL;
    int stored = -1;
    if (data && clcpack_open_memory(data, size, &p, NULL) == CLCPACK_OK) {
        stored = 0;
        for (size_t i = 0; i < p->n_entries; i++)
            stored += p->entries[i].info.kind == CLCPACK_KIND_CUBIN &&
                      p->entries[i].info.codec == PK_CODEC_STORED;
    }
    clcpack_close(p);
    clcpack_free(data);
    return stored;
}

static void test_cubin_defaults(void)
{
    const clcpack_compression zlib = CLCPACK_COMPRESSION_ZLIB, zstd = CLCPACK_COMPRESSION_ZSTD;
    int n = stored_cubins(0, zlib);
    CHECK(n == N_CUBINS, "zlib: cubins stored by default (%d)", n);
    n = stored_cubins(CLCPACK_WRITE_COMPRESS_CUBINS, zlib);
    CHECK(n == 0, "zlib, CLCPACK_WRITE_COMPRESS_CUBINS: none stored (%d)", n);
    if (clcpack_compression_available(zstd)) {
        n = stored_cubins(0, zstd);
        CHECK(n == 0, "zstd: cubins compressed by default (%d stored)", n);
        n = stored_cubins(CLCPACK_WRITE_STORE_CUBINS, zstd);
        CHECK(n == N_CUBINS, "zstd, CLCPACK_WRITE_STORE_CUBINS: stored (%d)", n);
    } else {
        CHECK_SKIP("zstd cubin defaults: this libclcpack was built without zstd");
    }
    clcpack_writer *w = NULL;
    clcpack_error err;
    clcpack_status st = clcpack_writer_new(
        CLCPACK_WRITE_COMPRESS_CUBINS | CLCPACK_WRITE_STORE_CUBINS, &w, &err);
    CHECK(st == CLCPACK_E_INVALID_ARG && !w && strstr(err.message, "together"),
          "both cubin flags refused: %s", err.message);
    clcpack_writer_free(w);
}

static void test_stored_cubins(void)
{
    size_t size = 0, zsize = 0;
    uint8_t *data = cubin_pack(CLCPACK_WRITE_STORE_CUBINS, CLCPACK_COMPRESSION_DEFAULT, &size);
    uint8_t *zdata = cubin_pack(CLCPACK_WRITE_COMPRESS_CUBINS, CLCPACK_COMPRESSION_DEFAULT, &zsize);
    clcpack *p = NULL, *zp = NULL;
    clcpack_error err;
    if (!CHECK(data && zdata && clcpack_open_memory(data, size, &p, NULL) == CLCPACK_OK &&
                   clcpack_open_memory(zdata, zsize, &zp, NULL) == CLCPACK_OK,
               "cubin packs written and opened")) {
        clcpack_close(p);
        clcpack_free(data);
        clcpack_free(zdata);
        return;
    }
    size_t stored = 0, aligned = 0, in_place = 0, compressed = 0;
    for (size_t i = 0; i < p->n_entries; i++) {
        const pk_entry *e = &p->entries[i];
        if (e->info.kind != CLCPACK_KIND_CUBIN)
            continue;
        stored += e->info.codec == PK_CODEC_STORED;
        aligned += e->offset % PK_STORED_ALIGN == 0;
        const uint8_t *view;
        uint8_t *owned;
        pk_decoded *held;
        if (clcpk_entry_view(p, i, &view, &owned, &held, &err) == CLCPACK_OK)
            in_place += !owned && !held && view == data + e->offset;
        free(owned);
        clcpk_decoded_release(p, held);
    }
    for (size_t i = 0; i < zp->n_entries; i++)
        compressed += zp->entries[i].info.kind == CLCPACK_KIND_CUBIN &&
                      zp->entries[i].info.codec != PK_CODEC_STORED;
    CHECK(stored == N_CUBINS && aligned == N_CUBINS && in_place == N_CUBINS,
          "cubins stored (%zu of %d), at multiples of 64 (%zu), checked in place "
          "(%zu)",
          stored, N_CUBINS, aligned, in_place);
    CHECK(compressed == N_CUBINS && zsize < size / 2,
          "CLCPACK_WRITE_COMPRESS_CUBINS compresses them (%zu of %d; %zu bytes vs %zu)",
          compressed, N_CUBINS, zsize, size);

    /* The same pack one byte off alignment: the loader copies, and the
     * bytes are still right. */
    uint8_t *shifted = malloc(size + 1);
    memcpy(shifted + 1, data, size);
    clcpack *sp = NULL;
    size_t copied = 0, right = 0;
    if (CHECK(clcpack_open_memory(shifted + 1, size, &sp, &err) == CLCPACK_OK, "shifted open")) {
        for (size_t i = 1; i < sp->n_entries; i++) {
            const uint8_t *view;
            uint8_t *owned;
            pk_decoded *held;
            uint8_t *want = malloc((size_t)sp->entries[i].info.raw_size);
            clcpack_read_binary(p, i, want, (size_t)sp->entries[i].info.raw_size, NULL, NULL);
            if (clcpk_entry_view(sp, i, &view, &owned, &held, &err) == CLCPACK_OK) {
                copied += (owned && view == owned) || (held && view == held->bytes);
                right += memcmp(view, want, (size_t)sp->entries[i].info.raw_size) == 0;
            }
            free(owned);
            clcpk_decoded_release(sp, held);
            free(want);
        }
        clcpack_close(sp);
    }
    CHECK(copied == N_CUBINS && right == N_CUBINS,
          "unaligned pack memory: stored cubins copied (%zu) and intact (%zu)", copied, right);

    /* A damaged byte in a stored cubin: refused in place, and no bytes. */
    size_t victim = p->n_entries - 1;
    const pk_entry *e = &p->entries[victim];
    size_t at = (size_t)(e->offset + e->info.raw_size / 2);
    uint8_t *damaged = malloc(size);
    memcpy(damaged, data, size);
    damaged[at] ^= 0x10;
    clcpack *dp = NULL;
    if (CHECK(clcpack_open_memory(damaged, size, &dp, &err) == CLCPACK_OK,
              "payload damage is found at load, not at open")) {
        const uint8_t *view = (const uint8_t *)1;
        uint8_t *owned = (uint8_t *)1;
        pk_decoded *held = (pk_decoded *)1;
        clcpack_status st = clcpk_entry_view(dp, victim, &view, &owned, &held, &err);
        CHECK(st == CLCPACK_E_CHECKSUM && !view && !owned && !held &&
                  strstr(err.message, "checksum"),
              "a damaged stored cubin is refused in place: %s", err.message);
        st = clcpk_entry_view(dp, victim - 1, &view, &owned, &held, NULL);
        CHECK(st == CLCPACK_OK && view && !owned && !held, "its neighbour still loads in place");
        clcpack_close(dp);
    }
    free(damaged);
    free(shifted);
    clcpack_close(p);
    clcpack_close(zp);
    clcpack_free(data);
    clcpack_free(zdata);
}

/* Variants of one binary, a few bytes apart: each later one is written as
 * a delta of an earlier one. */
static void test_base_view(void)
{
    enum { N = 6, SIZE = 40000 };
    clcpack_device_info d;
    make_device(&d, "Test GPU", 0x1234, 0);
    clcpack_writer *w = NULL;
    clcpack_error err;
    uint32_t di = 0;
    int ok = clcpack_writer_new(0, &w, &err) == CLCPACK_OK &&
             clcpack_writer_add_device(w, &d, &di, &err) == CLCPACK_OK;
    uint8_t *bins[N];
    uint8_t *body = malloc(SIZE);
    for (size_t i = 0; i < SIZE; i++)
        body[i] = (uint8_t)(rnd() % 4); /* compressed alone, far more against a base */
    for (int k = 0; k < N; k++) {
        bins[k] = malloc(SIZE);
        memcpy(bins[k], body, SIZE);
        for (int j = 0; j < 16; j++)
            bins[k][rnd() % SIZE] = (uint8_t)rnd();
        char value[16];
        snprintf(value, sizeof value, "%d", 10 + k);
        clcpack_define def = {"W", value};
        clcpack_entry_spec spec = {sizeof spec, "k", NULL, "", &def, 1, {8, 8, 1}, di,
                                   CLCPACK_NONE, CLCPACK_KIND_NATIVE, 0, bins[k], SIZE,
                                   NULL, 0, 0, NULL};
        ok = ok && clcpack_writer_add_entry(w, &spec, &err) == CLCPACK_OK;
    }
    void *data = NULL;
    size_t size = 0;
    ok = ok && clcpack_writer_write_memory(w, &data, &size, &err) == CLCPACK_OK;
    clcpack_writer_free(w);
    clcpack *p = NULL;
    if (!CHECK(ok && clcpack_open_memory(data, size, &p, &err) == CLCPACK_OK,
               "base-view pack written and opened: %s", err.message))
        goto out;
    /* An entry coded against another one, and that base; the entry itself
     * a base of none (a base is always viewed from the cache). With zstd
     * the base is the first variant; zlib's writer may chain a delta on a
     * delta, so the base may need its own chain decoded first. */
    size_t child = SIZE_MAX;
    for (size_t i = 0; i < p->n_entries && child == SIZE_MAX; i++)
        if (p->entries[i].chain >= 2 && !p->entries[i].is_base)
            child = i;
    if (!CHECK(child != SIZE_MAX, "some entry is a delta of another"))
        goto out;
    size_t base = p->entries[child].info.base;
    const uint8_t *view;
    uint8_t *owned;
    pk_decoded *held;
    uint64_t before = clcpk_inflated_bytes(p);
    clcpack_status st = clcpk_entry_view(p, base, &view, &owned, &held, &err);
    CHECK(st == CLCPACK_OK && !owned && held && view == held->bytes && held->n == SIZE &&
              memcmp(view, bins[base], SIZE) == 0,
          "a base entry's view is the base cache's decoded bytes: %d (%s)", st,
          st == CLCPACK_OK ? "ok" : err.message);
    CHECK(clcpk_inflated_bytes(p) - before == (uint64_t)SIZE * p->entries[base].chain,
          "the base decoded once, with its chain of %u (%llu bytes)", p->entries[base].chain,
          (unsigned long long)(clcpk_inflated_bytes(p) - before));
    clcpk_decoded_release(p, held);
    /* The delta now decodes its own blob alone; its view is a copy of its own. */
    before = clcpk_inflated_bytes(p);
    st = clcpk_entry_view(p, child, &view, &owned, &held, &err);
    CHECK(st == CLCPACK_OK && owned && view == owned && !held &&
              memcmp(view, bins[child], SIZE) == 0 && clcpk_inflated_bytes(p) - before == SIZE,
          "the entry coded against it decodes alone from the cached base: %d, %llu bytes",
          st, (unsigned long long)(clcpk_inflated_bytes(p) - before));
    free(owned);
out:
    clcpack_close(p);
    clcpack_free(data);
    free(body);
    for (int k = 0; k < N; k++)
        free(bins[k]);
}

int main(void)
{
    test_key_index();
    test_cubin_defaults();
    test_stored_cubins();
    test_base_view();
    return check_summary();
}
