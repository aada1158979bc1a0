# -j beyond 64 bits.
clc-pack --kernels "$KERNELS" --widths 3 -j 99999999999999999999
