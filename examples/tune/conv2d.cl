/*
 * conv2d.cl — a 2-D convolution of a W x H image with an FW x FW filter,
 * the input padded to (W + FW - 1) x (H + FW - 1): a kernel to tune
 * (examples/tune/README.md). Each work-group of BX x BY work-items computes
 * a tile of (BX * TX) x (BY * TY) outputs, each work-item TX x TY of them,
 * BX and BY apart; LOCAL=1 stages the tile's input in local memory first;
 * UNROLL asks the compiler to unroll the filter's inner loop (1) or both
 * loops (2).
 */
#define IW (W + FW - 1)
#define TW (BX * TX + FW - 1)
#define TH (BY * TY + FW - 1)

__kernel __attribute__((reqd_work_group_size(BX, BY, 1)))
void conv2d(__global const float *restrict in, __constant float *filt, __global float *out)
{
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int gx = get_group_id(0) * BX * TX, gy = get_group_id(1) * BY * TY;
#if LOCAL
    __local float tile[TH][TW];
    for (int j = ly; j < TH; j += BY)
        for (int i = lx; i < TW; i += BX)
            tile[j][i] = in[(gy + j) * IW + gx + i];
    barrier(CLK_LOCAL_MEM_FENCE);
#define PIXEL(y, x) tile[(y)][(x)]
#else
#define PIXEL(y, x) in[(gy + (y)) * IW + gx + (x)]
#endif
    float acc[TY][TX];
    for (int ty = 0; ty < TY; ty++)
        for (int tx = 0; tx < TX; tx++)
            acc[ty][tx] = 0.0f;
#if UNROLL == 2
#pragma unroll
#endif
    for (int j = 0; j < FW; j++) {
#if UNROLL >= 1
#pragma unroll
#endif
        for (int i = 0; i < FW; i++) {
            const float f = filt[j * FW + i];
            for (int ty = 0; ty < TY; ty++)
                for (int tx = 0; tx < TX; tx++)
                    acc[ty][tx] += PIXEL(ly + ty * BY + j, lx + tx * BX + i) * f;
        }
    }
    for (int ty = 0; ty < TY; ty++)
        for (int tx = 0; tx < TX; tx++)
            out[(gy + ly + ty * BY) * W + gx + lx + tx * BX] = acc[ty][tx];
}
