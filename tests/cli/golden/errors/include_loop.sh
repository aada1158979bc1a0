# An include loop is refused naming the chain.
printf '#include "b.h"\n__kernel void a(__global int *x) { x[0] = 1; }\n' >a.cl
printf '#include "a.cl"\n' >b.h
clc-pack a.cl -q -o x.clcpack
