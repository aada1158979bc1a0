/* nv_forms.c — the portable PTX and one cubin per architecture (nv_forms.h). */
#include "nv_forms.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounded_fmt.h"
#include "ptx_retarget.h"
#include "ptx_text.h"
#include "ptxas_run.h"
#include "task_run.h"

void nv_forms_format_archs(const nv_forms_archs *a, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < a->n && len < cap; i++) {
        bfmt(buf + len, cap - len, "%s%u", i ? "," : "", (unsigned)a->arch[i]);
        len += strlen(buf + len);
    }
}

static int has_arch(const nv_forms_archs *a, uint32_t arch)
{
    for (size_t i = 0; a && i < a->n; i++)
        if (a->arch[i] == arch)
            return 1;
    return 0;
}

static void add_note(nv_forms_result *r, const char *fmt, ...) BFMT_PRINTF(2, 3);
static void add_note(nv_forms_result *r, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    size_t old = r->notes ? strlen(r->notes) : 0;
    char *grown = realloc(r->notes, old + strlen(line) + 3);
    if (!grown)
        return;
    if (old)
        memcpy(grown + old, "; ", 2), old += 2;
    strcpy(grown + old, line);
    r->notes = grown;
}

/* What the cubin phase learnt, so the portable search does not run ptxas
 * again on the same form. */
typedef struct probe_ctx {
    const char *ptxas;
    uint32_t own_version;
    size_t n;
    char name[NV_FORMS_MAX_ARCHS + 1][PTX_TEXT_ARCH_NAME_MAX];
    int accepted[NV_FORMS_MAX_ARCHS + 1];
    int *runs;
} probe_ctx;

static void remember(probe_ctx *c, const char *name, int accepted)
{
    if (c->n < NV_FORMS_MAX_ARCHS + 1) {
        bfmt(c->name[c->n], PTX_TEXT_ARCH_NAME_MAX, "%s", name);
        c->accepted[c->n++] = accepted;
    }
}

/* Targets the ptxas in use does not know (CUDA 13 has none below sm_75),
 * remembered for the life of the process (a worker or a retarget run uses
 * one ptxas); retarget's threads share it. */
#define UNKNOWN_MAX 32
static char unknown[UNKNOWN_MAX][PTX_TEXT_ARCH_NAME_MAX];
static size_t n_unknown;
static pthread_mutex_t unknown_lock = PTHREAD_MUTEX_INITIALIZER;

static int is_unknown(const char *arch_name)
{
    pthread_mutex_lock(&unknown_lock);
    int found = 0;
    for (size_t i = 0; i < n_unknown && !found; i++)
        found = strcmp(unknown[i], arch_name) == 0;
    pthread_mutex_unlock(&unknown_lock);
    return found;
}

static void add_unknown(const char *arch_name)
{
    pthread_mutex_lock(&unknown_lock);
    if (n_unknown < UNKNOWN_MAX)
        bfmt(unknown[n_unknown++], PTX_TEXT_ARCH_NAME_MAX, "%s", arch_name);
    pthread_mutex_unlock(&unknown_lock);
}

static int ptxas_probe(void *vctx, const char *text, size_t len, const char *arch_name)
{
    probe_ctx *c = vctx;
    uint32_t v;
    if (ptx_retarget_version(text, len, &v) == 0 && v == c->own_version)
        for (size_t i = 0; i < c->n; i++)
            if (strcmp(c->name[i], arch_name) == 0)
                return c->accepted[i];
    if (is_unknown(arch_name))
        return 0;
    char msg[1024];
    (*c->runs)++;
    int ok = ptxas_accepts(c->ptxas, text, len, arch_name, msg, sizeof msg) == 0;
    /* ptxas's words for a target it was not built for: no need to ask
     * again for the next variant. */
    if (!ok && strstr(msg, "is not defined for option"))
        add_unknown(arch_name);
    return ok;
}

/* ptxas's message without the temporary file's path ("program.ptx, line
 * 12; error : ..." reads the same for every variant) and without the
 * "ptxas fatal : Ptx assembly aborted" that follows every error. */
static void reason(const char *msg, char out[NV_FORMS_REASON_MAX])
{
    const char *p = strstr(msg, "program.ptx");
    if (!p)
        p = msg;
    const char *end = strstr(p, " ptxas fatal");
    size_t n = end && end > p ? (size_t)(end - p) : strlen(p);
    bfmt(out, NV_FORMS_REASON_MAX, "%.*s", (int)n, p);
}

