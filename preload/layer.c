/* layer.c — libclcpack-preload.so as an OpenCL layer (docs/RECORD.md,
 * "Every way an application reaches OpenCL").
 *
 * An ICD loader with layers (ocl-icd 2.3 and later, the Khronos loader)
 * loads each library named in OPENCL_LAYERS and sends every call of the
 * application through the layer's table first, whatever way the
 * application found the loader (linked, dlopen()ed by name or by path).
 * The table is the loader's own (its target) with the interposed calls
 * replaced; they call on into the target (driver.c), never back into the
 * loader. Loaded by LD_PRELOAD as well, the library is one instance: its
 * exported symbols then leave the work to the layer (api.c). */
#include "preload.h"

#include <string.h>

#include <CL/cl_layer.h>

#define MAX_TABLES 4
#define LAYER_NAME "clcpack record/replay (libclcpack-preload.so)"

static cl_icd_dispatch tables[MAX_TABLES];
static unsigned n_tables;

EXPORT cl_int CL_API_CALL clGetLayerInfo(cl_layer_info param, size_t size, void *value,
                                         size_t *ret)
{
    const void *src;
    size_t n;
    cl_layer_api_version version = CL_LAYER_API_VERSION_100;
    switch (param) {
    case CL_LAYER_API_VERSION:
        src = &version;
        n = sizeof version;
        break;
#ifdef CL_LAYER_NAME
    case CL_LAYER_NAME:
        src = LAYER_NAME;
        n = sizeof LAYER_NAME;
        break;
#endif
    default:
        return CL_INVALID_VALUE;
    }
    if (value && size < n)
        return CL_INVALID_VALUE;
    if (value)
        memcpy(value, src, n);
    if (ret)
        *ret = n;
    return CL_SUCCESS;
}

EXPORT cl_int CL_API_CALL clInitLayer(cl_uint num_entries, const cl_icd_dispatch *target,
                                      cl_uint *num_entries_ret,
                                      const cl_icd_dispatch **layer_dispatch_ret)
{
    if (!target || !num_entries_ret || !layer_dispatch_ret || num_entries == 0)
        return CL_INVALID_VALUE;
    interposer_init();
    /* One table per loader that loads the layer (a Python extension's own
     * loader beside the system's), each passing on to its own target. */
    unsigned k = __atomic_fetch_add(&n_tables, 1, __ATOMIC_ACQ_REL);
    if (k >= MAX_TABLES)
        return CL_OUT_OF_RESOURCES;
    size_t max = sizeof(cl_icd_dispatch) / sizeof(void *);
    size_t n = num_entries < max ? num_entries : max;
    memcpy(&tables[k], target, n * sizeof(void *));
    interposer_fill_layer_table(&tables[k], n);
    interposer_layer_set_target(target, n);
    *num_entries_ret = (cl_uint)n;
    *layer_dispatch_ret = &tables[k];
    return CL_SUCCESS;
}

/* The Khronos loader's entry point since 2026 (properties: none defined);
 * cl_layer.h here predates it. */
EXPORT cl_int CL_API_CALL clInitLayerWithProperties(cl_uint num_entries,
                                                    const cl_icd_dispatch *target,
                                                    cl_uint *num_entries_ret,
                                                    const cl_icd_dispatch **layer_dispatch_ret,
                                                    const cl_ulong *properties);
EXPORT cl_int CL_API_CALL clInitLayerWithProperties(cl_uint num_entries,
                                                    const cl_icd_dispatch *target,
                                                    cl_uint *num_entries_ret,
                                                    const cl_icd_dispatch **layer_dispatch_ret,
                                                    const cl_ulong *properties)
{
    (void)properties;
    return clInitLayer(num_entries, target, num_entries_ret, layer_dispatch_ret);
}
