# best --kernel of a likely typo: the nearest, and the kernels the pack holds.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
clc-pack best p.clcpack --kernel Convolve_Deff --no-load
