/* The two defines of pyclesperanto-prototype's image header whose values
 * hold a space, which clc-pack refuses in a -D value (a build option cannot
 * carry it). pyclesperanto's Python side writes them into the program text,
 * before its preamble, with the pixel type spelled out
 * ("#define IMAGE_src_TYPE __global uchar*"); here they name the pixel-type
 * define instead, so that one header serves every --variant of the types.
 * The other defines are given with -D and --variant. */
#define IMAGE_src_TYPE __global IMAGE_src_PIXEL_TYPE*
#define IMAGE_dst_TYPE __global IMAGE_dst_PIXEL_TYPE*
