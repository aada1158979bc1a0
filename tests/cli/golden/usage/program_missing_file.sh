# --program naming a file that is not there: the program and the file.
mkdir src && printf '__kernel void t(__global float *a) { a[0] = TS * WPT * RTS; }\n' >src/tiled.cl
clc-pack --program p=src/tiled.cl,missing.cl -q -o x.clcpack
