/*
 * stub_info.c — platform and device queries. The values are those of a
 * NEO 22.43 Intel GPU or a ROCm AMD GPU as far as an application can tell
 * (names, versions, vendor ids, extensions, IL and IP version queries); the
 * sizes and limits are plausible for such a device. An unknown query is
 * CL_INVALID_VALUE, as a real driver answers.
 */
#include <stdio.h>
#include <string.h>

#include "stub.h"

/* AMD's queries (cl_amd_device_attribute_query) the headers may lack. */
#ifndef CL_DEVICE_PCIE_ID_AMD
#define CL_DEVICE_PCIE_ID_AMD 0x4034
#endif

cl_int stub_answer(const void *src, size_t n, size_t cap, void *dst, size_t *ret)
{
    if (dst) {
        if (cap < n)
            return CL_INVALID_VALUE;
        memcpy(dst, src, n);
    }
    if (ret)
        *ret = n;
    return CL_SUCCESS;
}

cl_int stub_answer_str(const char *s, size_t cap, void *dst, size_t *ret)
{
    return stub_answer(s, strlen(s) + 1, cap, dst, ret);
}

size_t stub_max_work_group(cl_device_id d)
{
    return d->vendor == STUB_INTEL ? 1024 : 256;
}

int stub_is_platform(cl_platform_id p)
{
    for (unsigned i = 0; i < stub_platform_count(); i++)
        if (p == stub_platform(i))
            return 1;
    return 0;
}

int stub_is_device(cl_device_id d)
{
    for (unsigned i = 0; i < stub_device_count(); i++)
        if (d == stub_device(i))
            return 1;
    return 0;
}

static const char INTEL_PLATFORM_EXT[] =
    "cl_khr_byte_addressable_store cl_khr_fp16 cl_khr_global_int32_base_atomics "
    "cl_khr_global_int32_extended_atomics cl_khr_icd cl_khr_local_int32_base_atomics "
    "cl_khr_local_int32_extended_atomics cl_intel_command_queue_families "
    "cl_intel_subgroups cl_intel_required_subgroup_size cl_intel_subgroups_short "
    "cl_khr_spir cl_intel_accelerator cl_intel_driver_diagnostics cl_khr_priority_hints "
    "cl_khr_throttle_hints cl_khr_create_command_queue cl_intel_subgroups_char "
    "cl_intel_subgroups_long cl_khr_il_program cl_intel_mem_force_host_memory "
    "cl_khr_subgroup_extended_types cl_khr_subgroup_non_uniform_vote "
    "cl_khr_subgroup_ballot cl_khr_subgroup_non_uniform_arithmetic "
    "cl_khr_subgroup_shuffle cl_khr_subgroup_shuffle_relative cl_khr_subgroup_clustered_reduce "
    "cl_intel_device_attribute_query cl_khr_suggested_local_work_size cl_khr_fp64 "
    "cl_khr_subgroups cl_intel_spirv_device_side_avc_motion_estimation "
    "cl_intel_spirv_media_block_io cl_intel_spirv_subgroups cl_khr_spirv_no_integer_wrap_decoration "
    "cl_intel_unified_shared_memory cl_khr_mipmap_image cl_khr_mipmap_image_writes "
    "cl_khr_external_memory cl_intel_planar_yuv cl_intel_packed_yuv cl_khr_int64_base_atomics "
    "cl_khr_int64_extended_atomics cl_khr_image2d_from_buffer cl_khr_depth_images "
    "cl_khr_3d_image_writes cl_intel_media_block_io cl_intel_va_api_media_sharing "
    "cl_intel_sharing_format_query cl_khr_pci_bus_info cl_khr_device_uuid ";

static const char AMD_PLATFORM_EXT[] = "cl_khr_icd cl_amd_event_callback ";

static const char AMD_DEVICE_EXT[] =
    "cl_khr_fp64 cl_khr_global_int32_base_atomics cl_khr_global_int32_extended_atomics "
    "cl_khr_local_int32_base_atomics cl_khr_local_int32_extended_atomics "
    "cl_khr_int64_base_atomics cl_khr_int64_extended_atomics cl_khr_3d_image_writes "
    "cl_khr_byte_addressable_store cl_khr_fp16 cl_khr_gl_sharing cl_amd_device_attribute_query "
    "cl_amd_media_ops cl_amd_media_ops2 cl_khr_image2d_from_buffer cl_khr_subgroups "
    "cl_khr_depth_images cl_amd_copy_buffer_p2p cl_amd_assembly_program ";

