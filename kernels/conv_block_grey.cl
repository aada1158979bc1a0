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

__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1)))
void conv_block_grey(const __global float *input, __constant float *filter,
                     __global float *output, const int inWidth, const int width,
                     const int height)
{
#define CB_INPUT(i) input[i]
#define CB_FILTER(i) filter[i]
#define CB_STORE(i, v) output[i] = (v)
#define CB_WIDE_STORES
    /* 16-byte aligned: the segments are read from it as float4 (a local array
     * is otherwise aligned only to its element, and NVIDIA faults on a
     * misaligned vector access). */
    __local float tile[CB_TILE_H * CB_TILE_PITCH] __attribute__((aligned(16)));
#define CB_TILE tile
    CB_DECLARE_IDS;
#include "conv_block_fill.h"
#include "conv_block_body.h"
}
