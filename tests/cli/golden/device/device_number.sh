# --device 99: no such device, and the devices there are (their names filtered).
clc-pack --kernels "$KERNELS" --device 99 -o x.clcpack
