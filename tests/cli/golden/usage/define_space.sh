# A -D value a build option cannot carry.
mkdir src inc && printf '__kernel void s(__global float *a) { a[0] = (T)1; }\n' >src/sobel.cl
clc-pack src/sobel.cl -D 'X=a b' -q -o x.clcpack
