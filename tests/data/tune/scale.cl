/* scale.cl — out = 2 * in, for tests/cli/cli_tune_t1.sh. SKIP=1 writes
 * nothing (the fastest configuration, and a wrong one); CRASH=1 writes far
 * out of bounds (a driver crash on a CPU device); HANG=1 never ends. */
#ifndef CRASH
#define CRASH 0
#endif
#ifndef HANG
#define HANG 0
#endif
__kernel void scale(__global const float *in, __global float *out, const int n)
{
    const int i = get_global_id(0);
    if (CRASH) {
        /* Null at run time (n is 1024), which the compiler cannot see: a
         * store to a literal null it may delete as undefined. */
        __global float *nowhere = (__global float *)(ulong)(n - 1024);
        nowhere[(long)i * 100000 + 7] = 1.0f;
    }
    if (HANG)
        for (;;)
            out[i] += 1.0f;
    if (SKIP || i >= n)
        return;
    out[i] = 2.0f * in[i];
}
