# --kernel reda_naive --widths 4: a width that kernel does not take.
clc-pack --kernels "$KERNELS" --kernel reda_naive --widths 4
