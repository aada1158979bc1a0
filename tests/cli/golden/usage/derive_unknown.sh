# --derive naming no define.
mkdir src && printf '__kernel void t(__global float *a) { a[0] = TS * WPT * RTS; }\n' >src/tiled.cl
clc-pack src/tiled.cl -D TS=8 -D WPT=1 --derive 'RTS=TS*NOPE' -q -o x.clcpack
