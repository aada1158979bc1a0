# list --json of the same pack.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
clc-pack list --json p.clcpack
