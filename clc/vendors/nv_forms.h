/*
 * nv_forms.h — the forms clc-pack stores for one NVIDIA PTX text
 * (docs/vendors/NVIDIA.md, "Every architecture from one build host"): its most
 * portable form (ptx_retarget.h) and a cubin for each architecture of a
 * list (--nv-arch), each assembled by ptxas from the PTX with its .target
 * set to that architecture. An architecture ptxas refuses the PTX for
 * (the code uses something that target lacks) gets no cubin and a
 * one-line note; that is never an error.
 *
 * Used by the build workers (build_variant.c) and by `clc-pack retarget`.
 * Runs ptxas (ptxas_run.h); prints nothing. nv_forms_make may run in several
 * threads at once.
 */
#ifndef CLC_NV_FORMS_H
#define CLC_NV_FORMS_H

#include <stddef.h>
#include <stdint.h>

#define NV_FORMS_MAX_ARCHS 16
#define NV_FORMS_DEFAULT_ARCHS "75,80,86,89,90,100,120"
#define NV_FORMS_ERR_MAX 256
#define NV_FORMS_REASON_MAX 240

typedef struct nv_forms_archs {
    size_t n;
    uint32_t arch[NV_FORMS_MAX_ARCHS];   /* sm numbers, increasing, no duplicates */
} nv_forms_archs;

/* "75,80,86" for a worker's command line; "" for an empty list. */
void nv_forms_format_archs(const nv_forms_archs *a, char *buf, size_t cap);

/* One cubin made. */
typedef struct nv_forms_cubin {
    uint32_t arch;
    unsigned char *data;            /* malloc'd ELF file */
    size_t size;
} nv_forms_cubin;

typedef struct nv_forms_result {
    char *ptx;                      /* the portable form, malloc'd, NUL-terminated */
    size_t ptx_size;                /* without the NUL */
    uint32_t ptx_arch;              /* its .target sm number */
    uint32_t ptx_retarget_version;           /* its .version, major * 10 + minor */
    size_t n_cubins;                /* in increasing arch */
    nv_forms_cubin cubins[NV_FORMS_MAX_ARCHS + 1];
    char *notes;                    /* "; "-separated: each architecture
                                       skipped and why; malloc'd or NULL */
    size_t n_refused;               /* architectures ptxas refused the PTX for */
    struct nv_forms_refusal {
        uint32_t arch;
        char reason[NV_FORMS_REASON_MAX]; /* ptxas's first message, one line */
    } refused[NV_FORMS_MAX_ARCHS + 1];
    int ptxas_runs;                 /* how many times ptxas ran */
} nv_forms_result;

/* Makes the forms of one PTX text (no trailing NUL needed) with ptxas
 * (a path from ptxas_find): a cubin for every arch of archs and for
 * own_arch when it is not 0 and not in the list (the build device's own
 * compute capability), and the portable PTX. A cubin for the text's own
 * target (e.g. sm_90a) is assembled from the text as it is. skip (may be
 * NULL) names architectures not to make a cubin for (the pack already
 * holds one). Up to `parallel` ptxas processes run at once (1: one after
 * the other): a variant's cubins are independent, and the build of one
 * large unrolled variant, seven cubins one after the other, can outlast
 * every other build of a pack (the -j16 tail). The portable form is then
 * searched with quick probes (ptxas_accepts). Always fills *r (free with
 * nv_forms_result_free); returns 0, or -1 when the text has no .target/.version
 * directive or memory runs out (r->notes says which; r->ptx is then NULL
 * and the caller keeps the text as it is). */
int nv_forms_make(const char *ptxas, const void *ptx, size_t len, const nv_forms_archs *archs,
             uint32_t own_arch, const nv_forms_archs *skip, int parallel, nv_forms_result *r);

void nv_forms_result_free(nv_forms_result *r);

#endif /* CLC_NV_FORMS_H */
