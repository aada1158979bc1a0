# -D TAPS=8 16: 16 is no file and looks like a value of the -D before it.
printf '__kernel void fir(__global float *a) { a[0] = TAPS; }\n' >fir.cl
clc-pack fir.cl -D TAPS=8 16
