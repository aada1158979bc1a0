# --wg 1-64: a range, which --wg does not take, reads as 1 minus 64.
printf '__kernel void fir(__global float *a) { a[0] = TAPS; }\n' >fir.cl
clc-pack fir.cl -D TAPS=8 --wg 1-64
