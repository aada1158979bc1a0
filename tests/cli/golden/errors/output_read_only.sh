# -o naming a read-only file: refused, for root too.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
: >ro.bin
chmod 444 ro.bin
clc-pack extract p.clcpack --entry 0 -o ro.bin
