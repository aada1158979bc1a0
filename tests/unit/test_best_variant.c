/*
 * test_best_variant.c — clcpack_best_variant and the tuning list without a
 * device: a pack written with fake timings for two devices (edited
 * fingerprints), read back; the fastest variant for the matching device is
 * picked, the other device's timings are ignored, kernels that take the
 * run-time value (a filter width) as an argument compete at the values they
 * were timed at, timings at another problem size are not mixed in, and
 * without a timing the default rule applies and says so. Any program's
 * axes (TS, WPT) work the same, under a constraint and over every axis;
 * format-1 timings (no run-time value recorded) count for the entry's
 * compiled-in value. Also: the tuning list survives the round trip in a
 * format-2 pack, a pack without one stays format 1, and the versioned
 * structs' struct_size rule holds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "clcpack_write.h"

/* A name for messages; a failed call leaves the choice empty. */
#define STR(s) ((s) ? (s) : "(none)")

/* The filter-width question as `clc-pack best --family F --width N` asks
 * it: FILTER_WIDTH=N (none for 0), FILTER_WIDTH the run-time value. */
static clcpack_status best_fw(const clcpack *p, const char *family, unsigned fw,
                              const clcpack_device_info *here, clcpack_choice *c,
                              clcpack_error *err)
{
    char value[16];
    snprintf(value, sizeof value, "%u", fw);
    const clcpack_define d = {"FILTER_WIDTH", value};
    return clcpack_best_variant(p, family, &d, fw ? 1 : 0, "FILTER_WIDTH", here, c, err);
}

static clcpack_device_info fake_device(const char *name, const char *driver, uint32_t cc)
{
    clcpack_device_info d = {.struct_size = sizeof d};
    memset(&d, 0, sizeof d);
    d.struct_size = sizeof d;
    snprintf(d.platform_name, sizeof d.platform_name, "Fake Platform");
    snprintf(d.platform_version, sizeof d.platform_version, "OpenCL 3.0");
    snprintf(d.device_name, sizeof d.device_name, "%s", name);
    snprintf(d.device_version, sizeof d.device_version, "OpenCL 3.0");
    snprintf(d.driver_version, sizeof d.driver_version, "%s", driver);
    snprintf(d.opencl_c_version, sizeof d.opencl_c_version, "OpenCL C 1.2");
    d.device_type = CL_DEVICE_TYPE_GPU;
    d.vendor_id = cc ? 0x10DE : 0x1234;
    d.address_bits = 64;
    d.nv_cc_major = cc / 10;
    d.nv_cc_minor = cc % 10;
    return d;
}

typedef struct fake_entry {
    const char *kernel, *family;
    int fw;            /* FILTER_WIDTH define, 0 for none */
    uint32_t wg;
} fake_entry;

static const fake_entry entries[] = {
    {"reda_local", "conv-rgba", 7, 16},  {"reda_local", "conv-rgba", 7, 8},
    {"reda_float4", "conv-rgba", 7, 16}, {"reda_local", "conv-rgba", 9, 16},
    {"reda_naive", "conv-rgba", 9, 16},  {"Convolve", "conv-grey", 0, 16},
    {"Convolve_Def", "conv-grey", 7, 16}, {"Convolve_Def", "conv-grey", 5, 16},
    {"poly_naive", "poly", 0, 64},
};
#define N_ENTRIES (sizeof entries / sizeof entries[0])

/* Mark the manifest's default variants (reda_local, Convolve_Def and
 * Convolve at 16x16) as the pack's defaults; off, a pack has no marks. */
static int mark_defaults;

static int is_marked(const fake_entry *f)
{
    return f->wg == 16 && (strcmp(f->kernel, "reda_local") == 0 ||
                           strcmp(f->kernel, "Convolve_Def") == 0 ||
                           strcmp(f->kernel, "Convolve") == 0);
}

static void make_spec(size_t i, uint32_t device, clcpack_define defs[1], char value[8],
                      clcpack_entry_spec *s, const uint8_t *bin)
{
    const fake_entry *f = &entries[i];
    memset(s, 0, sizeof *s);
    s->struct_size = sizeof *s;
    s->kernel = f->kernel;
    s->family = f->family;
    s->options = "";
    if (f->fw) {
        snprintf(value, 8, "%d", f->fw);
        defs[0].name = "FILTER_WIDTH";
        defs[0].value = value;
        s->defines = defs;
        s->define_count = 1;
    }
    s->wg[0] = f->wg;
    s->wg[1] = f->wg == 64 ? 1 : f->wg;
    s->wg[2] = 1;
    s->device = device;
    s->source = CLCPACK_NONE;
    s->kind = CLCPACK_KIND_NATIVE;
    s->binary = bin;
    s->binary_size = 16;
    s->flags = mark_defaults && is_marked(f) ? CLCPACK_ENTRY_DEFAULT : 0;
}

