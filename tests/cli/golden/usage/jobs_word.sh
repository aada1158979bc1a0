# -j abc: not a number of jobs.
clc-pack --kernels "$KERNELS" --widths 3 -j abc
