# --totally-unknown: no suggestion.
printf '__kernel void fir(__global float *a) { a[0] = TAPS; }\n' >fir.cl
clc-pack fir.cl --totally-unknown