/* Adds every entry for the device and the timings of ns[] (0: none). For
 * the width-argument Convolve, ns_arg[] gives its times at widths 5, 7. */
static void add_device_entries(clcpack_writer *w, uint32_t dev, const uint64_t ns[N_ENTRIES],
                               const uint64_t ns_arg[2], uint32_t size)
{
    uint8_t bin[16];
    for (size_t i = 0; i < N_ENTRIES; i++) {
        clcpack_define defs[1];
        char value[8];
        clcpack_entry_spec s;
        memset(bin, (int)(i + 16 * dev + 1), sizeof bin);
        make_spec(i, dev, defs, value, &s, bin);
        clcpack_error err;
        CHECK(clcpack_writer_add_entry(w, &s, &err) == CLCPACK_OK, "add entry %zu: %s", i,
              err.message);
        if (entries[i].fw && ns[i]) {
            clcpack_tuning t = {(uint32_t)entries[i].fw, size, size, 11, ns[i]};
            CHECK(clcpack_writer_add_tuning(w, &s, &t, &err) == CLCPACK_OK, "tuning %zu: %s", i,
                  err.message);
        }
        if (strcmp(entries[i].kernel, "Convolve") == 0 && ns_arg)
            for (int k = 1; k >= 0; k--) { /* out of order: the writer sorts */
                clcpack_tuning t = {k ? 7u : 5u, size, size, 11, ns_arg[k]};
                CHECK(clcpack_writer_add_tuning(w, &s, &t, &err) == CLCPACK_OK,
                      "Convolve tuning: %s", err.message);
            }
    }
}

/* Writes the pack, opens it and checks its format version (byte 8) and the
 * oldest reader that can read it (byte 10): with zstd (the default) format
 * 5, whose lookup table older readers skip; with zlib the lowest format
 * with the pack's features, want_format. Either is readable by version-1
 * readers. Returns the default pack, opened. */
static clcpack *write_and_open(clcpack_writer *w, void **data, unsigned want_format)
{
    size_t size;
    clcpack_error err;
    clcpack *p = NULL;
    const char *what = want_format == 3   ? "with default marks"
                       : want_format == 2 ? "with a tuning list"
                                          : "with neither";
    void *zlib_data = NULL;
    size_t zlib_size;
    clcpack_writer_set_compression(w, CLCPACK_COMPRESSION_ZLIB, NULL);
    if (CHECK(clcpack_writer_write_memory(w, &zlib_data, &zlib_size, &err) == CLCPACK_OK,
              "write with zlib: %s", err.message)) {
        const uint8_t *z = zlib_data;
        CHECK(z[8] == want_format && z[9] == 0 && z[10] == 1,
              "a zlib pack %s is format %u, readable by version 1 readers (got %u, min %u)", what,
              want_format, z[8], z[10]);
    }
    free(zlib_data);
    clcpack_writer_set_compression(w, CLCPACK_COMPRESSION_DEFAULT, NULL);
    if (!CHECK(clcpack_writer_write_memory(w, data, &size, &err) == CLCPACK_OK, "write: %s",
               err.message))
        return NULL;
    if (!CHECK(clcpack_open_memory(*data, size, &p, &err) == CLCPACK_OK, "open: %s",
               err.message))
        return NULL;
    /* bytes 8-9: the format version */
    const uint8_t *b = *data;
#ifdef CLCPK_HAVE_ZSTD
    const unsigned want_default = 5;
#else
    const unsigned want_default = want_format; /* the default is zlib there */
#endif
    CHECK(b[8] == want_default && b[9] == 0 && b[10] == 1,
          "a default pack %s is format %u, readable by version 1 readers (got %u, min %u)",
          what, want_default, b[8], b[10]);
    return p;
}

/* A writer holding device a (its index in *ia) and every entry of
 * entries[], timed as ns[] says (0: not timed). */
static clcpack_writer *writer_with(const clcpack_device_info *a, uint32_t *ia,
                                   const uint64_t ns[N_ENTRIES])
{
    clcpack_writer *w = NULL;
    clcpack_error err;
    if (!CHECK(clcpack_writer_new(0, &w, &err) == CLCPACK_OK &&
                   clcpack_writer_add_device(w, a, ia, &err) == CLCPACK_OK,
               "writer and device: %s", err.message))
        return w;
    add_device_entries(w, *ia, ns, NULL, 2048);
    return w;
}

/* write_and_open, then frees w; NULL (and *data freed) when that fails. */
static clcpack *finish(clcpack_writer *w, void **data, unsigned want_format)
{
    *data = NULL;
    clcpack *p = write_and_open(w, data, want_format);
    clcpack_writer_free(w);
    if (!p) {
        free(*data);
        *data = NULL;
    }
    return p;
}

