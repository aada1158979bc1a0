# --check-cmd ''.
mkdir src && printf '__kernel void t(__global float *a) { a[0] = TS * WPT * RTS; }\n' >src/tiled.cl
clc-pack src/tiled.cl -D TS=8 --check-cmd '' -q -o x.clcpack
