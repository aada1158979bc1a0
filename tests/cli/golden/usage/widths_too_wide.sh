# --widths 33: a filter width the bundled kernels do not allow.
clc-pack --kernels "$KERNELS" --widths 33
