# -o as the last word.
clc-pack --kernels "$KERNELS" -o
