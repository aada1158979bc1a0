# A kernel declared twice: the line of the second.
mkdir k && printf '__kernel void K(__global float *a) { a[0] = 1; }\n' >k/k.cl
printf 'kernel K\n  source k.cl\n  family    conv-grey\n  grid      exact\n  axis      WG allowed=8x8 default=8x8\n  args      in filter out in_width filter_width\nend\nkernel K\n  source k.cl\n  family    conv-grey\n  grid      exact\n  axis      WG allowed=8x8 default=8x8\n  args      in filter out in_width filter_width\nend\n' >k/manifest.txt
clc-pack --kernels k -q -o x.clcpack
