# --widths 3-: a range with no end.
clc-pack --kernels "$KERNELS" --widths 3-
