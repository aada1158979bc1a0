/*
 * conv_check.h — the library tests' own check of a small convolution kernel:
 * launch it on random data with the output poisoned, compare every output
 * with a double-precision reference. (The project kernels are checked by
 * clc/seeds/kernel_run.h; the library tests use a kernel of their own so that they
 * test the loader, not kernels/.)
 */
#ifndef CLC_TEST_CONV_CHECK_H
#define CLC_TEST_CONV_CHECK_H

#include <stddef.h>
#include <stdint.h>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

/* Uniform in [-1, 1), never exactly 0 (inputs of zeros hide bugs); *s is
 * an xorshift state. */
float test_rnd_float(uint64_t *s);

/* Runs `kernel` of prog, arguments (in, filter, out, int in_w[, int fw]) in
 * the top-left border rule, at filter width fw on an out_w x out_h output
 * with wg x wg work-groups. Returns the max error relative to the sum of the
 * magnitudes of each output's products, or a negative value when something
 * failed (why names it). */
double test_conv_check(cl_context ctx, cl_device_id dev, cl_program prog, const char *kernel,
                       int fw, int out_w, int out_h, int wg, uint64_t seed, char *why,
                       size_t cap);

#endif
