/* filter_common.c — image files, filter and launch for the example apps
 * (filter_common.h). */
#define _POSIX_C_SOURCE 200809L
#include "filter_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int app_parse(int argc, char **argv, app_args *a, const char *usage)
{
    memset(a, 0, sizeof *a);
    a->filter_width = 5;
    a->kernels_dir = "kernels";
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        if (i + 1 >= argc) {
            fprintf(stderr, "%s needs a value\n%s", argv[i], usage);
            return -1;
        }
        if (strcmp(argv[i], "--kernel") == 0)
            a->kernel = argv[++i];
        else if (strcmp(argv[i], "--kernels") == 0)
            a->kernels_dir = argv[++i];
        else if (strcmp(argv[i], "--width") == 0) {
            char *end;
            long w = strtol(argv[++i], &end, 10);
            if (*end || w < 1 || w > 31 || w % 2 == 0) {
                fprintf(stderr, "--width %s: an odd filter width from 1 to 31\n", argv[i]);
                return -1;
            }
            a->filter_width = (int)w;
        } else {
            fprintf(stderr, "unknown option %s\n%s", argv[i], usage);
            return -1;
        }
    }
    if (argc - i != 2) {
        fputs(usage, stderr);
        return -1;
    }
    a->in = argv[i];
    a->out = argv[i + 1];
    return 0;
}

/* Skips whitespace and '#' comments of a PNM header. */
static void skip_space(FILE *f)
{
    int c;
    while ((c = fgetc(f)) != EOF) {
        if (c == '#')
            while ((c = fgetc(f)) != EOF && c != '\n')
                ;
        else if (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
            ungetc(c, f);
            return;
        }
    }
}

int image_read(const char *path, image *img)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    char magic[3] = {0};
    int w = 0, h = 0, maxval = 0;
    int ok = fread(magic, 1, 2, f) == 2 && magic[0] == 'P' && (magic[1] == '5' || magic[1] == '6');
    if (ok) {
        skip_space(f);
        ok = fscanf(f, "%d", &w) == 1;
        skip_space(f);
        ok = ok && fscanf(f, "%d", &h) == 1;
        skip_space(f);
        ok = ok && fscanf(f, "%d", &maxval) == 1 && fgetc(f) != EOF;
    }
    if (!ok || w < 1 || h < 1 || w > 16384 || h > 16384 || maxval < 1 || maxval > 255) {
        fprintf(stderr, "%s: not an 8-bit binary PGM (P5) or PPM (P6) image of at most "
                        "16384x16384\n", path);
        fclose(f);
        return -1;
    }
    img->width = w;
    img->height = h;
    img->channels = magic[1] == '5' ? 1 : 3;
    size_t n = (size_t)w * (size_t)h * (size_t)img->channels;
    img->pixels = malloc(n);
    if (!img->pixels || fread(img->pixels, 1, n, f) != n) {
        fprintf(stderr, "%s: truncated pixel data (%zu bytes expected)\n", path, n);
        free(img->pixels);
        img->pixels = NULL;
        fclose(f);
        return -1;
    }
    fclose(f);
    return 0;
}

int image_write(const char *path, const image *img)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t n = (size_t)img->width * (size_t)img->height * (size_t)img->channels;
    fprintf(f, "P%c\n%d %d\n255\n", img->channels == 1 ? '5' : '6', img->width, img->height);
    int ok = fwrite(img->pixels, 1, n, f) == n;
    ok = (fclose(f) == 0) && ok;
    if (!ok)
        fprintf(stderr, "%s: write failed\n", path);
    return ok ? 0 : -1;
}

int device_open(cl_device_id *dev, cl_context *ctx)
{
    cl_platform_id plats[8];
    cl_uint np = 0;
    if (clGetPlatformIDs(8, plats, &np) != CL_SUCCESS || np == 0) {
        fprintf(stderr, "no OpenCL platform\n");
        return -1;
    }
    int found = 0;
    for (cl_uint i = 0; i < np && !found; i++)
        found = clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_GPU, 1, dev, NULL) == CL_SUCCESS;
    for (cl_uint i = 0; i < np && !found; i++)
        found = clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 1, dev, NULL) == CL_SUCCESS;
    if (!found) {
        fprintf(stderr, "no OpenCL device\n");
        return -1;
    }
    cl_int rc;
    *ctx = clCreateContext(NULL, 1, dev, NULL, NULL, &rc);
    if (rc != CL_SUCCESS) {
        fprintf(stderr, "clCreateContext failed (%d)\n", rc);
        return -1;
    }
    return 0;
}

const char *default_kernel(const image *img)
{
    return img->channels == 1 ? "Convolve_Def" : "reda_float4";
}

int kernel_is_rgba(const char *kernel)
{
    return strncmp(kernel, "reda_", 5) == 0;
}