/* One cubin to assemble; run_cubin_task fills the results. */
typedef struct cubin_task {
    const char *ptxas;
    uint32_t arch;
    char name[PTX_TEXT_ARCH_NAME_MAX];
    const char *src;
    char *form; /* the retargeted text src points at, or NULL */
    size_t len;
    int rc;
    unsigned char *cubin;
    size_t size;
    char msg[1024];
} cubin_task;

/* task_run's task i: assemble tasks[i]. */
static void run_cubin_task(void *ctx, size_t i)
{
    cubin_task *k = &((cubin_task *)ctx)[i];
    k->rc = ptxas_compile(k->ptxas, k->src, k->len, k->name, &k->cubin, &k->size, k->msg,
                          sizeof k->msg);
}

int nv_forms_make(const char *ptxas, const void *ptx, size_t len, const nv_forms_archs *archs,
             uint32_t own_arch, const nv_forms_archs *skip, int parallel, nv_forms_result *r)
{
    memset(r, 0, sizeof *r);
    char text_name[PTX_TEXT_ARCH_NAME_MAX];
    uint32_t text_arch, text_version;
    if (ptx_text_target(ptx, len, text_name, &text_arch) != 0 ||
        ptx_retarget_version(ptx, len, &text_version) != 0) {
        add_note(r, "the PTX has no .target sm_N or no .version M.m directive: stored as it is, "
                    "no cubins");
        return -1;
    }
    probe_ctx pc;
    memset(&pc, 0, sizeof pc);
    pc.ptxas = ptxas;
    pc.own_version = text_version;
    pc.runs = &r->ptxas_runs;

    /* The architectures to assemble for, increasing. */
    nv_forms_archs want = *archs;
    if (own_arch && !has_arch(&want, own_arch) && want.n < NV_FORMS_MAX_ARCHS) {
        size_t k = want.n++;
        while (k > 0 && want.arch[k - 1] > own_arch) {
            want.arch[k] = want.arch[k - 1];
            k--;
        }
        want.arch[k] = own_arch;
    }
    /* Every cubin at once (nv_forms_make's header says why), then what each
     * gave, in increasing arch. */
    cubin_task tasks[NV_FORMS_MAX_ARCHS + 1];
    size_t n_tasks = 0;
    for (size_t i = 0; i < want.n; i++) {
        uint32_t arch = want.arch[i];
        if (has_arch(skip, arch))
            continue;
        cubin_task *k = &tasks[n_tasks++];
        memset(k, 0, sizeof *k);
        k->ptxas = ptxas;
        k->arch = arch;
        k->src = ptx;
        k->len = len;
        if (arch == text_arch) {
            bfmt(k->name, sizeof k->name, "%s", text_name);
        } else {
            bfmt(k->name, sizeof k->name, "sm_%u", (unsigned)arch);
            if (ptx_retarget(ptx, len, k->name, 0, &k->form, &k->len) != 0) {
                add_note(r, "out of memory retargeting the PTX to %s", k->name);
                for (size_t t = 0; t < n_tasks - 1; t++)
                    free(tasks[t].form);
                return -1;
            }
            k->src = k->form;
        }
    }
    /* Up to `parallel` threads (this one included). */
    task_run(n_tasks, parallel > 1 ? (size_t)parallel : 1, run_cubin_task, tasks);
    for (size_t t = 0; t < n_tasks; t++) {
        cubin_task *k = &tasks[t];
        free(k->form);
        r->ptxas_runs++;
        remember(&pc, k->name, k->rc == 0);
        if (k->rc != 0) {
            struct nv_forms_refusal *f = &r->refused[r->n_refused++];
            f->arch = k->arch;
            reason(k->msg, f->reason);
            add_note(r, "no cubin for %s: %s", k->name, f->reason);
            continue;
        }
        r->cubins[r->n_cubins++] = (nv_forms_cubin){k->arch, k->cubin, k->size};
    }

    int tries = 0;
    if (ptx_retarget_portable(ptx, len, ptxas_probe, &pc, &r->ptx, &r->ptx_size, &r->ptx_arch,
                     &r->ptx_retarget_version, &tries) != 0) {
        /* Cubins made stay; the PTX is kept as it is. */
        add_note(r, "out of memory finding the portable PTX");
        r->ptx = NULL;
        return -1;
    }
    return 0;
}

void nv_forms_result_free(nv_forms_result *r)
{
    free(r->ptx);
    for (size_t i = 0; i < r->n_cubins; i++)
        free(r->cubins[i].data);
    free(r->notes);
    memset(r, 0, sizeof *r);
}
