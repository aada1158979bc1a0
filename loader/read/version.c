#include "clcpack.h"

unsigned clcpack_version(void) { return CLCPACK_VERSION_NUMBER; }

const char *clcpack_path_name(clcpack_path path)
{
    switch (path) {
    case CLCPACK_PATH_NATIVE: return "native";
    case CLCPACK_PATH_CUBIN: return "cubin";
    case CLCPACK_PATH_PTX: return "ptx";
    case CLCPACK_PATH_SOURCE: return "source";
    case CLCPACK_PATH_CACHE: return "cache";
    case CLCPACK_PATH_TARGET: return "target";
    case CLCPACK_PATH_SPIRV: return "spirv";
    case CLCPACK_PATH_NONE: break;
    }
    return "none";
}
