# merge -o naming a folder: nothing is merged.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
mkdir d
clc-pack merge p.clcpack p.clcpack -o d
