# -o naming a symbolic link, even a dangling one: nothing is written through it.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
ln -s nowhere link.bin
clc-pack extract p.clcpack --entry 0 -o link.bin
