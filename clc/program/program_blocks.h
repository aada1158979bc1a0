/*
 * program_blocks.h — the manifest's program blocks: any OpenCL program,
 * described in the kernels folder the way the direct command line
 * describes it (docs/MANIFEST.md, "Program blocks"):
 *
 *   program NAME
 *     source   a.h b.cl            files of the folder, one program, in order
 *     include  inc                 -I folders, relative to the folder
 *     options  -cl-fast-relaxed-math
 *     define   TS=16,32            as -D (define NAME alone: no value)
 *     derive   RTS = TS / WPT      as --derive
 *     where    TS % WPT == 0       as --where
 *     wg       TS,RTS              as --wg
 *     variant  TS=32,WPT=8         as --variant
 *     default  TS=32               as --default
 *     kernel   sgemm               a kernel the program must hold
 *     wg_defines                   as --wg-defines
 *     check_cmd ./test {binary}    as --check-cmd, the same placeholders
 *     tune_cmd  ./time {binary}    as --tune-cmd
 *   end
 *
 * Each block becomes a direct_jobs_spec of one program, its lines that
 * spec's axes (direct_axes.h), built like a direct command line
 * (direct_jobs.h). Kernel blocks are read by manifest.c, which skips these.
 */
#ifndef CLC_PROGRAM_BLOCKS_H
#define CLC_PROGRAM_BLOCKS_H

#include <stddef.h>

#include "direct_jobs.h"

#define PROGRAM_BLOCKS_ERR_MAX 1024

typedef struct program_block {
    char *name;
    int line;            /* of its 'program' line */
    direct_jobs_spec spec;        /* its arrays point at strings the block owns */
    struct program_blocks_strings *strings;
} program_block;

typedef struct program_blocks_list {
    size_t n;
    program_block *blocks;
} program_blocks_list;

/* Reads the program blocks of DIR/manifest.txt (none is fine). Paths in
 * them become DIR/path. 0, or -1 with err "manifest.txt:LINE: what". */
int program_blocks_load(const char *dir, program_blocks_list *out, char err[PROGRAM_BLOCKS_ERR_MAX]);
void program_blocks_free(program_blocks_list *l);

#endif /* CLC_PROGRAM_BLOCKS_H */