cl_int CL_API_CALL stub_GetPlatformInfo(cl_platform_id p, cl_platform_info param, size_t cap,
                                        void *value, size_t *ret)
{
    if (!stub_is_platform(p))
        return CL_INVALID_PLATFORM;
    int intel = p->vendor == STUB_INTEL;
    switch (param) {
    case CL_PLATFORM_PROFILE:
        return stub_answer_str("FULL_PROFILE", cap, value, ret);
    case CL_PLATFORM_VERSION:
        return stub_answer_str(p->version, cap, value, ret);
    case CL_PLATFORM_NAME:
        return stub_answer_str(intel ? "Intel(R) OpenCL Graphics"
                                     : "AMD Accelerated Parallel Processing",
                               cap, value, ret);
    case CL_PLATFORM_VENDOR:
        return stub_answer_str(intel ? "Intel(R) Corporation" : "Advanced Micro Devices, Inc.",
                               cap, value, ret);
    case CL_PLATFORM_EXTENSIONS:
        return stub_answer_str(intel ? INTEL_PLATFORM_EXT : AMD_PLATFORM_EXT, cap, value, ret);
    case CL_PLATFORM_ICD_SUFFIX_KHR:
        return stub_answer_str(intel ? "INTEL" : "AMD", cap, value, ret);
    case CL_PLATFORM_HOST_TIMER_RESOLUTION: {
        cl_ulong r = 1;
        return stub_answer(&r, sizeof r, cap, value, ret);
    }
    case CL_PLATFORM_NUMERIC_VERSION: {
        if (!intel)
            return CL_INVALID_VALUE; /* an OpenCL 2.1 platform */
        cl_version v = CL_MAKE_VERSION(3, 0, 0);
        return stub_answer(&v, sizeof v, cap, value, ret);
    }
    default:
        return CL_INVALID_VALUE;
    }
}

cl_int CL_API_CALL stub_GetDeviceIDs(cl_platform_id p, cl_device_type type, cl_uint num_entries,
                                     cl_device_id *out, cl_uint *num)
{
    if (!stub_is_platform(p))
        return CL_INVALID_PLATFORM;
    cl_device_type known = CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |
                           CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_CUSTOM;
    if (type != CL_DEVICE_TYPE_ALL && (type & ~known))
        return CL_INVALID_DEVICE_TYPE;
    if ((num_entries == 0 && out) || (!out && !num))
        return CL_INVALID_VALUE;
    /* Every stub device is a GPU and the platform's default. */
    int match = (type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_DEFAULT)) != 0;
    cl_uint n = match ? p->n_devices : 0;
    if (num)
        *num = n;
    for (cl_uint i = 0; out && i < n && i < num_entries; i++)
        out[i] = p->devices[i];
    return n ? CL_SUCCESS : CL_DEVICE_NOT_FOUND;
}

cl_int CL_API_CALL stub_RetainDevice(cl_device_id d)
{
    return stub_is_device(d) ? CL_SUCCESS : CL_INVALID_DEVICE;
}

cl_int CL_API_CALL stub_ReleaseDevice(cl_device_id d)
{
    return stub_is_device(d) ? CL_SUCCESS : CL_INVALID_DEVICE;
}

cl_int CL_API_CALL stub_CreateSubDevices(cl_device_id d, const cl_device_partition_property *props,
                                         cl_uint n, cl_device_id *out, cl_uint *num)
{
    (void)props;
    (void)n;
    (void)out;
    if (num)
        *num = 0;
    return stub_is_device(d) ? CL_DEVICE_PARTITION_FAILED : CL_INVALID_DEVICE;
}

/* What the vendor's table answers for a query both vendors answer alike
 * (no OpenCL status is positive). */
#define COMMON_QUERY 1

/* Fixed-size answers, by query. */
#define ANSWER(type, v)                                    \
    do {                                                   \
        type answer_value_ = (v);                          \
        return stub_answer(&answer_value_, sizeof answer_value_, cap, value, ret); \
    } while (0)

/* The IL versions as cl_name_version entries ("SPIR-V" 1.2 ...). */
static cl_int ils_with_version(cl_device_id d, size_t cap, void *value, size_t *ret)
{
    cl_name_version v[16];
    size_t n = 0;
    for (const char *p = d->il_versions; *p && n < 16;) {
        unsigned major, minor;
        int used = 0;
        if (sscanf(p, "SPIR-V_%u.%u%n", &major, &minor, &used) == 2 && used > 0) {
            memset(&v[n], 0, sizeof v[n]);
            v[n].version = CL_MAKE_VERSION(major, minor, 0);
            strcpy(v[n].name, "SPIR-V");
            n++;
            p += used;
        } else {
            p++;
        }
        while (*p == ' ')
            p++;
    }
    return stub_answer(v, n * sizeof v[0], cap, value, ret);
}

