# --widths beyond 32 bits.
clc-pack --kernels "$KERNELS" --widths 4294967299
