/* pack_args.c — option parsing of the pack command (pack_args.h). */
#include "pack_args.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bounded_fmt.h"
#include "cli_report.h"
#include "pack_text.h"

enum {
    OPT_KERNELS = 256,
    OPT_KERNEL,
    OPT_WIDTHS,
    OPT_WG,
    OPT_DEVICE,
    OPT_PLATFORM,
    OPT_PTXAS,
    OPT_NO_SOURCES,
    OPT_COMPRESS_CUBINS,
    OPT_CODEC,
    OPT_NO_CHECK,
    OPT_NO_WARMUP,
    OPT_LIST_DEVICES,
    OPT_VERSION,
    OPT_TUNE,
    OPT_TUNE_SIZE,
    OPT_TUNE_RUNS,
    OPT_DERIVE,
    OPT_WHERE,
    OPT_VARIANT,
    OPT_PROGRAM,
    OPT_OPTIONS,
    OPT_CHECK_CMD,
    OPT_TUNE_CMD,
    OPT_CHECK_TIMEOUT,
    OPT_WG_DEFINES,
    OPT_DEFAULT,
    OPT_REBUILD,
    OPT_UPDATE,
    OPT_SHARD,
    OPT_REMOTE_CACHE,
    OPT_REMOTE_READONLY,
    OPT_REMOTE_TIMEOUT,
    OPT_NO_REMOTE_CACHE,
    OPT_DEPFILE,
    OPT_NV_ARCH,
    OPT_INTEL_GPU,
    OPT_AMD_GPU,
    OPT_SPIRV,
    OPT_INTEL_IR,
    OPT_MERGE
};

/* Adds an axis request; refuses an axis given twice. */
static int add_axis(pack_args *a, const char *name, const char *option, const char *list,
                    char err[PA_ERR_MAX])
{
    vp_request *r = &a->req;
    for (size_t i = 0; i < r->n_axes; i++)
        if (strcmp(r->axes[i].name, name) == 0) {
            bfmt(err, PA_ERR_MAX, "%s: %s is already given by %s", option, name,
                 r->axes[i].option);
            return -1;
        }
    if (r->n_axes >= MF_MAX_AXES) {
        bfmt(err, PA_ERR_MAX, "%s: more than %d axes", option, MF_MAX_AXES);
        return -1;
    }
    vp_axis_request *ax = &r->axes[r->n_axes];
    bfmt(ax->name, sizeof ax->name, "%s", name);
    bfmt(ax->option, sizeof ax->option, "%s", option);
    char why[VL_ERR_MAX];
    int rc = strcmp(name, "WG") == 0 ? vl_parse_wgs(list, &ax->values, why)
                                     : vl_parse_ints(list, &ax->values, why);
    if (rc != 0) {
        char clip[BFMT_QUOTE_MAX + 4];
        bfmt(err, PA_ERR_MAX, "%s '%s': %s", option, bfmt_clip(list, clip), why);
        return -1;
    }
    r->n_axes++;
    return 0;
}

/* -D NAME=LIST */
static int parse_define(pack_args *a, const char *arg, char err[PA_ERR_MAX])
{
    char clip[BFMT_QUOTE_MAX + 4];
    const char *shown = bfmt_clip(arg, clip);
    const char *eq = strchr(arg, '=');
    size_t n = eq ? (size_t)(eq - arg) : 0;
    if (!eq || n == 0) {
        bfmt(err, PA_ERR_MAX, "-D %s: expected NAME=LIST, e.g. -D NUMCOEFFS=8,16", shown);
        return -1;
    }
    if (n >= MF_NAME_MAX) {
        bfmt(err, PA_ERR_MAX, "-D %s: the name is too long", shown);
        return -1;
    }
    char name[MF_NAME_MAX];
    memcpy(name, arg, n);
    name[n] = '\0';
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        int ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
                 (i > 0 && c >= '0' && c <= '9');
        if (!ok) {
            bfmt(err, PA_ERR_MAX, "-D %s: '%s' is not a macro name", shown, name);
            return -1;
        }
    }
    char option[MF_NAME_MAX + 8];
    bfmt(option, sizeof option, "-D %s", name);
    return add_axis(a, name, option, eq + 1, err);
}

