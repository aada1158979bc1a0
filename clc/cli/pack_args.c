/* pack_args.c — option parsing of the pack command (pack_args.h). */
#include "pack_args.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bounded_fmt.h"
#include "cli_report.h"

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
    OPT_NO_CHECK,
    OPT_NO_WARMUP,
    OPT_LIST_DEVICES,
    OPT_VERSION,
    OPT_TUNE,
    OPT_TUNE_SIZE,
    OPT_TUNE_RUNS,
    OPT_NV_ARCH
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
        bfmt(err, PA_ERR_MAX, "%s '%s': %s", option, list, why);
        return -1;
    }
    r->n_axes++;
    return 0;
}

/* -D NAME=LIST */
static int parse_define(pack_args *a, const char *arg, char err[PA_ERR_MAX])
{
    const char *eq = strchr(arg, '=');
    size_t n = eq ? (size_t)(eq - arg) : 0;
    if (!eq || n == 0) {
        bfmt(err, PA_ERR_MAX, "-D %s: expected NAME=LIST, e.g. -D NUMCOEFFS=8,16", arg);
        return -1;
    }
    if (n >= MF_NAME_MAX) {
        bfmt(err, PA_ERR_MAX, "-D %s: the name is too long", arg);
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
            bfmt(err, PA_ERR_MAX, "-D %s: '%s' is not a macro name", arg, name);
            return -1;
        }
    }
    char option[MF_NAME_MAX + 8];
    bfmt(option, sizeof option, "-D %s", name);
    return add_axis(a, name, option, eq + 1, err);
}

int pack_args_parse(int argc, char **argv, pack_args *a, char err[PA_ERR_MAX])
{
    memset(a, 0, sizeof *a);
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
        {"no-check", no_argument, NULL, OPT_NO_CHECK},
        {"no-warmup", no_argument, NULL, OPT_NO_WARMUP},
        {"list-devices", no_argument, NULL, OPT_LIST_DEVICES},
        {"tune", no_argument, NULL, OPT_TUNE},
        {"tune-size", required_argument, NULL, OPT_TUNE_SIZE},
        {"tune-runs", required_argument, NULL, OPT_TUNE_RUNS},
        {"nv-arch", required_argument, NULL, OPT_NV_ARCH},
        {"quiet", no_argument, NULL, 'q'},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, OPT_VERSION},
        {NULL, 0, NULL, 0}};

    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":D:o:j:kqvh", longopts, NULL)) != -1) {
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
            break;
        case OPT_WIDTHS:
            if (add_axis(a, "FILTER_WIDTH", "--widths", optarg, err) != 0)
                return -1;
            break;
        case OPT_WG:
            if (add_axis(a, "WG", "--wg", optarg, err) != 0)
                return -1;
            break;
        case 'D':
            if (parse_define(a, optarg, err) != 0)
                return -1;
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
                bfmt(err, PA_ERR_MAX, "-j %s: expected a number of jobs from 1 to %d", optarg,
                     PA_MAX_JOBS);
                return -1;
            }
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
                     optarg);
                return -1;
            }
            bfmt(wbuf, sizeof wbuf, "%.*s", (int)(x - optarg), optarg);
            if (cli_parse_long(wbuf, 1, 16384, &w) != 0 || cli_parse_long(x + 1, 1, 16384, &h) != 0) {
                bfmt(err, PA_ERR_MAX, "--tune-size %s: width and height from 1 to 16384", optarg);
                return -1;
            }
            a->tune_width = (unsigned)w;
            a->tune_height = (unsigned)h;
            break;
        }
        case OPT_TUNE_RUNS:
            if (cli_parse_long(optarg, 10, 10000, &a->tune_runs) != 0) {
                bfmt(err, PA_ERR_MAX, "--tune-runs %s: expected a number of runs from 10 to 10000",
                     optarg);
                return -1;
            }
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
                bfmt(err, PA_ERR_MAX, "%s needs a value", argv[optind - 1]);
            else
                bfmt(err, PA_ERR_MAX, "-%c needs a value", optopt);
            return -1;
        default:
            if (strncmp(argv[optind - 1], "--", 2) == 0)
                bfmt(err, PA_ERR_MAX, "unknown option %s", argv[optind - 1]);
            else
                bfmt(err, PA_ERR_MAX, "unknown option -%c", optopt);
            return -1;
        }
    }
    if (optind < argc) {
        bfmt(err, PA_ERR_MAX, "unexpected argument '%s'", argv[optind]);
        return -1;
    }
    return 0;
}
