/*
 * pack_inspect.c — the functions of clcpack_inspect.h that read a pack
 * beyond what a load needs (clcpack_check_index is lookup_check.c's): which
 * library wrote it, its dictionaries, an entry's group label, the SHA-256
 * of bytes and of the whole pack, an offline target's arch. A load-only
 * build leaves this file and lookup_check.c out with LOAD_INSPECT=0
 * (loader/README.md).
 */
#include <stdlib.h>

#include "clcpack_inspect.h"
#include "pack_format.h"
#include "pack_io.h"
#include "pack_lookup.h"
#include "pack_reader.h"
#include "sha256.h"
#include "struct_size.h"
#include "target_match.h"

uint32_t clcpack_writer_version(const clcpack *p)
{
    if (!p)
        return 0;
    const uint8_t *b = p->header + PK_OFF_WRITER_VERSION;
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

size_t clcpack_dictionary_count(const clcpack *p) { return p ? p->n_dicts : 0; }

clcpack_status clcpack_get_dictionary(const clcpack *p, size_t i, clcpack_dictionary_info *out)
{
    if (!p)
        return CLCPACK_E_INVALID_ARG;
    if (!p->dicts)
        return out && clcpk_size_ok(out, CLCPK_DICTIONARY_INFO_1_0) ? CLCPACK_E_NOT_FOUND
                                                                    : CLCPACK_E_INVALID_ARG;
    return clcpk_get_item(&p->dicts->info, sizeof *p->dicts, p->n_dicts, i,
                          sizeof p->dicts->info, CLCPK_DICTIONARY_INFO_1_0, out);
}

clcpack_status clcpack_get_entry_family(const clcpack *p, size_t i, const char **family)
{
    if (!p || !family)
        return CLCPACK_E_INVALID_ARG;
    if (i >= p->n_entries)
        return CLCPACK_E_NOT_FOUND;
    clcpack_status st = clcpk_entry_ready(p, i, NULL);
    if (st != CLCPACK_OK)
        return st;
    *family = p->entries[i].family;
    return CLCPACK_OK;
}

void clcpack_digest_sha256(const void *data, size_t size, uint8_t out[32])
{
    clcpk_digest_sha256(data, size, out);
}

clcpack_status clcpack_pack_sha256(const clcpack *p, uint8_t out[32])
{
    if (!p || !out)
        return CLCPACK_E_INVALID_ARG;
    clcpk_sha256 s;
    clcpk_sha256_init(&s);
    if (p->data) {
        clcpk_sha256_update(&s, p->data, (size_t)p->size);
    } else {
        /* A file pack is hashed in pieces through one buffer: hashing a
         * multi-GB pack does not hold it in memory. */
        const size_t piece = (size_t)1 << 20;
        uint8_t *buf = malloc(piece);
        if (!buf)
            return CLCPACK_E_NOMEM;
        char why[600];
        for (uint64_t at = 0; at < p->size; at += piece) {
            size_t n = p->size - at < piece ? (size_t)(p->size - at) : piece;
            clcpack_status st = clcpk_read_at(p->fd, p->path, buf, n, at, NULL, why, sizeof why);
            if (st != CLCPACK_OK) {
                free(buf);
                return st;
            }
            clcpk_sha256_update(&s, buf, n);
        }
        free(buf);
    }
    clcpk_sha256_final(&s, out);
    return CLCPACK_OK;
}

clcpack_status clcpack_target_arch(clcpack_binary_kind kind, const char *target, uint32_t *arch)
{
    if (!target || !arch)
        return CLCPACK_E_INVALID_ARG;
    if (kind == CLCPACK_KIND_AMDGCN) {
        pk_gfx g;
        if (clcpk_gfx_parse(target, 0, &g) != 0)
            return CLCPACK_E_INVALID_ARG;
        *arch = clcpk_gfx_arch(&g);
        return CLCPACK_OK;
    }
    if (kind == CLCPACK_KIND_SPIRV)
        return clcpk_spirv_parse(target, arch) == 0 ? CLCPACK_OK : CLCPACK_E_INVALID_ARG;
    return CLCPACK_E_INVALID_ARG;
}
