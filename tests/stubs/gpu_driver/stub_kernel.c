/*
 * stub_kernel.c — kernels of a built program. A kernel holds a reference to
 * its program (clReleaseProgram then frees nothing until the kernel goes)
 * and keeps clBuildProgram from running on it, as the specification asks.
 * Argument info comes from the parameter declarations the build kept; for
 * a kernel of a foreign binary it is "not available".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stub.h"

int stub_is_kernel(cl_kernel k)
{
    return k && k->magic == STUB_MAGIC_KERNEL;
}

static cl_kernel make_kernel(cl_program p, const char *name, cl_int *rc)
{
    cl_kernel k = calloc(1, sizeof *k);
    if (!k) {
        *rc = CL_OUT_OF_HOST_MEMORY;
        return NULL;
    }
    *rc = stub_program_kernel(p, name, &k->desc);
    if (*rc != CL_SUCCESS) {
        free(k);
        return NULL;
    }
    k->dispatch = &stub_dispatch;
    k->magic = STUB_MAGIC_KERNEL;
    atomic_init(&k->refs, 1);
    k->program = p;
    atomic_fetch_add(&p->refs, 1);
    atomic_fetch_add(&p->kernels_alive, 1);
    return k;
}

cl_kernel CL_API_CALL stub_CreateKernel(cl_program p, const char *name, cl_int *errcode_ret)
{
    cl_int rc;
    cl_kernel k = NULL;
    if (!stub_is_program(p))
        rc = CL_INVALID_PROGRAM;
    else if (!name)
        rc = CL_INVALID_VALUE;
    else
        k = make_kernel(p, name, &rc);
    if (errcode_ret)
        *errcode_ret = rc;
    return k;
}

cl_int CL_API_CALL stub_CreateKernelsInProgram(cl_program p, cl_uint n, cl_kernel *out,
                                               cl_uint *n_ret)
{
    if (!stub_is_program(p))
        return CL_INVALID_PROGRAM;
    /* The names first (the program's lock is not held while kernels are made). */
    size_t size = 0;
    cl_int rc = stub_GetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, 0, NULL, &size);
    if (rc != CL_SUCCESS)
        return rc;
    char *names = malloc(size + 1);
    if (!names)
        return CL_OUT_OF_HOST_MEMORY;
    rc = stub_GetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, size, names, NULL);
    names[size] = '\0';
    cl_uint count = 0;
    for (char *s = names; rc == CL_SUCCESS && *s; count++) {
        char *semi = strchr(s, ';');
        s = semi ? semi + 1 : s + strlen(s);
    }
    if (rc == CL_SUCCESS && out && n < count)
        rc = CL_INVALID_VALUE;
    cl_uint made = 0;
    for (char *s = names; rc == CL_SUCCESS && out && *s; made++) {
        char *semi = strchr(s, ';');
        if (semi)
            *semi = '\0';
        out[made] = make_kernel(p, s, &rc);
        s = semi ? semi + 1 : s + strlen(s);
    }
    if (rc != CL_SUCCESS)
        while (made > 0)
            if (out[--made])
                stub_ReleaseKernel(out[made]);
    free(names);
    if (rc == CL_SUCCESS && n_ret)
        *n_ret = count;
    return rc;
}

cl_int CL_API_CALL stub_RetainKernel(cl_kernel k)
{
    if (!stub_is_kernel(k))
        return CL_INVALID_KERNEL;
    atomic_fetch_add(&k->refs, 1);
    return CL_SUCCESS;
}

cl_int CL_API_CALL stub_ReleaseKernel(cl_kernel k)
{
    if (!stub_is_kernel(k))
        return CL_INVALID_KERNEL;
    if (atomic_fetch_sub(&k->refs, 1) == 1) {
        cl_program p = k->program;
        stub_kernel_desc_free(&k->desc);
        k->magic = 0;
        free(k);
        atomic_fetch_sub(&p->kernels_alive, 1);
        stub_ReleaseProgram(p);
    }
    return CL_SUCCESS;
}

cl_int CL_API_CALL stub_SetKernelArg(cl_kernel k, cl_uint index, size_t size, const void *value)
{
    (void)value;
    if (!stub_is_kernel(k))
        return CL_INVALID_KERNEL;
    if (k->desc.have_args && index >= k->desc.n_args)
        return CL_INVALID_ARG_INDEX;
    if (size > 4096)
        return CL_INVALID_ARG_SIZE;
    return CL_SUCCESS;
}

