/* Keys that give only the axis defines (loader/read/key_hash.c): a key with
 * FILTER_WIDTH=5 finds the entry whose define set also holds the derived
 * HALF_FILTER_SIZE=2 and TWICE_HALF_FILTER_SIZE=4, on every device and form;
 * a subset shared by two define sets is CLCPACK_E_AMBIGUOUS naming both;
 * the full set, in any order, still works; a wrong value or an unknown
 * define is not found. No OpenCL device is needed. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "clcpack_write.h"

static void add(clcpack_writer *w, uint32_t dev, const char *kernel, const clcpack_define *d,
                size_t n, clcpack_binary_kind kind, const char *bytes)
{
    clcpack_entry_spec s;
    memset(&s, 0, sizeof s);
    s.struct_size = sizeof s;
    s.kernel = kernel;
    s.defines = d;
    s.define_count = n;
    s.wg[0] = s.wg[1] = 16;
    s.wg[2] = 1;
    s.device = dev;
    s.source = CLCPACK_NONE;
    s.kind = kind;
    s.arch = kind == CLCPACK_KIND_NATIVE ? 0 : 90;
    s.binary = bytes;
    s.binary_size = strlen(bytes);
    clcpack_error e;
    CHECK(clcpack_writer_add_entry(w, &s, &e) == CLCPACK_OK, "add %s: %s", kernel, e.message);
}

static clcpack_status find(const clcpack *p, const char *kernel, const clcpack_define *d,
                           size_t n, size_t *idx, size_t cap, size_t *count, clcpack_error *e)
{
    clcpack_key k;
    memset(&k, 0, sizeof k);
    k.kernel = kernel;
    k.defines = d;
    k.define_count = n;
    k.wg[0] = k.wg[1] = 16;
    k.wg[2] = 1;
    return clcpack_find(p, &k, idx, cap, count, e);
}

int main(void)
{
    clcpack_writer *w;
    clcpack_error e;
    if (!CHECK(clcpack_writer_new(0, &w, &e) == CLCPACK_OK, "writer: %s", e.message))
        return check_summary();
    clcpack_device_info cpu = {.struct_size = sizeof cpu}, gpu = {.struct_size = sizeof gpu};
    memset(&cpu, 0, sizeof cpu);
    cpu.struct_size = sizeof cpu;
    memset(&gpu, 0, sizeof gpu);
    gpu.struct_size = sizeof gpu;
    strcpy(cpu.device_name, "cpu");
    strcpy(gpu.device_name, "gpu");
    gpu.vendor_id = 0x10DE;
    gpu.nv_cc_major = 9;
    uint32_t dc, dg;
    CHECK(clcpack_writer_add_device(w, &cpu, &dc, &e) == CLCPACK_OK &&
              clcpack_writer_add_device(w, &gpu, &dg, &e) == CLCPACK_OK,
          "devices");
    /* Convolve-like: FILTER_WIDTH and what follows from it. */
    const clcpack_define w3[] = {{"FILTER_WIDTH", "3"}, {"HALF_FILTER_SIZE", "1"},
                                 {"TWICE_HALF_FILTER_SIZE", "2"}};
    const clcpack_define w5[] = {{"FILTER_WIDTH", "5"}, {"HALF_FILTER_SIZE", "2"},
                                 {"TWICE_HALF_FILTER_SIZE", "4"}};
    add(w, dc, "conv", w3, 3, CLCPACK_KIND_NATIVE, "cpu w3");
    add(w, dc, "conv", w5, 3, CLCPACK_KIND_NATIVE, "cpu w5");
    add(w, dg, "conv", w5, 3, CLCPACK_KIND_PTX, "gpu ptx w5");
    add(w, dg, "conv", w5, 3, CLCPACK_KIND_CUBIN, "gpu cubin w5");
    /* Two axes: a key with one of them is ambiguous. */
    const clcpack_define a1[] = {{"FILTER_WIDTH", "5"}, {"UNROLL_FACTOR", "2"}};
    const clcpack_define a2[] = {{"FILTER_WIDTH", "5"}, {"UNROLL_FACTOR", "4"}};
    add(w, dc, "unrolled", a1, 2, CLCPACK_KIND_NATIVE, "u2");
    add(w, dc, "unrolled", a2, 2, CLCPACK_KIND_NATIVE, "u4");
    void *data;
    size_t size;
    CHECK(clcpack_writer_write_memory(w, &data, &size, &e) == CLCPACK_OK, "write: %s", e.message);
    clcpack_writer_free(w);
    clcpack *p;
    if (!CHECK(clcpack_open_memory(data, size, &p, &e) == CLCPACK_OK, "open: %s", e.message))
        return check_summary();

    size_t idx[8], n = 99;
    const clcpack_define axis5[] = {{"FILTER_WIDTH", "5"}};
    CHECK(find(p, "conv", axis5, 1, idx, 8, &n, &e) == CLCPACK_OK && n == 3,
          "FILTER_WIDTH=5 alone finds the width-5 entries of both devices (%zu): %s", n,
          e.message);
    int all5 = n == 3;
    for (size_t i = 0; i < n && i < 8; i++) {
        clcpack_entry_info ei = {.struct_size = sizeof ei};
        all5 &= clcpack_get_entry(p, idx[i], &ei) == CLCPACK_OK && ei.define_count == 3 &&
                strcmp(ei.defines[0].value, "5") == 0;
        all5 &= i == 0 || idx[i] > idx[i - 1];
    }
    CHECK(all5, "... each with the derived defines, in ascending order");
    const clcpack_define axis3[] = {{"FILTER_WIDTH", "3"}};
    CHECK(find(p, "conv", axis3, 1, idx, 8, &n, &e) == CLCPACK_OK && n == 1,
          "FILTER_WIDTH=3 alone: one entry (%zu)", n);
    const clcpack_define part[] = {{"HALF_FILTER_SIZE", "2"}, {"FILTER_WIDTH", "5"}};
    CHECK(find(p, "conv", part, 2, idx, 8, &n, &e) == CLCPACK_OK && n == 3,
          "any subset works, in any order (%zu)", n);
    const clcpack_define full[] = {{"TWICE_HALF_FILTER_SIZE", "4"}, {"FILTER_WIDTH", "5"},
                                   {"HALF_FILTER_SIZE", "2"}};
    CHECK(find(p, "conv", full, 3, idx, 8, &n, &e) == CLCPACK_OK && n == 3,
          "the full set still works (%zu)", n);
    CHECK(find(p, "conv", axis5, 1, idx, 1, &n, &e) == CLCPACK_OK && n == 3,
          "count is the total when cap is smaller (%zu)", n);

    const clcpack_define wrong[] = {{"FILTER_WIDTH", "5"}, {"HALF_FILTER_SIZE", "3"}};
    CHECK(find(p, "conv", wrong, 2, idx, 8, &n, &e) == CLCPACK_E_NOT_FOUND && n == 0,
          "a derived define with another value: not found: %s", e.message);
    const clcpack_define seven[] = {{"FILTER_WIDTH", "7"}};
    CHECK(find(p, "conv", seven, 1, idx, 8, &n, &e) == CLCPACK_E_NOT_FOUND,
          "a width the pack lacks: not found: %s", e.message);
    const clcpack_define extra[] = {{"FILTER_WIDTH", "5"}, {"NOT_THERE", "1"}};
    CHECK(find(p, "conv", extra, 2, idx, 8, &n, &e) == CLCPACK_E_NOT_FOUND,
          "a define no entry has: not found");

    CHECK(find(p, "unrolled", axis5, 1, idx, 8, &n, &e) == CLCPACK_E_AMBIGUOUS && n == 0,
          "a subset of two define sets is ambiguous (count %zu)", n);
    CHECK(strstr(e.message, "UNROLL_FACTOR=2") && strstr(e.message, "UNROLL_FACTOR=4"),
          "the message names both candidates: %s", e.message);
    CHECK(strcmp(clcpack_strerror(CLCPACK_E_AMBIGUOUS), "unknown status") != 0 &&
              clcpack_strerror(CLCPACK_E_AMBIGUOUS)[0],
          "CLCPACK_E_AMBIGUOUS has a description: %s", clcpack_strerror(CLCPACK_E_AMBIGUOUS));
    CHECK(find(p, "unrolled", a2, 2, idx, 8, &n, &e) == CLCPACK_OK && n == 1,
          "with both axes it is found (%zu)", n);
    CHECK(find(p, "unrolled", NULL, 0, idx, 8, &n, &e) == CLCPACK_E_AMBIGUOUS,
          "no defines at all: ambiguous too");
    clcpack_close(p);
    clcpack_free(data);
    return check_summary();
}
