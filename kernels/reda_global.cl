/*
 * reda_global.cl — Reda's "A study of OpenCL image convolution
 * optimization", global-memory kernels 1 to 3: naive, __constant filter,
 * float4.
 *
 * RGBA float images, one filter term per channel (4 floats per term).
 * HALF_FILTER_SIZE comes from the build options (derived from FILTER_WIDTH
 * by the manifest); IMAGE_W optionally too, else the image width is a
 * run-time argument and one binary serves every image size. The study
 * launches exactly one work-item per pixel; here the grid is rounded up to
 * the work-group and the surplus work-items return, so any W x H runs.
 */
#include "border.h"

/* 1. Naive: channels as separate floats, filter in __global. */
__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1)))
void reda_naive(const __global float *input, __global float *output, __global float *filter,
                const int inWidth, const int width, const int height)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= BORDER_OUT_W(width) || y >= height)
        return;
    const int pitch = BORDER_IN_PITCH(inWidth);
    const int my = 4 * BORDER_CENTRE(x, y, pitch);

    int fIndex = 0;
    float sumR = 0.0f;
    float sumG = 0.0f;
    float sumB = 0.0f;
    float sumA = 0.0f;
    for (int r = -HALF_FILTER_SIZE; r <= HALF_FILTER_SIZE; r++) {
        const int curRow = my + r * (pitch * 4);
        for (int c = -HALF_FILTER_SIZE; c <= HALF_FILTER_SIZE; c++, fIndex += 4) {
            const int offset = c * 4;
            sumR += input[curRow + offset] * filter[fIndex];
            sumG += input[curRow + offset + 1] * filter[fIndex + 1];
            sumB += input[curRow + offset + 2] * filter[fIndex + 2];
            sumA += input[curRow + offset + 3] * filter[fIndex + 3];
        }
    }
    const int o = 4 * (y * BORDER_OUT_W(width) + x);
    output[o] = sumR;
    output[o + 1] = sumG;
    output[o + 2] = sumB;
    output[o + 3] = sumA;
}

/* 2. The filter never changes during a launch: __constant. */
__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1)))
void reda_constant(const __global float *input, __global float *output, __constant float *filter,
                   const int inWidth, const int width, const int height)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= BORDER_OUT_W(width) || y >= height)
        return;
    const int pitch = BORDER_IN_PITCH(inWidth);
    const int my = 4 * BORDER_CENTRE(x, y, pitch);

    int fIndex = 0;
    float sumR = 0.0f;
    float sumG = 0.0f;
    float sumB = 0.0f;
    float sumA = 0.0f;
    for (int r = -HALF_FILTER_SIZE; r <= HALF_FILTER_SIZE; r++) {
        const int curRow = my + r * (pitch * 4);
        for (int c = -HALF_FILTER_SIZE; c <= HALF_FILTER_SIZE; c++, fIndex += 4) {
            const int offset = c * 4;
            sumR += input[curRow + offset] * filter[fIndex];
            sumG += input[curRow + offset + 1] * filter[fIndex + 1];
            sumB += input[curRow + offset + 2] * filter[fIndex + 2];
            sumA += input[curRow + offset + 3] * filter[fIndex + 3];
        }
    }
    const int o = 4 * (y * BORDER_OUT_W(width) + x);
    output[o] = sumR;
    output[o + 1] = sumG;
    output[o + 2] = sumB;
    output[o + 3] = sumA;
}

/* 3. One float4 read per pixel and per filter term, vector multiply-add. */
__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1)))
void reda_float4(const __global float4 *input, __global float4 *output, __constant float4 *filter,
                 const int inWidth, const int width, const int height)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= BORDER_OUT_W(width) || y >= height)
        return;
    const int pitch = BORDER_IN_PITCH(inWidth);
    const int my = BORDER_CENTRE(x, y, pitch);

    int fIndex = 0;
    float4 sum = (float4)0.0f;
    for (int r = -HALF_FILTER_SIZE; r <= HALF_FILTER_SIZE; r++) {
        const int curRow = my + r * pitch;
        for (int c = -HALF_FILTER_SIZE; c <= HALF_FILTER_SIZE; c++) {
            sum += input[curRow + c] * filter[fIndex];
            fIndex++;
        }
    }
    output[y * BORDER_OUT_W(width) + x] = sum;
}
