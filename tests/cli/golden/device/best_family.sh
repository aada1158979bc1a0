# best --family --width on a pack without timings: the default variant, and why (the device's name filtered).
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
clc-pack best p.clcpack --family conv-grey --width 5 --no-load
