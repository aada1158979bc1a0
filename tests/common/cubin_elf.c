/* cubin_elf.c — a cubin's ELF header (cubin_elf.h). */
#include "cubin_elf.h"

#include <stdio.h>
#include <string.h>

#define EHDR64_SIZE 64

static uint16_t le16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int cubin_elf_parse(const void *data, size_t size, cubin_elf *out, char *why)
{
    const unsigned char *b = data;
    memset(out, 0, sizeof *out);
    if (size < EHDR64_SIZE) {
        snprintf(why, 128, "%zu bytes, shorter than an ELF64 header", size);
        return -1;
    }
    if (memcmp(b, "\177ELF", 4) != 0) {
        snprintf(why, 128, "no ELF magic");
        return -1;
    }
    if (b[4] != 2 || b[5] != 1) {
        snprintf(why, 128, "not 64-bit little-endian ELF (class %u, data %u)", b[4], b[5]);
        return -1;
    }
    out->osabi = b[7];
    out->abi_version = b[8];
    out->machine = le16(b + 18);
    out->flags = le32(b + 48);
    out->sm = out->abi_version >= 8 ? (out->flags >> 8) & 0xffu : out->flags & 0xffu;
    return 0;
}
