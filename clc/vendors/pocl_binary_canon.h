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
 * program.bc, every kernel's generic function, and every form of the
 * variant's local size (small and large grid, with and without a global
 * offset: loader/common/pocl_binary.h) of its kernel, or of every kernel for a
 * whole program; files are sorted by path. Loading is unchanged: PoCL
 * unpacks files by name.
 *
 * Understands the layout PoCL 3.1 writes (binary format version 9, read by
 * loader/common/pocl_binary.h); any other input is left as it is. Pure function
 * over bytes, no printing.
 */
#ifndef CLC_POCL_BINARY_CANON_H
#define CLC_POCL_BINARY_CANON_H

#include <stddef.h>
#include <stdint.h>

#include "pocl_binary.h"

#define POCL_BINARY_CANON_VERSION CLCPK_POCL_BINARY_VERSION

/* For kernel `kernel` built with local size wg (all 0: none compiled in),
 * which keeps the four forms of wg ("W-H-D-goffs0-smallgrid", "W-H-D-
 * smallgrid", "W-H-D-goffs0", "W-H-D": loader/common/pocl_binary.h); kernel NULL
 * for a whole program, whose every kernel keeps them. The
 * random temporary file names PoCL compiled from are scrubbed
 * (pocl_binary_canon_scrub_temp_names), and the random build hash PoCL writes with its
 * cache off ("_UNCACHED_XXXXXX") becomes a digest of the binary's bytes.
 * Returns 0 with *out (malloc'd, caller frees) and *out_size when the
 * binary was rewritten; 1 when it is not a PoCL binary of a known layout
 * (nothing is allocated; why says why, for -v); -1 when out of memory. */
int pocl_binary_canon_canonicalize(const unsigned char *bin, size_t size, const char *kernel,
                     const uint32_t wg[3], unsigned char **out, size_t *out_size, char *why,
                     size_t why_cap);

/* The same keeping the forms of wg in the mask forms (bits 1u << form of
 * clcpk_pocl_form) alone: what a build that asked PoCL for those made. */
int pocl_binary_canon_canonicalize_forms(const unsigned char *bin, size_t size, const char *kernel,
                                         const uint32_t wg[3], unsigned forms, unsigned char **out,
                                         size_t *out_size, char *why, size_t why_cap);

/* The same with every file of every kernel kept, in canonical order, and
 * the temporary names scrubbed: a program's binary as the application's
 * launches left it (`clc-pack record`, docs/RECORD.md). */
int pocl_binary_canon_canonicalize_all(const unsigned char *bin, size_t size, unsigned char **out,
                         size_t *out_size, char *why, size_t why_cap);

/* A file to add to a kernel of a PoCL binary (pocl_binary_canon_canonicalize_all_more):
 * path "/KERNEL/SPEC/NAME" as PoCL stores it, and its bytes. */
typedef struct pocl_binary_canon_file {
    char *path;
    unsigned char *data;
    size_t size;
} pocl_binary_canon_file;

/* Gives the files to add to the kernel named name[0..len): *files (a
 * malloc'd array of *n, each path and data malloc'd; the canonicalizer
 * frees them). 0, or -1 when out of memory. */
typedef int (*pocl_binary_canon_more_fn)(const char *name, size_t len, pocl_binary_canon_file **files, size_t *n,
                           void *user);

/* pocl_binary_canon_canonicalize_all, with the files more() gives for each kernel added
 * where the binary has no file of that path; *added counts them. */
int pocl_binary_canon_canonicalize_all_more(const unsigned char *bin, size_t size, pocl_binary_canon_more_fn more,
                              void *user, size_t *added, unsigned char **out, size_t *out_size,
                              char *why, size_t why_cap);

/* PoCL's name of the program's folder in its kernel cache, from the
 * binary's header ("GL/EKDG...", 40 characters at most), into out. 0, or -1
 * when bin is not a PoCL binary of a known layout or the name is not one
 * PoCL makes (letters, digits, '_', one '/' after two characters). */
#define POCL_BINARY_CANON_HASH_MAX 42
int pocl_binary_canon_build_hash(const unsigned char *bin, size_t size, char out[POCL_BINARY_CANON_HASH_MAX]);

/* Two binaries of one program (the same header, program.bc and kernels;
 * the work-group functions their launches compiled may differ, as two
 * records of one program with other launches do; program.bc may differ in
 * the metadata kinds only, llvm_bitcode_same.h, as records made by two
 * command lines of one application do) joined into one holding every file
 * of both, in canonical order (a's copy where both have a path; where
 * program.bc differs, the binary of the shorter, then lower, program.bc
 * takes a's place). Returns 0 with *out (malloc'd), 1 with why when they
 * are not binaries of one program of a known layout, -1 when out of
 * memory. */
int pocl_binary_canon_union(const unsigned char *a, size_t a_size, const unsigned char *b, size_t b_size,
              unsigned char **out, size_t *out_size, char *why, size_t why_cap);

/* Replaces the six random characters of every "tempfile_XXXXXX" and
 * "clcpack-record-XXXXXX" in buf, as bytes or as LLVM bitcode's packed
 * 7-bit characters, by "000000". */
void pocl_binary_canon_scrub_temp_names(unsigned char *buf, size_t size);

/* Whether the program.bc of a PoCL binary of the layout known here is LLVM
 * bitcode that parses to its end (llvm_bitstream.h): 1 when it is, or when
 * bin is not of that layout; 0 when not (why says where); -1 when out of
 * memory. A binary's WG functions let PoCL load it without reading
 * program.bc, so changed bitcode can pass a load and sit in a pack until a
 * launch at a new size compiles from it: this catches it before. */
int pocl_binary_canon_bitcode_parses(const unsigned char *bin, size_t size, char *why,
                                     size_t why_cap);

#endif /* CLC_POCL_BINARY_CANON_H */
