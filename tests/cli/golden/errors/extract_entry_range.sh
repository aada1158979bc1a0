# extract --entry past the last entry: how many there are.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
clc-pack extract p.clcpack --entry 99 -o x.bin
