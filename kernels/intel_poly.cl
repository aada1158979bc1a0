/*
 * intel_poly.cl — Intel's "Using Loops": a polynomial
 *   result[i] = sum over k < numcoeffs of coeffs[k] * in[i]^k
 * evaluated un-optimized, with private variables and the loop unrolled four
 * times, and with the coefficient count compiled in (NUMCOEFFS).
 *
 * Changes from the guide's listings, all needed to build and run them
 * safely: the pointers are __global (the guide omits the address space);
 * pow takes float exponents ((float)k; the guide passes a uint); the
 * kernels take the element count n and return past it, so the grid can be
 * rounded up to the work-group (the guide has no n and launches exactly one
 * work-item per element). The work-group size is compiled in (WG_X).
 */

#ifndef NUMCOEFFS

/* Un-optimized: three global accesses per iteration, unknown trip count. */
__kernel __attribute__((reqd_work_group_size(WG_X, 1, 1)))
void poly_naive(const __global float *in, const __global float *coeffs,
                __global float *result, const int numcoeffs, const int n)
{
    const int gid = get_global_id(0);
    if (gid >= n)
        return;
    result[gid] = 0;
    for (uint i = 0; i < (uint)numcoeffs; i++)
        result[gid] += pow(in[gid], (float)i) * coeffs[i];
}

/* Optimized #1: private accumulator and input, loop unrolled four times.
 * numcoeffs must be a multiple of 4 (the manifest says so; the launcher
 * refuses other counts). */
__kernel __attribute__((reqd_work_group_size(WG_X, 1, 1)))
void poly_unroll4(const __global float *in, const __global float *coeffs,
                  __global float *result, const int numcoeffs, const int n)
{
    const int gid = get_global_id(0);
    if (gid >= n)
        return;
    const float in_pvt = in[gid];
    float result_pvt = 0;
    for (uint i = 0; i < (uint)numcoeffs; i += 4) {
        result_pvt += pow(in_pvt, (float)i) * coeffs[i];
        result_pvt += pow(in_pvt, (float)(i + 1)) * coeffs[i + 1];
        result_pvt += pow(in_pvt, (float)(i + 2)) * coeffs[i + 2];
        result_pvt += pow(in_pvt, (float)(i + 3)) * coeffs[i + 3];
    }
    result[gid] = result_pvt;
}

#else /* NUMCOEFFS */

/* The coefficient count as a macro: a constant trip count the compiler can
 * unroll. The numcoeffs argument stays, unread, as in the guide. */
__kernel __attribute__((reqd_work_group_size(WG_X, 1, 1)))
void poly_numcoeffs(const __global float *in, const __global float *coeffs,
                    __global float *result, const int numcoeffs, const int n)
{
    (void)numcoeffs;
    const int gid = get_global_id(0);
    if (gid >= n)
        return;
    const float in_pvt = in[gid];
    float result_pvt = 0;
    for (uint i = 0; i < NUMCOEFFS; i++)
        result_pvt += pow(in_pvt, (float)i) * coeffs[i];
    result[gid] = result_pvt;
}

#endif /* NUMCOEFFS */
