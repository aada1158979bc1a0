/*
 * conv_block_load.h — loads seg[0 .. CB_SEG_PAD) from the tile row `row`
 * (conv_block_body.h and conv_block_channel.h include it once per
 * LOOP_ORDER), in vectors of CB_LOAD_VEC elements: every item's segment
 * starts on a vector boundary (conv_block.h), so a float4 or float2 read
 * of the tile is aligned. `row` includes CB_ITEM_COL, and CB_SEG_AT finds
 * each vector through the tile's column layout.
 */
#if CB_LOAD_VEC == 4
#pragma unroll
for (int k = 0; k < CB_SEG_PAD / 4; k++) {
    const float4 v = *(const __local float4 *)(row + CB_SEG_AT(4 * k));
    seg[4 * k] = v.s0;
    seg[4 * k + 1] = v.s1;
    seg[4 * k + 2] = v.s2;
    seg[4 * k + 3] = v.s3;
}
#elif CB_LOAD_VEC == 2
#pragma unroll
for (int k = 0; k < CB_SEG_PAD / 2; k++) {
    const float2 v = *(const __local float2 *)(row + CB_SEG_AT(2 * k));
    seg[2 * k] = v.s0;
    seg[2 * k + 1] = v.s1;
}
#else
#pragma unroll
for (int k = 0; k < CB_SEG; k++)
    seg[k] = row[CB_SEG_AT(k)];
#endif
