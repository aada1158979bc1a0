/*
 * conv_block_rgba.cl — the register-blocked convolution on an RGBA float4
 * image, each channel with its own filter term as in Reda's kernels
 * (conv_block.h; docs/KERNELS.md, "Register blocking").
 *
 * CHANNEL_PASS 0: the tile holds float4 pixels, every tile read is a
 * 16-byte float4 and each multiply-add works on four channels.
 * CHANNEL_PASS 1: the work-group convolves one channel at a time, from a
 * single-channel tile, with the grey kernel's code (float4 reads of four
 * consecutive pixels of the tile); the tile is a quarter of the size, so
 * the blocks can be as large as the grey kernel's, and neighbouring
 * work-items' tile reads do not fall on the same banks. The window is read
 * from global memory once per channel (the later reads mostly from cache).
 */
#if CHANNEL_PASS
#define CB_T float
#define CB_VEC 4
#else
#define CB_T float4
#define CB_VEC 1
#endif
#include "conv_block.h"

__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1)))
void conv_block_rgba(const __global float4 *input, __constant float4 *filter,
                     __global float4 *output, const int inWidth, const int width,
                     const int height)
{
    /* 16-byte aligned for the vector reads of the segments (conv_block_grey.cl). */
    __local CB_T tile[CB_TILE_H * CB_TILE_PITCH] __attribute__((aligned(16)));
#if CHANNEL_PASS
#define CB_INPUT(i) ((const __global float *)input)[4 * (i) + ch]
#define CB_FILTER(i) ((__constant float *)filter)[4 * (i) + ch]
#define CB_STORE(i, v) ((__global float *)output)[4 * (i) + ch] = (v)
#pragma unroll 1
    for (int ch = 0; ch < 4; ch++) {
        /* The previous channel's reads of the tile are done. */
        if (ch > 0)
            barrier(CLK_LOCAL_MEM_FENCE);
#include "conv_block_body.h"
    }
#else
#define CB_INPUT(i) input[i]
#define CB_FILTER(i) filter[i]
#define CB_STORE(i, v) output[i] = (v)
#include "conv_block_body.h"
#endif
}
