# -o /dev/stdout is a link: -o - is the way to stdout.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
clc-pack extract p.clcpack --entry 0 -o /dev/stdout
