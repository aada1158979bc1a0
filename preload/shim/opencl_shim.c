/*
 * opencl_shim.c — the forwarding libOpenCL.so.1 that `clc-pack record` and
 * `clc-pack run` put first on LD_LIBRARY_PATH (docs/RECORD.md, "Every way
 * an application reaches OpenCL"). It has no code: its DT_NEEDED entries
 * are the interposer (libclcpack-preload.so) and the real ICD loader under
 * the name libclcpack-real-opencl.so.1, which clc-pack links to the loader
 * it found itself, so the shim never finds itself. An application that
 * dlopen()s "libOpenCL.so" and takes its functions with dlsym(handle, ...)
 * then gets the interposer's program calls (searched first) and the real
 * loader's others; an application linked with -lOpenCL finds the real
 * loader's functions through the shim's dependencies. The version nodes
 * (opencl_shim.map) satisfy applications linked against a versioned
 * loader (ocl-icd's OPENCL_1.0 ... OPENCL_3.0).
 */
typedef int clcpack_shim_has_no_code;
