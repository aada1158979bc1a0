/*
 * offline_targets.h — the offline toolchains of a pack build
 * (docs/vendors/): which Intel and AMD targets and whether SPIR-V, the
 * tools that make them, and what a worker builds for one variant.
 *
 * The parent resolves the lists once (ot_resolve_*: the tools found and
 * asked their versions, Intel names, families and ranges turned into IP
 * versions by ocloc, AMD target IDs checked) and hands the result to each
 * build worker as text (ot_format / ot_parse). A worker builds a job for
 * one toolchain with offline_targets_build: every target of it, several at a time when
 * idle workers lend slots, each binary's header checked and its kernels
 * read (bin_check.h). Nothing here prints.
 */
#ifndef CLC_OFFLINE_TARGETS_H
#define CLC_OFFLINE_TARGETS_H

#include <stddef.h>
#include <stdint.h>

#include "amdgcn_run.h"
#include "build_job.h"
#include "build_variant.h"
#include "clcpack.h"
#include "spare_slots.h"
#include "spirv_run.h"

#define OFFLINE_TARGETS_MAX_TARGETS 32
#define OFFLINE_TARGETS_MSG_MAX 1024

/* The toolchains, in the order their jobs and device records come. */
typedef enum offline_targets_chain { OFFLINE_TARGETS_INTEL = 0, OFFLINE_TARGETS_AMD = 1, OFFLINE_TARGETS_SPIRV = 2, OFFLINE_TARGETS_N_CHAINS = 3 } offline_targets_chain;

/* The default lists (docs/vendors/INTEL.md, AMD.md): Intel's Gen12 and Xe
 * GPUs (a name this ocloc does not know is left out), AMD's GCN 5, CDNA and
 * RDNA 1-3 GPUs. */
#define OFFLINE_TARGETS_DEFAULT_INTEL "tgllp,rkl,adl-s,adl-p,adl-n,dg1,acm-g10,acm-g11,acm-g12,pvc,mtl"
#define OFFLINE_TARGETS_DEFAULT_AMD "gfx900,gfx906,gfx908,gfx90a,gfx1010,gfx1030,gfx1100,gfx1101,gfx1102"

typedef struct offline_targets_target {
    char name[CLCPACK_TARGET_MAX + 1]; /* the entry's target */
    uint32_t arch;                      /* the entry's arch */
} offline_targets_target;

typedef struct offline_targets_config {
    int on[OFFLINE_TARGETS_N_CHAINS];
    char ocloc[TOOL_PATH_MAX];
    amdgcn_tools amd;
    spirv_tools spv;
    size_t n[OFFLINE_TARGETS_N_CHAINS];
    offline_targets_target targets[OFFLINE_TARGETS_N_CHAINS][OFFLINE_TARGETS_MAX_TARGETS];
    char version[OFFLINE_TARGETS_N_CHAINS][CLCPACK_FP_STR]; /* driver_version of the records */
    /* ocloc -exclude_ir: Intel binaries without the program's SPIR-V (the
     * pack's default, docs/vendors/INTEL.md "The SPIR-V inside"). */
    int intel_exclude_ir;
} offline_targets_config;

/* "intel", "amd", "spirv". */
const char *offline_targets_chain_name(offline_targets_chain c);

/* The entry kind of a toolchain. */
clcpack_binary_kind offline_targets_chain_kind(offline_targets_chain c);

/* Resolves a toolchain for a pack build: list NULL takes the default.
 * 0 when it is ready; 1 when its tools are missing (msg is the one line
 * naming the package; the pack is built without it); -1 on a bad list
 * (msg names the item: a usage error). notes gets "note" lines (a default
 * target this ocloc does not know, an AMD target whose ISA library
 * clc-pack supplies), '\n'-separated. */
int offline_targets_resolve(offline_targets_config *c, offline_targets_chain chain, const char *list, char *notes, size_t notes_cap,
               char *msg, size_t cap);

/* The synthetic device record of a toolchain (docs/FORMAT.md). */
void offline_targets_device_info(const offline_targets_config *c, offline_targets_chain chain, clcpack_device_info *out);

/* The worker's arguments for a resolved configuration: "--ot-intel
 * OCLOC|exclude_ir|name@arch,..." style, appended to argv (strings malloc'd).
 * Returns the number added, or -1 when out of memory. */
int offline_targets_format_args(const offline_targets_config *c, char **argv, size_t cap);

/* Reads one of those arguments in a worker: 0, or -1. */
int offline_targets_parse_arg(offline_targets_config *c, const char *opt, const char *value);

/* Builds job with every target of the chain. r as build_variant_build fills it: a
 * form per target that built (kind, arch, target), the kernel names, a
 * note per target that did not (its compiler's first lines); BUILD_VARIANT_BUILD_FAILED
 * when no target built. spare may be NULL. */
void offline_targets_build(const offline_targets_config *c, offline_targets_chain chain, const build_job *job, const spare_slots *spare,
              build_variant_result *r);

/* A variant cache's entry for job on chain (build_worker.h), checked as a
 * fresh build's binaries are: one form per target of the plan, in its
 * order, each of the chain's kind with the target's name and arch, its
 * header fitting that arch (bin_check.h), every binary holding exactly
 * kernel_names and the kernels the job asks for. 0 with the forms moved
 * into r (*n_forms is then 0) and the names and note copied; -1 with why
 * saying what is wrong, r and the forms untouched. */
int offline_targets_adopt(const offline_targets_config *c, offline_targets_chain chain, const build_job *job,
                          char *const *kernel_names, size_t n_kernel_names, const char *note,
                          build_variant_form *forms, size_t *n_forms, build_variant_result *r,
                          char *why, size_t cap);

#endif /* CLC_OFFLINE_TARGETS_H */
