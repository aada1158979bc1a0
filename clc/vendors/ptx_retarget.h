/*
 * ptx_retarget.h — rewriting a PTX text's ".target" and ".version"
 * directives, and finding its most portable form (docs/vendors/NVIDIA.md,
 * "Every architecture from one build host").
 *
 * NVIDIA's OpenCL compiler writes ".version 9.0" and ".target sm_90,
 * texmode_independent" for the device it ran on, but the code it emits uses
 * nothing of that architecture unless the kernel asks for it: with its
 * target changed, ptxas assembles the same text for older and newer
 * architectures. Whether a form is accepted is asked of a probe (in
 * clc-pack, ptxas itself), so these functions do no I/O and print nothing.
 */
#ifndef CLC_PTX_RETARGET_H
#define CLC_PTX_RETARGET_H

#include <stddef.h>
#include <stdint.h>

#include "ptx_text.h"

/* Most probes ptx_retarget_portable makes: one per known target at or below the
 * text's own, and a binary search over the known ISA versions. */
#define PTX_RETARGET_PORTABLE_MAX_TRIES 32

/* The ".version" directive's number: "9.0" gives 90 (major * 10 + minor;
 * minor must be one digit). 0, or -1 when there is none or it is not
 * <digits>.<digit>. */
int ptx_retarget_version(const void *text, size_t len, uint32_t *version);

/* The lowest PTX ISA version that knows sm_<arch> (NVIDIA's PTX ISA
 * reference, "Release notes"), as major * 10 + minor; 0 for an arch not in
 * the table. */
uint32_t ptx_retarget_min_version(uint32_t arch);

/* Copies the text with its ".target" sm_ name replaced by arch_name (the
 * other items of the directive, e.g. texmode_independent, stay as they
 * are) and, when version is not 0, its ".version" number by version
 * (major * 10 + minor). *out is malloc'd and NUL-terminated, *out_len
 * excludes the NUL. Returns 0, or -1 when a directive is missing, arch_name
 * is not sm_<digits>[letter], or memory runs out. */
int ptx_retarget(const void *text, size_t len, const char *arch_name, uint32_t version,
                 char **out, size_t *out_len);

/* Answers whether a form is accepted for arch_name: 1 yes, 0 no, -1 the
 * probe itself failed (then ptx_retarget_portable stops). */
typedef int (*ptx_retarget_probe_fn)(void *ctx, const char *text, size_t len, const char *arch_name);

/* The most portable form of the text: the lowest known target that the
 * probe accepts (targets above the text's own are never tried), then with
 * that target the lowest known ISA version the probe accepts: the
 * target's ptx_retarget_min_version first, then a binary search up to the text's
 * own version (acceptance is taken to grow with the version). At most
 * PTX_RETARGET_PORTABLE_MAX_TRIES probes; *tries says how many were made.
 * On 0, *out (malloc'd, NUL-terminated, *out_len without the NUL) holds the
 * form, *arch its sm number and *version its ISA version; when nothing
 * lower is accepted that is the text itself. -1 when the text has no
 * .target or .version, on a probe failure, or out of memory. */
int ptx_retarget_portable(const void *text, size_t len, ptx_retarget_probe_fn probe, void *ctx, char **out,
                 size_t *out_len, uint32_t *arch, uint32_t *version, int *tries);

#endif /* CLC_PTX_RETARGET_H */
