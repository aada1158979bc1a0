# --kernel Convolve_Deff: the nearest kernel is suggested.
clc-pack --kernels "$KERNELS" --kernel Convolve_Deff
