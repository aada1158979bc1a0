# -DTAPS=8 float: a word with no dot and no slash reads as a value too.
printf '__kernel void fir(__global float *a) { a[0] = TAPS; }\n' >fir.cl
clc-pack fir.cl -DTAPS=8 float
