/*
 * conv_block.h — the register-blocked convolution (conv_block_grey.cl,
 * conv_block_rgba.cl; docs/KERNELS.md, "Register blocking").
 *
 * Border rule of docs/KERNELS.md in its top-left form: out(x, y) sums the
 * FILTER_WIDTH^2 input pixels whose top-left corner is (x, y); the input is
 * (W + FW - 1) x (H + FW - 1), row pitch inWidth.
 *
 * Each work-item computes a block of OUT_X x OUT_Y outputs, kept in
 * registers; a work-group of WG_X x WG_Y items computes a block of
 * CB_BX x CB_BY outputs. The group first copies the input window those
 * outputs read (CB_TILE_W x CB_TILE_H pixels) into __local memory, then each
 * item walks the OUT_Y + FW - 1 input rows its block reads: it loads the
 * OUT_X + FW - 1 pixels of the row it needs into registers once (vector
 * loads from the tile), and adds them, times the filter terms, to every
 * output row the input row contributes to. FILTER_WIDTH, OUT_X and OUT_Y
 * are compiled in, so every loop but the input-row loop is unrolled fully
 * and the accumulators and the row segment are registers. The row loop
 * is unrolled ROW_UNROLL times (1: not at all, 0: fully). LOOP_ORDER picks
 * which rows the loop walks: 0, the input rows (each read from the tile
 * once, the filter terms OUT_Y times); 1, the filter rows (each filter row
 * read once into registers, the input rows OUT_Y times).
 *
 * The including file defines CB_T (float or float4) and CB_VEC: the widest
 * vector the row segment is loaded with (4 for float, 1 for float4, whose
 * pixels already are 16-byte vectors).
 *
 * Local memory: CB_TILE_PITCH * CB_TILE_H * sizeof(CB_T) bytes.
 */
#ifndef CLC_KERNELS_CONV_BLOCK_H
#define CLC_KERNELS_CONV_BLOCK_H

#ifdef cl_nv_pragma_unroll
#pragma OPENCL EXTENSION cl_nv_pragma_unroll : enable
#endif

#define CB_PRAGMA(x) _Pragma(#x)
#define CB_UNROLL_BY(n) CB_PRAGMA(unroll n)

#define CB_BX (WG_X * OUT_X)
#define CB_BY (WG_Y * OUT_Y)
#define CB_SEG (OUT_X + FILTER_WIDTH - 1)     /* pixels of one input row a block reads */
#define CB_IN_ROWS (OUT_Y + FILTER_WIDTH - 1) /* input rows a block reads */
#define CB_TILE_W (CB_BX + FILTER_WIDTH - 1)
#define CB_TILE_H (CB_BY + FILTER_WIDTH - 1)

/* The vector width the segment is read with: CB_VEC when OUT_X is a
 * multiple of it (every item's segment then starts on a vector boundary of
 * the tile), else 2 when OUT_X is even, else 1. */
#if CB_VEC == 4 && OUT_X % 4 == 0
#define CB_LOAD_VEC 4
#elif CB_VEC >= 2 && OUT_X % 2 == 0
#define CB_LOAD_VEC 2
#else
#define CB_LOAD_VEC 1
#endif
/* The segment rounded up to whole vectors; the tile's pitch is rounded up
 * likewise, so the last item's last vector stays inside its row. */
#define CB_SEG_PAD ((CB_SEG + CB_LOAD_VEC - 1) / CB_LOAD_VEC * CB_LOAD_VEC)
#define CB_TILE_PITCH ((CB_TILE_W + CB_LOAD_VEC - 1) / CB_LOAD_VEC * CB_LOAD_VEC)

/* The row loop (input rows or filter rows, LOOP_ORDER) is unrolled
 * ROW_UNROLL times; 0 unrolls it fully, which holds more values in
 * registers at once and spills at large widths (docs/KERNELS.md). */
#if ROW_UNROLL == 0
#define CB_ROW_LOOP _Pragma("unroll")
#else
#define CB_ROW_LOOP CB_UNROLL_BY(ROW_UNROLL)
#endif

#if LOOP_ORDER == 0
/* Input rows outer: each of the OUT_Y + FW - 1 input rows is read from the
 * tile once and added to every output row it contributes to (filter row
 * iy - oy of output row oy); the filter terms are read OUT_Y times. */
