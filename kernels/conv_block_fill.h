/*
 * conv_block_fill.h — copies the group's input window into the tile
 * (conv_block.h), included inside the kernel function after
 * CB_DECLARE_IDS and the declaration of `tile`, before conv_block_body.h.
 * CB_INPUT(i) is input pixel i (row-major, pitch inWidth).
 *
 * The window is clamped to the input for a last partial group (the
 * clamped pixels feed only outputs that are not written). Consecutive
 * work-items read consecutive pixels (conv_block_tile_walk.h).
 */
{
    const int lastCol = width + FILTER_WIDTH - 2;
    const int lastRow = height + FILTER_WIDTH - 2;
#define CB_FILL_PIXEL(ty, tx)                                                            \
    tile[(ty) * CB_TILE_PITCH + CB_COL(tx)] =                                           \
        CB_INPUT(min(y0 + (ty), lastRow) * inWidth + min(x0 + (tx), lastCol))
#include "conv_block_tile_walk.h"
}
barrier(CLK_LOCAL_MEM_FENCE);
