/*
 * fuzz_target.h — the body of the fuzz target over pack parsing, shared by
 * the libFuzzer build (fuzz_pack.c) and the plain replay test
 * (tests/unit/test_fuzz_replay.c). It is a header, not a .c file, because the
 * test link line passes every dependency of a test to the compiler: an
 * included .c would be compiled twice.
 *
 * What it does with the bytes, once as they are and once with the header
 * checksum recomputed (so mutated indexes reach the parser): open from memory, list devices, sources and
 * entries, look each entry's key up again, and decode every binary and
 * source (size query, then into an exact buffer). It calls no OpenCL
 * function; clcpack_create_program's hand-off to the driver is covered by
 * tests/device/test_corrupt_pocl.c. Include it in one file per program.
 */
#ifndef CLC_FUZZ_TARGET_H
#define CLC_FUZZ_TARGET_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "clcpack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A failed decode must leave a message; an empty one would mean a path that
 * forgot to explain itself. Crashing makes libFuzzer keep the input. */
static void require(int cond)
{
    if (!cond)
        __builtin_trap();
}

static void decode_one(const clcpack *p, size_t i, int is_source, uint64_t declared)
{
    clcpack_error err;
    size_t need = 0;
    clcpack_status st = is_source ? clcpack_read_source(p, i, NULL, 0, &need, &err)
                                  : clcpack_read_binary(p, i, NULL, 0, &need, &err);
    if (st != CLCPACK_OK) {
        require(err.message[0] != '\0');
        return;
    }
    require(need == declared);
    /* +1 so a zero-size blob still gets a real pointer; the extra byte is
     * a canary the decoder must not touch. */
    uint8_t *buf = malloc(need + 1);
    if (!buf)
        return;
    buf[need] = 0xA5;
    size_t got = 0;
    st = is_source ? clcpack_read_source(p, i, buf, need, &got, &err)
                   : clcpack_read_binary(p, i, buf, need, &got, &err);
    if (st == CLCPACK_OK)
        require(got == need);
    else
        require(err.message[0] != '\0');
    require(buf[need] == 0xA5);
    free(buf);
}

static void lookup_entry(const clcpack *p, size_t i, const clcpack_entry_info *e)
{
    clcpack_key key = { e->kernel, e->defines, e->define_count,
                        { e->wg[0], e->wg[1], e->wg[2] } };
    size_t idx[8], count = 0;
    clcpack_error err;
    clcpack_status st = clcpack_find(p, &key, idx, 8, &count, &err);
    /* An entry's own key always finds at least that entry. */
    require(st == CLCPACK_OK && count >= 1);
    int seen = count > 8; /* beyond the buffer: cannot check membership */
    for (size_t k = 0; k < count && k < 8; k++) {
        require(idx[k] < clcpack_entry_count(p));
        if (idx[k] == i)
            seen = 1;
    }
    require(seen);
    /* A key that differs only in its work-group must not find this entry. */
    key.wg[0] ^= 0x80000000u;
    st = clcpack_find(p, &key, idx, 8, &count, &err);
    for (size_t k = 0; st == CLCPACK_OK && k < count && k < 8; k++)
        require(idx[k] != i);
}

static uint64_t fz_le64(const uint8_t *b)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

/* A copy of the input whose header checksum is made right again, or NULL
 * when its header does not say where the index is. Almost every mutation
 * breaks the CRC, so without this the index parser behind the check would
 * only ever see the corpus packs' own indexes. */
static uint8_t *with_checksum_fixed(const uint8_t *data, size_t size)
{
    if (size < 64)
        return NULL;
    uint64_t header = (uint64_t)data[12] | (uint64_t)data[13] << 8 | (uint64_t)data[14] << 16 |
                      (uint64_t)data[15] << 24;
    uint64_t index_offset = fz_le64(data + 24), index_size = fz_le64(data + 32);
    if (header < 48 || header > size || index_offset > size || index_size > size - index_offset)
        return NULL;
    uint8_t *copy = malloc(size);
    if (!copy)
        return NULL;
    memcpy(copy, data, size);
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32(crc, copy, 44);
    crc = crc32(crc, copy + 48, (uInt)(header - 48));
    crc = crc32(crc, copy + index_offset, (uInt)index_size);
    for (int i = 0; i < 4; i++)
        copy[44 + i] = (uint8_t)(crc >> (8 * i));
    return copy;
}

static void exercise(const uint8_t *data, size_t size)
{
    clcpack *p = NULL;
    clcpack_error err;
    if (clcpack_open_memory(data, size, &p, &err) != CLCPACK_OK) {
        require(p == NULL && err.message[0] != '\0');
        return;
    }
    for (size_t i = 0; i < clcpack_device_count(p); i++) {
        clcpack_device_info d = {.struct_size = sizeof d};
        require(clcpack_get_device(p, i, &d) == CLCPACK_OK);
        require(memchr(d.device_name, 0, sizeof d.device_name) != NULL);
    }
    require(clcpack_get_device(p, clcpack_device_count(p),
                               &(clcpack_device_info){.struct_size = sizeof(clcpack_device_info)}) ==
            CLCPACK_E_NOT_FOUND);
    for (size_t i = 0; i < clcpack_source_count(p); i++) {
        clcpack_source_info s = {.struct_size = sizeof s};
        require(clcpack_get_source(p, i, &s) == CLCPACK_OK);
        require(s.name != NULL && strlen(s.name) < 1u << 20);
        decode_one(p, i, 1, s.raw_size);
    }
    for (size_t i = 0; i < clcpack_entry_count(p); i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        require(clcpack_get_entry(p, i, &e) == CLCPACK_OK);
        require(e.device < clcpack_device_count(p));
        require(e.source == CLCPACK_NONE || e.source < clcpack_source_count(p));
        lookup_entry(p, i, &e);
        decode_one(p, i, 0, e.raw_size);
    }
    clcpack_close(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    exercise(data, size);
    uint8_t *fixed = with_checksum_fixed(data, size);
    if (fixed) {
        exercise(fixed, size);
        free(fixed);
    }
    return 0;
}

#endif /* CLC_FUZZ_TARGET_H */
