# --where ending where a value is expected.
mkdir src && printf '__kernel void t(__global float *a) { a[0] = TS * WPT * RTS; }\n' >src/tiled.cl
clc-pack src/tiled.cl -D TS=8 --where 'TS >' -q -o x.clcpack
