/*
 * cold_memory.c — zeroed tables, the large ones mapped from the kernel
 * (cold_memory.h says why).
 */
#include "cold_memory.h"

#include <stdint.h>
#include <stdlib.h>

#include "platform.h"

/* Below this a table comes from calloc, which clears it whole: a few
 * pages, about what a mapping costs (a system call, and one page of it
 * faulted per group of entries read). */
#define TABLE_MAP_MIN ((size_t)16 << 10)

/* The table's bytes; 0 when count * size overflows. */
static size_t table_bytes(size_t count, size_t size)
{
    if (count == 0)
        count = 1;
    return size && count > SIZE_MAX / size ? 0 : count * size;
}

void *clcpk_table_new(size_t count, size_t size)
{
    size_t n = table_bytes(count, size);
    if (n == 0)
        return NULL;
    if (n < TABLE_MAP_MIN)
        return calloc(1, n);
    /* Anonymous pages read as zeros and are faulted in when first used:
     * a load that reads 8 of 13,000 entries touches a page or two of a
     * 2.7 MB table. */
    return clcpk_os_pages_alloc(n);
}

void clcpk_table_free(void *table, size_t count, size_t size)
{
    size_t n = table_bytes(count, size);
    if (!table)
        return;
    if (n < TABLE_MAP_MIN)
        free(table);
    else
        clcpk_os_pages_free(table, n);
}
