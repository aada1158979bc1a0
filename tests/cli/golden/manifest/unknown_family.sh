# An unknown family: the families there are.
mkdir k && printf '__kernel void K(__global float *a) { a[0] = 1; }\n' >k/k.cl
printf 'kernel K\n  source k.cl\n  family convolve\n  grid exact\nend\n' >k/manifest.txt
clc-pack --kernels k -q -o x.clcpack
