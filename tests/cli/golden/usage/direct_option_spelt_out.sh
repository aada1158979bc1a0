# --check-command: an option spelt out in full gets its short name.
printf '__kernel void fir(__global float *a) { a[0] = TAPS; }\n' >fir.cl
clc-pack fir.cl --check-command true
