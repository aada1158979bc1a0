# A pack's -o naming one of its own sources: a usage error, before anything is built.
cp -r "$KERNELS" k
clc-pack --kernels k --kernel Convolve_Def --widths 3 -o k/amd_convolve.cl