static void test_measured(void)
{
    clcpack_device_info a = fake_device("Fake GPU A", "1.0", 90);
    clcpack_device_info b = fake_device("Fake GPU B", "2.0", 0);
    clcpack_writer *w = NULL;
    clcpack_error err;
    CHECK(clcpack_writer_new(0, &w, &err) == CLCPACK_OK, "writer: %s", err.message);
    uint32_t ia, ib;
    CHECK(clcpack_writer_add_device(w, &a, &ia, &err) == CLCPACK_OK, "device a");
    CHECK(clcpack_writer_add_device(w, &b, &ib, &err) == CLCPACK_OK, "device b");
    /* On A: reda_float4 16x16 wins width 7; on B: reda_local 8x8 does. */
    const uint64_t ns_a[N_ENTRIES] = {3000, 2500, 1000, 900, 800, 0, 700, 400, 0};
    const uint64_t ns_b[N_ENTRIES] = {3000, 1200, 5000, 900, 950, 0, 300, 400, 0};
    const uint64_t arg_a[2] = {450, 650}; /* Convolve at 5 and 7 */
    const uint64_t arg_b[2] = {350, 900};
    mark_defaults = 1;
    add_device_entries(w, ia, ns_a, arg_a, 2048);
    add_device_entries(w, ib, ns_b, arg_b, 2048);
    mark_defaults = 0;
    void *data = NULL;
    clcpack *p = write_and_open(w, &data, 3);
    clcpack_writer_free(w);
    if (!p) {
        free(data);
        return;
    }
    clcpack_choice c = {.struct_size = sizeof c};
    CHECK(best_fw(p, "conv-rgba", 7, &a, &c, &err) == CLCPACK_OK, "best a: %s",
          err.message);
    CHECK(c.measured && strcmp(c.kernel, "reda_float4") == 0 && c.wg[0] == 16 &&
              c.timing.median_ns == 1000 && c.candidates == 3,
          "device A width 7: reda_float4 16x16 at 1000 ns of 3 (got %s %ux%u %llu, %u, %s)",
          c.kernel, c.wg[0], c.wg[1], (unsigned long long)c.timing.median_ns, c.candidates,
          c.why);
    CHECK(c.runner_up_ns == 2500 && c.runner_up_entry != CLCPACK_NONE,
          "runner-up is reda_local 8x8 at 2500 ns");
    CHECK(strstr(c.why, "measured") != NULL, "says measured: %s", c.why);
    clcpack_entry_info ei = {.struct_size = sizeof ei};
    clcpack_get_entry(p, c.entry, &ei);
    CHECK(ei.device == c.tuned_device && c.tuned_device == ia, "timing from device A");

    CHECK(best_fw(p, "conv-rgba", 7, &b, &c, &err) == CLCPACK_OK, "best b");
    CHECK(c.measured && strcmp(c.kernel, "reda_local") == 0 && c.wg[0] == 8 &&
              c.timing.median_ns == 1200,
          "device B width 7: reda_local 8x8 (got %s %ux%u)", STR(c.kernel), c.wg[0], c.wg[1]);

    /* The width-argument kernel competes at the widths it was timed at. */
    CHECK(best_fw(p, "conv-grey", 5, &a, &c, &err) == CLCPACK_OK, "grey 5 a");
    CHECK(c.measured && strcmp(c.kernel, "Convolve_Def") == 0 && c.timing.median_ns == 400,
          "device A grey 5: Convolve_Def 400 beats Convolve 450 (got %s)", STR(c.kernel));
    CHECK(best_fw(p, "conv-grey", 5, &b, &c, &err) == CLCPACK_OK, "grey 5 b");
    CHECK(c.measured && strcmp(c.kernel, "Convolve") == 0 && c.value_as_argument &&
              c.define_count == 0 && c.timing.runtime_value == 5 && c.timing.median_ns == 350,
          "device B grey 5: Convolve (width argument) at 350 (got %s)", STR(c.kernel));
    CHECK(best_fw(p, "conv-grey", 7, &b, &c, &err) == CLCPACK_OK, "grey 7 b");
    CHECK(c.measured && strcmp(c.kernel, "Convolve_Def") == 0 && c.timing.median_ns == 300,
          "device B grey 7: Convolve_Def 300 beats Convolve 900 (got %s)", STR(c.kernel));

    /* The key helper gives what clcpack_find finds. */
    clcpack_key key;
    clcpack_choice_key(&c, &key);
    size_t idx[4], n = 0;
    CHECK(clcpack_find(p, &key, idx, 4, &n, &err) == CLCPACK_OK && n == 2,
          "the choice's key finds its entry on both devices (%zu)", n);

    /* The tuning list round trip. */
    size_t conv = CLCPACK_NONE;
    for (size_t i = 0; i < clcpack_entry_count(p); i++) {
        clcpack_get_entry(p, i, &ei);
        if (strcmp(ei.kernel, "Convolve") == 0 && ei.device == ib)
            conv = i;
    }
    clcpack_tuning t;
    CHECK(clcpack_entry_tuning_count(p, conv) == 2 &&
              clcpack_get_entry_tuning(p, conv, 0, &t) == CLCPACK_OK && t.runtime_value == 5 &&
              t.median_ns == 350 && t.runs == 11 && t.width == 2048 &&
              clcpack_get_entry_tuning(p, conv, 1, &t) == CLCPACK_OK && t.runtime_value == 7 &&
              t.median_ns == 900,
          "Convolve's two timings read back in run-time value order");
    clcpack_get_entry(p, conv, &ei);
    CHECK(ei.tune_runs == 11 && ei.tune_median_ns == 350,
          "the v1 fields mirror the lowest run-time value's timing");
    CHECK(clcpack_get_entry_tuning(p, conv, 2, &t) == CLCPACK_E_NOT_FOUND, "no third timing");

    /* A device of neither kind: nothing measured applies, default rule. */
    clcpack_device_info other = fake_device("Other", "9", 0);
    CHECK(best_fw(p, "conv-rgba", 7, &other, &c, &err) == CLCPACK_OK, "other");
    CHECK(!c.measured && strcmp(c.kernel, "reda_local") == 0 && c.wg[0] == 16 &&
              strstr(c.why, "default rule") && strstr(c.why, "no timing for this device"),
          "other device: default reda_local 16x16 and why (got %s %u: %s)", STR(c.kernel), c.wg[0],
          c.why);
    /* Same compute capability, other model: A's timings are the nearest. */
    clcpack_device_info a2 = fake_device("Fake GPU A2", "1.5", 90);
    CHECK(best_fw(p, "conv-rgba", 7, &a2, &c, &err) == CLCPACK_OK && c.measured &&
              c.tuned_device == ia && strstr(c.why, "compute capability"),
          "same compute capability uses A's timings: %s", c.why);
    /* Same model, other driver: B's. */
    clcpack_device_info b2 = fake_device("Fake GPU B", "2.1", 0);
    CHECK(best_fw(p, "conv-rgba", 7, &b2, &c, &err) == CLCPACK_OK && c.measured &&
              c.tuned_device == ib && strstr(c.why, "another driver"),
          "same model, other driver uses B's timings: %s", c.why);

    /* No entry for the width at all. */
    CHECK(best_fw(p, "conv-rgba", 11, &a, &c, &err) == CLCPACK_E_NOT_FOUND &&
              strstr(err.message, "conv-rgba"),
          "width 11: not found, named: %s", err.message);
    CHECK(best_fw(p, "conv-rgba", 7, NULL, &c, &err) == CLCPACK_E_INVALID_ARG,
          "NULL device refused");
    /* Poly: not timed here: its default is its first entry. */
    CHECK(best_fw(p, "poly", 0, &a, &c, &err) == CLCPACK_OK && !c.measured &&
              strcmp(c.kernel, "poly_naive") == 0,
          "poly default: poly_naive (%s)", c.why);
    clcpack_close(p);
    free(data);
}

