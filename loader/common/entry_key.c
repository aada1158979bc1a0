/* entry_key.c — comparing entries' keys (entry_key.h). */
#include "entry_key.h"

#include <string.h>

int clcpk_same_defines(const clcpack_entry_info *a, const clcpack_entry_info *b)
{
    if (a->define_count != b->define_count)
        return 0;
    for (size_t i = 0; i < a->define_count; i++)
        if (strcmp(a->defines[i].name, b->defines[i].name) != 0 ||
            strcmp(a->defines[i].value, b->defines[i].value) != 0)
            return 0;
    return 1;
}

int clcpk_same_key(const clcpack_entry_info *a, const clcpack_entry_info *b)
{
    return strcmp(a->kernel, b->kernel) == 0 && memcmp(a->wg, b->wg, sizeof a->wg) == 0 &&
           clcpk_same_defines(a, b);
}
