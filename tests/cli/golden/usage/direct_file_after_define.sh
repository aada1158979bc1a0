# -D TAPS=8 16 where a file 16 exists: it is a source (the unknown option after it then stops the run).
printf '__kernel void fir(__global float *a) { a[0] = TAPS; }\n' >fir.cl
printf '__kernel void g(__global float *a) { a[0] = 1; }\n' >16
clc-pack fir.cl -D TAPS=8 16 --no-such-option-here