static int clamp_int(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* A normalised Gaussian, sigma a third of the half-width (at least 0.5). */
static void gaussian(int fw, float *taps)
{
    double sigma = fw > 1 ? (double)(fw - 1) / 6.0 : 1.0, sum = 0, h = (fw - 1) / 2.0;
    if (sigma < 0.5)
        sigma = 0.5;
    for (int r = 0; r < fw; r++)
        for (int c = 0; c < fw; c++) {
            double v = exp(-((r - h) * (r - h) + (c - h) * (c - h)) / (2 * sigma * sigma));
            taps[r * fw + c] = (float)v;
            sum += v;
        }
    for (int i = 0; i < fw * fw; i++)
        taps[i] = (float)(taps[i] / sum);
}

static unsigned char to_byte(float v)
{
    return (unsigned char)(v <= 0.0f ? 0 : v >= 255.0f ? 255 : (int)(v + 0.5f));
}

int filter_run(cl_context ctx, cl_device_id dev, cl_program prog, const char *kernel,
               int fw, const image *img, image *out)
{
    const int rgba = kernel_is_rgba(kernel), lanes = rgba ? 4 : 1, half = (fw - 1) / 2;
    if (!rgba && img->channels != 1) {
        fprintf(stderr, "%s filters grey images (PGM); use reda_float4 for PPM\n", kernel);
        return -1;
    }
    /* The grey kernels need a grid that is an exact multiple of the
     * work-group: compute a rounded-up image and crop it. */
    const int ow = rgba ? img->width : (img->width + WG_SIZE - 1) / WG_SIZE * WG_SIZE;
    const int oh = rgba ? img->height : (img->height + WG_SIZE - 1) / WG_SIZE * WG_SIZE;
    const int iw = ow + fw - 1, ih = oh + fw - 1;
    float *in = malloc(sizeof(float) * (size_t)iw * ih * lanes);
    float *res = malloc(sizeof(float) * (size_t)ow * oh * lanes);
    float *taps = malloc(sizeof(float) * (size_t)fw * fw);
    float *filt = malloc(sizeof(float) * (size_t)fw * fw * lanes);
    int rc = -1;
    cl_mem bin = NULL, bout = NULL, bfilt = NULL;
    cl_kernel k = NULL;
    cl_command_queue q = NULL;
    if (!in || !res || !taps || !filt) {
        fprintf(stderr, "out of memory\n");
        goto out;
    }
    gaussian(fw, taps);
    for (int i = 0; i < fw * fw; i++)
        for (int l = 0; l < lanes; l++)
            filt[i * lanes + l] = taps[i];
    /* Padded input: every pixel outside the image repeats the nearest edge. */
    for (int y = 0; y < ih; y++)
        for (int x = 0; x < iw; x++) {
            int sx = clamp_int(x - half, 0, img->width - 1);
            int sy = clamp_int(y - half, 0, img->height - 1);
            const unsigned char *px =
                img->pixels + ((size_t)sy * img->width + sx) * (size_t)img->channels;
            for (int l = 0; l < lanes; l++)
                in[((size_t)y * iw + x) * lanes + l] =
                    l < img->channels ? (float)px[l] : 255.0f;
        }
    cl_int e;
    q = clCreateCommandQueue(ctx, dev, 0, &e);
    bin = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                         sizeof(float) * (size_t)iw * ih * lanes, in, &e);
    bfilt = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                           sizeof(float) * (size_t)fw * fw * lanes, filt, &e);
    bout = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof(float) * (size_t)ow * oh * lanes, NULL,
                          &e);
    k = clCreateKernel(prog, kernel, &e);
    if (!q || !bin || !bfilt || !bout || !k) {
        fprintf(stderr, "%s: OpenCL set-up failed (%d)\n", kernel, e);
        goto out;
    }
    cl_int a = CL_SUCCESS;
    if (rgba) { /* (input, output, filter, inWidth, width, height) */
        a |= clSetKernelArg(k, 0, sizeof bin, &bin);
        a |= clSetKernelArg(k, 1, sizeof bout, &bout);
        a |= clSetKernelArg(k, 2, sizeof bfilt, &bfilt);
        a |= clSetKernelArg(k, 3, sizeof iw, &iw);
        a |= clSetKernelArg(k, 4, sizeof ow, &ow);
        a |= clSetKernelArg(k, 5, sizeof oh, &oh);
    } else { /* (in, filter, out, in_width, filter_width) */
        a |= clSetKernelArg(k, 0, sizeof bin, &bin);
        a |= clSetKernelArg(k, 1, sizeof bfilt, &bfilt);
        a |= clSetKernelArg(k, 2, sizeof bout, &bout);
        a |= clSetKernelArg(k, 3, sizeof iw, &iw);
        a |= clSetKernelArg(k, 4, sizeof fw, &fw);
    }
    size_t local[2] = {WG_SIZE, WG_SIZE};
    size_t global[2] = {(size_t)(ow + WG_SIZE - 1) / WG_SIZE * WG_SIZE,
                        (size_t)(oh + WG_SIZE - 1) / WG_SIZE * WG_SIZE};
    if (a == CL_SUCCESS)
        a = clEnqueueNDRangeKernel(q, k, 2, NULL, global, local, 0, NULL, NULL);
    if (a == CL_SUCCESS)
        a = clEnqueueReadBuffer(q, bout, CL_TRUE, 0, sizeof(float) * (size_t)ow * oh * lanes,
                                res, 0, NULL, NULL);
    if (a != CL_SUCCESS) {
        fprintf(stderr, "%s: launch failed (%d)\n", kernel, a);
        goto out;
    }
    out->width = img->width;
    out->height = img->height;
    out->channels = img->channels;
    out->pixels = malloc((size_t)img->width * img->height * img->channels);
    if (!out->pixels)
        goto out;
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++)
            for (int l = 0; l < img->channels; l++)
                out->pixels[((size_t)y * img->width + x) * img->channels + l] =
                    to_byte(res[((size_t)y * ow + x) * lanes + l]);
    rc = 0;
out:
    if (k)
        clReleaseKernel(k);
    if (bin)
        clReleaseMemObject(bin);
    if (bout)
        clReleaseMemObject(bout);
    if (bfilt)
        clReleaseMemObject(bfilt);
    if (q)
        clReleaseCommandQueue(q);
    free(in);
    free(res);
    free(taps);
    free(filt);
    return rc;
}
