# extract --kernel of a likely typo: the pack's nearest kernel.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
clc-pack extract p.clcpack --kernel Convolve_Deff -o x.bin
