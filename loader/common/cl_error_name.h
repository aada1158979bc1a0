/*
 * cl_error_name.h — the name of an OpenCL error code, for messages:
 * "CL_BUILD_PROGRAM_FAILURE (-11)" says what a bare -11 does not.
 *
 * Shared by the library (compiled into libclcpack, hidden) and the tool,
 * which links libclcpack.a: one table for both (docs/ARCHITECTURE.md,
 * "Layers"). Includes no project header and no OpenCL header.
 */
#ifndef CLCPK_CL_ERROR_NAME_H
#define CLCPK_CL_ERROR_NAME_H

#include <stddef.h>

/* Room for the longest text clcpk_cl_error_name writes, NUL included. */
#define CLCPK_CL_ERROR_MAX 64

/* Writes into buf (cap bytes, cut to fit) the code's name and number,
 * "CL_INVALID_BINARY (-42)", for every error code of OpenCL 1.0 to 3.0
 * (CL/cl.h) and the ICD loader's CL_PLATFORM_NOT_FOUND_KHR; the number
 * alone ("-9999") for a code it does not know. Returns buf. Thread-safe. */
const char *clcpk_cl_error_name(int code, char *buf, size_t cap);

#endif /* CLCPK_CL_ERROR_NAME_H */
