/*
 * pocl_canon_target.h — the fuzz target over PoCL binary canonicalization
 * (pocl_binary_canon.h): the input as a PoCL binary, made canonical for the
 * whole program at 8x8 and for kernel Convolve_Def at 8x8 and with no
 * work-group. A rewritten binary is never larger than the input, and is
 * its own canonical form (a second pass gives the same bytes); a binary
 * left alone says why. Scrubbing temporary names leaves the size, and a
 * second scrub changes nothing. Shared by fuzz_pocl_canon.c and
 * tests/unit/test_fuzz_targets.c.
 */
#ifndef CLC_POCL_CANON_TARGET_H
#define CLC_POCL_CANON_TARGET_H

#include <stdint.h>
#include <string.h>

#include "cli_fuzz.h"
#include "pocl_binary_canon.h"

static inline void pct_canon(const uint8_t *data, size_t size, const char *kernel,
                             const uint32_t wg[3])
{
    unsigned char *out = (unsigned char *)1;
    size_t out_size = 7;
    char why[256];
    why[0] = '\0';
    int rc = pocl_binary_canon_canonicalize(data, size, kernel, wg, &out, &out_size, why, sizeof why);
    cf_require(rc >= -1 && rc <= 1);
    if (rc != 0) {
        cf_require(out == NULL && out_size == 0);
        if (rc == 1)
            cf_require_message(why, sizeof why);
        return;
    }
    cf_require(out != NULL && out_size <= size);
    unsigned char *again = NULL;
    size_t again_size = 0;
    int rc2 = pocl_binary_canon_canonicalize(out, out_size, kernel, wg, &again, &again_size, why, sizeof why);
    cf_require(rc2 == 0 || rc2 == -1);
    if (rc2 == 0)
        cf_require(again_size == out_size && memcmp(again, out, out_size) == 0);
    free(again);
    free(out);
}

static inline int fuzz_pocl_canon(const uint8_t *data, size_t size)
{
    static const uint32_t wg8[3] = {8, 8, 1}, none[3] = {0, 0, 0};
    pct_canon(data, size, NULL, wg8);
    pct_canon(data, size, "Convolve_Def", wg8);
    pct_canon(data, size, "Convolve_Def", none);
    unsigned char *copy = malloc(size ? size : 1);
    unsigned char *twice = malloc(size ? size : 1);
    if (copy && twice) {
        memcpy(copy, data, size);
        pocl_binary_canon_scrub_temp_names(copy, size);
        memcpy(twice, copy, size);
        pocl_binary_canon_scrub_temp_names(twice, size);
        cf_require(memcmp(copy, twice, size) == 0);
    }
    free(copy);
    free(twice);
    return 0;
}

#endif /* CLC_POCL_CANON_TARGET_H */
