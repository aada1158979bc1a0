# A kernel source file of the manifest missing: the manifest's line and the file are named.
cp -r "$KERNELS" no_source
rm no_source/amd_convolve.cl
clc-pack --kernels no_source --kernel Convolve_Def --widths 3 --wg 8x8 -o good.clcpack
