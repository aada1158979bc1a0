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
 *
 * This file holds the sizes; conv_block_fill.h copies the window into
 * the tile and conv_block_body.h is the rest of the kernel, both
 * included inside the function so that every unroll hint is a plain
 * "#pragma unroll" line (no _Pragma in a macro, which not every OpenCL
 * compiler takes).
 */
#ifndef CLC_KERNELS_CONV_BLOCK_H
#define CLC_KERNELS_CONV_BLOCK_H

#ifdef cl_nv_pragma_unroll
#pragma OPENCL EXTENSION cl_nv_pragma_unroll : enable
#endif

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
/* The segment rounded up to whole vectors. */
#define CB_SEG_PAD ((CB_SEG + CB_LOAD_VEC - 1) / CB_LOAD_VEC * CB_LOAD_VEC)

/* Where tile column x is stored in its row. Local memory serves a float4
 * read for eight work-items at once (128 bytes, one per bank of four
 * bytes), and two of those eight that read the same banks wait for each
 * other. With OUT_X 8, neighbouring items' segments start 8 columns
 * apart, so items i and i + 4 read 32 columns apart: the same banks, a
 * 2-way conflict on every segment read. Swapping the two float4 halves of
 * every 8 columns in each odd 32-column stretch (column bit 2 flipped)
 * moves items i + 4 to the other 16 banks; a float4 (4-aligned columns)
 * stays whole, and no column leaves its 8-column group, so a tile row
 * grows by 4 columns at most (CB_TILE_PITCH). Other block widths read
 * with conflict-free strides (16 bytes or less apart) and keep the plain
 * layout. */
#if OUT_X == 8 && CB_LOAD_VEC == 4
#define CB_SWIZZLE 1
#define CB_COL(x) ((x) ^ (((x) >> 5 & 1) << 2))
#else
#define CB_SWIZZLE 0
#define CB_COL(x) (x)
#endif
/* Reading an item's segment: the row pointer plus CB_ITEM_COL is where
 * its vector i (its first element, column col0 + i) is read with offset
 * CB_SEG_AT(i). The plain layout keeps the item's first column in the
 * row pointer, the address arithmetic NVIDIA's compiler was measured
 * fastest with (up to 9 % at some widths against adding it per read). */
#if CB_SWIZZLE
#define CB_ITEM_COL 0
#define CB_SEG_AT(i) CB_COL(col0 + (i))
#else
#define CB_ITEM_COL col0
#define CB_SEG_AT(i) (i)
#endif
/* The tile's pitch: whole vectors, so that the last item's last vector
 * stays inside its row; with the swizzle, whole 8-column groups where the
 * row ends in an odd 32-column stretch, whose last vector may be swapped
 * past the end. */
#define CB_PITCH_VEC ((CB_TILE_W + CB_LOAD_VEC - 1) / CB_LOAD_VEC * CB_LOAD_VEC)
#if CB_SWIZZLE
#define CB_TILE_PITCH (((CB_PITCH_VEC - 1) >> 5 & 1) ? (CB_TILE_W + 7) / 8 * 8 : CB_PITCH_VEC)
#else
#define CB_TILE_PITCH CB_PITCH_VEC
#endif

/* FILL_FLAT (an optional axis): how the tile is filled, row by row (0)
 * or by one unrolled loop over its pixels (1; conv_block_tile_walk.h).
 * H200, 4096x4096, the same shapes in one run: the flat fill is 1.2-1.4x
 * faster for grey at widths 3-7 and 1.03-1.10x for the RGBA picks at 3-11
 * and 21, where the fill's latency is not hidden; up to 12 % slower at
 * some large widths, where the unrolled reads cost registers. So it is an
 * axis, and --tune picks. */
#ifndef FILL_FLAT
#define FILL_FLAT 0
#endif

/* The ids the fill and the body use: this item in its group, and the
 * group's first output pixel. */
#define CB_DECLARE_IDS                                                                   \
    const int lx = get_local_id(0);                                                     \
    const int ly = get_local_id(1);                                                     \
    const int x0 = get_group_id(0) * CB_BX;                                             \
    const int y0 = get_group_id(1) * CB_BY

#endif /* CLC_KERNELS_CONV_BLOCK_H */
