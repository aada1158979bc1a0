# -o below a file.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
clc-pack extract p.clcpack --entry 0 -o p.clcpack/x
