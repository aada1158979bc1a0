/*
 * amd_convolve.cl — AMD "Image Convolution Using OpenCL", steps 4 and 5.
 *
 * Single-channel float. Every kernel computes the border rule of
 * docs/KERNELS.md in its top-left form: the input is the output grown by
 * FILTER_WIDTH-1 in each direction, and out(x,y) sums the FILTER_WIDTH^2
 * input pixels whose top-left corner is (x,y). As in the articles, the
 * output width is the global size in x, so the grid must be exactly W x H
 * (clc-pack's manifest says grid=exact) and W, H must be multiples of the
 * work-group.
 *
 * The work-group size is compiled in (WG_X, WG_Y from the build options) so
 * that each (kernel, FILTER_WIDTH, work-group) binary carries its own
 * work-group function.
 *
 * Convolve_Def* keep the nFilterWidth argument unused, as step 5 does, so
 * every kernel here has the same argument list.
 */

#ifndef FILTER_WIDTH
/* The kernels whose filter width is an argument are built once, without
 * FILTER_WIDTH; those that compile it in exist only when it is defined, so a
 * program (and its binary in a pack) holds only the kernels of one kind. */

/* Step 1's kernel: the filter width is a run-time argument, so one binary
 * serves every width. */
__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1)))
void Convolve(const __global float *pInput, __constant float *pFilter,
              __global float *pOutput, const int nInWidth, const int nFilterWidth)
{
    const int nWidth = get_global_size(0);
    const int xOut = get_global_id(0);
    const int yOut = get_global_id(1);
    const int xInTopLeft = xOut;
    const int yInTopLeft = yOut;
    float sum = 0;
    for (int r = 0; r < nFilterWidth; r++) {
        const int idxFtmp = r * nFilterWidth;
        const int yIn = yInTopLeft + r;
        const int idxIntmp = yIn * nInWidth + xInTopLeft;
        for (int c = 0; c < nFilterWidth; c++) {
            const int idxF = idxFtmp + c;
            const int idxIn = idxIntmp + c;
            sum += pFilter[idxF] * pInput[idxIn];
        }
    }
    const int idxOut = yOut * nWidth + xOut;
    pOutput[idxOut] = sum;
}

/* Step 4: the inner loop unrolled four times, the remainder in a loop. */
__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1)))
void Convolve_Unroll(const __global float *pInput, __constant float *pFilter,
                     __global float *pOutput, const int nInWidth, const int nFilterWidth)
{
    const int nWidth = get_global_size(0);
    const int xOut = get_global_id(0);
    const int yOut = get_global_id(1);
    const int xInTopLeft = xOut;
    const int yInTopLeft = yOut;
    float sum = 0;
    for (int r = 0; r < nFilterWidth; r++) {
        const int idxFtmp = r * nFilterWidth;
        const int yIn = yInTopLeft + r;
        const int idxIntmp = yIn * nInWidth + xInTopLeft;
        int c = 0;
        while (c <= nFilterWidth - 4) {
            int idxF = idxFtmp + c;
            int idxIn = idxIntmp + c;
            sum += pFilter[idxF] * pInput[idxIn];
            idxF++; idxIn++;
            sum += pFilter[idxF] * pInput[idxIn];
            idxF++; idxIn++;
            sum += pFilter[idxF] * pInput[idxIn];
            idxF++; idxIn++;
            sum += pFilter[idxF] * pInput[idxIn];
            c += 4;
        }
        for (int c1 = c; c1 < nFilterWidth; c1++) {
            const int idxF = idxFtmp + c1;
            const int idxIn = idxIntmp + c1;
            sum += pFilter[idxF] * pInput[idxIn];
        }
    }
    const int idxOut = yOut * nWidth + xOut;
    pOutput[idxOut] = sum;
}

/* Step 4 (2): the remainder loop replaced by an if/else on its length,
 * which removes the saw-tooth the remainder loop causes. */
__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1)))
void Convolve_UnrollIf(const __global float *pInput, __constant float *pFilter,
                       __global float *pOutput, const int nInWidth, const int nFilterWidth)
{
    const int nWidth = get_global_size(0);
    const int xOut = get_global_id(0);
    const int yOut = get_global_id(1);
    const int xInTopLeft = xOut;
    const int yInTopLeft = yOut;
    float sum = 0;
    for (int r = 0; r < nFilterWidth; r++) {
        const int idxFtmp = r * nFilterWidth;
        const int yIn = yInTopLeft + r;
        const int idxIntmp = yIn * nInWidth + xInTopLeft;
        int c = 0;
        while (c <= nFilterWidth - 4) {
            int idxF = idxFtmp + c;
            int idxIn = idxIntmp + c;
            sum += pFilter[idxF] * pInput[idxIn];
            idxF++; idxIn++;
            sum += pFilter[idxF] * pInput[idxIn];
            idxF++; idxIn++;
            sum += pFilter[idxF] * pInput[idxIn];
            idxF++; idxIn++;
            sum += pFilter[idxF] * pInput[idxIn];
            c += 4;
        }
        const int cMod = nFilterWidth - c;
        if (cMod == 1) {
            const int idxF = idxFtmp + c;
            const int idxIn = idxIntmp + c;
            sum += pFilter[idxF] * pInput[idxIn];
        } else if (cMod == 2) {
            const int idxF = idxFtmp + c;
            const int idxIn = idxIntmp + c;
            sum += pFilter[idxF] * pInput[idxIn];
            sum += pFilter[idxF + 1] * pInput[idxIn + 1];
        } else if (cMod == 3) {
            const int idxF = idxFtmp + c;
            const int idxIn = idxIntmp + c;
            sum += pFilter[idxF] * pInput[idxIn];
            sum += pFilter[idxF + 1] * pInput[idxIn + 1];
            sum += pFilter[idxF + 2] * pInput[idxIn + 2];
        }
    }
    const int idxOut = yOut * nWidth + xOut;
    pOutput[idxOut] = sum;
}

