/* pack_retarget.c — what `clc-pack retarget` does, as a function
 * (pack_merge.h: pack_retarget_file): every PTX entry of a pack in its most
 * portable form with a cubin for each listed architecture (and for its
 * device's own), everything else copied by the merge's machinery
 * (pack_merge.c), the output written atomically. ptxas runs for -j entries
 * at a time, before anything is copied. `retarget` and the pack run's
 * --merge of PTX packs call it. */
#include "pack_merge.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_report.h"
#include "clcpack_write.h"
#include "nv_forms.h"
#include "pack_text.h"
#include "ptxas_run.h"

#define LABEL_MAX 640
/* The most cubins of one key and device whose archs are looked at. */
#define FIND_MAX 256

/* One PTX entry's forms, made before the copy. */
typedef struct ptx_job {
    size_t entry;
    unsigned char *ptx;         /* its decoded bytes */
    size_t size;
    uint32_t own_arch;          /* its device's compute capability */
    nv_forms_archs held;             /* cubins the pack already holds for it */
    int rc;
    nv_forms_result res;
} ptx_job;

typedef struct retarget_ctx {
    char ptxas[PTXAS_PATH_MAX];
    const nv_forms_archs *archs;
    ptx_job *jobs;              /* in increasing entry */
    size_t n_jobs, next;
    pthread_mutex_t lock;
    ptx_job *last;              /* the job whose forms are being added */
    size_t ptx_entries, kept, skipped, runs;
    size_t per_arch[NV_FORMS_MAX_ARCHS + 1];
    uint32_t arch_of[NV_FORMS_MAX_ARCHS + 1];
    size_t n_arch;
} retarget_ctx;

static void count_cubin(retarget_ctx *c, uint32_t arch)
{
    size_t k = 0;
    while (k < c->n_arch && c->arch_of[k] != arch)
        k++;
    if (k == c->n_arch) {
        if (c->n_arch > NV_FORMS_MAX_ARCHS)
            return;
        c->arch_of[c->n_arch++] = arch;
    }
    c->per_arch[k]++;
}

/* The architectures the pack already holds a cubin of e's key and device for. */
static void held_cubins(const clcpack *p, const clcpack_entry_info *e, nv_forms_archs *held)
{
    size_t idx[FIND_MAX], n = 0;
    clcpack_key key = pack_text_key(e);
    held->n = 0;
    if (clcpack_find(p, &key, idx, FIND_MAX, &n, NULL) != CLCPACK_OK)
        return;
    for (size_t i = 0; i < n && i < FIND_MAX && held->n < NV_FORMS_MAX_ARCHS; i++) {
        clcpack_entry_info o = {.struct_size = sizeof o};
        if (clcpack_get_entry(p, idx[i], &o) == CLCPACK_OK && o.kind == CLCPACK_KIND_CUBIN &&
            o.device == e->device)
            held->arch[held->n++] = o.arch;
    }
}

static void *job_thread(void *arg)
{
    retarget_ctx *c = arg;
    for (;;) {
        pthread_mutex_lock(&c->lock);
        size_t i = c->next++;
        pthread_mutex_unlock(&c->lock);
        if (i >= c->n_jobs)
            return NULL;
        ptx_job *j = &c->jobs[i];
        j->rc = nv_forms_make(c->ptxas, j->ptx, j->size, c->archs, j->own_arch, &j->held, 1, &j->res);
    }
}

/* Reads every PTX entry of the pack and makes its forms, n_threads at a
 * time. 0, or -1 after a message. */
static int make_forms(retarget_ctx *c, const char *path, long n_threads)
{
    clcpack *p = NULL;
    clcpack_error e;
    if (clcpack_open_file(path, &p, &e) != CLCPACK_OK) {
        cli_error("%s: %s", path, e.message);
        return -1;
    }
    size_t ne = clcpack_entry_count(p);
    c->jobs = calloc(ne ? ne : 1, sizeof *c->jobs);
    if (!c->jobs) {
        cli_error("retarget: out of memory for %zu entries", ne);
        clcpack_close(p);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < ne && rc == 0; i++) {
        clcpack_entry_info ei = {.struct_size = sizeof ei};
        clcpack_device_info dev = {.struct_size = sizeof dev};
        if (clcpack_get_entry(p, i, &ei) != CLCPACK_OK ||
            clcpack_get_device(p, ei.device, &dev) != CLCPACK_OK) {
            cli_error("%s: entry %zu cannot be read", path, i);
            rc = -1;
            break;
        }
        if (ei.kind != CLCPACK_KIND_PTX)
            continue;
        ptx_job *j = &c->jobs[c->n_jobs];
        j->entry = i;
        j->own_arch = dev.nv_cc_major * 10 + dev.nv_cc_minor;
        held_cubins(p, &ei, &j->held);
        size_t size = 0;
        if (clcpack_read_binary(p, i, NULL, 0, &size, &e) != CLCPACK_OK ||
            !(j->ptx = malloc(size ? size : 1)) ||
            clcpack_read_binary(p, i, j->ptx, size, &j->size, &e) != CLCPACK_OK) {
            cli_error("%s: entry %zu: %s", path, i, j->ptx ? e.message : "out of memory");
            free(j->ptx);
            j->ptx = NULL;
            rc = -1;
            break;
        }
        c->n_jobs++;
    }
    clcpack_close(p);
    if (rc != 0)
        return -1;
    pthread_t threads[PACK_RETARGET_MAX_JOBS];
    long started = 0;
    if (n_threads > (long)c->n_jobs)
        n_threads = (long)c->n_jobs;
    for (; started < n_threads - 1; started++)
        if (pthread_create(&threads[started], NULL, job_thread, c) != 0)
            break;
    job_thread(c);
    for (long t = 0; t < started; t++)
        pthread_join(threads[t], NULL);
    return 0;
}