/* Timings at another problem size do not compete with the main size. */
static void test_sizes_not_mixed(void)
{
    clcpack_device_info a = fake_device("Fake GPU A", "1.0", 90);
    clcpack_writer *w = NULL;
    clcpack_error err;
    clcpack_writer_new(0, &w, &err);
    uint32_t ia;
    clcpack_writer_add_device(w, &a, &ia, &err);
    const uint64_t ns[N_ENTRIES] = {3000, 2500, 1000, 0, 0, 0, 0, 0, 0};
    add_device_entries(w, ia, ns, NULL, 2048);
    /* reda_local 16x16 width 7 re-timed at a tiny size: faster, but alone there. */
    uint8_t bin[16];
    memset(bin, 1, sizeof bin);
    clcpack_define defs[1];
    char value[8];
    clcpack_entry_spec s;
    make_spec(0, ia, defs, value, &s, bin);
    clcpack_tuning t = {7, 64, 64, 11, 10};
    CHECK(clcpack_writer_add_tuning(w, &s, &t, &err) == CLCPACK_OK, "replace a timing");
    void *data = NULL;
    clcpack *p = write_and_open(w, &data, 2);
    clcpack_writer_free(w);
    if (p) {
        clcpack_choice c = {.struct_size = sizeof c};
        CHECK(best_fw(p, "conv-rgba", 7, &a, &c, &err) == CLCPACK_OK &&
                  c.measured && strcmp(c.kernel, "reda_float4") == 0 && c.timing.width == 2048,
              "the size most variants were timed at decides (got %s at %u)", STR(c.kernel),
              c.timing.width);
        clcpack_close(p);
    }
    free(data);
}

/* Without timings: the default rules, with the pack's marks (format 3)
 * and without (format 1: the first entry that serves). */
