/*
 * nv_pragma_unroll.cl — AMD's Convolve_Def with the unroll hints of the
 * cl_nv_pragma_unroll extension: "#pragma unroll" (full) and
 * "#pragma unroll UNROLL_FACTOR" (partial) on the inner loop.
 *
 * The pragma is a hint; NVIDIA's compiler defines it under the extension and
 * clang-based compilers (PoCL, most others) accept the same spelling, so the
 * kernels build everywhere. Same arguments and border rule as
 * amd_convolve.cl (top-left form, grid exactly W x H).
 */

#ifdef cl_nv_pragma_unroll
#pragma OPENCL EXTENSION cl_nv_pragma_unroll : enable
#endif

/* The factor comes from a build option; _Pragma lets the macro expand before
 * the pragma is read (a literal "#pragma unroll UNROLL_FACTOR" line is not
 * macro-expanded by every compiler). */
#define CLC_PRAGMA(x) _Pragma(#x)
#define CLC_UNROLL_BY(n) CLC_PRAGMA(unroll n)

#ifndef UNROLL_FACTOR

/* Full unrolling: the trip count FILTER_WIDTH is known at compile time. */
__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1)))
void Convolve_Def_PragmaUnroll(const __global float *pInput, __constant float *pFilter,
                               __global float *pOutput, const int nInWidth,
                               const int nFilterWidth)
{
    (void)nFilterWidth;
    const int nWidth = get_global_size(0);
    const int xOut = get_global_id(0);
    const int yOut = get_global_id(1);
    float sum = 0;
    for (int r = 0; r < FILTER_WIDTH; r++) {
        const int idxFtmp = r * FILTER_WIDTH;
        const int idxIntmp = (yOut + r) * nInWidth + xOut;
#pragma unroll
        for (int c = 0; c < FILTER_WIDTH; c++)
            sum += pFilter[idxFtmp + c] * pInput[idxIntmp + c];
    }
    pOutput[yOut * nWidth + xOut] = sum;
}

#else /* UNROLL_FACTOR */

/* Partial unrolling by UNROLL_FACTOR; the compiler handles the remainder
 * when FILTER_WIDTH is not a multiple of it. */
__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1)))
void Convolve_Def_PragmaUnrollN(const __global float *pInput, __constant float *pFilter,
                                __global float *pOutput, const int nInWidth,
                                const int nFilterWidth)
{
    (void)nFilterWidth;
    const int nWidth = get_global_size(0);
    const int xOut = get_global_id(0);
    const int yOut = get_global_id(1);
    float sum = 0;
    for (int r = 0; r < FILTER_WIDTH; r++) {
        const int idxFtmp = r * FILTER_WIDTH;
        const int idxIntmp = (yOut + r) * nInWidth + xOut;
        CLC_UNROLL_BY(UNROLL_FACTOR)
        for (int c = 0; c < FILTER_WIDTH; c++)
            sum += pFilter[idxFtmp + c] * pInput[idxIntmp + c];
    }
    pOutput[yOut * nWidth + xOut] = sum;
}

#endif /* UNROLL_FACTOR */
