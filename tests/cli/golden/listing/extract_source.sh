# extract --source of an entry to stdout: the first lines of its program's source.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
clc-pack extract p.clcpack --entry 1 --source -o - | head -n 5
