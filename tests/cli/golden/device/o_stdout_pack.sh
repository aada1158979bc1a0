# -o - for a pack: stdout is for extract and embed only.
clc-pack --kernels "$KERNELS" --widths 3 -o -
