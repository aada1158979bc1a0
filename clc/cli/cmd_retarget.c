/* cmd_retarget.c — `clc-pack retarget PACK --nv-arch LIST -o OUT`: for an
 * existing pack, on any machine with ptxas (no GPU needed), what `clc-pack
 * --nv-arch` does while building (docs/NVIDIA.md): every PTX entry is
 * stored in its most portable form and gets a cubin for each listed
 * architecture (and for its device's own). Everything else (devices,
 * sources, entries, tunings) is copied by merge's machinery (pack_merge.h);
 * the output is written atomically. */
#include "commands.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli_report.h"
#include "clcpack.h"
#include "nv_forms.h"
#include "pack_merge.h"
#include "pack_text.h"
#include "ptxas_run.h"

#define LABEL_MAX 640
/* The most cubins of one key and device whose archs are looked at. */
#define FIND_MAX 256

typedef struct retarget_args {
    const char *input, *output, *ptxas;
    nvf_archs archs;
    int compress_cubins;
} retarget_args;

typedef struct retarget_ctx {
    char ptxas[PTXAS_PATH_MAX];
    const nvf_archs *archs;
    nvf_result last;            /* the forms of the entry being added */
    size_t ptx_entries, kept, skipped, runs;
    size_t per_arch[NVF_MAX_ARCHS + 1];
    uint32_t arch_of[NVF_MAX_ARCHS + 1];
    size_t n_arch;
} retarget_ctx;

static int parse_args(int argc, char **argv, retarget_args *x)
{
    enum { OPT_NV_ARCH = 256, OPT_PTXAS, OPT_COMPRESS_CUBINS };
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"nv-arch", required_argument, NULL, OPT_NV_ARCH},
        {"ptxas", required_argument, NULL, OPT_PTXAS},
        {"compress-cubins", no_argument, NULL, OPT_COMPRESS_CUBINS},
        {"quiet", no_argument, NULL, 'q'},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    memset(x, 0, sizeof *x);
    char err[NVF_ERR_MAX];
    nvf_parse_archs(NVF_DEFAULT_ARCHS, &x->archs, err);
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":o:qvh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            x->output = optarg;
            break;
        case OPT_NV_ARCH:
            if (nvf_parse_archs(optarg, &x->archs, err) != 0)
                return cli_usage_error("retarget", "retarget: --nv-arch %s: %s", optarg, err);
            break;
        case OPT_PTXAS:
            x->ptxas = optarg;
            break;
        case OPT_COMPRESS_CUBINS:
            x->compress_cubins = 1;
            break;
        case 'q':
            cli_verbosity = -1;
            break;
        case 'v':
            cli_verbosity++;
            break;
        case 'h':
            usage_retarget(stdout);
            return -2;
        case ':':
            return cli_usage_error("retarget", "retarget: %s needs a value", argv[optind - 1]);
        default:
            return cli_usage_error("retarget", "retarget: unknown option %s", argv[optind - 1]);
        }
    }
    if (argc - optind != 1)
        return cli_usage_error("retarget", argc - optind < 1
                                               ? "retarget: expected the pack file to retarget"
                                               : "retarget: expected one pack file, got %d",
                               argc - optind);
    if (!x->output || !*x->output)
        return cli_usage_error("retarget", "retarget: -o FILE is required");
    x->input = argv[optind];
    return 0;
}

static void count_cubin(retarget_ctx *c, uint32_t arch)
{
    size_t k = 0;
    while (k < c->n_arch && c->arch_of[k] != arch)
        k++;
    if (k == c->n_arch) {
        if (c->n_arch > NVF_MAX_ARCHS)
            return;
        c->arch_of[c->n_arch++] = arch;
    }
    c->per_arch[k]++;
}

/* The architectures the pack already holds a cubin of e's key and device for. */
static void held_cubins(const clcpack *p, const clcpack_entry_info *e, nvf_archs *held)
{
    size_t idx[FIND_MAX], n = 0;
    clcpack_key key = pt_key(e);
    held->n = 0;
    if (clcpack_find(p, &key, idx, FIND_MAX, &n, NULL) != CLCPACK_OK)
        return;
    for (size_t i = 0; i < n && i < FIND_MAX && held->n < NVF_MAX_ARCHS; i++) {
        clcpack_entry_info o;
        if (clcpack_get_entry(p, idx[i], &o) == CLCPACK_OK && o.kind == CLCPACK_KIND_CUBIN &&
            o.device == e->device)
            held->arch[held->n++] = o.arch;
    }
}

