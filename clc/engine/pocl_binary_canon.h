/*
 * pocl_binary_canon.h — a canonical form of PoCL program binaries, so that
 * the same build gives the same bytes.
 *
 * A PoCL binary is a snapshot of the program's folder in PoCL's kernel
 * cache: program.bc, then per kernel the compiled work-group functions, one
 * folder per specialization ("0-0-0" generic, "16-16-1-goffs0-smallgrid"
 * for local size 16x16x1, zero offset, small grid), in readdir order. What
 * that folder holds depends on what else ran before: the sibling kernels of
 * the same source built with the same options share it, and any launch of
 * the program at another size adds a folder. The canonical form keeps
 * program.bc, every kernel's generic function, and the one specialization
 * the build's own check run produced for its kernel and work-group; files
 * are sorted by path. Loading is unchanged: PoCL unpacks files by name.
 *
 * Understands the layout PoCL 3.1 writes (binary format version 9); any
 * other input is left as it is. Pure function over bytes, no printing.
 */
#ifndef CLC_POCL_BINARY_CANON_H
#define CLC_POCL_BINARY_CANON_H

#include <stddef.h>
#include <stdint.h>

#define PCB_VERSION 9

/* For kernel `kernel` built with local size wg (all 0: none compiled in);
 * kernel NULL keeps every specialization of every kernel (only the order
 * of the files becomes canonical: `clc-pack record`).
 * Returns 0 with *out (malloc'd, caller frees) and *out_size when the
 * binary was rewritten; 1 when it is not a PoCL binary of a known layout
 * (nothing is allocated; why says why, for -v); -1 when out of memory. */
int pcb_canonicalize(const unsigned char *bin, size_t size, const char *kernel,
                     const uint32_t wg[3], unsigned char **out, size_t *out_size, char *why,
                     size_t why_cap);

#endif /* CLC_POCL_BINARY_CANON_H */
