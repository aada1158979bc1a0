#include "conv_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

float test_rnd_float(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    float f = (float)((*s >> 40) & 0xFFFFFF) / (float)0x1000000 * 2.0f - 1.0f;
    return f == 0.0f ? 0.5f : f;
}

/* Max relative error of out against the double reference, or -1 with why
 * set at the first output still holding the NaN poison. */
static double compare(const float *in, const float *filt, const float *out, int fw, int in_w,
                      int out_w, int out_h, char *why, size_t cap)
{
    double worst = 0;
    for (int y = 0; y < out_h; y++)
        for (int x = 0; x < out_w; x++) {
            double ref = 0, mag = 0;
            for (int r = 0; r < fw; r++)
                for (int c = 0; c < fw; c++) {
                    double t = (double)filt[r * fw + c] * (double)in[(y + r) * in_w + x + c];
                    ref += t;
                    mag += fabs(t);
                }
            double got = out[y * out_w + x];
            if (isnan(got)) {
                snprintf(why, cap, "output (%d,%d) never written", x, y);
                return -1;
            }
            /* Relative to the sum of magnitudes: a float sum of terms of
             * both signs can cancel to near zero, the rounding does not. */
            double rel = fabs(got - ref) / (mag > 1e-30 ? mag : 1e-30);
            if (rel > worst)
                worst = rel;
        }
    return worst;
}

double test_conv_check(cl_context ctx, cl_device_id dev, cl_program prog, const char *kernel,
                       int fw, int out_w, int out_h, int wg, uint64_t seed, char *why,
                       size_t cap)
{
    const int in_w = out_w + fw - 1, in_h = out_h + fw - 1;
    size_t n_in = (size_t)in_w * in_h, n_f = (size_t)fw * fw, n_out = (size_t)out_w * out_h;
    float *in = malloc(n_in * sizeof *in), *filt = malloc(n_f * sizeof *filt),
          *out = malloc(n_out * sizeof *out);
    double result = -1;
    cl_int e[5] = {0};
    cl_command_queue q = NULL;
    cl_kernel k = NULL;
    cl_mem bi = NULL, bf = NULL, bo = NULL;
    if (!in || !filt || !out) {
        snprintf(why, cap, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n_in; i++)
        in[i] = test_rnd_float(&seed);
    for (size_t i = 0; i < n_f; i++)
        filt[i] = test_rnd_float(&seed);
    for (size_t i = 0; i < n_out; i++)
        out[i] = NAN;
    q = clCreateCommandQueue(ctx, dev, 0, &e[0]);
    k = clCreateKernel(prog, kernel, &e[1]);
    bi = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n_in * sizeof *in, in, &e[2]);
    bf = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n_f * sizeof *filt, filt,
                        &e[3]);
    bo = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n_out * sizeof *out, out,
                        &e[4]);
    if (e[0] || e[1] || e[2] || e[3] || e[4]) {
        snprintf(why, cap, "setup failed: %d %d %d %d %d", e[0], e[1], e[2], e[3], e[4]);
        goto done;
    }
    cl_uint n_args = 0;
    clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof n_args, &n_args, NULL);
    cl_int rc = clSetKernelArg(k, 0, sizeof bi, &bi);
    rc |= clSetKernelArg(k, 1, sizeof bf, &bf);
    rc |= clSetKernelArg(k, 2, sizeof bo, &bo);
    rc |= clSetKernelArg(k, 3, sizeof in_w, &in_w);
    if (n_args > 4) /* AMD's form also takes the filter width */
        rc |= clSetKernelArg(k, 4, sizeof fw, &fw);
    if (rc != CL_SUCCESS) {
        snprintf(why, cap, "setting the arguments failed");
        goto done;
    }
    size_t global[2] = {(size_t)out_w, (size_t)out_h}, local[2] = {(size_t)wg, (size_t)wg};
    rc = clEnqueueNDRangeKernel(q, k, 2, NULL, global, local, 0, NULL, NULL);
    if (rc == CL_SUCCESS)
        rc = clEnqueueReadBuffer(q, bo, CL_TRUE, 0, n_out * sizeof *out, out, 0, NULL, NULL);
    if (rc != CL_SUCCESS) {
        snprintf(why, cap, "launch or read failed: %d", rc);
        goto done;
    }
    result = compare(in, filt, out, fw, in_w, out_w, out_h, why, cap);
done:
    if (bi)
        clReleaseMemObject(bi);
    if (bf)
        clReleaseMemObject(bf);
    if (bo)
        clReleaseMemObject(bo);
    if (k)
        clReleaseKernel(k);
    if (q)
        clReleaseCommandQueue(q);
    free(in);
    free(filt);
    free(out);
    return result;
}
