/* reference.c — double-precision references (reference.h). */
#include "reference.h"

#include <math.h>

void reference_conv_grey(const float *in, int in_w, const float *filter, int fw, int w, int h,
                   double *out, double *mag)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double sum = 0, abs_sum = 0;
            for (int r = 0; r < fw; r++) {
                const float *row = in + (size_t)(y + r) * (size_t)in_w + (size_t)x;
                const float *f = filter + (size_t)r * (size_t)fw;
                for (int c = 0; c < fw; c++) {
                    double t = (double)f[c] * (double)row[c];
                    sum += t;
                    abs_sum += fabs(t);
                }
            }
            out[(size_t)y * (size_t)w + (size_t)x] = sum;
            mag[(size_t)y * (size_t)w + (size_t)x] = abs_sum;
        }
}

void reference_conv_rgba(const float *in, int in_w, const float *filter, int fw, int w, int h,
                   double *out, double *mag)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int ch = 0; ch < 4; ch++) {
                double sum = 0, abs_sum = 0;
                for (int r = 0; r < fw; r++)
                    for (int c = 0; c < fw; c++) {
                        size_t pixel = (size_t)(y + r) * (size_t)in_w + (size_t)(x + c);
                        size_t term = (size_t)r * (size_t)fw + (size_t)c;
                        double t = (double)filter[4 * term + ch] * (double)in[4 * pixel + ch];
                        sum += t;
                        abs_sum += fabs(t);
                    }
                size_t o = 4 * ((size_t)y * (size_t)w + (size_t)x) + (size_t)ch;
                out[o] = sum;
                mag[o] = abs_sum;
            }
}

void reference_poly(const float *x, size_t n, const float *coeffs, int nc, double *out, double *mag)
{
    for (size_t i = 0; i < n; i++) {
        double xi = x[i], ax = fabs(xi);
        double sum = 0, abs_sum = 0;
        for (int k = nc - 1; k >= 0; k--) {
            sum = sum * xi + (double)coeffs[k];
            abs_sum = abs_sum * ax + fabs((double)coeffs[k]);
        }
        out[i] = sum;
        mag[i] = abs_sum;
    }
}
