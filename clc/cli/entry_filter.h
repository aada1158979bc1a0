/*
 * entry_filter.h — how the subcommands that pick entries out of a pack
 * (extract, best) read a kernel name and -D NAME=VALUE: one reading, so
 * that `--kernel box_blur -D RADIUS=2` names the same entries in both.
 */
#ifndef CLC_ENTRY_FILTER_H
#define CLC_ENTRY_FILTER_H

#include <stddef.h>

#include "clcpack.h"
#include "cli_opts.h"

#define ENTRY_FILTER_MAX_DEFINES 16
#define ENTRY_FILTER_NAME_MAX 64

/* The -D NAME=VALUE of a command line, in order. defs[i].name points into
 * names[i], defs[i].value into argv: ready for clcpack_best_variant. */
typedef struct entry_filter_defines {
    size_t n;
    char names[ENTRY_FILTER_MAX_DEFINES][ENTRY_FILTER_NAME_MAX];
    clcpack_define defs[ENTRY_FILTER_MAX_DEFINES];
} entry_filter_defines;

/* -D NAME=VALUE into the entry_filter_defines field of the argument struct
 * (OPT_CALL_AT). */
int entry_filter_opt_define(void *args, cli_optctx *c);

/* Whether e is named name: its kernel, or the program's name, or any
 * kernel a program entry holds (as the loader finds it). */
int entry_filter_named(const clcpack_entry_info *e, const char *name);

/* Whether e has every define of d, with that value. */
int entry_filter_has_defines(const clcpack_entry_info *e, const entry_filter_defines *d);

/* " (box_blur, sharpen)": the kernels a program entry holds, as a message
 * shows them after the program's name, into buf (cap bytes); "" for an
 * entry of one kernel, or of one kernel of the program's own name. */
void entry_filter_kernels_text(const clcpack_entry_info *e, char *buf, size_t cap);

/* Whether an entry of p is named name (entry_filter_named): 1; else 0 with
 * held (cap bytes) listing the first programs and kernels p holds, for the
 * message ("blur (box_blur, sharpen), sobel"), and hint (hint_cap bytes)
 * "; did you mean NAME?" when one of them is a likely typo of name, else "". */
int entry_filter_pack_has(const clcpack *p, const char *name, char *held, size_t cap,
                          char *hint, size_t hint_cap);

#endif /* CLC_ENTRY_FILTER_H */