static cl_int intel_info(cl_device_id d, cl_device_info param, size_t cap, void *value,
                         size_t *ret)
{
    const stub_intel_target *t = d->intel;
    switch (param) {
    case CL_DEVICE_VENDOR_ID: ANSWER(cl_uint, 0x8086);
    case CL_DEVICE_VENDOR: return stub_answer_str("Intel(R) Corporation", cap, value, ret);
    case CL_DEVICE_VERSION: return stub_answer_str("OpenCL 3.0 NEO ", cap, value, ret);
    case CL_DEVICE_OPENCL_C_VERSION: return stub_answer_str("OpenCL C 1.2 ", cap, value, ret);
    case CL_DEVICE_EXTENSIONS:
        /* Without IL the device lacks cl_khr_il_program; the list is the
         * platform's otherwise. */
        if (!d->il_versions[0]) {
            char ext[sizeof INTEL_PLATFORM_EXT];
            strcpy(ext, INTEL_PLATFORM_EXT);
            char *il = strstr(ext, "cl_khr_il_program ");
            if (il)
                memmove(il, il + 18, strlen(il + 18) + 1);
            return stub_answer_str(ext, cap, value, ret);
        }
        return stub_answer_str(INTEL_PLATFORM_EXT, cap, value, ret);
    case CL_DEVICE_MAX_COMPUTE_UNITS: ANSWER(cl_uint, t->eus);
    case CL_DEVICE_MAX_CLOCK_FREQUENCY: ANSWER(cl_uint, 1300);
    case CL_DEVICE_HOST_UNIFIED_MEMORY: ANSWER(cl_bool, t->integrated ? CL_TRUE : CL_FALSE);
    case CL_DEVICE_DOUBLE_FP_CONFIG:
        ANSWER(cl_device_fp_config, t->fp64 ? (CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN |
                                               CL_FP_DENORM | CL_FP_ROUND_TO_ZERO |
                                               CL_FP_ROUND_TO_INF)
                                            : 0);
    case CL_DEVICE_IL_VERSION:
        if (!d->il_versions[0])
            return stub_answer_str("", cap, value, ret);
        return stub_answer_str(d->il_versions, cap, value, ret);
    case CL_DEVICE_ILS_WITH_VERSION: return ils_with_version(d, cap, value, ret);
    case CL_DEVICE_NUMERIC_VERSION: ANSWER(cl_version, CL_MAKE_VERSION(3, 0, 0));
    case CL_DEVICE_IP_VERSION_INTEL: ANSWER(cl_version, t->ip_version);
    case CL_DEVICE_ID_INTEL: ANSWER(cl_uint, t->pci_id);
    case CL_DEVICE_NUM_SLICES_INTEL: ANSWER(cl_uint, t->eus >= 128 ? t->eus / 128 : 1);
    case CL_DEVICE_NUM_SUB_SLICES_PER_SLICE_INTEL: ANSWER(cl_uint, t->eus >= 128 ? 16 : t->eus / 16);
    case CL_DEVICE_NUM_EUS_PER_SUB_SLICE_INTEL: ANSWER(cl_uint, t->eus >= 128 ? 8 : 16);
    case CL_DEVICE_NUM_THREADS_PER_EU_INTEL: ANSWER(cl_uint, 7);
    case CL_DEVICE_FEATURE_CAPABILITIES_INTEL:
        ANSWER(cl_bitfield, t->core >= 3079 ? 3 /* DP4A | DPAS */ : 1);
    case CL_DEVICE_UUID_KHR: return stub_answer(d->device_uuid, 16, cap, value, ret);
    case CL_DRIVER_UUID_KHR: return stub_answer(d->driver_uuid, 16, cap, value, ret);
    case CL_DEVICE_LUID_VALID_KHR: ANSWER(cl_bool, CL_FALSE);
    case CL_DEVICE_NODE_MASK_KHR: ANSWER(cl_uint, 0);
    case CL_DEVICE_OPENCL_C_ALL_VERSIONS: {
        cl_name_version v[4];
        memset(v, 0, sizeof v);
        const unsigned minors[4][2] = {{1, 0}, {1, 1}, {1, 2}, {3, 0}};
        for (int i = 0; i < 4; i++) {
            v[i].version = CL_MAKE_VERSION(minors[i][0], minors[i][1], 0);
            strcpy(v[i].name, "OpenCL C");
        }
        return stub_answer(v, sizeof v, cap, value, ret);
    }
    default: return COMMON_QUERY;
    }
}

