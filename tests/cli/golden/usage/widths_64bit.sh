# --widths beyond 64 bits.
clc-pack --kernels "$KERNELS" --widths 99999999999999999999