/* Room for every argument in each list of the direct spec. */
static int alloc_lists(pack_args *a, int argc)
{
    dj_spec *d = &a->direct_spec;
    size_t n = argc > 0 ? (size_t)argc : 1;
    const char ***lists[] = {&d->files,    &d->programs, &d->defines,  &d->derives, &d->wheres,
                             &d->variants, &d->defaults, &d->includes, &d->kernels};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        free(*lists[i]);
        *lists[i] = calloc(n, sizeof **lists[i]);
        if (!*lists[i])
            return -1;
    }
    return 0;
}

void pack_args_free(pack_args *a)
{
    dj_spec *d = &a->direct_spec;
    free(d->files);
    free(d->programs);
    free(d->defines);
    free(d->derives);
    free(d->wheres);
    free(d->variants);
    free(d->defaults);
    free(d->includes);
    free(d->kernels);
    memset(d, 0, sizeof *d);
}

int pack_args_parse(int argc, char **argv, pack_args *a, char err[PA_ERR_MAX])
{
    pack_args_free(a);
    char clip[BFMT_QUOTE_MAX + 4]; /* a quoted argument in a message */
    memset(a, 0, sizeof *a);
    if (alloc_lists(a, argc) != 0) {
        bfmt(err, PA_ERR_MAX, "out of memory");
        return -1;
    }
    dj_spec *ds = &a->direct_spec;
    const char *wg = NULL;
    size_t wg_after = 0; /* -D arguments before --wg: the manifest's axes keep their order */
    a->check_timeout = 600;
    a->remote_timeout = 10;
    a->kernels_dir = "kernels";
    a->device = "default";
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    a->jobs = cores > 0 ? (cores > PA_MAX_JOBS ? PA_MAX_JOBS : cores) : 1;
    a->tune_width = a->tune_height = 2048;
    a->tune_runs = 11;
    nvf_parse_archs(NVF_DEFAULT_ARCHS, &a->nv_archs, err);

    static const struct option longopts[] = {
        {"kernels", required_argument, NULL, OPT_KERNELS},
        {"kernel", required_argument, NULL, OPT_KERNEL},
        {"widths", required_argument, NULL, OPT_WIDTHS},
        {"wg", required_argument, NULL, OPT_WG},
        {"device", required_argument, NULL, OPT_DEVICE},
        {"platform", required_argument, NULL, OPT_PLATFORM},
        {"output", required_argument, NULL, 'o'},
        {"jobs", required_argument, NULL, 'j'},
        {"keep-going", no_argument, NULL, 'k'},
        {"ptxas", required_argument, NULL, OPT_PTXAS},
        {"no-sources", no_argument, NULL, OPT_NO_SOURCES},
        {"compress-cubins", no_argument, NULL, OPT_COMPRESS_CUBINS},
        {"codec", required_argument, NULL, OPT_CODEC},
        {"no-check", no_argument, NULL, OPT_NO_CHECK},
        {"no-warmup", no_argument, NULL, OPT_NO_WARMUP},
        {"list-devices", no_argument, NULL, OPT_LIST_DEVICES},
        {"tune", no_argument, NULL, OPT_TUNE},
        {"tune-size", required_argument, NULL, OPT_TUNE_SIZE},
        {"tune-runs", required_argument, NULL, OPT_TUNE_RUNS},
        {"depfile", required_argument, NULL, OPT_DEPFILE},
        {"nv-arch", required_argument, NULL, OPT_NV_ARCH},
        {"intel-gpu", optional_argument, NULL, OPT_INTEL_GPU},
        {"amd-gpu", optional_argument, NULL, OPT_AMD_GPU},
        {"spirv", no_argument, NULL, OPT_SPIRV},
        {"intel-ir", no_argument, NULL, OPT_INTEL_IR},
        {"merge", required_argument, NULL, OPT_MERGE},
        {"quiet", no_argument, NULL, 'q'},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, OPT_VERSION},
        {"derive", required_argument, NULL, OPT_DERIVE},
        {"where", required_argument, NULL, OPT_WHERE},
        {"variant", required_argument, NULL, OPT_VARIANT},
        {"program", required_argument, NULL, OPT_PROGRAM},
        {"options", required_argument, NULL, OPT_OPTIONS},
        {"check-cmd", required_argument, NULL, OPT_CHECK_CMD},
        {"tune-cmd", required_argument, NULL, OPT_TUNE_CMD},
        {"check-timeout", required_argument, NULL, OPT_CHECK_TIMEOUT},
        {"wg-defines", no_argument, NULL, OPT_WG_DEFINES},
        {"default", required_argument, NULL, OPT_DEFAULT},
        {"rebuild", no_argument, NULL, OPT_REBUILD},
        {"update", no_argument, NULL, OPT_UPDATE},
        {"shard", required_argument, NULL, OPT_SHARD},
        {"remote-cache", required_argument, NULL, OPT_REMOTE_CACHE},
        {"remote-cache-readonly", no_argument, NULL, OPT_REMOTE_READONLY},
        {"remote-cache-timeout", required_argument, NULL, OPT_REMOTE_TIMEOUT},
        {"no-remote-cache", no_argument, NULL, OPT_NO_REMOTE_CACHE},
        {NULL, 0, NULL, 0}};

    opterr = 0;
    /* A full reset: after a parse that stopped inside a cluster of short
     * options (-kq...), glibc would go on reading that cluster, in an
     * argument vector that may be gone, unless optind is 0. */
