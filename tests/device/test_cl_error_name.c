/*
 * test_cl_error_name.c — OpenCL error codes in messages carry their names
 * (loader/common/cl_error_name.h, shared by the library and the tool):
 *
 *  - every error code CL/cl.h defines up to OpenCL 3.0 reads
 *    "NAME (code)", the name being the header's own; the ICD loader's
 *    -1001 too; a code OpenCL does not define reads as the bare number;
 *    a short buffer is cut, never overrun;
 *  - the library's message for a stored source that fails to build on the
 *    OpenCL device names the code: "CL_BUILD_PROGRAM_FAILURE (-11)".
 */
#undef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300 /* every code up to 3.0 */
#include <CL/cl.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "cl_device.h"
#include "cl_error_name.h"
#include "clcpack_write.h"

#define CODE(c) {c, #c}
static const struct {
    int code;
    const char *name;
} codes[] = {
    CODE(CL_SUCCESS), CODE(CL_DEVICE_NOT_FOUND), CODE(CL_DEVICE_NOT_AVAILABLE),
    CODE(CL_COMPILER_NOT_AVAILABLE), CODE(CL_MEM_OBJECT_ALLOCATION_FAILURE),
    CODE(CL_OUT_OF_RESOURCES), CODE(CL_OUT_OF_HOST_MEMORY), CODE(CL_PROFILING_INFO_NOT_AVAILABLE),
    CODE(CL_MEM_COPY_OVERLAP), CODE(CL_IMAGE_FORMAT_MISMATCH),
    CODE(CL_IMAGE_FORMAT_NOT_SUPPORTED), CODE(CL_BUILD_PROGRAM_FAILURE), CODE(CL_MAP_FAILURE),
    CODE(CL_MISALIGNED_SUB_BUFFER_OFFSET), CODE(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
    CODE(CL_COMPILE_PROGRAM_FAILURE), CODE(CL_LINKER_NOT_AVAILABLE),
    CODE(CL_LINK_PROGRAM_FAILURE), CODE(CL_DEVICE_PARTITION_FAILED),
    CODE(CL_KERNEL_ARG_INFO_NOT_AVAILABLE), CODE(CL_INVALID_VALUE), CODE(CL_INVALID_DEVICE_TYPE),
    CODE(CL_INVALID_PLATFORM), CODE(CL_INVALID_DEVICE), CODE(CL_INVALID_CONTEXT),
    CODE(CL_INVALID_QUEUE_PROPERTIES), CODE(CL_INVALID_COMMAND_QUEUE), CODE(CL_INVALID_HOST_PTR),
    CODE(CL_INVALID_MEM_OBJECT), CODE(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR),
    CODE(CL_INVALID_IMAGE_SIZE), CODE(CL_INVALID_SAMPLER), CODE(CL_INVALID_BINARY),
    CODE(CL_INVALID_BUILD_OPTIONS), CODE(CL_INVALID_PROGRAM), CODE(CL_INVALID_PROGRAM_EXECUTABLE),
    CODE(CL_INVALID_KERNEL_NAME), CODE(CL_INVALID_KERNEL_DEFINITION), CODE(CL_INVALID_KERNEL),
    CODE(CL_INVALID_ARG_INDEX), CODE(CL_INVALID_ARG_VALUE), CODE(CL_INVALID_ARG_SIZE),
    CODE(CL_INVALID_KERNEL_ARGS), CODE(CL_INVALID_WORK_DIMENSION),
    CODE(CL_INVALID_WORK_GROUP_SIZE), CODE(CL_INVALID_WORK_ITEM_SIZE),
    CODE(CL_INVALID_GLOBAL_OFFSET), CODE(CL_INVALID_EVENT_WAIT_LIST), CODE(CL_INVALID_EVENT),
    CODE(CL_INVALID_OPERATION), CODE(CL_INVALID_GL_OBJECT), CODE(CL_INVALID_BUFFER_SIZE),
    CODE(CL_INVALID_MIP_LEVEL), CODE(CL_INVALID_GLOBAL_WORK_SIZE), CODE(CL_INVALID_PROPERTY),
    CODE(CL_INVALID_IMAGE_DESCRIPTOR), CODE(CL_INVALID_COMPILER_OPTIONS),
    CODE(CL_INVALID_LINKER_OPTIONS), CODE(CL_INVALID_DEVICE_PARTITION_COUNT),
    CODE(CL_INVALID_PIPE_SIZE), CODE(CL_INVALID_DEVICE_QUEUE), CODE(CL_INVALID_SPEC_ID),
    CODE(CL_MAX_SIZE_RESTRICTION_EXCEEDED),
};

static void test_table(void)
{
    char buf[CLCPK_CL_ERROR_MAX], want[CLCPK_CL_ERROR_MAX];
    size_t wrong = 0;
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        snprintf(want, sizeof want, "%s (%d)", codes[i].name, codes[i].code);
        const char *got = clcpk_cl_error_name(codes[i].code, buf, sizeof buf);
        if (got != buf || strcmp(got, want) != 0) {
            wrong++;
            CHECK(0, "code %d reads '%s', not '%s'", codes[i].code, got, want);
        }
    }
    CHECK(wrong == 0, "the %zu codes of CL/cl.h up to 3.0 read NAME (code)",
          sizeof codes / sizeof codes[0]);
    CHECK(strcmp(clcpk_cl_error_name(-1001, buf, sizeof buf), "CL_PLATFORM_NOT_FOUND_KHR (-1001)") ==
              0,
          "-1001: %s", buf);
    CHECK(strcmp(clcpk_cl_error_name(-9999, buf, sizeof buf), "-9999") == 0,
          "an unknown code is its number: %s", buf);
    CHECK(strcmp(clcpk_cl_error_name(-20, buf, sizeof buf), "-20") == 0,
          "a gap in the table is its number: %s", buf);
    char small[8] = "xxxxxxx";
    clcpk_cl_error_name(CL_BUILD_PROGRAM_FAILURE, small, 4);
    CHECK(strcmp(small, "CL_") == 0 && small[4] == 'x', "a 4-byte buffer is cut: '%s'", small);
}

