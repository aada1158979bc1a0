# -D TAPS=1-65537: a -D list holds at most 65536 values (docs/CLI.md, "Value lists").
printf '__kernel void fir(__global float *a) { a[0] = TAPS; }\n' >fir.cl
clc-pack fir.cl -D TAPS=1-65537
