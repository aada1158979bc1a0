/* embed_codecs.h — `clc-pack embed --loader-codecs`: refusing to embed a
 * pack the library that will open it cannot decode (docs/CLI.md, "embed"). */
#ifndef CLC_EMBED_CODECS_H
#define CLC_EMBED_CODECS_H

#include <stddef.h>

#include "clcpack.h"

enum { LOADER_ZLIB = 1, LOADER_ZSTD = 2 };

/* A comma-separated list of "zlib" and "zstd" as LOADER_* bits; -1 with
 * why filled when a name is neither. */
int embed_loader_codecs(const char *list, unsigned *mask, char *why, size_t cap);

/* 0 when every blob of p decodes with the codecs in mask; else prints why
 * not and what to do (naming path and, by_default, that --format rc chose
 * the list) and returns -1. */
int embed_check_codecs(const clcpack *p, const char *path, unsigned mask, int by_default);

#endif
