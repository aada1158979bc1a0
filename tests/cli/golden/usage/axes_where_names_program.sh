# A program's own --where naming no define names that program.
printf '__kernel void fir(__global float *a) { a[0] = TAPS; }\n' >fir.cl
printf '__kernel void scan(__global float *a) { a[0] = 1; }\n' >scan.cl
clc-pack fir.cl -D TAPS=8 --where 'X > 1' scan.cl
