/*
 * conv_block_planes.h — the RGBA window split into four single-channel
 * tiles (planes), included inside conv_block_rgba after CB_DECLARE_IDS,
 * for CHANNEL_PASS 2 and 3 (conv_block_rgba.cl). Declares `planes`; each
 * work-item reads whole float4 pixels (consecutive items, consecutive
 * pixels: coalesced 16-byte reads, clamped to the input for a last partial
 * group; conv_block_tile_walk.h) and writes each channel to its plane.
 */
#define CB_PLANE (CB_TILE_H * CB_TILE_PITCH)
/* 16-byte aligned, and each plane a multiple of CB_LOAD_VEC floats long
 * (CB_TILE_PITCH is), so every plane starts on a vector boundary for the
 * segments' vector reads. */
__local float planes[4 * CB_PLANE] __attribute__((aligned(16)));
{
    const int lastCol = width + FILTER_WIDTH - 2;
    const int lastRow = height + FILTER_WIDTH - 2;
#define CB_FILL_PIXEL(ty, tx)                                                            \
    do {                                                                                 \
        const float4 p = input[min(y0 + (ty), lastRow) * inWidth + min(x0 + (tx), lastCol)]; \
        const int at = (ty) * CB_TILE_PITCH + CB_COL(tx);                               \
        planes[at] = p.x;                                                                \
        planes[CB_PLANE + at] = p.y;                                                     \
        planes[2 * CB_PLANE + at] = p.z;                                                 \
        planes[3 * CB_PLANE + at] = p.w;                                                 \
    } while (0)
#include "conv_block_tile_walk.h"
}
barrier(CLK_LOCAL_MEM_FENCE);
