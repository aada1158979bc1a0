# retarget -j 0.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
clc-pack retarget p.clcpack -j 0 -o x.clcpack
