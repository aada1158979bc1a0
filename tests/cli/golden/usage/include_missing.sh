# -I of a folder that is not there is an error naming it, not a silent no-op.
mkdir src inc && printf '__kernel void s(__global float *a) { a[0] = (T)1; }\n' >src/sobel.cl
clc-pack src/sobel.cl -I no_such_inc -D T=float -q -o x.clcpack
