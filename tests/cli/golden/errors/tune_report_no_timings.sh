# tune-report of a pack built without timings.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
clc-pack tune-report p.clcpack
