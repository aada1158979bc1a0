# An unknown keyword in a program block: the keywords there are.
mkdir k && printf '__kernel void K(__global float *a) { a[0] = 1; }\n' >k/k.cl
printf 'program bad\n  source k.cl\n  colour red\nend\n' >k/manifest.txt
clc-pack --kernels k -q -o x.clcpack
