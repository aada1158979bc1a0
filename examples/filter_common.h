/*
 * filter_common.h — what the two example apps share: image files, the
 * filter, the device, and running a kernel of clc-pack's kernels/ on an
 * image. They differ only in how they get the cl_program: filter_app.c
 * from a pack linked into the binary, filter_app_source.c by compiling the
 * kernel source at start-up.
 */
#ifndef FILTER_COMMON_H
#define FILTER_COMMON_H

#include <stddef.h>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#define WG_SIZE 16 /* the work-group the pack's entries were built for */

/* An 8-bit image: 1 channel (PGM, P5) or 3 (PPM, P6). */
typedef struct image {
    int width, height, channels;
    unsigned char *pixels; /* malloc'd, row-major, channels interleaved */
} image;

typedef struct app_args {
    const char *kernel;    /* Convolve_Def (grey) or reda_float4 (colour) by default */
    int filter_width;
    const char *in, *out;
    const char *kernels_dir; /* filter_app_source only */
} app_args;

/* Parses `[--kernel NAME] [--width N] [--kernels DIR] IN OUT`; 0 or -1 after
 * a message. */
int app_parse(int argc, char **argv, app_args *a, const char *usage);

/* 0, or -1 after a message naming the file. */
int image_read(const char *path, image *img);
int image_write(const char *path, const image *img);

/* The first GPU, else the first device; a context on it. 0 or -1. */
int device_open(cl_device_id *dev, cl_context *ctx);

/* Chooses the kernel for the image when a->kernel is NULL. */
const char *default_kernel(const image *img);
/* 1 for the RGBA kernels (float4 pixels, Reda's argument list). */
int kernel_is_rgba(const char *kernel);

/* Runs `kernel` of prog on img with a Gaussian filter of the width,
 * padding by clamping the edges (kernels' border rule, docs/KERNELS.md),
 * and writes the result into out (same size and channels). 0 or -1. */
int filter_run(cl_context ctx, cl_device_id dev, cl_program prog, const char *kernel,
               int filter_width, const image *img, image *out);

double now_ms(void);

#endif
