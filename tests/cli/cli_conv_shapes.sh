#!/bin/sh
# The register-blocked convolutions in every way of reading the tile, on
# this machine's default device: conv_block_rgba with float4 tiles
# (CHANNEL_PASS 0), one channel at a time (1), four planar tiles (2) and
# planar tiles into float4 outputs (3), each with both loop orders, and
# the filter in local memory (FILTER_LOCAL), blocks 8 wide (a swizzled
# tile), the flat fill (FILL_FLAT), and conv_block_grey with both, at an odd
# width and a wider one, checked against the CPU reference when built
# (with partial groups each way) and again loaded from the pack with
# verify --load --check.
. "$(dirname "$0")/../lib/cli_lib.sh"
cd "$TMP" || exit 1

run "$CLC" --kernels "$KERNELS" --kernel conv_block_rgba --widths 3,9 -D CHANNEL_PASS=0,1,2,3 \
    -D LOOP_ORDER=0,1 -D OUT_X=2 -D OUT_Y=2 --wg 8x8 -j 2 -o rgba.clcpack
expect_rc 0 "conv_block_rgba: four channel modes x two loop orders x two widths"
expect_out "16 built, 0 failed" "all sixteen RGBA variants built and checked"

run "$CLC" --kernels "$KERNELS" --kernel conv_block_rgba --widths 5 -D CHANNEL_PASS=2,3 \
    -D OUT_X=4 -D OUT_Y=2,4 --wg 16x8 -j 2 -o planes.clcpack
expect_rc 0 "planar tiles with float4 segment reads, the 16x8 work-group"

run "$CLC" --kernels "$KERNELS" --kernel conv_block_grey --widths 3,9 -D LOOP_ORDER=0,1 \
    -D OUT_X=4 -D OUT_Y=2 --wg 8x8 -j 2 -o grey.clcpack
expect_rc 0 "conv_block_grey: both loop orders at two widths"

run "$CLC" --kernels "$KERNELS" --kernel conv_block_rgba --widths 3,9 -D CHANNEL_PASS=3 \
    -D LOOP_ORDER=0 -D FILTER_LOCAL=1 -D OUT_X=4 -D OUT_Y=2 --wg 16x8 -j 2 -o flocal.clcpack
expect_rc 0 "the filter in local memory (FILTER_LOCAL=1)"

# Blocks 8 wide read a tile whose odd 32-column stretches are swizzled
# (conv_block.h, CB_COL): every tile mode that reads float4 segments.
run "$CLC" --kernels "$KERNELS" --kernel conv_block_grey --widths 5,11 -D LOOP_ORDER=0,1 \
    -D OUT_X=8 -D OUT_Y=2 --wg 8x8 -j 2 -o swz.clcpack
expect_rc 0 "conv_block_grey 8 wide: the swizzled tile, both loop orders"
run "$CLC" --kernels "$KERNELS" --kernel conv_block_rgba --widths 5,11 -D CHANNEL_PASS=1,2,3 \
    -D OUT_X=8 -D OUT_Y=1 --wg 8x8 -j 2 -o swzrgba.clcpack
expect_rc 0 "conv_block_rgba 8 wide: swizzled single-channel tiles and planes"
run "$CLC" --kernels "$KERNELS" --kernel conv_block_rgba --widths 5 -D CHANNEL_PASS=3 \
    -D FILTER_LOCAL=1 -D OUT_X=8 -D OUT_Y=1 --wg 8x8 -j 2 -o swzfl.clcpack
expect_rc 0 "conv_block_rgba 8 wide with the filter in local memory"

# The tile filled by one unrolled loop over its pixels (FILL_FLAT=1):
# conv_block_fill.h (grey, RGBA one channel at a time) and
# conv_block_planes.h (RGBA planes), with partial groups each way.
run "$CLC" --kernels "$KERNELS" --kernel conv_block_grey --widths 3,9 -D FILL_FLAT=1 \
    -D OUT_X=4,8 -D OUT_Y=2 --wg 16x16 -j 2 -o flat.clcpack
expect_rc 0 "conv_block_grey with the flat fill"
run "$CLC" --kernels "$KERNELS" --kernel conv_block_rgba --widths 3,9 -D FILL_FLAT=1 \
    -D CHANNEL_PASS=1,2,3 -D OUT_X=4 -D OUT_Y=2 --wg 8x8 -j 2 -o flatrgba.clcpack
expect_rc 0 "conv_block_rgba with the flat fill: a single-channel tile and planes"

run "$CLC" --kernels "$KERNELS" --kernel conv_block_rgba --widths 3 -D CHANNEL_PASS=2 \
    -D FILTER_LOCAL=1 -o bad.clcpack
expect_rc 1 "FILTER_LOCAL=1 with another channel mode does not build"
expect_err "FILTER_LOCAL=1 needs CHANNEL_PASS=3 and LOOP_ORDER=0" "the build log says why"

for p in rgba planes flocal grey swz swzrgba swzfl flat flatrgba; do
    run "$CLC" verify --kernels "$KERNELS" --load --check $p.clcpack
    expect_rc 0 "$p: every entry loads from the pack and matches the reference"
    expect_out "checks failed 0" "$p: no check failed"
done
cli_done
