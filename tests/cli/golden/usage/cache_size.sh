# CLC_PACK_CACHE_SIZE that is not a size.
printf '__kernel void t(__global float *a) { a[0] = F; }\n' >t.cl
CLC_PACK_CACHE_SIZE=lots clc-pack t.cl -D F=1 -o x.clcpack
