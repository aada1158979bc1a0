# retarget --nv-arch 7: below the first architecture.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
clc-pack retarget p.clcpack --nv-arch 7 -o x.clcpack
