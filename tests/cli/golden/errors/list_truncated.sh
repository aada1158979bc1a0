# list and verify of a pack cut after 100 bytes.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
head -c 100 p.clcpack >short.clcpack
clc-pack list short.clcpack
clc-pack verify short.clcpack
