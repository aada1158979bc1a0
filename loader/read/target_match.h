/*
 * target_match.h — the offline targets of format 4 (docs/FORMAT.md,
 * "Offline targets") as pure functions: parsing and encoding a gfx target
 * ID and a SPIR-V version, checking that an entry's target agrees with its
 * arch, and whether an entry fits a device. No OpenCL call: the loader
 * queries, these decide, and the tests call them without a driver.
 * Internal to libclcpack (clcpack_target_arch is the public face).
 */
#ifndef CLCPACK_TARGET_MATCH_H
#define CLCPACK_TARGET_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "clcpack.h"

/* A feature of a gfx target ID: unspecified, off ('-'), on ('+'). */
enum { PK_FEAT_ANY = 0, PK_FEAT_OFF = 1, PK_FEAT_ON = 2 };

typedef struct pk_gfx {
    unsigned major, minor, stepping; /* gfx90a: 9, 0, 10; gfx1030: 10, 3, 0 */
    unsigned sramecc, xnack;         /* PK_FEAT_* */
} pk_gfx;

/* Parses a gfx target ID: "gfx" then 3 or 4 characters (the last two are
 * the minor and the stepping digits, hexadecimal; what is before them the
 * major, decimal), then ":sramecc+", ":xnack-" ... in any order, each at
 * most once. A name ROCm reports may carry other features after them
 * ("gfx1030:foo+"): with allow_other they are passed over, else refused.
 * 0, or -1. */
int clcpk_gfx_parse(const char *id, int allow_other, pk_gfx *out);

/* The arch of kind 4 for a parsed target ID, and back. */
uint32_t clcpk_gfx_arch(const pk_gfx *g);
void clcpk_gfx_from_arch(uint32_t arch, pk_gfx *g);

/* The canonical spelling ("gfx90a:sramecc+:xnack-") into buf. */
void clcpk_gfx_name(const pk_gfx *g, char *buf, size_t cap);

/* 1 when a code object for entry's target ID runs on a device whose ID is
 * dev: the same gfx name, and each feature the entry sets set the same
 * way on the device (one the entry leaves unspecified fits either). */
int clcpk_gfx_fits(const pk_gfx *entry, const pk_gfx *dev);

/* "SPIR-V_1.2" (also "SPIR-V 1.2") into the version word 0x00010200. 0,
 * or -1. */
int clcpk_spirv_parse(const char *text, uint32_t *word);

/* 1 when a CL_DEVICE_IL_VERSION text (space-separated, e.g. "SPIR-V_1.0
 * SPIR-V_1.1") lists a SPIR-V version at least `word`. */
int clcpk_il_takes(const char *il_versions, uint32_t word);

/* "native", "ptx", "cubin", "intel", "amdgcn", "spirv"; "?" for another. */
const char *clcpk_kind_name(uint32_t kind);

/* "12.55.8" for a cl_version. */
void clcpk_version_text(uint32_t v, char *buf, size_t cap);

/* Whether an entry's (kind, arch, target) agree (docs/FORMAT.md): NULL
 * when they do, else a static reason. */
const char *clcpk_target_problem(uint32_t kind, uint32_t arch, const char *target);

#endif /* CLCPACK_TARGET_MATCH_H */
