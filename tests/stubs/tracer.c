/*
 * tracer.c — another interposer, as a user might preload beside
 * libclcpack-preload.so (tests/device/test_record_reentry.c): its clReleaseProgram
 * asks for the program's reference count (through the OpenCL API, which may
 * come back into libclcpack-preload.so) before passing the call on.
 */
#include <dlfcn.h>
#include <stdio.h>

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

CL_API_ENTRY cl_int CL_API_CALL clReleaseProgram(cl_program p)
{
    static cl_int(CL_API_CALL * next)(cl_program);
    if (!next)
        next = (cl_int(CL_API_CALL *)(cl_program))dlsym(RTLD_NEXT, "clReleaseProgram");
    cl_uint refs = 0;
    clGetProgramInfo(p, CL_PROGRAM_REFERENCE_COUNT, sizeof refs, &refs, NULL);
    fprintf(stderr, "tracer: clReleaseProgram(%p), %u reference%s\n", (void *)p, (unsigned)refs,
            refs == 1 ? "" : "s");
    return next ? next(p) : CL_INVALID_PROGRAM;
}