#ifdef __GLIBC__
    optind = 0;
#else
    optind = 1;
#endif
    int c;
    while ((c = getopt_long(argc, argv, ":D:I:o:j:kqvhM:", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_KERNELS:
            a->kernels_dir = optarg;
            break;
        case OPT_KERNEL:
            if (a->req.n_kernels >= MF_MAX_KERNELS) {
                bfmt(err, PA_ERR_MAX, "--kernel: more than %d kernels", MF_MAX_KERNELS);
                return -1;
            }
            if (!*optarg) {
                bfmt(err, PA_ERR_MAX, "--kernel: the name is empty");
                return -1;
            }
            a->req.kernels[a->req.n_kernels++] = optarg;
            ds->kernels[ds->n_kernels++] = optarg;
            break;
        case OPT_WIDTHS:
            if (add_axis(a, "FILTER_WIDTH", "--widths", optarg, err) != 0)
                return -1;
            break;
        case OPT_WG:
            if (wg) {
                bfmt(err, PA_ERR_MAX, "--wg is given twice ('%s' and '%s'): give one list",
                     wg, optarg);
                return -1;
            }
            wg = optarg;
            wg_after = ds->n_defines;
            break;
        case 'D':
            ds->defines[ds->n_defines++] = optarg;
            break;
        case 'I':
            if (!*optarg) {
                bfmt(err, PA_ERR_MAX, "-I: the folder name is empty");
                return -1;
            }
            ds->includes[ds->n_includes++] = optarg;
            break;
        case OPT_DERIVE:
            ds->derives[ds->n_derives++] = optarg;
            break;
        case OPT_WHERE:
            ds->wheres[ds->n_wheres++] = optarg;
            break;
        case OPT_VARIANT:
            ds->variants[ds->n_variants++] = optarg;
            break;
        case OPT_DEFAULT:
            ds->defaults[ds->n_defaults++] = optarg;
            break;
        case OPT_PROGRAM:
            ds->programs[ds->n_programs++] = optarg;
            break;
        case OPT_OPTIONS:
            if (ds->options) {
                bfmt(err, PA_ERR_MAX, "--options is given twice: give all options in one");
                return -1;
            }
            ds->options = optarg;
            break;
        case OPT_REBUILD:
            a->rebuild = 1;
            break;
        case OPT_UPDATE:
            a->rebuild = 0; /* reuse is the default when -o exists */
            break;
        case OPT_SHARD: {
            char serr[PS_ERR_MAX];
            if (ps_parse(optarg, &a->shard, serr) != 0) {
                bfmt(err, PA_ERR_MAX, "%s", serr);
                return -1;
            }
            break;
        }
        case OPT_REMOTE_CACHE:
            a->remote_cache = optarg;
            break;
        case OPT_REMOTE_READONLY:
            a->remote_readonly = 1;
            break;
        case OPT_REMOTE_TIMEOUT:
            if (cli_parse_long(optarg, 1, 600, &a->remote_timeout) != 0) {
                bfmt(err, PA_ERR_MAX, "--remote-cache-timeout %s: expected seconds from 1 to 600",
                     bfmt_clip(optarg, clip));
                return -1;
            }
            break;
        case OPT_NO_REMOTE_CACHE:
            a->no_remote_cache = 1;
            break;
        case OPT_WG_DEFINES:
            ds->wg_defines = 1;
            break;
        case OPT_CHECK_CMD:
            a->check_cmd = optarg;
            break;
        case OPT_TUNE_CMD:
            a->tune_cmd = optarg;
            break;
        case OPT_CHECK_TIMEOUT:
            if (cli_parse_long(optarg, 1, 86400, &a->check_timeout) != 0) {
                bfmt(err, PA_ERR_MAX, "--check-timeout %s: expected seconds from 1 to 86400",
                     optarg);
                return -1;
            }
            break;
        case OPT_DEVICE:
            if (!*optarg) {
                bfmt(err, PA_ERR_MAX, "--device: the value is empty");
                return -1;
            }
            a->device = optarg;
            break;
        case OPT_PLATFORM:
            a->platform = optarg;
            break;
        case 'o':
            if (!*optarg) {
                bfmt(err, PA_ERR_MAX, "-o: the file name is empty");
                return -1;
            }
            a->output = optarg;
            break;
        case 'j':
            if (cli_parse_long(optarg, 1, PA_MAX_JOBS, &a->jobs) != 0) {
                bfmt(err, PA_ERR_MAX, "-j %s: expected a number of jobs from 1 to %d",
                     bfmt_clip(optarg, clip),
                     PA_MAX_JOBS);
                return -1;
            }
            a->jobs_given = 1;
            break;
        case 'k':
            a->keep_going = 1;
            break;
        case OPT_PTXAS:
            a->ptxas = optarg;
            break;
        case OPT_NO_SOURCES:
            a->no_sources = 1;
            break;
        case OPT_COMPRESS_CUBINS:
            a->compress_cubins = 1;
            break;
        case OPT_CODEC:
            if (pt_parse_codec(optarg, &a->codec, err, PA_ERR_MAX) != 0)
                return -1;
            break;
        case OPT_NO_CHECK:
            a->no_check = 1;
            break;
        case OPT_NO_WARMUP:
            a->no_warmup = 1;
            break;
        case OPT_LIST_DEVICES:
            a->list_devices = 1;
            break;
        case OPT_TUNE:
            a->tune = 1;
            break;
        case OPT_TUNE_SIZE: {
            long w, h;
            char *x = strchr(optarg, 'x');
            char wbuf[32];
            if (!x || (size_t)(x - optarg) >= sizeof wbuf) {
                bfmt(err, PA_ERR_MAX, "--tune-size %s: expected WIDTHxHEIGHT, e.g. 2048x2048",
                     bfmt_clip(optarg, clip));
                return -1;
            }
            bfmt(wbuf, sizeof wbuf, "%.*s", (int)(x - optarg), optarg);
            if (cli_parse_long(wbuf, 1, 16384, &w) != 0 || cli_parse_long(x + 1, 1, 16384, &h) != 0) {
                bfmt(err, PA_ERR_MAX, "--tune-size %s: width and height from 1 to 16384",
                     bfmt_clip(optarg, clip));
                return -1;
            }
            a->tune_width = (unsigned)w;
            a->tune_height = (unsigned)h;
            break;
        }
        case OPT_TUNE_RUNS:
            if (cli_parse_long(optarg, 10, 10000, &a->tune_runs) != 0) {
                bfmt(err, PA_ERR_MAX, "--tune-runs %s: expected a number of runs from 10 to 10000",
                     bfmt_clip(optarg, clip));
                return -1;
            }
            break;
        case OPT_DEPFILE:
            if (!*optarg) {
                bfmt(err, PA_ERR_MAX, "--depfile: the file name is empty");
                return -1;
            }
            a->depfile = optarg;
            break;
        case 'M':
            /* The compilers' spellings: -MD, and -MF FILE (or -MFFILE). */
            if (strcmp(optarg, "D") == 0) {
                a->depfile_md = 1;
            } else if (optarg[0] == 'F' || optarg[0] == 'T') {
                const char *v = optarg[1] ? optarg + 1 : optind < argc ? argv[optind++] : NULL;
                if (!v || !*v) {
                    bfmt(err, PA_ERR_MAX, "-M%c needs a %s", optarg[0],
                         optarg[0] == 'F' ? "file name" : "target name");
                    return -1;
                }
                if (optarg[0] == 'F')
                    a->depfile = v;
                else
                    a->depfile_target = v;
            } else {
                bfmt(err, PA_ERR_MAX, "unknown option -M%s (-MD, -MF FILE and -MT TARGET are known)",
                     optarg);
                return -1;
            }
            break;
        case OPT_INTEL_GPU:
        case OPT_AMD_GPU:
            if (optarg && !*optarg) {
                bfmt(err, PA_ERR_MAX, "--%s=: the list is empty (leave out '=' for the default)",
                     c == OPT_INTEL_GPU ? "intel-gpu" : "amd-gpu");
                return -1;
            }
            /* The list is --intel-gpu=LIST: a word after a bare
             * --intel-gpu would be taken for a source file. */
            if (!optarg && optind < argc && argv[optind][0] != '-' &&
                !strchr(argv[optind], '.') && !strchr(argv[optind], '/')) {
                bfmt(err, PA_ERR_MAX, "--%s %s: give the list as --%s=%s (a bare --%s takes the "
                     "default list)", c == OPT_INTEL_GPU ? "intel-gpu" : "amd-gpu", argv[optind],
                     c == OPT_INTEL_GPU ? "intel-gpu" : "amd-gpu", argv[optind],
                     c == OPT_INTEL_GPU ? "intel-gpu" : "amd-gpu");
                return -1;
            }
            if (c == OPT_INTEL_GPU)
                a->intel_gpu = 1, a->intel_list = optarg;
            else
                a->amd_gpu = 1, a->amd_list = optarg;
            break;
        case OPT_SPIRV:
            a->spirv = 1;
            break;
        case OPT_INTEL_IR:
            a->intel_ir = 1;
            break;
        case OPT_MERGE:
            if (!*optarg || a->n_merge >= PA_MAX_MERGE) {
                bfmt(err, PA_ERR_MAX, "--merge: %s", *optarg ? "more than 16 packs" : "no file");
                return -1;
            }
            a->merge[a->n_merge++] = optarg;
            break;
        case OPT_NV_ARCH: {
            char nerr[NVF_ERR_MAX];
            if (nvf_parse_archs(optarg, &a->nv_archs, nerr) != 0) {
                bfmt(err, PA_ERR_MAX, "--nv-arch %s: %s", optarg, nerr);
                return -1;
            }
            break;
        }
        case 'q':
            a->verbosity = -1;
            break;
        case 'v':
            a->verbosity = a->verbosity < 0 ? 1 : a->verbosity + 1;
            break;
        case 'h':
            a->help = 1;
            break;
        case OPT_VERSION:
            a->version = 1;
            break;
        case ':':
            if (strncmp(argv[optind - 1], "--", 2) == 0)
                bfmt(err, PA_ERR_MAX, "%s needs a value", bfmt_clip(argv[optind - 1], clip));
            else
                bfmt(err, PA_ERR_MAX, "-%c needs a value", optopt);
            return -1;
        default:
            if (strncmp(argv[optind - 1], "--", 2) == 0)
                bfmt(err, PA_ERR_MAX, "unknown option %s", bfmt_clip(argv[optind - 1], clip));
            else
                bfmt(err, PA_ERR_MAX, "unknown option -%c", optopt);
            return -1;
        }
    }
    while (optind < argc)
        ds->files[ds->n_files++] = argv[optind++];
    a->direct = ds->n_files > 0 || ds->n_programs > 0;
    if (a->direct) {
        ds->wg = wg;
        if (a->req.n_axes) {
            bfmt(err, PA_ERR_MAX, "--widths selects the kernels folder's FILTER_WIDTH; with "
                                  "source files give -D FILTER_WIDTH=LIST");
            return -1;
        }
        return 0;
    }
    /* The kernels folder's manifest: -D and --wg select its axes. */
    const char *direct_only = ds->n_includes   ? "-I"
                              : ds->n_derives  ? "--derive"
                              : ds->n_wheres   ? "--where"
                              : ds->n_variants ? "--variant"
                              : ds->n_defaults ? "--default"
                              : ds->options    ? "--options"
                              : ds->wg_defines ? "--wg-defines"
                              : a->check_cmd   ? "--check-cmd"
                              : a->tune_cmd    ? "--tune-cmd"
                                               : NULL;
    if (direct_only) {
        bfmt(err, PA_ERR_MAX, "%s applies to source files given on the command line "
                              "(clc-pack FILE.cl ... %s ...); none was given",
             direct_only, direct_only);
        return -1;
    }
    for (size_t i = 0; i <= ds->n_defines; i++) {
        if (wg && i == wg_after && add_axis(a, "WG", "--wg", wg, err) != 0)
            return -1;
        if (i < ds->n_defines && parse_define(a, ds->defines[i], err) != 0)
            return -1;
    }
    return 0;
}
