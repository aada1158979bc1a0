# best for a width the pack lacks.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
clc-pack best p.clcpack --family conv-rgba --width 9 --no-load
