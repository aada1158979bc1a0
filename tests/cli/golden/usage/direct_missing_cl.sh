# -D TAPS=8 other.cl: a missing .cl file is still a source, one that cannot be opened.
printf '__kernel void fir(__global float *a) { a[0] = TAPS; }\n' >fir.cl
clc-pack fir.cl -D TAPS=8 other.cl
