# An unknown placeholder in a program block's check_cmd: the known ones.
mkdir k && printf '__kernel void K(__global float *a) { a[0] = 1; }\n' >k/k.cl
printf 'program P\n  source k.cl\n  check_cmd true {bogus}\nend\n' >k/manifest.txt
clc-pack --kernels k -q -o x.clcpack
