# -o naming a FIFO: refused, never opened.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
mkfifo out.fifo
timeout 20 clc-pack extract p.clcpack --entry 0 -o out.fifo
