# --wg 0x8: hexadecimal is not a size.
clc-pack --kernels "$KERNELS" --widths 3 --wg 0x8
