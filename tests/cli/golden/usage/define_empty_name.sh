# -D =5: a define with no name.
clc-pack --kernels "$KERNELS" --widths 3 -D =5
