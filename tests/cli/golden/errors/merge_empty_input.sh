# merge with an empty input: the input named once.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
: >empty.clcpack
clc-pack merge p.clcpack empty.clcpack -o merged.clcpack
