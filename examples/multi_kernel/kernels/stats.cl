/* stats.cl — two kernels of one program: clamp and scale a buffer in place,
 * then sum it, one partial sum per work-group of GROUP items. */
#include "stats.h"

__kernel void clamp_scale(__global float *x, const stats_range r, const float k)
{
    const size_t i = get_global_id(0);
    x[i] = k * STATS_CLAMP(x[i], r);
}

__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
void group_sum(__global const float *x, __global float *sums, __local float *tmp)
{
    const size_t l = get_local_id(0);
    tmp[l] = x[get_global_id(0)];
    for (size_t step = GROUP / 2; step > 0; step /= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l < step)
            tmp[l] += tmp[l + step];
    }
    if (l == 0)
        sums[get_group_id(0)] = tmp[0];
}
