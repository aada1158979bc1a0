# --kernels naming a folder without a manifest.
mkdir empty_kernels
clc-pack --kernels empty_kernels