static void test_default_rule(void)
{
    clcpack_device_info a = fake_device("Fake GPU A", "1.0", 90);
    for (int marked = 1; marked >= 0; marked--) {
        clcpack_writer *w = NULL;
        clcpack_error err;
        clcpack_writer_new(0, &w, &err);
        uint32_t ia;
        clcpack_writer_add_device(w, &a, &ia, &err);
        const uint64_t none[N_ENTRIES] = {0};
        mark_defaults = marked;
        add_device_entries(w, ia, none, NULL, 2048);
        mark_defaults = 0;
        void *data = NULL;
        clcpack *p = write_and_open(w, &data, marked ? 3 : 1);
        clcpack_writer_free(w);
        if (!p) {
            free(data);
            return;
        }
        clcpack_choice c = {.struct_size = sizeof c};
        if (marked) {
            CHECK(best_fw(p, "conv-rgba", 9, &a, &c, &err) == CLCPACK_OK &&
                      !c.measured && strcmp(c.kernel, "reda_local") == 0 && c.wg[0] == 16 &&
                      strstr(c.why, "the pack's default variant"),
                  "conv-rgba 9 default: the marked reda_local 16x16 (%s %s)", STR(c.kernel), c.why);
            CHECK(best_fw(p, "conv-grey", 7, &a, &c, &err) == CLCPACK_OK &&
                      !c.measured && strcmp(c.kernel, "Convolve_Def") == 0,
                  "conv-grey 7 default: Convolve_Def, compiled in (%s)", STR(c.kernel));
            CHECK(best_fw(p, "conv-grey", 9, &a, &c, &err) == CLCPACK_OK &&
                      !c.measured && strcmp(c.kernel, "Convolve") == 0 && c.value_as_argument &&
                      strstr(c.why, "run time"),
                  "conv-grey 9 (no Convolve_Def there): Convolve, width at run time (%s)",
                  c.kernel);
        } else {
            /* Entries sort by kernel name: of those with FILTER_WIDTH=9,
             * reda_local comes before reda_naive. */
            CHECK(best_fw(p, "conv-rgba", 9, &a, &c, &err) == CLCPACK_OK &&
                      !c.measured && strcmp(c.kernel, "reda_local") == 0 && c.wg[0] == 16 &&
                      strstr(c.why, "no default marked"),
                  "unmarked conv-rgba 9: the first entry serving width 9 (%s %s)", STR(c.kernel),
                  c.why);
        }
        /* The general form: a kernel name and define constraints. */
        clcpack_define fw7 = {"FILTER_WIDTH", "7"};
        CHECK(clcpack_best_variant(p, "reda_local", &fw7, 1, NULL, &a, &c, &err) == CLCPACK_OK &&
                  strcmp(c.kernel, "reda_local") == 0 && c.defines[0].value[0] == '7',
              "best_variant by kernel name and FILTER_WIDTH=7 (%s)", err.message);
        clcpack_define fw11 = {"FILTER_WIDTH", "11"};
        CHECK(clcpack_best_variant(p, "reda_local", &fw11, 1, NULL, &a, &c, &err) ==
                      CLCPACK_E_NOT_FOUND &&
                  strstr(err.message, "FILTER_WIDTH=11") &&
                  strstr(err.message, "; FILTER_WIDTH is 7") &&
                  strstr(err.message, " there"),
              "no entry serves FILTER_WIDTH=11, and the message lists the widths there are: %s",
              err.message);
        clcpack_define typo = {"FILTER_WIDHT", "7"};
        CHECK(clcpack_best_variant(p, "reda_local", &typo, 1, NULL, &a, &c, &err) ==
                      CLCPACK_E_NOT_FOUND &&
                  strstr(err.message, "no entry of it has a define FILTER_WIDHT"),
              "a define name the kernel's entries lack is named as such: %s", err.message);
        clcpack_define other = {"TS", "32"};
        CHECK(clcpack_best_variant(p, NULL, &other, 1, NULL, &a, &c, &err) == CLCPACK_E_NOT_FOUND,
              "a constraint no entry has finds nothing");
        clcpack_close(p);
        free(data);
    }
}

/* A program of any axes (a GEMM's TS and WPT, RTS derived), timed with no
 * run-time value as --tune-cmd times it: the fastest under a constraint
 * and over every axis, by the program's name or by none. */
