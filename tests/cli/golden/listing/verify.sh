# verify of the same pack: every checksum.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
clc-pack verify p.clcpack
