/*
 * pack_merge.h — the machinery of `clc-pack merge` (pack_merge.c) for the
 * commands that copy packs: open the inputs, choose each entry once (a
 * conflict is named and nothing is written), copy every device, source,
 * entry and tuning into one new pack, write it atomically. A hook may
 * change each entry on its way and add entries of its own (`clc-pack
 * retarget` adds cubins this way).
 */
#ifndef CLC_PACK_MERGE_H
#define CLC_PACK_MERGE_H

#include <stddef.h>

#include "clcpack_write.h"
#include "nv_forms.h"

typedef struct merge_hook {
    void *ctx;
    /* Called for each entry chosen, with spec filled (its binary decoded
     * and CRC-checked, device and source already mapped to the writer's
     * indices) just before it is added to w with its tunings. It may change
     * spec's binary, binary_size and arch (the bytes must stay valid until
     * its next call or the end of pack_merge_run) and add entries to w. pack
     * is the input the entry comes from (path names it), index its entry
     * there. Returns 0, or -1 after printing an error (nothing is written). */
    int (*entry)(void *ctx, const char *path, const clcpack *pack, size_t index,
                 clcpack_writer *w, clcpack_entry_spec *spec);
} merge_hook;

typedef struct merge_args {
    const char *output;
    int compress_cubins;        /* --compress-cubins */
    int store_cubins;           /* --store-cubins */
    clcpack_compression codec;  /* --codec, default the library's */
    const char **inputs;
    size_t n_inputs;
    const merge_hook *hook;     /* NULL: entries copied as they are */
    unsigned threads;           /* encoding threads; 0: the online CPUs */
    /* An entry that two inputs hold with other bytes (that cannot be
     * joined) is a conflict, and nothing is written; with keep_first the
     * earlier input's entry is kept instead, counted in merge_stats.kept
     * (`clc-pack record` adds to a pack this way: what is recorded stays).
     * The output then depends on the inputs' order. */
    int keep_first;
} merge_args;

typedef struct merge_stats {
    size_t entries;             /* entries chosen from the inputs */
    size_t dups;                /* duplicates dropped */
    size_t joined;              /* records of one program on PoCL joined (pocl_binary_canon_union) */
    size_t kept;                /* keep_first: later entries dropped for an earlier one */
} merge_stats;

/* The most ptxas runs pack_retarget_file keeps going at once. */
#define PACK_RETARGET_MAX_JOBS 256

/* `clc-pack retarget`'s work as a function: every PTX entry of input in
 * its portable form with a cubin for each of archs (ptxas a path from
 * ptxas_find), everything else copied, into output. Prints its errors and,
 * unless -q, one summary line. Returns an exit status. */
int pack_retarget_file(const char *input, const char *output, const nv_forms_archs *archs,
                  const char *ptxas, uint32_t cubin_flags, clcpack_compression codec, long jobs);

/* The writer flags of --compress-cubins and --store-cubins
 * (CLCPACK_WRITE_COMPRESS_CUBINS, CLCPACK_WRITE_STORE_CUBINS) into *flags;
 * a usage error naming both, for `cmd`, when both are given. */
int pack_merge_cubin_flags(const char *cmd, int compress, int store, uint32_t *flags);

/* Does the whole merge; prints its errors. Returns an exit status
 * (cli_report.h): EXIT_OK_STATUS with *stats filled, else
 * EXIT_FAILURE_STATUS and the output untouched. */
int pack_merge_run(const merge_args *x, merge_stats *stats);

#endif /* CLC_PACK_MERGE_H */
