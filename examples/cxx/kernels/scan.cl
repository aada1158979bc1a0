/* scan.cl — an inclusive prefix sum of n ints, in two launches of a global
 * size rounded up to GROUP (the work-group, compiled in):
 *   scan_groups: each work-group scans its GROUP values in local memory and
 *                writes its total to sums[group];
 *   scan_add:    each value gets the totals of the groups before its own. */
__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
void scan_groups(__global const int *in, __global int *out, __global int *sums, int n)
{
    __local int t[GROUP];
    int g = get_global_id(0), l = get_local_id(0);
    t[l] = g < n ? in[g] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    /* Hillis-Steele: after the step of offset d, t[l] sums t[l-2d+1..l]. */
    for (int d = 1; d < GROUP; d <<= 1) {
        int v = l >= d ? t[l - d] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        t[l] += v;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (g < n)
        out[g] = t[l];
    if (l == GROUP - 1)
        sums[get_group_id(0)] = t[l];
}

__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
void scan_add(__global int *out, __global const int *sums, int n)
{
    int g = get_global_id(0);
    if (g >= n)
        return;
    int add = 0;
    for (int b = 0; b < g / GROUP; b++)
        add += sums[b];
    out[g] += add;
}
