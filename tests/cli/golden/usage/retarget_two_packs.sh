# retarget with two packs.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
clc-pack retarget p.clcpack p.clcpack -o x.clcpack
