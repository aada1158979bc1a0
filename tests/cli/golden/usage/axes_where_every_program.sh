# Every program's --where naming a define one program lacks names that one.
printf '__kernel void fir(__global float *a) { a[0] = TAPS; }\n' >fir.cl
printf '__kernel void scan(__global float *a) { a[0] = 1; }\n' >scan.cl
clc-pack --where 'TAPS > 8' fir.cl -D TAPS=8,16 scan.cl
