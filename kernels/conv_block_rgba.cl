/*
 * conv_block_rgba.cl — the register-blocked convolution on an RGBA float4
 * image, each channel with its own filter term as in Reda's kernels
 * (conv_block.h; docs/KERNELS.md, "Register blocking"). Every tile read is
 * a 16-byte float4.
 */
#define CB_T float4
#define CB_VEC 1
#include "conv_block.h"

__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1)))
void conv_block_rgba(const __global float4 *input, __constant float4 *filter,
                     __global float4 *output, const int inWidth, const int width,
                     const int height)
{
#include "conv_block_body.h"
}
