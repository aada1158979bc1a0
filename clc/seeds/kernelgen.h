/*
 * kernelgen.h — source generators: kernels whose body clc-pack writes for
 * each variant from a template (a .cl.in file in kernels/), as Reda's study does for
 * its unrolled kernels. A manifest entry names its generator; the generated
 * text, not the template, is what is built and stored in a pack.
 *
 * A template holds one marker line, UNROLLED_BODY_MARKER alone on its line,
 * which the generator replaces with one multiply-add per filter term, the
 * offsets precomputed. The generated text refuses to build (#error) with
 * defines other than those it was generated for. Pure functions.
 */
#ifndef CLC_KERNELGEN_H
#define CLC_KERNELGEN_H

#include <stddef.h>

#include "manifest.h"
#include "source_gen.h"

#define UNROLLED_BODY_MARKER "/*@UNROLLED_BODY@*/"

/* 1 when name is a generator this build knows. */
int kernelgen_known(const char *name);

/* The known generators' names, comma-separated, for messages. */
const char *kernelgen_names(void);

/* Runs generator on template text tmpl (tmpl_len bytes; tmpl_name names it
 * in messages) for variant v. On success returns 0, *out is a malloc'd
 * NUL-terminated text (caller frees), *out_len its length, and label
 * (MANIFEST_PATH_MAX bytes) lists the defines the text depends on, e.g.
 * "FILTER_WIDTH=5" or "FILTER_WIDTH=5,IMAGE_W=1024". On error returns -1
 * and err (errlen bytes) says why: unknown generator, no or several marker
 * lines, a define the generator needs missing or out of range. */
int kernelgen_generate(const char *generator, const char *tmpl_name, const char *tmpl, size_t tmpl_len,
                const manifest_variant *v, char **out, size_t *out_len, char label[MANIFEST_PATH_MAX],
                char *err, size_t errlen);

/* These generators as the manifest reader's plug-in (source_gen.h). */
extern const mf_generator kernelgen_generator;

#endif /* CLC_KERNELGEN_H */
