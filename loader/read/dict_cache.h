/*
 * dict_cache.h — the functions of dict_cache.c: a pack's dictionaries
 * (format 4), each loaded once, the first time a blob needs it. Internal
 * to libclcpack.
 */
#ifndef CLCPACK_DICT_CACHE_H
#define CLCPACK_DICT_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "pack_reader.h"

/* Dictionary i, loaded (and its CRC-32 checked) the first time it is asked
 * for and kept until clcpack_close. Thread-safe. */
clcpack_status clcpk_dict_get(const clcpack *p, size_t i, const clcpk_zdict **out, char *why,
                              size_t why_cap);

/* How many dictionaries this handle has loaded: each once, at most. */
uint32_t clcpk_dict_loads(const clcpack *p);

/* Frees the loaded dictionaries and their lock (no decode may be running;
 * p->dicts is not freed). */
void clcpk_dicts_free(clcpack *p);

#endif /* CLCPACK_DICT_CACHE_H */
