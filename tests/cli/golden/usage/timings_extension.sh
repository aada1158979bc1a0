# --timings with an extension that picks no format.
printf '__kernel void s(__global float *a) { a[0] = F; }\n' >scale.cl
clc-pack scale.cl -D F=1 -q -o x.clcpack --timings build.txt
