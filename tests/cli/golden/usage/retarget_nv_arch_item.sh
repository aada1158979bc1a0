# retarget --nv-arch 75,sm_80: the bad item is named.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
clc-pack retarget p.clcpack --nv-arch 75,sm_80 -o x.clcpack
