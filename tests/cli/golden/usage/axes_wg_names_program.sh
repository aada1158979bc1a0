# A program's own --wg error names that program.
printf '__kernel void fir(__global float *a) { a[0] = TAPS; }\n' >fir.cl
printf '__kernel void scan(__global float *a) { a[0] = 1; }\n' >scan.cl
clc-pack fir.cl scan.cl --wg 1-64
