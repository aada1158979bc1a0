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
 * CHANNEL_PASS 3: the planes of pass 2, but each step of the row loop
 * goes through the four channels in turn (conv_block_channel.h) into
 * float4 accumulators: every output pixel is written once, as a 16-byte
 * float4, where passes 1 and 2 write each channel's float on its own. The
 * row segment stays one channel wide, so the registers are the
 * accumulators (4 x OUT_X x OUT_Y) and one channel's segment.
 * FILTER_LOCAL 1 (an optional axis; CHANNEL_PASS 3 with LOOP_ORDER 0):
 * the filter terms come from a copy in __local memory, four at a time,
 * instead of one __constant read per term.
 */
#ifndef FILTER_LOCAL
#define FILTER_LOCAL 0
#endif
#if FILTER_LOCAL && !(CHANNEL_PASS == 3 && LOOP_ORDER == 0)
#error "FILTER_LOCAL=1 needs CHANNEL_PASS=3 and LOOP_ORDER=0"
#endif
/* A filter row of the local copy, padded to whole float4s. */
#define CB_FWP ((FILTER_WIDTH + 3) / 4 * 4)
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
#if CHANNEL_PASS == 3
#if FILTER_LOCAL
    /* The filter in __local memory, one plane per channel, each row padded
     * to whole float4s (conv_block_channel.h reads four terms of a row with
     * one broadcast read); filled before the barrier that ends the planes'
     * fill. */
    __local float fplanes[4 * FILTER_WIDTH * CB_FWP] __attribute__((aligned(16)));
    for (int i = ly * WG_X + lx; i < FILTER_WIDTH * FILTER_WIDTH; i += WG_X * WG_Y) {
        const float4 f = filter[i];
        const int at = i / FILTER_WIDTH * CB_FWP + i % FILTER_WIDTH;
        fplanes[at] = f.x;
        fplanes[FILTER_WIDTH * CB_FWP + at] = f.y;
        fplanes[2 * FILTER_WIDTH * CB_FWP + at] = f.z;
        fplanes[3 * FILTER_WIDTH * CB_FWP + at] = f.w;
    }
#endif
#include "conv_block_planes.h"
    float4 acc[OUT_Y][OUT_X];
#pragma unroll
    for (int oy = 0; oy < OUT_Y; oy++) {
#pragma unroll
        for (int ox = 0; ox < OUT_X; ox++)
            acc[oy][ox] = (float4)0.0f;
    }
    /* The item's first column, and its first tile row's offset in a plane
     * (with the column where the layout allows: conv_block.h). */
    const int col0 = lx * OUT_X;
    const int off = ly * OUT_Y * CB_TILE_PITCH + CB_ITEM_COL;
#if LOOP_ORDER == 0
#include "conv_block_row_unroll.h"
    for (int iy = 0; iy < CB_IN_ROWS; iy++) {
#else
#include "conv_block_row_unroll.h"
    for (int r = 0; r < FILTER_WIDTH; r++) {
#endif
#define CB_CH 0
#define CB_COMP x
#include "conv_block_channel.h"
#define CB_CH 1
#define CB_COMP y
#include "conv_block_channel.h"
#define CB_CH 2
#define CB_COMP z
#include "conv_block_channel.h"
#define CB_CH 3
#define CB_COMP w
#include "conv_block_channel.h"
    }
    /* Whole pixels out; the parts of the block past the image are not written. */
    const int xs = x0 + col0;
    const int ys = y0 + ly * OUT_Y;
#pragma unroll
    for (int oy = 0; oy < OUT_Y; oy++) {
#pragma unroll
        for (int ox = 0; ox < OUT_X; ox++)
            if (xs + ox < width && ys + oy < height)
                output[(ys + oy) * width + xs + ox] = acc[oy][ox];
    }
#elif CHANNEL_PASS == 2
#include "conv_block_planes.h"
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