static void test_any_axes(void)
{
    clcpack_device_info a = fake_device("Fake GPU A", "1.0", 0);
    clcpack_writer *w = NULL;
    clcpack_error err;
    clcpack_writer_new(0, &w, &err);
    uint32_t ia;
    clcpack_writer_add_device(w, &a, &ia, &err);
    static const struct {
        const char *ts, *wpt, *rts;
        uint64_t ns;
    } v[] = {{"8", "1", "8", 900}, {"8", "2", "4", 500}, {"8", "4", "2", 700},
             {"16", "1", "16", 800}, {"16", "2", "8", 650}, {"16", "4", "4", 600}};
    uint8_t bin[16];
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        clcpack_define d[3] = {{"RTS", v[i].rts}, {"TS", v[i].ts}, {"WPT", v[i].wpt}};
        clcpack_entry_spec s;
        memset(&s, 0, sizeof s);
        s.struct_size = sizeof s;
        s.kernel = "sgemm";
        s.defines = d;
        s.define_count = 3;
        s.wg[0] = (uint32_t)atoi(v[i].ts);
        s.wg[1] = (uint32_t)atoi(v[i].rts);
        s.wg[2] = 1;
        s.device = ia;
        s.source = CLCPACK_NONE;
        memset(bin, (int)i + 1, sizeof bin);
        s.binary = bin;
        s.binary_size = sizeof bin;
        CHECK(clcpack_writer_add_entry(w, &s, &err) == CLCPACK_OK, "sgemm %zu: %s", i, err.message);
        clcpack_tuning t = {0, 256, 256, 11, v[i].ns};
        CHECK(clcpack_writer_add_tuning(w, &s, &t, &err) == CLCPACK_OK, "tuning %zu", i);
    }
    void *data = NULL;
    clcpack *p = write_and_open(w, &data, 2);
    clcpack_writer_free(w);
    if (!p) {
        free(data);
        return;
    }
    clcpack_choice c = {.struct_size = sizeof c};
    const clcpack_define ts16 = {"TS", "16"};
    CHECK(clcpack_best_variant(p, "sgemm", &ts16, 1, NULL, &a, &c, &err) == CLCPACK_OK &&
              c.measured && c.candidates == 3 && c.timing.median_ns == 600 &&
              c.wg[0] == 16 && c.wg[1] == 4 && c.runner_up_ns == 650 && !c.value_as_argument,
          "TS=16: TS=16 WPT=4 at 600 ns of 3, next 650 (got %llu of %u: %s)",
          (unsigned long long)c.timing.median_ns, c.candidates, c.why);
    CHECK(clcpack_best_variant(p, NULL, NULL, 0, NULL, &a, &c, &err) == CLCPACK_OK &&
              c.measured && c.candidates == 6 && c.timing.median_ns == 500 && c.wg[0] == 8,
          "every axis: TS=8 WPT=2 at 500 ns of 6 (got %llu of %u)",
          (unsigned long long)c.timing.median_ns, c.candidates);
    const clcpack_define both[2] = {{"WPT", "1"}, {"TS", "16"}};
    CHECK(clcpack_best_variant(p, "sgemm", both, 2, NULL, &a, &c, &err) == CLCPACK_OK &&
              c.measured && c.candidates == 1 && c.timing.median_ns == 800 &&
              c.runner_up_entry == CLCPACK_NONE,
          "TS=16 WPT=1: the one variant (got %llu of %u)",
          (unsigned long long)c.timing.median_ns, c.candidates);
    /* A run-time define no entry lacks changes nothing: compiled-in entries
     * timed without a value count for their compiled-in value. */
    CHECK(clcpack_best_variant(p, "sgemm", &ts16, 1, "TS", &a, &c, &err) == CLCPACK_OK &&
              c.measured && c.timing.median_ns == 600,
          "TS=16 named as the run-time define: same answer (%s)", c.why);
    const clcpack_define bad = {"TS", "sixteen"};
    CHECK(clcpack_best_variant(p, "sgemm", &bad, 1, "TS", &a, &c, &err) ==
                  CLCPACK_E_INVALID_ARG &&
              strstr(err.message, "TS=sixteen"),
          "a run-time value that is not a number: %s", err.message);
    clcpack_key key;
    size_t n = 0;
    CHECK(clcpack_best_variant(p, "sgemm", &ts16, 1, NULL, &a, &c, &err) == CLCPACK_OK &&
              clcpack_choice_key(&c, &key) == CLCPACK_OK &&
              clcpack_find(p, &key, NULL, 0, &n, &err) == CLCPACK_OK && n == 1,
          "the choice's key finds its entry");
    clcpack_close(p);
    free(data);
}

/* A pack whose timings are in the format-1 fields only (no tuning list:
 * no run-time value recorded): they count for the entry's compiled-in
 * value of the run-time define, or for none. */
