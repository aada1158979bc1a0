/*
 * key_miss.h — the message for a key no entry has (key_miss.c): what the
 * pack has instead, the nearest entries or the nearest name. A load-only
 * library may leave it out (make LOAD_NEAREST=0, loader/README.md): a
 * miss then names the key alone.
 */
#ifndef CLCPACK_KEY_MISS_H
#define CLCPACK_KEY_MISS_H

#include "errors.h"
#include "key_hash.h"
#include "pack_reader.h"

#ifdef CLCPK_NO_NEAREST
static inline clcpack_status clcpk_key_not_found(const clcpack *p, const clcpack_key *key,
                                                 clcpack_error *err)
{
    char desc[320];
    (void)p;
    clcpk_describe_key(key, desc, sizeof desc);
    return clcpk_fail(err, CLCPACK_E_NOT_FOUND, "no entry for %s", desc);
}
static inline const char *clcpk_nearest_name(const clcpack *p, const char *name)
{
    (void)p, (void)name;
    return NULL;
}
#else
/* CLCPACK_E_NOT_FOUND for a key no entry has, saying what the pack has
 * instead: its nearest entries of that name, or the nearest name when no
 * entry answers to it. Needs the whole index read. */
clcpack_status clcpk_key_not_found(const clcpack *p, const clcpack_key *key, clcpack_error *err);

/* The name (a kernel's or a program's) the pack's entries answer to that
 * is nearest to name in edit distance, or NULL for a pack without
 * entries. Needs the whole index read. */
const char *clcpk_nearest_name(const clcpack *p, const char *name);
#endif

#endif /* CLCPACK_KEY_MISS_H */
