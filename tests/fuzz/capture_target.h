/*
 * capture_target.h — the fuzz target over the files `clc-pack record`
 * reads back from the interposer (clc/capture/rec_capture.h,
 * formats/capture_format.h, docs/RECORD.md): the input's first byte
 * chooses (mod 4) a capture file read from disk as it is (0), the same with
 * its CRC-32 made right first (1: a CRC guards every field, so without this
 * the fuzzer would rarely get past it), a link description (2) or a
 * process file read from disk (3). A capture that reads has a key of its
 * kind's prefix, and its encoding reads back to the same fields; one that
 * does not has a message naming the file. A process file that parses
 * formats into one that parses to the same. Shared by fuzz_capture.c and
 * tests/unit/test_fuzz_targets.c.
 */
#ifndef CLC_CAPTURE_TARGET_H
#define CLC_CAPTURE_TARGET_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "cli_fuzz.h"
#include "rec_capture.h"

/* The device's fields as text and numbers (a string read with a NUL
 * inside is written up to it, so its bytes after it may differ). */
static inline int ct_same_device(const clcpack_device_info *a, const clcpack_device_info *b)
{
    return strcmp(a->platform_name, b->platform_name) == 0 &&
           strcmp(a->platform_version, b->platform_version) == 0 &&
           strcmp(a->device_name, b->device_name) == 0 &&
           strcmp(a->device_version, b->device_version) == 0 &&
           strcmp(a->driver_version, b->driver_version) == 0 &&
           strcmp(a->opencl_c_version, b->opencl_c_version) == 0 &&
           a->device_type == b->device_type && a->vendor_id == b->vendor_id &&
           a->address_bits == b->address_bits && a->has_uuid == b->has_uuid &&
           memcmp(a->device_uuid, b->device_uuid, 16) == 0 &&
           memcmp(a->driver_uuid, b->driver_uuid, 16) == 0 &&
           a->nv_cc_major == b->nv_cc_major && a->nv_cc_minor == b->nv_cc_minor;
}

static inline int ct_same(const capture *a, const capture *b)
{
    return a->kind == b->kind && strcmp(a->key, b->key) == 0 &&
           a->source_size == b->source_size &&
           memcmp(a->source, b->source, a->source_size) == 0 &&
           strcmp(a->options, b->options) == 0 &&
           strcmp(a->kernel_names, b->kernel_names) == 0 &&
           ct_same_device(&a->device, &b->device) &&
           a->binary_size == b->binary_size &&
           (a->binary_size == 0 || memcmp(a->binary, b->binary, a->binary_size) == 0);
}

static inline int ct_count_key(const char *key, void *user)
{
    cf_require(strlen(key) < CAPTURE_KEY_MAX);
    ++*(size_t *)user;
    return 0;
}

static inline void ct_capture(const char *dir, uint8_t *p, size_t n, int fix_crc)
{
    if (fix_crc && n >= 4) {
        uint32_t crc = (uint32_t)crc32(0L, p, (uInt)(n - 4));
        for (int i = 0; i < 4; i++)
            p[n - 4 + (size_t)i] = (uint8_t)(crc >> (8 * i));
    }
    char path[300];
    snprintf(path, sizeof path, "%s/1-1.rec", dir);
    if (cf_write(dir, "1-1.rec", p, n) != 0)
        return;
    capture c;
    char err[REC_CAPTURE_ERR_MAX];
    err[0] = '\0';
    if (rec_capture_read(path, &c, err, sizeof err) != 0) {
        cf_require_message(err, sizeof err);
        cf_require(strstr(err, path) != NULL);
        cf_require(c.key == NULL && c.source == NULL && c.binary == NULL);
        return;
    }
    const char *prefix = c.kind == CAPTURE_BUILD ? CAPTURE_BUILD_PREFIX : CAPTURE_LINK_PREFIX;
    cf_require(c.kind == CAPTURE_BUILD || c.kind == CAPTURE_LINK);
    cf_require(strncmp(c.key, prefix, strlen(prefix)) == 0 && strlen(c.key) < CAPTURE_KEY_MAX);
    cf_require(c.options && c.kernel_names && (c.binary != NULL) == (c.binary_size > 0));
    if (c.kind == CAPTURE_LINK) {
        size_t keys = 0;
        (void)link_desc_each_key((const unsigned char *)c.source, c.source_size, ct_count_key,
                                 &keys);
    }
    unsigned char *enc = NULL;
    size_t enc_size = 0;
    if (capture_encode(&c, &enc, &enc_size) == 0) {
        capture back;
        char why[256];
        cf_require(capture_decode(enc, enc_size, &back, why, sizeof why) == 0);
        cf_require(ct_same(&c, &back));
        capture_free(&back);
        free(enc);
    }
    capture_free(&c);
}

static inline void ct_proc(const char *dir, const uint8_t *p, size_t n)
{
    char path[300];
    snprintf(path, sizeof path, "%s/1.proc", dir);
    if (cf_write(dir, "1.proc", p, n) != 0)
        return;
    proc_status st;
    if (rec_capture_proc_read(path, &st) != 0)
        return;
    cf_require(st.n_loaded >= 0 && st.n_loaded <= 4);
    char text[4096];
    size_t len = proc_status_format(&st, text, sizeof text);
    cf_require(len > 0);
    proc_status back;
    cf_require(proc_status_parse(text, len, &back) == 0);
    cf_require(back.calls == st.calls && back.layer == st.layer &&
               back.n_loaded == st.n_loaded);
    for (int i = 0; i < st.n_loaded; i++)
        cf_require(strcmp(back.loaded[i], st.loaded[i]) == 0);
}

static inline int fuzz_capture(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int mode = data[0] % 4;
    if (mode == 2) {
        size_t keys = 0;
        (void)link_desc_each_key(data + 1, size - 1, ct_count_key, &keys);
        cf_require(keys <= LINK_MAX_INPUTS);
        return 0;
    }
    /* The reader reads files: each input gets a private folder, and a
     * writable copy (mode 1 rewrites its CRC). */
    uint8_t *copy = malloc(size);
    char dir[256];
    if (!copy || cf_tmpdir(dir) != 0) {
        free(copy);
        return 0;
    }
    memcpy(copy, data + 1, size - 1);
    if (mode == 3)
        ct_proc(dir, copy, size - 1);
    else
        ct_capture(dir, copy, size - 1, mode == 1);
    cf_rmtree(dir);
    free(copy);
    return 0;
}

#endif /* CLC_CAPTURE_TARGET_H */