static void test_format1_timings(void)
{
    clcpack_device_info a = fake_device("Fake GPU A", "1.0", 90);
    uint32_t ia;
    const uint64_t none[N_ENTRIES] = {0};
    clcpack_writer *w = writer_with(&a, &ia, none);
    clcpack_error err;
    /* reda_local 16x16 and reda_float4 16x16 at width 7 (entries 0 and 2). */
    const uint64_t ns[3] = {3000, 0, 1000};
    for (size_t i = 0; i < 3; i += 2) {
        uint8_t bin[16];
        memset(bin, (int)(i + 1), sizeof bin);
        clcpack_define defs[1];
        char value[8];
        clcpack_entry_spec s;
        make_spec(i, ia, defs, value, &s, bin);
        CHECK(clcpack_writer_set_tuning(w, &s, 2048, 2048, 11, ns[i], &err) == CLCPACK_OK,
              "set_tuning %zu: %s", i, err.message);
    }
    void *data;
    clcpack *p = finish(w, &data, 1);
    if (!p)
        return;
    clcpack_choice c = {.struct_size = sizeof c};
    CHECK(best_fw(p, "conv-rgba", 7, &a, &c, &err) == CLCPACK_OK && c.measured &&
              strcmp(c.kernel, "reda_float4") == 0 && c.timing.median_ns == 1000 &&
              c.candidates == 2 && c.timing.runtime_value == 7,
          "format-1 timings at FILTER_WIDTH=7: reda_float4 of 2 (got %s, %u: %s)", STR(c.kernel),
          c.candidates, c.why);
    CHECK(best_fw(p, "conv-rgba", 9, &a, &c, &err) == CLCPACK_OK && !c.measured,
          "no format-1 timing at width 9: the default rule (%s)", c.why);
    const clcpack_define fw7 = {"FILTER_WIDTH", "7"};
    CHECK(clcpack_best_variant(p, "conv-rgba", &fw7, 1, NULL, &a, &c, &err) == CLCPACK_OK &&
              c.measured && strcmp(c.kernel, "reda_float4") == 0,
          "with no run-time define named: the same (%s)", c.why);
    size_t i0 = CLCPACK_NONE;
    clcpack_entry_info ei = {.struct_size = sizeof ei};
    for (size_t i = 0; i < clcpack_entry_count(p); i++)
        if (clcpack_get_entry(p, i, &ei) == CLCPACK_OK && ei.tune_runs && i0 == CLCPACK_NONE)
            i0 = i;
    clcpack_tuning t;
    CHECK(clcpack_entry_tuning_count(p, i0) == 1 &&
              clcpack_get_entry_tuning(p, i0, 0, &t) == CLCPACK_OK && t.runtime_value == 0 &&
              t.runs == 11,
          "a format-1 timing reads back with run-time value 0 (not recorded)");
    clcpack_close(p);
    free(data);
}

/* The versioned structs (clcpack.h, "Structs that may grow"): a
 * struct_size too small is refused, a struct larger than the library's (a
 * newer header) is filled as far as the library knows and its tail left
 * alone. */
static void test_struct_size(void)
{
    clcpack_device_info a = fake_device("Fake GPU A", "1.0", 90);
    const uint64_t ns[N_ENTRIES] = {3000, 2500, 1000, 0, 0, 0, 0, 0, 0};
    uint32_t ia;
    clcpack_writer *w = writer_with(&a, &ia, ns);
    clcpack_error err;
    clcpack_device_info zero = a;
    zero.struct_size = 0;
    CHECK(clcpack_writer_add_device(w, &zero, &ia, &err) == CLCPACK_E_INVALID_ARG &&
              strstr(err.message, "struct_size"),
          "add_device: struct_size 0 refused: %s", err.message);
    void *data;
    clcpack *p = finish(w, &data, 2);
    if (!p)
        return;
    clcpack_choice c = {.struct_size = 0};
    CHECK(best_fw(p, "conv-rgba", 7, &a, &c, &err) == CLCPACK_E_INVALID_ARG &&
              strstr(err.message, "out->struct_size"),
          "best_variant: choice struct_size 0 refused: %s", err.message);
    c.struct_size = sizeof c;
    CHECK(best_fw(p, "conv-rgba", 7, &zero, &c, &err) == CLCPACK_E_INVALID_ARG &&
              strstr(err.message, "here->struct_size"),
          "best_variant: device struct_size 0 refused: %s", err.message);
    clcpack_key key;
    CHECK(clcpack_choice_key(&(clcpack_choice){.struct_size = 0}, &key) == CLCPACK_E_INVALID_ARG,
          "choice_key: struct_size 0 refused");
    CHECK(!clcpack_device_binary_compatible(&a, &zero) && clcpack_device_binary_compatible(&a, &a),
          "binary_compatible: 0 for a struct_size 0, 1 for itself");
    char diff[128];
    CHECK(clcpack_device_describe_difference(&a, &zero, diff, sizeof diff) ==
                  CLCPACK_E_INVALID_ARG &&
              clcpack_device_describe_difference(&a, &a, diff, sizeof diff) == CLCPACK_OK &&
              strstr(diff, "identical"),
          "describe_difference: struct_size checked (%s)", diff);
    clcpack_entry_info e0 = {.struct_size = 0};
    CHECK(clcpack_get_entry(p, 0, &e0) == CLCPACK_E_INVALID_ARG &&
              clcpack_get_device(p, 0, &zero) == CLCPACK_E_INVALID_ARG,
          "get_entry, get_device: struct_size 0 refused");
    clcpack_load_report rep = {.struct_size = 0};
    cl_program prog;
    clcpack_define fw7 = {"FILTER_WIDTH", "7"};
    clcpack_key k7 = {"reda_local", &fw7, 1, {16, 16, 1}};
    CHECK(clcpack_create_program(p, &k7, NULL, NULL, NULL, &prog, &rep, &err) ==
                  CLCPACK_E_INVALID_ARG &&
              strstr(err.message, "report->struct_size"),
          "create_program: report struct_size 0 refused: %s", err.message);

    /* A caller built against a newer header: larger structs. */
    struct {
        clcpack_entry_info e;
        unsigned char tail[64];
    } big;
    memset(&big, 0xAB, sizeof big);
    big.e.struct_size = sizeof big;
    int tail_kept = 1;
    CHECK(clcpack_get_entry(p, 0, &big.e) == CLCPACK_OK && big.e.struct_size == sizeof big &&
              big.e.kernel && big.e.kernel[0],
          "get_entry fills a larger struct, struct_size left as given");
    for (size_t i = 0; i < sizeof big.tail; i++)
        tail_kept &= big.tail[i] == 0xAB;
    CHECK(tail_kept, "and leaves the fields it does not know alone");
    struct {
        clcpack_choice c;
        unsigned char tail[32];
    } bigc;
    memset(&bigc, 0xCD, sizeof bigc);
    bigc.c.struct_size = sizeof bigc;
    tail_kept = 1;
    CHECK(best_fw(p, "conv-rgba", 7, &a, &bigc.c, &err) == CLCPACK_OK && bigc.c.measured &&
              strcmp(bigc.c.kernel, "reda_float4") == 0,
          "best_variant fills a larger choice");
    for (size_t i = 0; i < sizeof bigc.tail; i++)
        tail_kept &= bigc.tail[i] == 0xCD;
    CHECK(tail_kept, "and leaves its tail alone");
    /* A larger device struct as input: the unknown tail is not read. */
    struct {
        clcpack_device_info d;
        unsigned char tail[32];
    } bigd;
    memset(&bigd, 0xEE, sizeof bigd);
    bigd.d = a;
    bigd.d.struct_size = sizeof bigd;
    CHECK(best_fw(p, "conv-rgba", 7, &bigd.d, &c, &err) == CLCPACK_OK && c.measured &&
              clcpack_device_binary_compatible(&bigd.d, &a),
          "a larger device struct is read as far as the library knows (%s)", err.message);
    clcpack_close(p);
    free(data);
}

