# A program's own --check-cmd with an unknown placeholder.
printf '__kernel void fir(__global float *a) { a[0] = TAPS; }\n' >fir.cl
printf '__kernel void scan(__global float *a) { a[0] = 1; }\n' >scan.cl
clc-pack fir.cl --check-cmd 'true {bogus}' scan.cl
