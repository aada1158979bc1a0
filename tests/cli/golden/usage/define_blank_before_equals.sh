# -D T =float: the word is named.
mkdir src inc && printf '__kernel void s(__global float *a) { a[0] = (T)1; }\n' >src/sobel.cl
clc-pack src/sobel.cl -D T =float -q -o x.clcpack