#else /* FILTER_WIDTH */

/* Step 5: FILTER_WIDTH is a compile-time invariant, so the compiler knows
 * the trip counts and can unroll by itself; one binary per width. */
__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1)))
void Convolve_Def(const __global float *pInput, __constant float *pFilter,
                  __global float *pOutput, const int nInWidth, const int nFilterWidth)
{
    (void)nFilterWidth;
    const int nWidth = get_global_size(0);
    const int xOut = get_global_id(0);
    const int yOut = get_global_id(1);
    const int xInTopLeft = xOut;
    const int yInTopLeft = yOut;
    float sum = 0;
    for (int r = 0; r < FILTER_WIDTH; r++) {
        const int idxFtmp = r * FILTER_WIDTH;
        const int yIn = yInTopLeft + r;
        const int idxIntmp = yIn * nInWidth + xInTopLeft;
        for (int c = 0; c < FILTER_WIDTH; c++) {
            const int idxF = idxFtmp + c;
            const int idxIn = idxIntmp + c;
            sum += pFilter[idxF] * pInput[idxIn];
        }
    }
    const int idxOut = yOut * nWidth + xOut;
    pOutput[idxOut] = sum;
}

/* Step 5 applied to Convolve_Unroll. */
__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1)))
void Convolve_Def_Unroll(const __global float *pInput, __constant float *pFilter,
                         __global float *pOutput, const int nInWidth, const int nFilterWidth)
{
    (void)nFilterWidth;
    const int nWidth = get_global_size(0);
    const int xOut = get_global_id(0);
    const int yOut = get_global_id(1);
    const int xInTopLeft = xOut;
    const int yInTopLeft = yOut;
    float sum = 0;
    for (int r = 0; r < FILTER_WIDTH; r++) {
        const int idxFtmp = r * FILTER_WIDTH;
        const int yIn = yInTopLeft + r;
        const int idxIntmp = yIn * nInWidth + xInTopLeft;
        int c = 0;
        while (c <= FILTER_WIDTH - 4) {
            int idxF = idxFtmp + c;
            int idxIn = idxIntmp + c;
            sum += pFilter[idxF] * pInput[idxIn];
            idxF++; idxIn++;
            sum += pFilter[idxF] * pInput[idxIn];
            idxF++; idxIn++;
            sum += pFilter[idxF] * pInput[idxIn];
            idxF++; idxIn++;
            sum += pFilter[idxF] * pInput[idxIn];
            c += 4;
        }
        for (int c1 = c; c1 < FILTER_WIDTH; c1++) {
            const int idxF = idxFtmp + c1;
            const int idxIn = idxIntmp + c1;
            sum += pFilter[idxF] * pInput[idxIn];
        }
    }
    const int idxOut = yOut * nWidth + xOut;
    pOutput[idxOut] = sum;
}

/* Step 5 applied to Convolve_UnrollIf: with the width known, only one
 * branch of the remainder survives compilation. */
__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1)))
void Convolve_Def_UnrollIf(const __global float *pInput, __constant float *pFilter,
                           __global float *pOutput, const int nInWidth, const int nFilterWidth)
{
    (void)nFilterWidth;
    const int nWidth = get_global_size(0);
    const int xOut = get_global_id(0);
    const int yOut = get_global_id(1);
    const int xInTopLeft = xOut;
    const int yInTopLeft = yOut;
    float sum = 0;
    for (int r = 0; r < FILTER_WIDTH; r++) {
        const int idxFtmp = r * FILTER_WIDTH;
        const int yIn = yInTopLeft + r;
        const int idxIntmp = yIn * nInWidth + xInTopLeft;
        int c = 0;
        while (c <= FILTER_WIDTH - 4) {
            int idxF = idxFtmp + c;
            int idxIn = idxIntmp + c;
            sum += pFilter[idxF] * pInput[idxIn];
            idxF++; idxIn++;
            sum += pFilter[idxF] * pInput[idxIn];
            idxF++; idxIn++;
            sum += pFilter[idxF] * pInput[idxIn];
            idxF++; idxIn++;
            sum += pFilter[idxF] * pInput[idxIn];
            c += 4;
        }
        const int cMod = FILTER_WIDTH - c;
        if (cMod == 1) {
            const int idxF = idxFtmp + c;
            const int idxIn = idxIntmp + c;
            sum += pFilter[idxF] * pInput[idxIn];
        } else if (cMod == 2) {
            const int idxF = idxFtmp + c;
            const int idxIn = idxIntmp + c;
            sum += pFilter[idxF] * pInput[idxIn];
            sum += pFilter[idxF + 1] * pInput[idxIn + 1];
        } else if (cMod == 3) {
            const int idxF = idxFtmp + c;
            const int idxIn = idxIntmp + c;
            sum += pFilter[idxF] * pInput[idxIn];
            sum += pFilter[idxF + 1] * pInput[idxIn + 1];
            sum += pFilter[idxF + 2] * pInput[idxIn + 2];
        }
    }
    const int idxOut = yOut * nWidth + xOut;
    pOutput[idxOut] = sum;
}

#endif /* FILTER_WIDTH */