/* The group label (clcpack_inspect.h): each entry's, as written; the name
 * clcpack_best_variant answers to besides kernels and programs. */
static void test_entry_family(void)
{
    clcpack_device_info a = fake_device("Fake GPU A", "1.0", 90);
    const uint64_t ns[N_ENTRIES] = {0};
    uint32_t ia;
    clcpack_writer *w = writer_with(&a, &ia, ns);
    void *data;
    clcpack *p = finish(w, &data, 1);
    if (!p)
        return;
    size_t n = clcpack_entry_count(p), right = 0;
    for (size_t i = 0; i < n; i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        const char *family = NULL;
        if (clcpack_get_entry(p, i, &e) != CLCPACK_OK ||
            clcpack_get_entry_family(p, i, &family) != CLCPACK_OK)
            continue;
        for (size_t k = 0; k < N_ENTRIES; k++)
            if (strcmp(entries[k].kernel, e.kernel) == 0 &&
                strcmp(entries[k].family, family) == 0) {
                right++;
                break;
            }
    }
    CHECK(n == N_ENTRIES && right == n, "every entry's family as written (%zu of %zu)", right, n);
    const char *f = "unchanged";
    CHECK(clcpack_get_entry_family(p, n, &f) == CLCPACK_E_NOT_FOUND && strcmp(f, "unchanged") == 0,
          "get_entry_family past the count: CLCPACK_E_NOT_FOUND, nothing written");
    CHECK(clcpack_get_entry_family(NULL, 0, &f) == CLCPACK_E_INVALID_ARG &&
              clcpack_get_entry_family(p, 0, NULL) == CLCPACK_E_INVALID_ARG,
          "get_entry_family: NULL pack or out is CLCPACK_E_INVALID_ARG");
    clcpack_choice c = {.struct_size = sizeof c};
    clcpack_error err;
    CHECK(clcpack_best_variant(p, "poly", NULL, 0, NULL, &a, &c, &err) == CLCPACK_OK &&
              strcmp(c.kernel, "poly_naive") == 0,
          "best_variant answers to a family name: %s", c.kernel ? c.kernel : err.message);
    clcpack_close(p);
    free(data);
}

int main(void)
{
    test_measured();
    test_sizes_not_mixed();
    test_default_rule();
    test_any_axes();
    test_format1_timings();
    test_struct_size();
    test_entry_family();
    return check_summary();
}
