/* fake_worker.c — a build worker's two halves for tests (fake_worker.h). */
#include "fake_worker.h"

#include <string.h>
#include <unistd.h>

#include "fd_io.h"
#include "strbuf.h"
#include "worker_proto.h"

int fake_worker_next(uint32_t *job)
{
    unsigned char id[4];
    if (read(0, id, 4) != 4)
        return 0;
    *job = (uint32_t)id[0] | (uint32_t)id[1] << 8 | (uint32_t)id[2] << 16 | (uint32_t)id[3] << 24;
    return 1;
}

int fake_worker_answer(uint32_t job, const char *message)
{
    build_variant_result r;
    memset(&r, 0, sizeof r);
    r.message = (char *)message;
    strbuf out;
    sb_init(&out);
    worker_proto_encode_result(&out, job, &r);
    int rc = out.failed || clcpk_fd_write_all(WORKER_PROTO_RESULT_FD, out.data, out.len) != 0 ? -1 : 0;
    sb_free(&out);
    return rc;
}
