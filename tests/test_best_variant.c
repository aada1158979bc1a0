/*
 * test_best_variant.c — clcpack_best_variant and the tuning list without a
 * device: a pack written with fake timings for two devices (edited
 * fingerprints), read back; the fastest variant for the matching device is
 * picked, the other device's timings are ignored, width-argument kernels
 * compete at the widths they were timed at, timings at another problem size
 * are not mixed in, and without a timing the default rule applies and says
 * so. Also: the tuning list survives the round trip in a format-2 pack and
 * a pack without one stays format 1.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "clcpack.h"

static clcpack_device_info fake_device(const char *name, const char *driver, uint32_t cc)
{
    clcpack_device_info d;
    memset(&d, 0, sizeof d);
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
 * oldest reader that can read it (byte 10): 1 for both formats. */
static clcpack *write_and_open(clcpack_writer *w, void **data, unsigned want_format)
{
    size_t size;
    clcpack_error err;
    clcpack *p = NULL;
    if (!CHECK(clcpack_writer_write_memory(w, data, &size, &err) == CLCPACK_OK, "write: %s",
               err.message))
        return NULL;
    if (!CHECK(clcpack_open_memory(*data, size, &p, &err) == CLCPACK_OK, "open: %s",
               err.message))
        return NULL;
    /* bytes 8-9: the format version */
    const uint8_t *b = *data;
    CHECK(b[8] == want_format && b[9] == 0 && b[10] == 1,
          "a pack %s is format %u, readable by version 1 readers (got %u, min %u)",
          want_format == 3 ? "with default marks" : want_format == 2 ? "with a tuning list"
                                                                    : "with neither",
          want_format, b[8], b[10]);
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
    clcpack_choice c;
    CHECK(clcpack_best_variant(p, "conv-rgba", 7, &a, &c, &err) == CLCPACK_OK, "best a: %s",
          err.message);
    CHECK(c.measured && strcmp(c.kernel, "reda_float4") == 0 && c.wg[0] == 16 &&
              c.timing.median_ns == 1000 && c.candidates == 3,
          "device A width 7: reda_float4 16x16 at 1000 ns of 3 (got %s %ux%u %llu, %u, %s)",
          c.kernel, c.wg[0], c.wg[1], (unsigned long long)c.timing.median_ns, c.candidates,
          c.why);
    CHECK(c.runner_up_ns == 2500 && c.runner_up_entry != CLCPACK_NONE,
          "runner-up is reda_local 8x8 at 2500 ns");
    CHECK(strstr(c.why, "measured") != NULL, "says measured: %s", c.why);
    clcpack_entry_info ei;
    clcpack_get_entry(p, c.entry, &ei);
    CHECK(ei.device == c.tuned_device && c.tuned_device == ia, "timing from device A");

    CHECK(clcpack_best_variant(p, "conv-rgba", 7, &b, &c, &err) == CLCPACK_OK, "best b");
    CHECK(c.measured && strcmp(c.kernel, "reda_local") == 0 && c.wg[0] == 8 &&
              c.timing.median_ns == 1200,
          "device B width 7: reda_local 8x8 (got %s %ux%u)", c.kernel, c.wg[0], c.wg[1]);

    /* The width-argument kernel competes at the widths it was timed at. */
    CHECK(clcpack_best_variant(p, "conv-grey", 5, &a, &c, &err) == CLCPACK_OK, "grey 5 a");
    CHECK(c.measured && strcmp(c.kernel, "Convolve_Def") == 0 && c.timing.median_ns == 400,
          "device A grey 5: Convolve_Def 400 beats Convolve 450 (got %s)", c.kernel);
    CHECK(clcpack_best_variant(p, "conv-grey", 5, &b, &c, &err) == CLCPACK_OK, "grey 5 b");
    CHECK(c.measured && strcmp(c.kernel, "Convolve") == 0 && c.width_argument &&
              c.define_count == 0 && c.timing.filter_width == 5 && c.timing.median_ns == 350,
          "device B grey 5: Convolve (width argument) at 350 (got %s)", c.kernel);
    CHECK(clcpack_best_variant(p, "conv-grey", 7, &b, &c, &err) == CLCPACK_OK, "grey 7 b");
    CHECK(c.measured && strcmp(c.kernel, "Convolve_Def") == 0 && c.timing.median_ns == 300,
          "device B grey 7: Convolve_Def 300 beats Convolve 900 (got %s)", c.kernel);

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
              clcpack_get_entry_tuning(p, conv, 0, &t) == CLCPACK_OK && t.filter_width == 5 &&
              t.median_ns == 350 && t.runs == 11 && t.width == 2048 &&
              clcpack_get_entry_tuning(p, conv, 1, &t) == CLCPACK_OK && t.filter_width == 7 &&
              t.median_ns == 900,
          "Convolve's two timings read back in filter-width order");
    clcpack_get_entry(p, conv, &ei);
    CHECK(ei.tune_runs == 11 && ei.tune_median_ns == 350,
          "the v1 fields mirror the lowest filter width's timing");
    CHECK(clcpack_get_entry_tuning(p, conv, 2, &t) == CLCPACK_E_NOT_FOUND, "no third timing");

    /* A device of neither kind: nothing measured applies, default rule. */
    clcpack_device_info other = fake_device("Other", "9", 0);
    CHECK(clcpack_best_variant(p, "conv-rgba", 7, &other, &c, &err) == CLCPACK_OK, "other");
    CHECK(!c.measured && strcmp(c.kernel, "reda_local") == 0 && c.wg[0] == 16 &&
              strstr(c.why, "default rule") && strstr(c.why, "no timing for this device"),
          "other device: default reda_local 16x16 and why (got %s %u: %s)", c.kernel, c.wg[0],
          c.why);
    /* Same compute capability, other model: A's timings are the nearest. */
    clcpack_device_info a2 = fake_device("Fake GPU A2", "1.5", 90);
    CHECK(clcpack_best_variant(p, "conv-rgba", 7, &a2, &c, &err) == CLCPACK_OK && c.measured &&
              c.tuned_device == ia && strstr(c.why, "compute capability"),
          "same compute capability uses A's timings: %s", c.why);
    /* Same model, other driver: B's. */
    clcpack_device_info b2 = fake_device("Fake GPU B", "2.1", 0);
    CHECK(clcpack_best_variant(p, "conv-rgba", 7, &b2, &c, &err) == CLCPACK_OK && c.measured &&
              c.tuned_device == ib && strstr(c.why, "another driver"),
          "same model, other driver uses B's timings: %s", c.why);

    /* No entry for the width at all. */
    CHECK(clcpack_best_variant(p, "conv-rgba", 11, &a, &c, &err) == CLCPACK_E_NOT_FOUND &&
              strstr(err.message, "conv-rgba"),
          "width 11: not found, named: %s", err.message);
    CHECK(clcpack_best_variant(p, "conv-rgba", 7, NULL, &c, &err) == CLCPACK_E_INVALID_ARG,
          "NULL device refused");
    /* Poly: not timed here: its default is its first entry. */
    CHECK(clcpack_best_variant(p, "poly", 0, &a, &c, &err) == CLCPACK_OK && !c.measured &&
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
        clcpack_choice c;
        CHECK(clcpack_best_variant(p, "conv-rgba", 7, &a, &c, &err) == CLCPACK_OK &&
                  c.measured && strcmp(c.kernel, "reda_float4") == 0 && c.timing.width == 2048,
              "the size most variants were timed at decides (got %s at %u)", c.kernel,
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
        clcpack_choice c;
        if (marked) {
            CHECK(clcpack_best_variant(p, "conv-rgba", 9, &a, &c, &err) == CLCPACK_OK &&
                      !c.measured && strcmp(c.kernel, "reda_local") == 0 && c.wg[0] == 16 &&
                      strstr(c.why, "the pack's default variant"),
                  "conv-rgba 9 default: the marked reda_local 16x16 (%s %s)", c.kernel, c.why);
            CHECK(clcpack_best_variant(p, "conv-grey", 7, &a, &c, &err) == CLCPACK_OK &&
                      !c.measured && strcmp(c.kernel, "Convolve_Def") == 0,
                  "conv-grey 7 default: Convolve_Def, compiled in (%s)", c.kernel);
            CHECK(clcpack_best_variant(p, "conv-grey", 9, &a, &c, &err) == CLCPACK_OK &&
                      !c.measured && strcmp(c.kernel, "Convolve") == 0 && c.width_argument &&
                      strstr(c.why, "run time"),
                  "conv-grey 9 (no Convolve_Def there): Convolve, width at run time (%s)",
                  c.kernel);
        } else {
            /* Entries sort by kernel name: of those with FILTER_WIDTH=9,
             * reda_local comes before reda_naive. */
            CHECK(clcpack_best_variant(p, "conv-rgba", 9, &a, &c, &err) == CLCPACK_OK &&
                      !c.measured && strcmp(c.kernel, "reda_local") == 0 && c.wg[0] == 16 &&
                      strstr(c.why, "no default marked"),
                  "unmarked conv-rgba 9: the first entry serving width 9 (%s %s)", c.kernel,
                  c.why);
        }
        /* The general form: a kernel name and define constraints. */
        clcpack_define fw7 = {"FILTER_WIDTH", "7"};
        CHECK(clcpack_best_entry(p, "reda_local", &fw7, 1, NULL, &a, &c, &err) == CLCPACK_OK &&
                  strcmp(c.kernel, "reda_local") == 0 && c.defines[0].value[0] == '7',
              "best_entry by kernel name and FILTER_WIDTH=7 (%s)", err.message);
        clcpack_define fw11 = {"FILTER_WIDTH", "11"};
        CHECK(clcpack_best_entry(p, "reda_local", &fw11, 1, NULL, &a, &c, &err) ==
                      CLCPACK_E_NOT_FOUND &&
                  strstr(err.message, "FILTER_WIDTH=11"),
              "no entry serves FILTER_WIDTH=11: %s", err.message);
        clcpack_define other = {"TS", "32"};
        CHECK(clcpack_best_entry(p, NULL, &other, 1, NULL, &a, &c, &err) == CLCPACK_E_NOT_FOUND,
              "a constraint no entry has finds nothing");
        clcpack_close(p);
        free(data);
    }
}

int main(void)
{
    test_measured();
    test_sizes_not_mixed();
    test_default_rule();
    return check_summary();
}