static ptx_job *find_job(retarget_ctx *c, size_t entry)
{
    size_t lo = 0, hi = c->n_jobs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->jobs[mid].entry < entry)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < c->n_jobs && c->jobs[lo].entry == entry ? &c->jobs[lo] : NULL;
}

static int retarget_entry(void *vctx, const char *path, const clcpack *p, size_t index,
                          clcpack_writer *w, clcpack_entry_spec *spec)
{
    retarget_ctx *c = vctx;
    if (c->last)
        nv_forms_result_free(&c->last->res);
    c->last = NULL;
    if (spec->kind != CLCPACK_KIND_PTX)
        return 0;
    ptx_job *j = find_job(c, index);
    clcpack_entry_info e = {.struct_size = sizeof e};
    if (!j || clcpack_get_entry(p, index, &e) != CLCPACK_OK) {
        cli_error("%s: entry %zu cannot be read", path, index);
        return -1;
    }
    c->last = j;
    nv_forms_result *r = &j->res;
    char label[LABEL_MAX];
    pack_text_entry_label(&e, label, sizeof label);
    c->kept += j->held.n;
    c->ptx_entries++;
    c->runs += (size_t)r->ptxas_runs;
    for (size_t i = 0; i < r->n_refused; i++)
        cli_note("%s: no cubin for sm_%u: %s", label, (unsigned)r->refused[i].arch,
                 r->refused[i].reason);
    if (j->rc != 0)
        cli_note("%s: %s", label, r->notes ? r->notes : "PTX kept as it is");
    if (r->ptx) {
        spec->binary = r->ptx;
        spec->binary_size = r->ptx_size;
        spec->arch = r->ptx_arch;
    }
    for (size_t i = 0; i < r->n_cubins; i++) {
        clcpack_entry_spec cs = *spec;
        cs.kind = CLCPACK_KIND_CUBIN;
        cs.arch = r->cubins[i].arch;
        cs.binary = r->cubins[i].data;
        cs.binary_size = r->cubins[i].size;
        clcpack_error err;
        if (clcpack_writer_add_entry(w, &cs, &err) != CLCPACK_OK) {
            cli_error("%s: entry %zu: cubin sm_%u: %s", path, index, (unsigned)cs.arch,
                      err.message);
            return -1;
        }
        count_cubin(c, cs.arch);
    }
    c->skipped += r->n_refused;
    return 0;
}

int pack_retarget_file(const char *input, const char *output, const nv_forms_archs *archs,
                  const char *ptxas, uint32_t cubin_flags, clcpack_compression codec, long jobs)
{
    retarget_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.archs = archs;
    bfmt(ctx.ptxas, sizeof ctx.ptxas, "%s", ptxas);
    pthread_mutex_init(&ctx.lock, NULL);
    int status = EXIT_FAILURE_STATUS;
    if (make_forms(&ctx, input, jobs) != 0)
        goto out;
    const char *inputs[1] = {input};
    merge_hook hook = {&ctx, retarget_entry};
    merge_args m;
    memset(&m, 0, sizeof m);
    m.output = output;
    m.compress_cubins = (cubin_flags & CLCPACK_WRITE_COMPRESS_CUBINS) != 0;
    m.store_cubins = (cubin_flags & CLCPACK_WRITE_STORE_CUBINS) != 0;
    m.codec = codec;
    m.inputs = inputs;
    m.n_inputs = 1;
    m.hook = &hook;
    m.threads = (unsigned)jobs;
    merge_stats st;
    status = pack_merge_run(&m, &st);
    if (status != EXIT_OK_STATUS)
        goto out;
    if (cli_verbosity >= 0) {
        char per[32 * (NV_FORMS_MAX_ARCHS + 1)] = "";
        size_t len = 0;
        for (size_t k = 0; k < ctx.n_arch; k++) {
            bfmt(per + len, sizeof per - len, "%ssm_%u %zu", k ? ", " : "",
                 (unsigned)ctx.arch_of[k], ctx.per_arch[k]);
            len += strlen(per + len);
        }
        fprintf(stderr,
                "clc-pack: retargeted %s into %s: %zu entr%s, %zu PTX; cubins added: %s; "
                "%zu refused by ptxas, %zu already held; %zu ptxas runs\n",
                input, output, st.entries, st.entries == 1 ? "y" : "ies", ctx.ptx_entries,
                ctx.n_arch ? per : "none", ctx.skipped, ctx.kept, ctx.runs);
    }
out:
    for (size_t i = 0; i < ctx.n_jobs; i++) {
        free(ctx.jobs[i].ptx);
        nv_forms_result_free(&ctx.jobs[i].res);
    }
    free(ctx.jobs);
    pthread_mutex_destroy(&ctx.lock);
    return status;
}
