/*
 * entry_key.h — whether two entries have the same key (kernel, defines,
 * work-group), or the same defines. The library's lookups and best-variant
 * choice and the tool's verify, merge and warm compare keys this one way.
 */
#ifndef CLCPK_ENTRY_KEY_H
#define CLCPK_ENTRY_KEY_H

#include "clcpack.h"

/* 1 when a and b have the same define set, names and values (both lists
 * sorted by name, as every entry's are), else 0. */
int clcpk_same_defines(const clcpack_entry_info *a, const clcpack_entry_info *b);

/* 1 when a and b have the same key: kernel name, define set and
 * work-group; the form and target do not count. Else 0. */
int clcpk_same_key(const clcpack_entry_info *a, const clcpack_entry_info *b);

#endif /* CLCPK_ENTRY_KEY_H */
