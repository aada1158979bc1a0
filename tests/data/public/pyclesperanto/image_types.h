/* The two defines of pyclesperanto-prototype's image header whose values
 * hold a space, which clc-pack refuses in a -D value (a build option cannot
 * carry it): written here as pyclesperanto's Python side writes them into
 * the program text, before its preamble, for a uchar source and a float
 * destination. The other defines are given with -D. */
#define IMAGE_src_TYPE __global uchar*
#define IMAGE_dst_TYPE __global float*