static int retarget_entry(void *vctx, const char *path, const clcpack *p, size_t index,
                          clcpack_writer *w, clcpack_entry_spec *spec)
{
    retarget_ctx *c = vctx;
    nvf_result_free(&c->last);
    if (spec->kind != CLCPACK_KIND_PTX)
        return 0;
    clcpack_entry_info e;
    clcpack_device_info dev;
    if (clcpack_get_entry(p, index, &e) != CLCPACK_OK ||
        clcpack_get_device(p, e.device, &dev) != CLCPACK_OK) {
        cli_error("%s: entry %zu cannot be read", path, index);
        return -1;
    }
    char label[LABEL_MAX];
    pt_entry_label(&e, label, sizeof label);
    nvf_archs held;
    held_cubins(p, &e, &held);
    c->kept += held.n;
    c->ptx_entries++;
    int rc = nvf_make(c->ptxas, spec->binary, spec->binary_size, c->archs,
                      dev.nv_cc_major * 10 + dev.nv_cc_minor, &held, &c->last);
    c->runs += (size_t)c->last.ptxas_runs;
    for (size_t i = 0; i < c->last.n_refused; i++)
        cli_note("%s: no cubin for sm_%u: %s", label, (unsigned)c->last.refused[i].arch,
                 c->last.refused[i].reason);
    if (rc != 0)
        cli_note("%s: %s", label, c->last.notes ? c->last.notes : "PTX kept as it is");
    if (c->last.ptx) {
        spec->binary = c->last.ptx;
        spec->binary_size = c->last.ptx_size;
        spec->arch = c->last.ptx_arch;
    }
    for (size_t i = 0; i < c->last.n_cubins; i++) {
        clcpack_entry_spec cs = *spec;
        cs.kind = CLCPACK_KIND_CUBIN;
        cs.arch = c->last.cubins[i].arch;
        cs.binary = c->last.cubins[i].data;
        cs.binary_size = c->last.cubins[i].size;
        clcpack_error err;
        if (clcpack_writer_add_entry(w, &cs, &err) != CLCPACK_OK) {
            cli_error("%s: entry %zu: cubin sm_%u: %s", path, index, (unsigned)cs.arch,
                      err.message);
            return -1;
        }
        count_cubin(c, cs.arch);
    }
    c->skipped += c->last.n_refused;
    return 0;
}

int cmd_retarget(int argc, char **argv)
{
    retarget_args x;
    int prc = parse_args(argc, argv, &x);
    if (prc == -2)
        return EXIT_OK_STATUS;
    if (prc != 0)
        return prc;
    static retarget_ctx ctx; /* large (the result's cubins); one per process */
    memset(&ctx, 0, sizeof ctx);
    ctx.archs = &x.archs;
    if (ptxas_find(x.ptxas, ctx.ptxas) != 0) {
        if (x.ptxas)
            return cli_usage_error("retarget", "retarget: %s", ctx.ptxas);
        cli_error("retarget: cubins need NVIDIA's ptxas: %s; --ptxas PATH names one",
                  ctx.ptxas);
        return EXIT_FAILURE_STATUS;
    }
    const char *inputs[1] = {x.input};
    merge_hook hook = {&ctx, retarget_entry};
    merge_args m;
    memset(&m, 0, sizeof m);
    m.output = x.output;
    m.compress_cubins = x.compress_cubins;
    m.inputs = inputs;
    m.n_inputs = 1;
    m.hook = &hook;
    merge_stats st;
    int status = merge_packs(&m, &st);
    nvf_result_free(&ctx.last);
    if (status != EXIT_OK_STATUS)
        return status;
    if (cli_verbosity >= 0) {
        char per[32 * (NVF_MAX_ARCHS + 1)] = "";
        size_t len = 0;
        for (size_t k = 0; k < ctx.n_arch; k++) {
            bfmt(per + len, sizeof per - len, "%ssm_%u %zu", k ? ", " : "",
                 (unsigned)ctx.arch_of[k], ctx.per_arch[k]);
            len += strlen(per + len);
        }
        fprintf(stderr,
                "clc-pack: retargeted %s into %s: %zu entr%s, %zu PTX; cubins added: %s; "
                "%zu refused by ptxas, %zu already held; %zu ptxas runs\n",
                x.input, x.output, st.entries, st.entries == 1 ? "y" : "ies", ctx.ptx_entries,
                ctx.n_arch ? per : "none", ctx.skipped, ctx.kept, ctx.runs);
    }
    return EXIT_OK_STATUS;
}
