# --wg 8x8x: a size with a missing dimension.
clc-pack --kernels "$KERNELS" --widths 3 --wg 8x8x
