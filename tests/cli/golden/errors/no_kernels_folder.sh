# Packing where there is no kernels folder: kernels/manifest.txt named once.
clc-pack --widths 3 -o x.clcpack
