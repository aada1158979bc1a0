/* fir.cl — a FIR filter of TAPS taps (compiled in):
 * y[i] = sum over k < TAPS of h[k] * x[i + k], for i < n (x holds n + TAPS - 1). */
__kernel void fir(__global const float *x, __constant float *h, __global float *y, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < TAPS; k++)
        acc += h[k] * x[i + k];
    y[i] = acc;
}