/* "gfx90a" is 9.0, "gfx1030" 10.3: the major is the digits but the last two. */
static cl_uint gfxip(const char *name, int minor)
{
    size_t n = strlen(name);
    if (n < 6)
        return 0;
    if (minor)
        return (cl_uint)(name[n - 2] - '0');
    cl_uint major = 0;
    for (size_t i = 3; i + 2 < n; i++)
        major = major * 10 + (cl_uint)(name[i] - '0');
    return major;
}

static cl_int amd_info(cl_device_id d, cl_device_info param, size_t cap, void *value,
                       size_t *ret)
{
    const stub_amd_target *t = d->amd;
    switch (param) {
    case CL_DEVICE_VENDOR_ID: ANSWER(cl_uint, 0x1002);
    case CL_DEVICE_VENDOR: return stub_answer_str("Advanced Micro Devices, Inc.", cap, value, ret);
    case CL_DEVICE_VERSION: return stub_answer_str("OpenCL 2.0 ", cap, value, ret);
    case CL_DEVICE_OPENCL_C_VERSION: return stub_answer_str("OpenCL C 2.0 ", cap, value, ret);
    case CL_DEVICE_EXTENSIONS: return stub_answer_str(AMD_DEVICE_EXT, cap, value, ret);
    case CL_DEVICE_MAX_COMPUTE_UNITS: ANSWER(cl_uint, t->cus);
    case CL_DEVICE_MAX_CLOCK_FREQUENCY: ANSWER(cl_uint, 2250);
    case CL_DEVICE_HOST_UNIFIED_MEMORY: ANSWER(cl_bool, CL_FALSE);
    case CL_DEVICE_DOUBLE_FP_CONFIG:
        ANSWER(cl_device_fp_config, CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN |
                                        CL_FP_DENORM | CL_FP_ROUND_TO_ZERO | CL_FP_ROUND_TO_INF);
    case CL_DEVICE_BOARD_NAME_AMD: return stub_answer_str(t->board, cap, value, ret);
    case CL_DEVICE_WAVEFRONT_WIDTH_AMD: ANSWER(cl_uint, t->wavefront);
    case CL_DEVICE_GFXIP_MAJOR_AMD: ANSWER(cl_uint, gfxip(t->name, 0));
    case CL_DEVICE_GFXIP_MINOR_AMD: ANSWER(cl_uint, gfxip(t->name, 1));
    case CL_DEVICE_PCIE_ID_AMD: ANSWER(cl_uint, 0x7300 + t->mach);
    default: return COMMON_QUERY;
    }
}

