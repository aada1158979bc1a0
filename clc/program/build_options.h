/*
 * build_options.h — the one builder of a build job's options (the text
 * handed to clBuildProgram and stored in the pack): the manifest's
 * variants (manifest_expand.c) and the direct mode's (direct_jobs.c)
 * both assemble theirs here, so the same defines give the same text.
 *
 * The options are joined by single spaces, in the order they are added;
 * a define is -DNAME=VALUE, or -DNAME without a value; a work-group is
 * -DWG_X=.. -DWG_Y=.. -DWG_Z=.. for as many axes as the caller gives.
 * The text is bounded by the caller's limit: past it, too_long is set and
 * every later add is ignored, and the caller names the limit in its error.
 */
#ifndef CLC_BUILD_OPTIONS_H
#define CLC_BUILD_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

typedef struct build_options {
    strbuf sb;
    size_t max;   /* the text's bound, its NUL included */
    int too_long; /* an add went past max; every later add is ignored */
} build_options;

/* An empty builder whose text, with its NUL, may take max bytes. */
void build_options_init(build_options *b, size_t max);
/* One option (or several, already joined), after a space unless first. */
void build_options_add(build_options *b, const char *opt);
/* -DNAME=VALUE; -DNAME when value is NULL. */
void build_options_define(build_options *b, const char *name, const char *value);
/* -DWG_X=wg[0], then WG_Y and WG_Z, for the first n_axes axes (0 to 3). */
void build_options_wg(build_options *b, const uint32_t wg[3], int n_axes);
/* The text (NUL-terminated, malloc'd; "" when nothing was added) into
 * *out, and b emptied: 0, or -1 (b->too_long says whether it was the
 * bound, else memory), *out NULL and b freed. */
int build_options_take(build_options *b, char **out);
void build_options_free(build_options *b);

#endif /* CLC_BUILD_OPTIONS_H */
