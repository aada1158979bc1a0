/* scale.cl — the kernel of scale_app.c: b = a * SCALE + 1. */
__kernel void scale_k(__global const float *a, __global float *b, int n)
{
    int i = get_global_id(0);
    if (i < n)
        b[i] = a[i] * SCALE + 1.0f;
}
