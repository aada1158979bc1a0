# --derive overflowing 64 bits: the operator, the column and the variant.
mkdir src && printf '__kernel void t(__global float *a) { a[0] = TS * WPT * RTS; }\n' >src/tiled.cl
clc-pack src/tiled.cl -D TS=4294967296 -D WPT=1 --derive 'RTS=TS*TS' -q -o x.clcpack
