/*
 * conv_block_planes.h — the RGBA window split into four single-channel
 * tiles (planes), included inside conv_block_rgba after CB_DECLARE_IDS,
 * for CHANNEL_PASS 2 and 3 (conv_block_rgba.cl). Declares `planes`; each
 * work-item reads whole float4 pixels (consecutive items, consecutive
 * pixels: coalesced 16-byte reads, clamped to the input for a last partial
 * group) and writes each channel to its plane.
 */
#define CB_PLANE (CB_TILE_H * CB_TILE_PITCH)
/* 16-byte aligned, and each plane a multiple of CB_LOAD_VEC floats long
 * (CB_TILE_PITCH is), so every plane starts on a vector boundary for the
 * segments' vector reads. */
__local float planes[4 * CB_PLANE] __attribute__((aligned(16)));
{
    const int lastCol = width + FILTER_WIDTH - 2;
    const int lastRow = height + FILTER_WIDTH - 2;
    for (int ty = ly; ty < CB_TILE_H; ty += WG_Y) {
        const int row0 = min(y0 + ty, lastRow) * inWidth;
        for (int tx = lx; tx < CB_TILE_W; tx += WG_X) {
            const float4 p = input[row0 + min(x0 + tx, lastCol)];
            const int at = ty * CB_TILE_PITCH + CB_COL(tx);
            planes[at] = p.x;
            planes[CB_PLANE + at] = p.y;
            planes[2 * CB_PLANE + at] = p.z;
            planes[3 * CB_PLANE + at] = p.w;
        }
    }
}
barrier(CLK_LOCAL_MEM_FENCE);
