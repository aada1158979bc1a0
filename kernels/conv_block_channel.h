/*
 * conv_block_channel.h — one channel's share of one step of the row loop
 * of CHANNEL_PASS 3 (conv_block_rgba.cl): included four times per step,
 * with CB_CH the channel's number (its plane) and CB_COMP its component
 * (x, y, z, w). The accumulators `acc` are float4, one component per
 * channel, so a block's outputs leave as whole 16-byte pixels; the row
 * segment is one channel's floats, read from its plane with the grey
 * kernel's vector reads (conv_block_load.h).
 *
 * LOOP_ORDER 0: `iy` is the input row; it is added, as filter row
 * iy - oy, to every output row oy it belongs to. LOOP_ORDER 1: `r` is the
 * filter row; the input row oy + r is read for every output row oy.
 */
#if LOOP_ORDER == 0
{
    const __local float *row = planes + CB_CH * CB_PLANE + off + iy * CB_TILE_PITCH;
    float seg[CB_SEG_PAD];
#include "conv_block_load.h"
#pragma unroll
    for (int oy = 0; oy < OUT_Y; oy++) {
        const int r = iy - oy;
        if (r >= 0 && r < FILTER_WIDTH) {
#if FILTER_LOCAL
            /* Four terms per read: every work-item reads the same address,
             * which local memory serves as one broadcast. */
            const __local float4 *frow =
                (const __local float4 *)(fplanes + (CB_CH * FILTER_WIDTH + r) * CB_FWP);
#pragma unroll
            for (int k = 0; k < CB_FWP / 4; k++) {
                const float4 f4 = frow[k];
                const float fk[4] = {f4.x, f4.y, f4.z, f4.w};
#pragma unroll
                for (int j = 0; j < 4; j++) {
                    if (4 * k + j < FILTER_WIDTH) {
#pragma unroll
                        for (int ox = 0; ox < OUT_X; ox++)
                            acc[oy][ox].CB_COMP =
                                mad(fk[j], seg[ox + 4 * k + j], acc[oy][ox].CB_COMP);
                    }
                }
            }
#else
#pragma unroll
            for (int c = 0; c < FILTER_WIDTH; c++) {
                const float fv = filter[r * FILTER_WIDTH + c].CB_COMP;
#pragma unroll
                for (int ox = 0; ox < OUT_X; ox++)
                    acc[oy][ox].CB_COMP = mad(fv, seg[ox + c], acc[oy][ox].CB_COMP);
            }
#endif
        }
    }
}
#else
{
    float fr[FILTER_WIDTH];
#pragma unroll
    for (int c = 0; c < FILTER_WIDTH; c++)
        fr[c] = filter[r * FILTER_WIDTH + c].CB_COMP;
#pragma unroll
    for (int oy = 0; oy < OUT_Y; oy++) {
        const __local float *row = planes + CB_CH * CB_PLANE + off + (oy + r) * CB_TILE_PITCH;
        float seg[CB_SEG_PAD];
#include "conv_block_load.h"
#pragma unroll
        for (int c = 0; c < FILTER_WIDTH; c++) {
#pragma unroll
            for (int ox = 0; ox < OUT_X; ox++)
                acc[oy][ox].CB_COMP = mad(fr[c], seg[ox + c], acc[oy][ox].CB_COMP);
        }
    }
}
#endif
#undef CB_CH
#undef CB_COMP
