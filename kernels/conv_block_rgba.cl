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
 * from global memory once per channel, each read taking one float of a
 * 16-byte pixel: four times the bytes a grey tile moves, per channel.
 * CHANNEL_PASS 2: the window is read once, in float4 pixels, and split
 * into four single-channel tiles (planes); then each channel is convolved
 * from its plane with the grey kernel's code, as in pass 1 but with no
 * barrier and no global read between channels. The four planes take the
 * bytes of the float4 tile, so the blocks are those of pass 0's size.
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
    CB_DECLARE_IDS;
#if CHANNEL_PASS == 2
#define CB_PLANE (CB_TILE_H * CB_TILE_PITCH)
    /* 16-byte aligned, and each plane a multiple of 4 floats long, so every
     * plane starts on a 16-byte boundary for the segments' float4 reads. */
    __local float planes[4 * CB_PLANE] __attribute__((aligned(16)));
    {
        const int lastCol = width + FILTER_WIDTH - 2;
        const int lastRow = height + FILTER_WIDTH - 2;
        for (int ty = ly; ty < CB_TILE_H; ty += WG_Y) {
            const int row0 = min(y0 + ty, lastRow) * inWidth;
            for (int tx = lx; tx < CB_TILE_W; tx += WG_X) {
                const float4 p = input[row0 + min(x0 + tx, lastCol)];
                const int at = ty * CB_TILE_PITCH + tx;
                planes[at] = p.x;
                planes[CB_PLANE + at] = p.y;
                planes[2 * CB_PLANE + at] = p.z;
                planes[3 * CB_PLANE + at] = p.w;
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#define CB_TILE (planes + ch * CB_PLANE)
#define CB_FILTER(i) ((__constant float *)filter)[4 * (i) + ch]
#define CB_STORE(i, v) ((__global float *)output)[4 * (i) + ch] = (v)
#pragma unroll 1
    for (int ch = 0; ch < 4; ch++) {
#include "conv_block_body.h"
    }
#elif CHANNEL_PASS == 1
    __local CB_T tile[CB_TILE_H * CB_TILE_PITCH] __attribute__((aligned(16)));
#define CB_TILE tile
#define CB_INPUT(i) ((const __global float *)input)[4 * (i) + ch]
#define CB_FILTER(i) ((__constant float *)filter)[4 * (i) + ch]
#define CB_STORE(i, v) ((__global float *)output)[4 * (i) + ch] = (v)
#pragma unroll 1
    for (int ch = 0; ch < 4; ch++) {
        /* The previous channel's reads of the tile are done. */
        if (ch > 0)
            barrier(CLK_LOCAL_MEM_FENCE);
#include "conv_block_fill.h"
#include "conv_block_body.h"
    }
#else
    /* 16-byte aligned for the vector reads of the segments (conv_block_grey.cl). */
    __local CB_T tile[CB_TILE_H * CB_TILE_PITCH] __attribute__((aligned(16)));
#define CB_TILE tile
#define CB_INPUT(i) input[i]
#define CB_FILTER(i) filter[i]
#define CB_STORE(i, v) output[i] = (v)
#include "conv_block_fill.h"
#include "conv_block_body.h"
#endif
}
