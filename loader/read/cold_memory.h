/*
 * cold_memory.h — the tables of an open pack, as a cold start wants them
 * (cold_memory.c).
 *
 * An application loads a kernel in a fresh process, where every page the
 * loader writes for the first time is a page fault. A pack opened through
 * its lookup table reads the records of the few entries a load needs, but
 * its tables have a row for every entry: cleared whole by calloc, those of
 * the 2,112-entry design-card pack cost 0.034-0.043 ms of a 2.2 ms cold load on
 * an H100 host. Mapped from the kernel, only the pages of the rows a load
 * touches are ever faulted in: docs/ARCHITECTURE.md, "Memory at a cold
 * start".
 */
#ifndef CLCPACK_COLD_MEMORY_H
#define CLCPACK_COLD_MEMORY_H

#include <stddef.h>

/* A zeroed table of count items of size bytes (count 0 is taken as 1), or
 * NULL; a large one is mapped, a small one calloc'd. Freed with
 * clcpk_table_free and the same count and size. */
void *clcpk_table_new(size_t count, size_t size);
void clcpk_table_free(void *table, size_t count, size_t size);

#endif
