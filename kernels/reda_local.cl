/*
 * reda_local.cl — Reda's local-memory kernel: each work-group copies its
 * tile of the input (its WG_X x WG_Y pixels plus a HALF_FILTER_SIZE halo on
 * every side, reda_tile.h) into __local memory once, then every work-item
 * convolves from there. 8x8 and 16x16 work-groups are the manifest's WG
 * values; the study found 16x16 the faster (less halo per pixel).
 *
 * Any W x H runs: the grid is rounded up to the work-group and work-items
 * past the image load their share of the tile, then return.
 */
#include "reda_tile.h"

__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1)))
void reda_local(const __global float4 *input, __global float4 *output, __constant float4 *filter,
                const int inWidth, const int width, const int height)
{
    __local float4 tile[TILE_H * TILE_W];
    const int outW = BORDER_OUT_W(width);
    const int x0 = get_group_id(0) * WG_X;
    const int y0 = get_group_id(1) * WG_Y;
    reda_load_tile(tile, input, BORDER_IN_PITCH(inWidth), outW, height, x0, y0);

    const int lx = get_local_id(0);
    const int ly = get_local_id(1);
    if (x0 + lx >= outW || y0 + ly >= height)
        return;
    const int my = (ly + HALF_FILTER_SIZE) * TILE_W + lx + HALF_FILTER_SIZE;
    int fIndex = 0;
    float4 sum = (float4)0.0f;
    for (int r = -HALF_FILTER_SIZE; r <= HALF_FILTER_SIZE; r++) {
        const int curRow = my + r * TILE_W;
        for (int c = -HALF_FILTER_SIZE; c <= HALF_FILTER_SIZE; c++) {
            sum += tile[curRow + c] * filter[fIndex];
            fIndex++;
        }
    }
    output[(y0 + ly) * outW + x0 + lx] = sum;
}
