/*
 * reda_tile.h — the work-group tile of Reda's local-memory kernels
 * (reda_local.cl, reda_local_unrolled.cl.in).
 *
 * A work-group's WG_X x WG_Y outputs read, under the border rule
 * (border.h), the input window of (WG_X + 2*HFS) x (WG_Y + 2*HFS) pixels
 * whose top-left corner is the group's first output (x0, y0). The tile is
 * sized at compile time: 16 bytes per float4 pixel, so
 *   local memory = (WG_X + 2*HFS) * (WG_Y + 2*HFS) * 16 bytes,
 * 33,856 bytes for 16x16 at FILTER_WIDTH 31 (HFS 15).
 */
#ifndef CLC_KERNELS_REDA_TILE_H
#define CLC_KERNELS_REDA_TILE_H

#include "border.h"

#define TILE_W (WG_X + TWICE_HALF_FILTER_SIZE)
#define TILE_H (WG_Y + TWICE_HALF_FILTER_SIZE)

/* Copies the group's window into tile, each work-item taking every
 * (WG_X*WG_Y)-th element, and waits for the whole group. Every work-item of
 * the group must call it, those past the image's edge included, because of
 * the barrier. A last, partial group would read past the padded input
 * (outW + 2*HFS) x (height + 2*HFS), so its loads are clamped to it; the
 * clamped pixels feed only outputs that are not written. */
static void reda_load_tile(__local float4 *tile, const __global float4 *input, const int pitch,
                           const int outW, const int height, const int x0, const int y0)
{
    const int lastCol = outW + TWICE_HALF_FILTER_SIZE - 1;
    const int lastRow = height + TWICE_HALF_FILTER_SIZE - 1;
    for (int i = get_local_id(1) * WG_X + get_local_id(0); i < TILE_W * TILE_H;
         i += WG_X * WG_Y) {
        const int gx = min(x0 + i % TILE_W, lastCol);
        const int gy = min(y0 + i / TILE_W, lastRow);
        tile[i] = input[gy * pitch + gx];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

#endif /* CLC_KERNELS_REDA_TILE_H */
