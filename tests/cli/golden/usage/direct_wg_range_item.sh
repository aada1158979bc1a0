# --wg 16,32-64: the item at fault is named.
printf '__kernel void fir(__global float *a) { a[0] = TAPS; }\n' >fir.cl
clc-pack fir.cl -D TAPS=8 --wg 16,32-64
