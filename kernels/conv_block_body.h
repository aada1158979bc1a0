/*
 * conv_block_body.h — the body of the register-blocked kernels
 * (conv_block.h says what it computes), included inside the kernel
 * function of conv_block_grey.cl and conv_block_rgba.cl, after
 * CB_DECLARE_IDS and after the group's input window is in __local memory
 * (conv_block_fill.h, or the RGBA kernel's planar fill). The including
 * file says where the tile is and how filter terms and outputs are
 * reached, by element index:
 *   CB_TILE         the tile (__local CB_T [CB_TILE_H * CB_TILE_PITCH])
 *   CB_FILTER(i)    filter term i (row-major)
 *   CB_STORE(i, v)  output i = v (row-major, pitch width)
 * and defines CB_WIDE_STORES when rows of a block may be written as float4.
 */
CB_T acc[OUT_Y][OUT_X];
#pragma unroll
for (int oy = 0; oy < OUT_Y; oy++) {
#pragma unroll
    for (int ox = 0; ox < OUT_X; ox++)
        acc[oy][ox] = (CB_T)0.0f;
}
/* The item's first column, and its first tile row (with the column
 * where the layout allows: conv_block.h, CB_ITEM_COL). */
const int col0 = lx * OUT_X;
const __local CB_T *base = CB_TILE + ly * OUT_Y * CB_TILE_PITCH + CB_ITEM_COL;

#if LOOP_ORDER == 0
/* Input rows outer: input row iy is read from the tile once and added to
 * every output row oy it contributes to, as filter row iy - oy. The row
 * loop is unrolled ROW_UNROLL times (0: fully). */
#include "conv_block_row_unroll.h"
for (int iy = 0; iy < CB_IN_ROWS; iy++) {
    const __local CB_T *row = base + iy * CB_TILE_PITCH;
    CB_T seg[CB_SEG_PAD];
#include "conv_block_load.h"
#pragma unroll
    for (int oy = 0; oy < OUT_Y; oy++) {
        const int r = iy - oy;
        if (r >= 0 && r < FILTER_WIDTH) {
#pragma unroll
            for (int c = 0; c < FILTER_WIDTH; c++) {
                const CB_T fv = CB_FILTER(r * FILTER_WIDTH + c);
#pragma unroll
                for (int ox = 0; ox < OUT_X; ox++)
                    acc[oy][ox] = mad(fv, seg[ox + c], acc[oy][ox]);
            }
        }
    }
}
#else
/* Filter rows outer: filter row r is read into registers once and used for
 * every output row oy, reading input row oy + r from the tile for each. */
#include "conv_block_row_unroll.h"
for (int r = 0; r < FILTER_WIDTH; r++) {
    CB_T fr[FILTER_WIDTH];
#pragma unroll
    for (int c = 0; c < FILTER_WIDTH; c++)
        fr[c] = CB_FILTER(r * FILTER_WIDTH + c);
#pragma unroll
    for (int oy = 0; oy < OUT_Y; oy++) {
        const __local CB_T *row = base + (oy + r) * CB_TILE_PITCH;
        CB_T seg[CB_SEG_PAD];
#include "conv_block_load.h"
#pragma unroll
        for (int c = 0; c < FILTER_WIDTH; c++) {
#pragma unroll
            for (int ox = 0; ox < OUT_X; ox++)
                acc[oy][ox] = mad(fr[c], seg[ox + c], acc[oy][ox]);
        }
    }
}
#endif

/* Each item writes its block; the parts past the image are not written. */
const int xs = x0 + col0;
const int ys = y0 + ly * OUT_Y;
#if defined(CB_WIDE_STORES) && CB_LOAD_VEC == 4
/* Grey blocks a multiple of 4 wide: where the image width is a multiple of
 * 4 too, every row of a block that lies inside the image starts on a
 * 16-byte boundary (OpenCL buffers are aligned far beyond that), so it is
 * written as float4: one 16-byte store instead of four 4-byte ones. */
if ((width & 3) == 0 && xs + OUT_X <= width) {
#pragma unroll
    for (int oy = 0; oy < OUT_Y; oy++) {
        if (ys + oy < height) {
            __global float4 *dst = (__global float4 *)(output + (ys + oy) * width + xs);
#pragma unroll
            for (int k = 0; k < OUT_X / 4; k++)
                dst[k] = (float4)(acc[oy][4 * k], acc[oy][4 * k + 1], acc[oy][4 * k + 2],
                                  acc[oy][4 * k + 3]);
        }
    }
} else
#endif
{
#pragma unroll
    for (int oy = 0; oy < OUT_Y; oy++) {
#pragma unroll
        for (int ox = 0; ox < OUT_X; ox++)
            if (xs + ox < width && ys + oy < height)
                CB_STORE((ys + oy) * width + xs + ox, acc[oy][ox]);
    }
}
