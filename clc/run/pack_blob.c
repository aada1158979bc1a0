#include "pack_blob.h"

#include <stdio.h>
#include <stdlib.h>

static clcpack_status read_into(const clcpack *p, pack_blob_kind kind, size_t index, void *buf,
                                size_t cap, size_t *size, clcpack_error *err)
{
    return kind == PACK_BLOB_SOURCE ? clcpack_read_source(p, index, buf, cap, size, err)
                             : clcpack_read_binary(p, index, buf, cap, size, err);
}

unsigned char *pack_blob_read(const clcpack *p, pack_blob_kind kind, size_t index, size_t *size,
                       clcpack_error *err)
{
    *size = 0;
    if (read_into(p, kind, index, NULL, 0, size, err) != CLCPACK_OK)
        return NULL;
    unsigned char *buf = malloc(*size ? *size : 1);
    if (!buf) {
        err->status = CLCPACK_E_NOMEM;
        snprintf(err->message, sizeof err->message, "out of memory for %zu bytes", *size);
        return NULL;
    }
    if (read_into(p, kind, index, buf, *size, size, err) != CLCPACK_OK) {
        free(buf);
        return NULL;
    }
    return buf;
}
