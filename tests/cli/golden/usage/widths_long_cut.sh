# --widths of 200 values: the argument cut short with ..., the reason whole.
clc-pack --kernels "$KERNELS" --widths "$(seq -s, 1 200)"
