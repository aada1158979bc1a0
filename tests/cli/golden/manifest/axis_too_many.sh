# An axis of 100 values: a list holds at most 64.
mkdir k && printf '__kernel void K(__global float *a) { a[0] = 1; }\n' >k/k.cl
printf 'kernel K\n  source k.cl\n  family    conv-grey\n  grid      exact\n  axis      WG allowed=8x8 default=8x8\n  args      in filter out in_width filter_width\n  axis FILTER_WIDTH allowed=1-100 default=3\nend\n' >k/manifest.txt
clc-pack --kernels k -q -o x.clcpack
