/*
 * conv_block_tile_walk.h — visits every pixel of the group's tile once,
 * spread over the group's items, and runs CB_FILL_PIXEL(ty, tx) for it
 * (tile row ty, column tx); included by conv_block_fill.h and
 * conv_block_planes.h, which define CB_FILL_PIXEL, inside the kernel
 * function after CB_DECLARE_IDS. Consecutive items take consecutive
 * pixels of a row, so their global reads coalesce.
 *
 * FILL_FLAT 0: each item steps through the rows (by WG_Y) and, in each,
 * the columns (by WG_X) it copies. FILL_FLAT 1: one loop over the tile's
 * pixels numbered row-major, item i taking i, i + WG_X * WG_Y, ...; its
 * trip count is compiled in, so it unrolls fully and all of an item's
 * reads are in flight before the first store waits for its data
 * (conv_block.h says what each was measured to buy).
 */
#if FILL_FLAT
{
    /* The steps: the tile's pixels over the group's items, rounded up. */
    const int first = ly * WG_X + lx;
#pragma unroll
    for (int k = 0; k < (CB_TILE_W * CB_TILE_H + WG_X * WG_Y - 1) / (WG_X * WG_Y); k++) {
        const int i = first + k * (WG_X * WG_Y);
        if (i < CB_TILE_W * CB_TILE_H) {
            const int ty = i / CB_TILE_W;
            const int tx = i - ty * CB_TILE_W;
            CB_FILL_PIXEL(ty, tx);
        }
    }
}
#else
for (int ty = ly; ty < CB_TILE_H; ty += WG_Y) {
    for (int tx = lx; tx < CB_TILE_W; tx += WG_X)
        CB_FILL_PIXEL(ty, tx);
}
#endif
#undef CB_FILL_PIXEL
