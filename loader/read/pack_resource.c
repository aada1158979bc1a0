/*
 * pack_resource.c — clcpack_open_resource: a pack linked into a Windows
 * module as an RCDATA resource (`clc-pack embed --format rc`), opened in
 * place like clcpack_open_memory. The lookup is the platform layer's
 * (loader/common/platform.h); other systems have no resources and say what to use
 * instead.
 */
#include <errno.h>
#include <string.h>

#include "errors.h"
#include "platform.h"

clcpack_status clcpack_open_resource(void *module, const char *name, clcpack **out,
                                     clcpack_error *err)
{
    if (!out)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "clcpack_open_resource: out is NULL");
    *out = NULL;
    if (!name || !*name)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "clcpack_open_resource: no resource name");
    const void *data = NULL;
    size_t size = 0;
    int e = clcpk_os_resource(module, name, &data, &size);
    if (e == ENOSYS)
        return clcpk_fail(err, CLCPACK_E_IO,
                          "resource %s: resources are a Windows feature; here embed the pack "
                          "with clc-pack embed --format c or asm and open it with "
                          "clcpack_open_memory",
                          name);
    if (e == ENOENT)
        return clcpk_fail(err, CLCPACK_E_IO,
                          "resource %s: the module has no RCDATA resource of that name (was the "
                          ".rc file of clc-pack embed --format rc linked in?)",
                          name);
    if (e != 0) {
        char msg[128];
        return clcpk_fail(err, CLCPACK_E_IO, "resource %s: %s", name,
                          clcpk_errno_text(e, msg, sizeof msg));
    }
    clcpack_error inner;
    clcpack_status st = clcpack_open_memory(data, size, out, &inner);
    if (st != CLCPACK_OK)
        return clcpk_fail(err, st, "resource %s: %s", name, inner.message);
    return CLCPACK_OK;
}
