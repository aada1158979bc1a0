/*
 * variant_plan.h — from the command line's kernel and value selection to the
 * list of variants to build (docs/CLI.md, "Selecting variants").
 *
 * With kernels named (--kernel), a selected value one of them does not
 * allow is an error naming the item and the kernel. With every kernel (the
 * default), a kernel skips the values it does not allow (Reda's odd-only
 * kernels skip FILTER_WIDTH=4) and the plan carries one note per axis
 * saying so; a value no kernel allows is an error. An axis no selected
 * kernel has is an error. A work-group list applies to the kernels of its
 * dimension (16x16 to 2-D kernels, 64 to 1-D ones); the others keep their
 * defaults.
 */
#ifndef CLC_VARIANT_PLAN_H
#define CLC_VARIANT_PLAN_H

#include <stddef.h>

#include "manifest.h"
#include "value_list.h"

#define VARIANT_PLAN_ERR_MAX 1024

typedef struct variant_plan_axis_request {
    char name[MANIFEST_NAME_MAX];     /* FILTER_WIDTH, WG, NUMCOEFFS, ... */
    char option[MANIFEST_NAME_MAX + 8]; /* how the user gave it: "--widths", "-D NUMCOEFFS" */
    value_list values;
} variant_plan_axis_request;

typedef struct variant_plan_request {
    size_t n_kernels;           /* 0: every kernel of the manifest */
    const char *kernels[MANIFEST_MAX_KERNELS];
    size_t n_axes;
    variant_plan_axis_request axes[MANIFEST_MAX_AXES];
} variant_plan_request;

typedef struct variant_plan {
    size_t n;
    manifest_variant *variants;       /* malloc'd; manifest (or --kernel) order */
    char *notes;                /* malloc'd "note: ...\n" lines, or NULL */
} variant_plan;

/* Returns 0 with the plan, or -1 with err (a usage error: names the option,
 * the item and the kernel). */
int variant_plan_make(const manifest_file *m, const variant_plan_request *req, variant_plan *out, char err[VARIANT_PLAN_ERR_MAX]);
void variant_plan_free(variant_plan *p);

/* "reda_local FILTER_WIDTH=13 wg=16x16": the kernel, its axis values (not
 * the derived defines) and the work-group. */
void variant_plan_label(const manifest_variant *v, char *buf, size_t cap);

#endif /* CLC_VARIANT_PLAN_H */