static const char BROKEN[] = "__kernel void k(__global float *o) { o[0] = undeclared; }\n";

/* A pack whose one entry has a source that does not build and a binary
 * for another device: a load here builds the source, which fails. */
static void test_build_failure_message(void)
{
    cl_device_id dev;
    cl_context ctx;
    if (test_first_device(&dev, &ctx) != 0) {
        CHECK_SKIP("no OpenCL device: the build failure's message not tried");
        return;
    }
    clcpack_device_info other;
    memset(&other, 0, sizeof other);
    other.struct_size = sizeof other;
    snprintf(other.device_name, sizeof other.device_name, "Other Device");
    clcpack_writer *w = NULL;
    clcpack_error err;
    uint32_t d, s;
    void *data = NULL;
    size_t size = 0;
    static const unsigned char bin[8] = {1};
    clcpack_entry_spec spec = {.struct_size = sizeof spec};
    spec.kernel = "k";
    spec.kind = CLCPACK_KIND_NATIVE;
    spec.binary = bin;
    spec.binary_size = sizeof bin;
    int ok = clcpack_writer_new(0, &w, &err) == CLCPACK_OK &&
             clcpack_writer_add_device(w, &other, &d, &err) == CLCPACK_OK &&
             clcpack_writer_add_source(w, "broken.cl", BROKEN, strlen(BROKEN), &s, &err) ==
                 CLCPACK_OK;
    spec.device = d;
    spec.source = s;
    ok = ok && clcpack_writer_add_entry(w, &spec, &err) == CLCPACK_OK &&
         clcpack_writer_write_memory(w, &data, &size, &err) == CLCPACK_OK;
    clcpack *p = NULL;
    ok = ok && clcpack_open_memory(data, size, &p, &err) == CLCPACK_OK;
    if (CHECK(ok, "pack with a broken source: %s", err.message)) {
        clcpack_key key = {"k", NULL, 0, {0, 0, 0}};
        cl_program prog = NULL;
        clcpack_status st = clcpack_create_program(p, &key, ctx, dev, NULL, &prog, NULL, &err);
        CHECK(st == CLCPACK_E_BUILD && strstr(err.message, "CL_BUILD_PROGRAM_FAILURE (-11)"),
              "the build failure names its code: %d %s", st, err.message);
        if (prog)
            clReleaseProgram(prog);
    }
    clcpack_close(p);
    clcpack_free(data);
    clcpack_writer_free(w);
    clReleaseContext(ctx);
}

int main(void)
{
    test_table();
    test_build_failure_message();
    return check_summary();
}
