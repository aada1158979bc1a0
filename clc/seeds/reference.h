/*
 * reference.h — double-precision CPU references for every kernel family,
 * the functions docs/KERNELS.md defines.
 *
 * Each reference gives, per output, the exact-as-double result and the sum
 * of the magnitudes of the terms that make it up. Float rounding error in a
 * kernel's sum is proportional to that sum of magnitudes, not to the result,
 * which can cancel to almost nothing; the checker divides by it
 * (kernel_run.c). Pure functions, no allocation.
 */
#ifndef CLC_REFERENCE_H
#define CLC_REFERENCE_H

#include <stddef.h>

/* Single-channel convolution under the border rule: out is w*h, in has row
 * pitch in_w >= w + fw - 1 and h + fw - 1 rows, filter is fw*fw row-major:
 *   out[y*w+x] = sum over r, c < fw of filter[r*fw+c] * in[(y+r)*in_w + x+c]. */
void reference_conv_grey(const float *in, int in_w, const float *filter, int fw, int w, int h,
                   double *out, double *mag);

/* The same per channel of RGBA pixels (4 floats each) with a filter of fw*fw
 * RGBA terms: out is 4*w*h. */
void reference_conv_rgba(const float *in, int in_w, const float *filter, int fw, int w, int h,
                   double *out, double *mag);

/* out[i] = sum over k < nc of coeffs[k] * x[i]^k by Horner's rule in double;
 * mag[i] the same sum over |coeffs[k]| * |x[i]|^k. */
void reference_poly(const float *x, size_t n, const float *coeffs, int nc, double *out, double *mag);

#endif /* CLC_REFERENCE_H */
