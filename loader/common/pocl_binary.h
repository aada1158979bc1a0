/*
 * pocl_binary.h — reading a PoCL program binary (the layout PoCL 3.1
 * writes, binary format version 9) and which of PoCL's work-group
 * functions it holds, for the tool and the library alike: the tool makes
 * binaries canonical with it (clc/vendors/pocl_binary_canon.h) and says in
 * `verify` which first launches will compile; the library says so in a
 * load's report (docs/vendors/POCL.md).
 *
 * A PoCL binary is a snapshot of the program's folder in PoCL's kernel
 * cache: program.bc, then per kernel its files, each "/KERNEL/SPEC/NAME",
 * where SPEC names the work-group function: "0-0-0" the generic one, else
 * the local size and the specializations of PoCL's cache key (below).
 *
 * Pure functions over bytes: nothing here allocates, prints or calls
 * OpenCL. Every size read from the bytes is checked before it is used.
 */
#ifndef CLCPK_POCL_BINARY_H
#define CLCPK_POCL_BINARY_H

#include <stddef.h>
#include <stdint.h>

#define CLCPK_POCL_BINARY_VERSION 9
/* Limits of what a binary may hold; a binary over them is "not of the
 * known layout" (PoCL's own programs hold a few kernels of a few files). */
#define CLCPK_POCL_MAX_KERNELS 4096
#define CLCPK_POCL_MAX_FILES 4096

/* One kernel's record: pointers into the binary. */
typedef struct clcpk_pocl_kernel {
    const uint8_t *rec; /* the whole record */
    size_t rec_size;
    size_t meta_size;   /* its bytes before the files */
    const char *name;   /* not NUL-terminated */
    size_t name_len;
} clcpk_pocl_kernel;

/* One file record: pointers into the binary. */
typedef struct clcpk_pocl_file {
    const uint8_t *rec; /* the whole record: u32 path length, path, u32 length, contents */
    size_t rec_size;
    const char *path;   /* "/KERNEL/SPEC/NAME", not NUL-terminated */
    size_t path_len;
} clcpk_pocl_file;

/* What clcpk_pocl_walk calls, in the binary's order: begin once (the
 * kernel count, and the bytes of the header and the program.bc record),
 * then each kernel and each file of it. A non-zero return stops the walk
 * and becomes its result. Any of them may be NULL. */
typedef struct clcpk_pocl_visitor {
    int (*begin)(void *ctx, uint32_t n_kernels, size_t head_size);
    int (*kernel)(void *ctx, uint32_t k, const clcpk_pocl_kernel *kernel);
    int (*file)(void *ctx, uint32_t k, const clcpk_pocl_file *file);
} clcpk_pocl_visitor;

/* Walks bin[0..size). 0 when it is a binary of the known layout, walked
 * whole; 1 when it is not (why, which may be NULL with why_cap 0, says
 * why; the visitor may have been called for the part before the fault);
 * else the visitor's non-zero value. */
int clcpk_pocl_walk(const uint8_t *bin, size_t size, const clcpk_pocl_visitor *v, void *ctx,
                    char *why, size_t why_cap);

/* The SPEC folder of a file ("16-16-1-goffs0-smallgrid" of
 * "/K/16-16-1-goffs0-smallgrid/K.so") and *len, when it is named by a
 * local size ("W-H-D", or "W-H-D-" and more); else NULL. */
const char *clcpk_pocl_wg_folder(const clcpk_pocl_file *f, size_t *len);


/* PoCL 3.1 compiles a kernel's work-group function for a launch's local
 * size, specialized on two more things (its cache key, lib/CL/pocl_cache.c):
 * whether the global offset is 0 in every dimension ("goffs0"), and whether
 * the grid is small: every dimension of the global size below 65535
 * work-items, USHRT_MAX, the grid_width_specialization_limit of PoCL 3.1's
 * CPU devices (lib/CL/devices/common.c; its test takes the third dimension
 * as the local size squared, not the global size). One folder per form,
 * "W-H-D" then the suffix: */
typedef enum clcpk_pocl_form {
    CLCPK_POCL_GOFFS0_SMALLGRID = 0, /* "-goffs0-smallgrid": no offset, small grid */
    CLCPK_POCL_SMALLGRID = 1,        /* "-smallgrid": an offset, small grid */
    CLCPK_POCL_GOFFS0 = 2,           /* "-goffs0": no offset, large grid */
    CLCPK_POCL_ANY = 3,              /* "": an offset, large grid (serves any launch) */
    CLCPK_POCL_N_FORMS = 4
} clcpk_pocl_form;
#define CLCPK_POCL_ALL_FORMS 15u
#define CLCPK_POCL_SMALLGRID_LIMIT 65535u

/* The folder suffix of form f ("" for CLCPK_POCL_ANY and out-of-range f). */
const char *clcpk_pocl_form_suffix(clcpk_pocl_form f);

/* The form (clcpk_pocl_form) that folder s[0..len) is of local size wg (a
 * size of 0 in y or z read as 1), or -1 when it is none of wg's four:
 * another size, another suffix, or wg {0,0,0}. */
int clcpk_pocl_folder_form(const char *s, size_t len, const uint32_t wg[3]);

/* The forms of local size wg (bit 1u << form) that the kernel named
 * kernel[0..kernel_len) holds in bin; kernel NULL: those every kernel of
 * the binary holds. 0 with *held, or 1 when bin is not a PoCL binary of the
 * known layout (or names no such kernel). */
int clcpk_pocl_forms_held(const uint8_t *bin, size_t size, const char *kernel, size_t kernel_len,
                          const uint32_t wg[3], unsigned *held);

/* The first launches at local size wg ("64x1x1") that compile a
 * work-group function, given the forms held (clcpk_pocl_forms_held), as
 * one phrase: "first launches with a grid dimension of 65535 work-items or
 * more compile their work-group function (any global offset)"; "" when
 * every form is held. Always NUL-terminated (cap > 0). */
void clcpk_pocl_forms_missing_text(unsigned held, const char *wg, char *buf, size_t cap);

#endif /* CLCPK_POCL_BINARY_H */
