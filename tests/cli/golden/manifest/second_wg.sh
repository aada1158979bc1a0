# A program block with two wg lines.
mkdir k && printf '__kernel void K(__global float *a) { a[0] = 1; }\n' >k/k.cl
printf 'program P\n  source k.cl\n  wg 8x8\n  wg 16x16\nend\n' >k/manifest.txt
clc-pack --kernels k -q -o x.clcpack
