# A define given twice in a program's own axes.
printf '__kernel void fir(__global float *a) { a[0] = TAPS; }\n' >fir.cl
printf '__kernel void scan(__global float *a) { a[0] = 1; }\n' >scan.cl
clc-pack fir.cl -D TAPS=8 -D TAPS=16 scan.cl