#define CB_ACCUMULATE(base)                                                                \
    CB_ROW_LOOP for (int iy = 0; iy < CB_IN_ROWS; iy++) {                                  \
        const __local CB_T *row = (base) + iy * CB_TILE_PITCH;                             \
        CB_T seg[CB_SEG_PAD];                                                              \
        CB_LOAD_SEG(seg, row);                                                             \
        _Pragma("unroll") for (int oy = 0; oy < OUT_Y; oy++) {                             \
            const int r = iy - oy;                                                         \
            if (r >= 0 && r < FILTER_WIDTH) {                                              \
                __constant CB_T *f = filter + r * FILTER_WIDTH;                            \
                _Pragma("unroll") for (int c = 0; c < FILTER_WIDTH; c++) {                 \
                    const CB_T fv = f[c];                                                  \
                    _Pragma("unroll") for (int ox = 0; ox < OUT_X; ox++)                   \
                        acc[oy][ox] = mad(fv, seg[ox + c], acc[oy][ox]);                   \
                }                                                                          \
            }                                                                              \
        }                                                                                  \
    }
#else
/* Filter rows outer: filter row r is read once into registers and used for
 * every output row; input row oy + r is read from the tile for each. */
#define CB_ACCUMULATE(base)                                                                \
    CB_ROW_LOOP for (int r = 0; r < FILTER_WIDTH; r++) {                                   \
        CB_T fr[FILTER_WIDTH];                                                             \
        _Pragma("unroll") for (int c = 0; c < FILTER_WIDTH; c++)                           \
            fr[c] = filter[r * FILTER_WIDTH + c];                                          \
        _Pragma("unroll") for (int oy = 0; oy < OUT_Y; oy++) {                             \
            const __local CB_T *row = (base) + (oy + r) * CB_TILE_PITCH;                   \
            CB_T seg[CB_SEG_PAD];                                                          \
            CB_LOAD_SEG(seg, row);                                                         \
            _Pragma("unroll") for (int c = 0; c < FILTER_WIDTH; c++)                       \
                _Pragma("unroll") for (int ox = 0; ox < OUT_X; ox++)                       \
                    acc[oy][ox] = mad(fr[c], seg[ox + c], acc[oy][ox]);                    \
        }                                                                                  \
    }
#endif

/* The body of a kernel with the arguments (input, filter, output, inWidth,
 * width, height), input/output of CB_T. */
#define CB_BODY()                                                                          \
    __local CB_T tile[CB_TILE_H * CB_TILE_PITCH];                                          \
    const int lx = get_local_id(0);                                                        \
    const int ly = get_local_id(1);                                                        \
    const int x0 = get_group_id(0) * CB_BX;                                                \
    const int y0 = get_group_id(1) * CB_BY;                                                \
    /* The group's window, clamped to the input for a last partial group         \
     * (the clamped pixels feed only outputs that are not written). */               \
    const int lastCol = width + FILTER_WIDTH - 2;                                          \
    const int lastRow = height + FILTER_WIDTH - 2;                                         \
    for (int ty = ly; ty < CB_TILE_H; ty += WG_Y) {                                        \
        const __global CB_T *src = input + min(y0 + ty, lastRow) * inWidth;                \
        for (int tx = lx; tx < CB_TILE_W; tx += WG_X)                                      \
            tile[ty * CB_TILE_PITCH + tx] = src[min(x0 + tx, lastCol)];                    \
    }                                                                                      \
    barrier(CLK_LOCAL_MEM_FENCE);                                                          \
                                                                                           \
    CB_T acc[OUT_Y][OUT_X];                                                                \
    _Pragma("unroll") for (int oy = 0; oy < OUT_Y; oy++)                                   \
        _Pragma("unroll") for (int ox = 0; ox < OUT_X; ox++)                               \
            acc[oy][ox] = (CB_T)0.0f;                                                      \
    const __local CB_T *base = tile + ly * OUT_Y * CB_TILE_PITCH + lx * OUT_X;             \
    CB_ACCUMULATE(base)                                                                    \
                                                                                           \
    const int xs = x0 + lx * OUT_X;                                                        \
    const int ys = y0 + ly * OUT_Y;                                                        \
    _Pragma("unroll") for (int oy = 0; oy < OUT_Y; oy++)                                   \
        _Pragma("unroll") for (int ox = 0; ox < OUT_X; ox++)                               \
            if (xs + ox < width && ys + oy < height)                                       \
                output[(ys + oy) * width + xs + ox] = acc[oy][ox];

#endif /* CLC_KERNELS_CONV_BLOCK_H */
