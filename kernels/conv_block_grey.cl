/*
 * conv_block_grey.cl — the register-blocked convolution on a single-channel
 * float image (conv_block.h; docs/KERNELS.md, "Register blocking").
 *
 * The row segment is read from the tile in vectors of up to SEG_VEC floats:
 * float4 when SEG_VEC is 4 and OUT_X a multiple of 4, float2 when OUT_X is
 * even, else one float at a time. Each item's segment then starts on a
 * vector boundary, because the tile's pitch and OUT_X are multiples of the
 * vector width.
 */
#define CB_T float
#define CB_VEC SEG_VEC
#include "conv_block.h"

#if CB_LOAD_VEC == 4
#define CB_LOAD_SEG(seg, row)                                                              \
    _Pragma("unroll") for (int k = 0; k < CB_SEG_PAD / 4; k++) {                           \
        const float4 v = ((const __local float4 *)(row))[k];                               \
        seg[4 * k] = v.s0;                                                                 \
        seg[4 * k + 1] = v.s1;                                                             \
        seg[4 * k + 2] = v.s2;                                                             \
        seg[4 * k + 3] = v.s3;                                                             \
    }
#elif CB_LOAD_VEC == 2
#define CB_LOAD_SEG(seg, row)                                                              \
    _Pragma("unroll") for (int k = 0; k < CB_SEG_PAD / 2; k++) {                           \
        const float2 v = ((const __local float2 *)(row))[k];                               \
        seg[2 * k] = v.s0;                                                                 \
        seg[2 * k + 1] = v.s1;                                                             \
    }
#else
#define CB_LOAD_SEG(seg, row)                                                              \
    _Pragma("unroll") for (int k = 0; k < CB_SEG; k++) seg[k] = (row)[k];
#endif

__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1)))
void conv_block_grey(const __global float *input, __constant float *filter,
                     __global float *output, const int inWidth, const int width,
                     const int height)
{
    CB_BODY()
}
