# --tune-sz: the nearest option.
printf '__kernel void fir(__global float *a) { a[0] = TAPS; }\n' >fir.cl
clc-pack fir.cl --tune-sz 8x8
