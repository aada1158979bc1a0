/* tune_measure.c — measuring a kernel's launches (tune_measure.h). */
#include "tune_measure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

cl_int tune_measure_launches(cl_command_queue q, cl_kernel kern, cl_uint dims, const size_t *global,
                             const size_t *local, unsigned runs, double *runs_ns, const char **what)
{
    cl_event *ev = calloc(runs ? runs : 1, sizeof *ev);
    if (!ev) {
        *what = "allocating the launches' events";
        return CL_OUT_OF_HOST_MEMORY;
    }
    cl_int rc = CL_SUCCESS;
    *what = "clEnqueueNDRangeKernel";
    for (unsigned i = 0; i < runs && rc == CL_SUCCESS; i++)
        rc = clEnqueueNDRangeKernel(q, kern, dims, NULL, global, local, 0, NULL, &ev[i]);
    if (rc == CL_SUCCESS) {
        *what = "clFinish";
        rc = clFinish(q);
    }
    for (unsigned i = 0; i < runs && rc == CL_SUCCESS; i++) {
        cl_ulong a = 0, b = 0;
        *what = "clGetEventProfilingInfo";
        rc = clGetEventProfilingInfo(ev[i], CL_PROFILING_COMMAND_START, sizeof a, &a, NULL);
        if (rc == CL_SUCCESS)
            rc = clGetEventProfilingInfo(ev[i], CL_PROFILING_COMMAND_END, sizeof b, &b, NULL);
        runs_ns[i] = b > a ? (double)(b - a) : 0.0;
    }
    for (unsigned i = 0; i < runs; i++)
        if (ev[i])
            clReleaseEvent(ev[i]);
    free(ev);
    return rc;
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double tune_median_ns(const double *v, size_t n)
{
    if (!n)
        return INFINITY;
    double *c = malloc(n * sizeof *c);
    if (!c)
        return v[0];
    memcpy(c, v, n * sizeof *c);
    qsort(c, n, sizeof *c, by_double);
    double m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
    free(c);
    return m;
}
