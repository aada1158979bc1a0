# An unknown placeholder in a program block's tune_cmd.
mkdir k && printf '__kernel void fir(__global float *a) { a[0] = 1; }\n' >k/fir.cl
printf 'program fir\n  source fir.cl\n  tune_cmd ./time {binary} {wgs}\nend\n' >k/manifest.txt
clc-pack --kernels k -o m.clcpack