cl_int CL_API_CALL stub_GetKernelInfo(cl_kernel k, cl_kernel_info param, size_t cap, void *value,
                                      size_t *ret)
{
    if (!stub_is_kernel(k))
        return CL_INVALID_KERNEL;
    switch (param) {
    case CL_KERNEL_FUNCTION_NAME: return stub_answer_str(k->desc.name, cap, value, ret);
    case CL_KERNEL_NUM_ARGS: {
        cl_uint n = (cl_uint)k->desc.n_args;
        return stub_answer(&n, sizeof n, cap, value, ret);
    }
    case CL_KERNEL_REFERENCE_COUNT: {
        cl_uint r = atomic_load(&k->refs);
        return stub_answer(&r, sizeof r, cap, value, ret);
    }
    case CL_KERNEL_CONTEXT:
        return stub_answer(&k->program->context, sizeof k->program->context, cap, value, ret);
    case CL_KERNEL_PROGRAM: return stub_answer(&k->program, sizeof k->program, cap, value, ret);
    case CL_KERNEL_ATTRIBUTES: return stub_answer_str("", cap, value, ret);
    default: return CL_INVALID_VALUE;
    }
}

cl_int CL_API_CALL stub_GetKernelArgInfo(cl_kernel k, cl_uint index, cl_kernel_arg_info param,
                                         size_t cap, void *value, size_t *ret)
{
    if (!stub_is_kernel(k))
        return CL_INVALID_KERNEL;
    if (!k->desc.have_args)
        return CL_KERNEL_ARG_INFO_NOT_AVAILABLE;
    if (index >= k->desc.n_args)
        return CL_INVALID_ARG_INDEX;
    char name[256], type[256];
    cl_kernel_arg_address_qualifier aq;
    cl_kernel_arg_access_qualifier acc;
    cl_kernel_arg_type_qualifier tq;
    stub_arg_info(k->desc.arg_decl[index], name, sizeof name, type, sizeof type, &aq, &acc, &tq);
    switch (param) {
    case CL_KERNEL_ARG_ADDRESS_QUALIFIER: return stub_answer(&aq, sizeof aq, cap, value, ret);
    case CL_KERNEL_ARG_ACCESS_QUALIFIER: return stub_answer(&acc, sizeof acc, cap, value, ret);
    case CL_KERNEL_ARG_TYPE_QUALIFIER: return stub_answer(&tq, sizeof tq, cap, value, ret);
    case CL_KERNEL_ARG_TYPE_NAME: return stub_answer_str(type, cap, value, ret);
    case CL_KERNEL_ARG_NAME: return stub_answer_str(name, cap, value, ret);
    default: return CL_INVALID_VALUE;
    }
}

cl_int CL_API_CALL stub_GetKernelWorkGroupInfo(cl_kernel k, cl_device_id dev,
                                               cl_kernel_work_group_info param, size_t cap,
                                               void *value, size_t *ret)
{
    if (!stub_is_kernel(k))
        return CL_INVALID_KERNEL;
    cl_program p = k->program;
    int in = 0;
    for (cl_uint i = 0; i < p->n_devices; i++)
        in |= p->devs[i].device == dev;
    if (!in && !(dev == NULL && p->n_devices == 1))
        return CL_INVALID_DEVICE;
    if (!dev)
        dev = p->devs[0].device;
    switch (param) {
    case CL_KERNEL_WORK_GROUP_SIZE: {
        /* CLCSTUB_KERNEL_WORK_GROUP_SIZE=N: the figure NVIDIA's driver
         * gives for a kernel compiled for a larger required size (256
         * for reqd_work_group_size(32,32,1) on an H200, which still
         * launches at 32x32). */
        const char *v = stub_env("CLCSTUB_KERNEL_WORK_GROUP_SIZE");
        size_t n = v ? (size_t)strtoul(v, NULL, 10) : stub_max_work_group(dev);
        return stub_answer(&n, sizeof n, cap, value, ret);
    }
    case CL_KERNEL_COMPILE_WORK_GROUP_SIZE: {
        /* CLCSTUB_KERNEL_COMPILE_WORK_GROUP_SIZE=XxYxZ: the kernel's
         * reqd_work_group_size. */
        size_t z[3] = {0, 0, 0};
        const char *v = stub_env("CLCSTUB_KERNEL_COMPILE_WORK_GROUP_SIZE");
        if (v && sscanf(v, "%zux%zux%zu", &z[0], &z[1], &z[2]) != 3)
            z[0] = z[1] = z[2] = 0;
        return stub_answer(z, sizeof z, cap, value, ret);
    }
    case CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE: {
        size_t n = dev->vendor == STUB_INTEL ? 32 : dev->amd->wavefront;
        return stub_answer(&n, sizeof n, cap, value, ret);
    }
    case CL_KERNEL_LOCAL_MEM_SIZE:
    case CL_KERNEL_PRIVATE_MEM_SIZE: {
        cl_ulong z = 0;
        return stub_answer(&z, sizeof z, cap, value, ret);
    }
    default: return CL_INVALID_VALUE;
    }
}
