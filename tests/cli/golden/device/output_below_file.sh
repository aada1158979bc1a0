# A pack's -o below a file is refused before anything is built.
: >file
clc-pack --kernels "$KERNELS" --kernel Convolve_Def --widths 3 --wg 8x8 -q -o file/x.clcpack
