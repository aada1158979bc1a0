/*
 * pocl_wg.h — every work-group function PoCL 3.1 keys a variant's local
 * size on, in the variant's binary, so that no first launch of it
 * compiles one (docs/vendors/POCL.md).
 *
 * PoCL puts into CL_PROGRAM_BINARIES the functions its variable
 * POCL_BINARY_SPECIALIZE_WG names ("W-H-D" and the folder suffixes of
 * loader/common/pocl_binary.h), and reads that variable once per process. Within
 * one process it compiles only one grid form per local size and offset
 * class: its table of loaded functions (lib/CL/devices/common.c,
 * fetch_dlhandle_cache_item) takes any function of the same local size and
 * offset class compiled for a grid at least as wide, and the requests made
 * for a binary carry no grid at all, so of "64-1-1-goffs0-smallgrid" and
 * "64-1-1-goffs0" the first named is compiled and the second found "done"
 * (measured with PoCL 3.1: the binary held whichever came first).
 *
 * So two processes make the four forms, each asking for one grid class:
 * before a variant's binary is taken, a helper process asks for the forms
 * of the variant's local size (pocl_wg_fill): it builds the same program
 * from source in the same PoCL kernel cache folder (the worker's: the same
 * POCL_CACHE_DIR, relative to the same current folder), where PoCL finds
 * program.bc and the functions compiled so far, compiles the ones it lacks
 * and leaves them there; the worker's binary, a snapshot of that folder,
 * then holds all four. One helper run asks for the large-grid forms; the
 * small-grid ones come from another, or, when every variant of the plan
 * has the same local size, from the worker's own environment
 * (pocl_wg_spec_jobs), which saves a process a variant. Naming several
 * sizes there instead would compile every size for every program.
 *
 * Nothing here prints.
 */
#ifndef CLC_POCL_WG_H
#define CLC_POCL_WG_H

#include <stddef.h>
#include <stdint.h>

#include "build_job.h"
#include "clcpack.h"

typedef enum pocl_wg_grid {
    POCL_WG_SMALL = 0, /* "W-H-D-goffs0-smallgrid,W-H-D-smallgrid" */
    POCL_WG_LARGE = 1  /* "W-H-D-goffs0,W-H-D" */
} pocl_wg_grid;

/* The forms of its local size a variant's binary holds (bits 1u << form
 * of loader/common/pocl_binary.h): all four, or with small_grids (--pocl-grids
 * small) the two small-grid ones. */
unsigned pocl_wg_forms(int small_grids);

/* The value of POCL_BINARY_SPECIALIZE_WG asking for the forms of one grid
 * class for the distinct local sizes sizes[0..n) (those whose first
 * dimension is 0, no local size, left out), comma-separated, zero offset
 * first: malloc'd, or NULL when there is none (or memory runs out). */
char *pocl_wg_spec_sizes(const uint32_t (*sizes)[3], size_t n, pocl_wg_grid grid);

/* The small-grid spelling of the one local size of jobs[0..n): what a
 * build worker has in its environment from its start (the value is read
 * at the process's first build and serves every later one). NULL when no
 * job has a local size, or when they have several (then each variant's
 * small-grid forms come from a helper run). A seed check's launch compiles
 * one of those forms too; PoCL then finds it compiled. */
char *pocl_wg_spec_jobs(const build_job *jobs, size_t n);

#define POCL_WG_ERR_MAX 1024

/* The helper run: clc-pack itself (exe) as `exe --pocl-wg-fill --device
 * SLOT --spec SPEC --dir DIR`, in the current folder and environment
 * (PoCL's cache variables as the worker has them), for job's program text
 * and options and the forms of one grid class of its local size. Returns
 * 0 when it ran and exited 0 (nothing to do for a job without a local
 * size); -1 with err ("...: exited with status 1: <its message>"). */
int pocl_wg_fill(const char *exe, const char *slot, const build_job *job, pocl_wg_grid grid,
                 char err[POCL_WG_ERR_MAX]);

/* The helper's own work, in a process whose POCL_BINARY_SPECIALIZE_WG
 * was set before its first OpenCL call: the program built from source
 * with options on dev in a context of its own, then its binary sizes
 * asked for, which makes PoCL compile the named functions into its kernel
 * cache. 0, or -1 with err. */
int pocl_wg_fill_here(cl_device_id dev, const char *source, size_t size, const char *options,
                      char err[POCL_WG_ERR_MAX]);

/* The files the worker and the helper share in the helper's folder. */
#define POCL_WG_SOURCE_FILE "program.cl"
#define POCL_WG_OPTIONS_FILE "options.txt"

#endif /* CLC_POCL_WG_H */