cl_int CL_API_CALL stub_GetDeviceInfo(cl_device_id d, cl_device_info param, size_t cap,
                                      void *value, size_t *ret)
{
    if (!stub_is_device(d))
        return CL_INVALID_DEVICE;
    cl_int rc = d->vendor == STUB_INTEL ? intel_info(d, param, cap, value, ret)
                                        : amd_info(d, param, cap, value, ret);
    if (rc != COMMON_QUERY)
        return rc;
    int intel = d->vendor == STUB_INTEL;
    switch (param) {
    case CL_DEVICE_TYPE: ANSWER(cl_device_type, CL_DEVICE_TYPE_GPU);
    case CL_DEVICE_NAME: return stub_answer_str(d->name, cap, value, ret);
    case CL_DEVICE_MAX_WORK_GROUP_SIZE: ANSWER(size_t, stub_max_work_group(d));
    case CL_DEVICE_MAX_WORK_ITEM_SIZES: {
        size_t s[3] = {1024, 1024, 1024};
        return stub_answer(s, sizeof s, cap, value, ret);
    }
    case CL_DEVICE_PLATFORM: ANSWER(cl_platform_id, d->platform);
    case CL_DRIVER_VERSION: return stub_answer_str(d->driver, cap, value, ret);
    case CL_DEVICE_PROFILE: return stub_answer_str("FULL_PROFILE", cap, value, ret);
    case CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS: ANSWER(cl_uint, 3);
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR: ANSWER(cl_uint, intel ? 16 : 4);
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT: ANSWER(cl_uint, intel ? 8 : 2);
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_INT: ANSWER(cl_uint, intel ? 4 : 1);
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE: ANSWER(cl_uint, 1);
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF: ANSWER(cl_uint, intel ? 8 : 1);
    case CL_DEVICE_ADDRESS_BITS: ANSWER(cl_uint, 64);
    case CL_DEVICE_MAX_MEM_ALLOC_SIZE: ANSWER(cl_ulong, (cl_ulong)4 << 30);
    case CL_DEVICE_GLOBAL_MEM_SIZE: ANSWER(cl_ulong, (cl_ulong)16 << 30);
    case CL_DEVICE_GLOBAL_MEM_CACHE_TYPE: ANSWER(cl_device_mem_cache_type, CL_READ_WRITE_CACHE);
    case CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE: ANSWER(cl_uint, intel ? 64 : 128);
    case CL_DEVICE_GLOBAL_MEM_CACHE_SIZE: ANSWER(cl_ulong, (cl_ulong)4 << 20);
    case CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE: ANSWER(cl_ulong, (cl_ulong)4 << 30);
    case CL_DEVICE_MAX_CONSTANT_ARGS: ANSWER(cl_uint, 8);
    case CL_DEVICE_LOCAL_MEM_TYPE: ANSWER(cl_device_local_mem_type, CL_LOCAL);
    case CL_DEVICE_LOCAL_MEM_SIZE: ANSWER(cl_ulong, 65536);
    case CL_DEVICE_ERROR_CORRECTION_SUPPORT: ANSWER(cl_bool, CL_FALSE);
    case CL_DEVICE_PROFILING_TIMER_RESOLUTION: ANSWER(size_t, intel ? 83 : 1);
    case CL_DEVICE_ENDIAN_LITTLE:
    case CL_DEVICE_AVAILABLE:
    case CL_DEVICE_COMPILER_AVAILABLE:
    case CL_DEVICE_LINKER_AVAILABLE:
    case CL_DEVICE_IMAGE_SUPPORT:
    case CL_DEVICE_PREFERRED_INTEROP_USER_SYNC: ANSWER(cl_bool, CL_TRUE);
    case CL_DEVICE_EXECUTION_CAPABILITIES: ANSWER(cl_device_exec_capabilities, CL_EXEC_KERNEL);
    case CL_DEVICE_QUEUE_PROPERTIES:
        ANSWER(cl_command_queue_properties,
               CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE);
    case CL_DEVICE_SINGLE_FP_CONFIG:
        ANSWER(cl_device_fp_config, CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN |
                                        CL_FP_DENORM | CL_FP_ROUND_TO_ZERO | CL_FP_ROUND_TO_INF);
    case CL_DEVICE_MEM_BASE_ADDR_ALIGN: ANSWER(cl_uint, 1024);
    case CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE: ANSWER(cl_uint, 128);
    case CL_DEVICE_MAX_PARAMETER_SIZE: ANSWER(size_t, intel ? 2048 : 1024);
    case CL_DEVICE_MAX_READ_IMAGE_ARGS: ANSWER(cl_uint, 128);
    case CL_DEVICE_MAX_WRITE_IMAGE_ARGS: ANSWER(cl_uint, 128);
    case CL_DEVICE_MAX_SAMPLERS: ANSWER(cl_uint, 16);
    case CL_DEVICE_IMAGE2D_MAX_WIDTH:
    case CL_DEVICE_IMAGE2D_MAX_HEIGHT: ANSWER(size_t, 16384);
    case CL_DEVICE_IMAGE3D_MAX_WIDTH:
    case CL_DEVICE_IMAGE3D_MAX_HEIGHT:
    case CL_DEVICE_IMAGE3D_MAX_DEPTH: ANSWER(size_t, 2048);
    case CL_DEVICE_IMAGE_MAX_BUFFER_SIZE: ANSWER(size_t, 134217728);
    case CL_DEVICE_IMAGE_MAX_ARRAY_SIZE: ANSWER(size_t, 2048);
    case CL_DEVICE_BUILT_IN_KERNELS: return stub_answer_str("", cap, value, ret);
    case CL_DEVICE_PRINTF_BUFFER_SIZE: ANSWER(size_t, 4194304);
    case CL_DEVICE_PARENT_DEVICE: ANSWER(cl_device_id, NULL);
    case CL_DEVICE_PARTITION_MAX_SUB_DEVICES: ANSWER(cl_uint, 0);
    case CL_DEVICE_PARTITION_PROPERTIES:
    case CL_DEVICE_PARTITION_TYPE: ANSWER(cl_device_partition_property, 0);
    case CL_DEVICE_PARTITION_AFFINITY_DOMAIN: ANSWER(cl_device_affinity_domain, 0);
    case CL_DEVICE_REFERENCE_COUNT: ANSWER(cl_uint, 1);
    default: return CL_INVALID_VALUE;
    }
}
