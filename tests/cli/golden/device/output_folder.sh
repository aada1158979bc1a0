# A pack's -o naming a folder is refused before anything is built.
mkdir a_folder.clcpack
clc-pack --kernels "$KERNELS" --kernel Convolve_Def --widths 3 --wg 8x8 -q -o a_folder.clcpack
