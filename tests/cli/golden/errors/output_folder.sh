# -o naming a folder: only a regular file is replaced.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
mkdir d
clc-pack extract p.clcpack --entry 0 -o d
