# -D TILE=1..4: a range as other tools write it; the form this one takes.
mkdir src inc && printf '__kernel void s(__global float *a) { a[0] = (T)1; }\n' >src/sobel.cl
clc-pack src/sobel.cl -D TILE=1..4 -q -o x.clcpack
