/*
 * speed — how fast each convolution kernel runs, at every filter width and
 * several image sizes, against the device's roofline measured in the same
 * run.
 *
 *   speed --pack PACK [--device SPEC] [--platform NAME] [--kernels DIR]
 *         [--sizes 512,1024,2048] [--widths 3-31] [--kernel NAME]...
 *         [--runs 10] [--warmup 2] [--copy-mb N] [--csv FILE]
 *         [--roofline-csv FILE] [--best] [--peer-csv FILE]
 *
 * Every convolution key (kernel, defines, work-group) of the pack is loaded
 * once through the loader (its fastest form here), checked against the CPU
 * reference on a small problem at each width (two for a grid=round kernel:
 * partial groups, and whole groups), then timed on W x W images
 * (RGBA float for Reda's kernels, grey float for AMD's and the pragma
 * kernels): --warmup launches, then the median of --runs launches timed
 * with event profiling (kernel_run_time). Kernels with FILTER_WIDTH compiled in run
 * at the widths the pack holds (within --widths); kernels that take the
 * width as an argument run at every width of --widths.
 *
 * Bytes and flops per launch (docs/BENCH.md): the input read once and the
 * output written once, 4 bytes per channel; 2 * FW^2 * channels flops per
 * output pixel. The roofline: bandwidth from a copy kernel, FP32 peak from
 * an FMA kernel (common/roofline.h).
 *
 * --best: for each convolution family and width, only the variant
 * clcpack_best_variant picks for this device (from a --tune'd pack: the
 * fastest measured), checked and timed the same way, in one table with its
 * share of the FP32 peak and of the copy bandwidth. --peer-csv FILE adds
 * another library's time per width (CSV lines family,fw,width,height,ms,name,
 * as tests/bench/npp/npp_filter.cu and tests/bench/opencv/cv_filter.cpp
 * write them) and the ratio.
 *
 * Prints markdown tables to stdout; writes one CSV row per measurement.
 * Exit status 0; 1 when a kernel failed its check or a launch failed; 2 on
 * a usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bench_device.h"
#include "common/bench_entry.h"
#include "common/bench_stats.h"
#include "common/bench_text.h"
#include "common/roofline.h"
#include "kernel_run.h"
#include "pack_text.h"
#include "value_list.h"

#define MAX_SIZES 8
#define MAX_WIDTHS 64
#define MAX_ONLY 64
#define MAX_PEERS 256
#define SERIES_MAX 128
#define CHECK_TOL 1e-5
#define SEED 0xbe7cu

static const long standard_sizes[] = {512, 1024, 2048};

typedef struct options {
    const char *pack, *device, *platform, *kernels, *csv, *roof_csv;
    long sizes[MAX_SIZES];
    size_t n_sizes;
    int sizes_given;
    long widths[MAX_WIDTHS];
    size_t n_widths;
    const char *only[MAX_ONLY];
    size_t n_only;
    int runs, warmup;
    double copy_mb;
    int best;                   /* --best: only clcpack_best_variant's pick */
    const char *peer_csv;
} options;

/* A peer library's time at one (family, width, size), from --peer-csv. */
typedef struct peer {
    char family[16];
    int fw;
    long size;
    double ms;
    char name[64];
} peer;

/* One timed (series, width, size). */
typedef struct sample {
    size_t series;
    int fw;
    size_t size;                /* index into options.sizes */
    double ms, gbps, gflops, attainable;
} sample;

typedef struct series {
    char label[SERIES_MAX];     /* "reda_local 8x8", "Convolve_Def" */
    char kernel[MANIFEST_NAME_MAX];
    char wg[32];
    manifest_family family;
    char path[16];              /* the form the loader took */
    int fw;                     /* --best: the width this pick is for */
    int measured;               /* --best: picked from timings (else the default rule) */
} series;

typedef struct run {
    options o;
    bench_device dev;
    cl_command_queue q;
    roofline roof;
    series *ser;
    size_t n_ser;
    sample *smp;
    size_t n_smp, cap_smp;
    int failed;
    peer peers[MAX_PEERS];
    size_t n_peers;
} run;

static void usage(FILE *f)
{
    fputs("usage: speed --pack PACK [--device SPEC] [--platform NAME] [--kernels DIR]\n"
          "             [--sizes LIST] [--widths LIST] [--kernel NAME]... [--runs N]\n"
          "             [--warmup N] [--copy-mb N] [--csv FILE] [--roofline-csv FILE]\n"
          "             [--best] [--peer-csv FILE]\n",
          f);
}

static int parse_int_list(const char *opt, const char *text, long *out, size_t max, size_t *n)
{
    value_list l;
    char err[VALUE_LIST_ERR_MAX];
    if (value_list_parse_ints(text, &l, err) != 0) {
        fprintf(stderr, "speed: %s: %s\n", opt, err);
        return -1;
    }
    if (l.n > max) {
        fprintf(stderr, "speed: %s: at most %zu values\n", opt, max);
        return -1;
    }
    for (size_t i = 0; i < l.n; i++) {
        if (l.values[i].v[0] < 1) {
            fprintf(stderr, "speed: %s: values start at 1: '%s' is not\n", opt, l.tokens[i]);
            return -1;
        }
        out[i] = l.values[i].v[0];
    }
    *n = l.n;
    return 0;
}

static int parse_count(const char *opt, const char *s, int min, int max, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max) {
        fprintf(stderr, "speed: %s needs a whole number from %d to %d: '%s' is not\n", opt, min,
                max, s);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int parse_args(int argc, char **argv, options *o)
{
    static const struct option opts[] = {
        {"pack", required_argument, NULL, 'P'},     {"device", required_argument, NULL, 'd'},
        {"platform", required_argument, NULL, 'p'}, {"kernels", required_argument, NULL, 'K'},
        {"sizes", required_argument, NULL, 's'},    {"widths", required_argument, NULL, 'w'},
        {"kernel", required_argument, NULL, 'k'},   {"runs", required_argument, NULL, 'r'},
        {"warmup", required_argument, NULL, 'W'},   {"copy-mb", required_argument, NULL, 'm'},
        {"csv", required_argument, NULL, 'c'},      {"roofline-csv", required_argument, NULL, 'R'},
        {"best", no_argument, NULL, 'b'},           {"peer-csv", required_argument, NULL, 'C'},
        {"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    o->kernels = "kernels";
    o->runs = 10;
    o->warmup = 2;
    memcpy(o->sizes, standard_sizes, sizeof standard_sizes);
    o->n_sizes = sizeof standard_sizes / sizeof standard_sizes[0];
    for (long w = 3; w <= 31; w++)
        o->widths[o->n_widths++] = w;
    int c, mb = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'P': o->pack = optarg; break;
        case 'd': o->device = optarg; break;
        case 'p': o->platform = optarg; break;
        case 'K': o->kernels = optarg; break;
        case 'c': o->csv = optarg; break;
        case 'R': o->roof_csv = optarg; break;
        case 'b': o->best = 1; break;
        case 'C': o->peer_csv = optarg; break;
        case 's':
            if (parse_int_list("--sizes", optarg, o->sizes, MAX_SIZES, &o->n_sizes) != 0)
                return 2;
            o->sizes_given = 1;
            break;
        case 'w':
            if (parse_int_list("--widths", optarg, o->widths, MAX_WIDTHS, &o->n_widths) != 0)
                return 2;
            break;
        case 'k':
            if (o->n_only == MAX_ONLY) {
                fprintf(stderr, "speed: at most %d --kernel options\n", MAX_ONLY);
                return 2;
            }
            o->only[o->n_only++] = optarg;
            break;
        case 'r':
            if (parse_count("--runs", optarg, 1, 1000, &o->runs) != 0)
                return 2;
            break;
        case 'W':
            if (parse_count("--warmup", optarg, 0, 1000, &o->warmup) != 0)
                return 2;
            break;
        case 'm':
            if (parse_count("--copy-mb", optarg, 1, 16384, &mb) != 0)
                return 2;
            o->copy_mb = mb;
            break;
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc || !o->pack) {
        if (optind != argc)
            fprintf(stderr, "speed: unexpected argument '%s'\n", argv[optind]);
        else
            fprintf(stderr, "speed: --pack is required\n");
        usage(stderr);
        return 2;
    }
    return 0;
}

static int wanted_kernel(const options *o, const char *name)
{
    for (size_t i = 0; i < o->n_only; i++)
        if (strcmp(o->only[i], name) == 0)
            return 1;
    return o->n_only == 0;
}

static int wanted_width(const options *o, long fw)
{
    for (size_t i = 0; i < o->n_widths; i++)
        if (o->widths[i] == fw)
            return 1;
    return 0;
}

static int has_arg(const manifest_kernel *k, manifest_arg role)
{
    for (size_t i = 0; i < k->n_args; i++)
        if (k->args[i] == role)
            return 1;
    return 0;
}

static const char *family_name(manifest_family f)
{
    return f == MANIFEST_FAMILY_CONV_GREY ? "conv-grey" : f == MANIFEST_FAMILY_CONV_RGBA ? "conv-rgba" : "poly";
}

/* The kernel every other kernel of its family is compared with. */
static const char *baseline_of(manifest_family f)
{
    return f == MANIFEST_FAMILY_CONV_GREY ? "Convolve" : "reda_float4";
}

static int add_sample(run *r, const sample *s)
{
    if (r->n_smp == r->cap_smp) {
        size_t cap = r->cap_smp ? 2 * r->cap_smp : 256;
        sample *grown = realloc(r->smp, cap * sizeof *grown);
        if (!grown)
            return -1;
        r->smp = grown;
        r->cap_smp = cap;
    }
    r->smp[r->n_smp++] = *s;
    return 0;
}

/* The series a key belongs to: its kernel, plus its work-group when the
 * pack holds the kernel at several, plus any other axis value (not
 * FILTER_WIDTH) where the kernel has several. */
static size_t series_of(run *r, const manifest_kernel *k, const clcpack_entry_info *e, int multi_wg,
                        int multi_other)
{
    char label[SERIES_MAX], wg[32];
    bench_wg_text(e->wg, wg, sizeof wg);
    bfmt(label, sizeof label, "%s", e->kernel);
    if (multi_wg) {
        size_t len = strlen(label);
        bfmt(label + len, sizeof label - len, " %s", wg);
    }
    for (size_t i = 0; multi_other && i < e->define_count; i++) {
        const manifest_axis *ax = manifest_axis_find(k, e->defines[i].name);
        if (ax && strcmp(ax->name, "FILTER_WIDTH") != 0) {
            size_t len = strlen(label);
            bfmt(label + len, sizeof label - len, " %s=%s", e->defines[i].name,
                 e->defines[i].value);
        }
    }
    for (size_t i = 0; i < r->n_ser; i++)
        if (strcmp(r->ser[i].label, label) == 0)
            return i;
    series *s = &r->ser[r->n_ser];
    memset(s, 0, sizeof *s);
    bfmt(s->label, sizeof s->label, "%s", label);
    bfmt(s->kernel, sizeof s->kernel, "%s", e->kernel);
    bfmt(s->wg, sizeof s->wg, "%s", wg);
    s->family = k->family;
    return r->n_ser++;
}

/* Per kernel: does the pack hold it at several work-groups, or at several
 * values of an axis other than FILTER_WIDTH? */
static void count_variety(const clcpack *p, const size_t *keys, size_t n, const char *kernel,
                          int *multi_wg, int *multi_other)
{
    *multi_wg = *multi_other = 0;
    clcpack_entry_info first = {.struct_size = sizeof first};
    int have = 0;
    for (size_t i = 0; i < n; i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        if (clcpack_get_entry(p, keys[i], &e) != CLCPACK_OK || strcmp(e.kernel, kernel) != 0)
            continue;
        if (!have) {
            first = e;
            have = 1;
            continue;
        }
        if (memcmp(e.wg, first.wg, sizeof e.wg) != 0)
            *multi_wg = 1;
        for (size_t d = 0; d < e.define_count && d < first.define_count; d++)
            if (strcmp(e.defines[d].name, "FILTER_WIDTH") != 0 &&
                strstr(e.defines[d].name, "HALF") == NULL &&
                strcmp(e.defines[d].value, first.defines[d].value) != 0)
                *multi_other = 1;
    }
}

static void measure_width(run *r, size_t ser, cl_program prog, const manifest_variant *v, int fw,
                          const char *label)
{
    char err[KERNEL_RUN_ERR_MAX];
    kernel_run_problem small;
    kernel_run_default_problem(v, SEED, &small);
    small.filter_width = fw;
    kernel_run_result res;
    int rc = kernel_run_check(r->dev.ctx, r->q, prog, v, &small, CHECK_TOL, &res, err);
    if (rc == 0 && v->kernel->grid == MANIFEST_GRID_ROUND) {
        /* The default size has partial groups; a size of whole groups (as
         * the timed images are) may take another path in the kernel, e.g.
         * conv_block_grey's float4 stores. */
        int bx, by;
        kernel_run_block(v, &bx, &by);
        kernel_run_problem whole = small;
        whole.width = 3 * (int)v->wg[0] * bx;
        whole.height = 2 * (int)v->wg[1] * by;
        rc = kernel_run_check(r->dev.ctx, r->q, prog, v, &whole, CHECK_TOL, &res, err);
    }
    if (rc != 0) {
        if (rc > 0)
            fprintf(stderr, "speed: %s at width %d: wrong result (max error %.3g, %zu "
                            "unwritten): not timed\n", label, fw, res.max_rel_err, res.unwritten);
        else
            fprintf(stderr, "speed: %s at width %d: %s\n", label, fw, err);
        r->failed = 1;
        return;
    }
    int ch = v->kernel->family == MANIFEST_FAMILY_CONV_RGBA ? 4 : 1;
    for (size_t si = 0; si < r->o.n_sizes; si++) {
        kernel_run_problem pr;
        memset(&pr, 0, sizeof pr);
        pr.width = pr.height = (int)r->o.sizes[si];
        pr.seed = SEED + si;
        pr.filter_width = fw;
        if (kernel_run_supports(v, &pr, err) != 0) {
            fprintf(stderr, "speed: %s at %ldx%ld: skipped: %s\n", label, r->o.sizes[si],
                    r->o.sizes[si], err);
            continue;
        }
        uint64_t ns = 0;
        if (kernel_run_time(r->dev.ctx, r->q, prog, v, &pr, r->o.warmup, r->o.runs, NULL, &ns, err) != 0) {
            fprintf(stderr, "speed: %s at %ldx%ld: %s\n", label, r->o.sizes[si],
                    r->o.sizes[si], err);
            r->failed = 1;
            continue;
        }
        double w = (double)pr.width, h = (double)pr.height;
        double bytes = 4.0 * ch * ((w + fw - 1) * (h + fw - 1) + w * h);
        double flops = 2.0 * fw * fw * ch * w * h;
        double sec = (double)ns / 1e9;
        sample s = {ser, fw, si, (double)ns / 1e6, 0, 0, 0};
        if (sec > 0) {
            s.gbps = bytes / sec / 1e9;
            s.gflops = flops / sec / 1e9;
        }
        s.attainable = roofline_attainable(&r->roof, flops, bytes);
        if (add_sample(r, &s) != 0) {
            fprintf(stderr, "speed: out of memory\n");
            r->failed = 1;
            return;
        }
    }
}

static void measure_key(run *r, const clcpack *p, const manifest_file *m, size_t entry,
                        size_t ser)
{
    clcpack_entry_info e = {.struct_size = sizeof e};
    manifest_variant v;
    char label[512];
    if (clcpack_get_entry(p, entry, &e) != CLCPACK_OK || bench_entry_variant(m, &e, &v) != 0)
        return;
    bench_key_label(&e, label, sizeof label);
    clcpack_key key = pack_text_key(&e);
    clcpack_load_report rep = {.struct_size = sizeof rep};
    clcpack_error ce;
    cl_program prog = NULL;
    if (clcpack_create_program(p, &key, r->dev.ctx, r->dev.dev, NULL, &prog, &rep, &ce) !=
        CLCPACK_OK) {
        fprintf(stderr, "speed: %s: %s\n", label, ce.message);
        r->failed = 1;
        return;
    }
    bfmt(r->ser[ser].path, sizeof r->ser[ser].path, "%s", clcpack_path_name(rep.path));
    fprintf(stderr, "speed: %s (%s)\n", label, clcpack_path_name(rep.path));
    int fw = bench_entry_filter_width(&e);
    if (fw) {
        measure_width(r, ser, prog, &v, fw, label);
    } else {
        for (size_t i = 0; i < r->o.n_widths; i++)
            measure_width(r, ser, prog, &v, (int)r->o.widths[i], label);
    }
    clReleaseProgram(prog);
}

static const sample *find(const run *r, size_t ser, int fw, size_t size)
{
    for (size_t i = 0; i < r->n_smp; i++)
        if (r->smp[i].series == ser && r->smp[i].fw == fw && r->smp[i].size == size)
            return &r->smp[i];
    return NULL;
}

static size_t baseline_series(const run *r, manifest_family f)
{
    for (size_t i = 0; i < r->n_ser; i++)
        if (r->ser[i].family == f && strcmp(r->ser[i].kernel, baseline_of(f)) == 0)
            return i;
    return SIZE_MAX;
}

/* The widths measured for a family, ascending. */
static size_t family_widths(const run *r, manifest_family f, int *out)
{
    size_t n = 0;
    for (int w = 1; w <= 64; w++) {
        int seen = 0;
        for (size_t i = 0; i < r->n_smp && !seen; i++)
            seen = r->smp[i].fw == w && r->ser[r->smp[i].series].family == f;
        if (seen)
            out[n++] = w;
    }
    return n;
}

typedef enum view { VIEW_MS, VIEW_RELATIVE, VIEW_ROOF } view;

static void print_family_table(const run *r, manifest_family f, size_t size, view what)
{
    int widths[64];
    size_t nw = family_widths(r, f, widths);
    size_t base = baseline_series(r, f);
    if (nw == 0 || (what == VIEW_RELATIVE && base == SIZE_MAX))
        return;
    long s = r->o.sizes[size];
    const char *chan = f == MANIFEST_FAMILY_CONV_RGBA ? "RGBA float" : "grey float";
    if (what == VIEW_MS)
        printf("\n#### %s, %ldx%ld %s: median ms\n\n", family_name(f), s, s, chan);
    else if (what == VIEW_RELATIVE)
        printf("\n#### %s, %ldx%ld %s: time relative to %s (%%)\n\n", family_name(f), s, s, chan,
               baseline_of(f));
    else
        printf("\n#### %s, %ldx%ld %s: %% of the roofline (achieved / attainable GFLOP/s)\n\n",
               family_name(f), s, s, chan);
    printf("| kernel |");
    for (size_t i = 0; i < nw; i++)
        printf(" %d |", widths[i]);
    printf("\n|---|");
    for (size_t i = 0; i < nw; i++)
        printf("---:|");
    printf("\n");
    for (size_t si = 0; si < r->n_ser; si++) {
        if (r->ser[si].family != f)
            continue;
        printf("| %s |", r->ser[si].label);
        for (size_t i = 0; i < nw; i++) {
            const sample *x = find(r, si, widths[i], size);
            const sample *b = base != SIZE_MAX ? find(r, base, widths[i], size) : NULL;
            if (!x)
                printf(" |");
            else if (what == VIEW_MS)
                printf(" %.3g |", x->ms);
            else if (what == VIEW_RELATIVE && b && b->ms > 0)
                printf(" %.0f |", 100 * x->ms / b->ms);
            else if (what == VIEW_RELATIVE)
                printf(" |");
            else
                printf(" %.0f |", x->attainable > 0 ? 100 * x->gflops / x->attainable : 0);
        }
        printf("\n");
    }
}

static void print_throughput(const run *r, size_t size)
{
    static const int marks[] = {3, 15, 31};
    long s = r->o.sizes[size];
    printf("\n#### Achieved at %ldx%ld: GB/s (minimum traffic) and GFLOP/s\n\n", s, s);
    printf("| kernel | family |");
    for (size_t i = 0; i < 3; i++)
        printf(" FW %d GB/s | FW %d GFLOP/s | FW %d %% roof |", marks[i], marks[i], marks[i]);
    printf("\n|---|---|");
    for (size_t i = 0; i < 3; i++)
        printf("---:|---:|---:|");
    printf("\n");
    for (size_t si = 0; si < r->n_ser; si++) {
        printf("| %s | %s |", r->ser[si].label, family_name(r->ser[si].family));
        for (size_t i = 0; i < 3; i++) {
            const sample *x = find(r, si, marks[i], size);
            if (x)
                printf(" %.1f | %.1f | %.0f |", x->gbps, x->gflops,
                       x->attainable > 0 ? 100 * x->gflops / x->attainable : 0);
            else
                printf(" | | |");
        }
        printf("\n");
    }
}

/* Reads --peer-csv: lines family,fw,width,height,ms,name (a header line and
 * lines that do not parse are skipped). */
static int read_peers(run *r)
{
    FILE *f = fopen(r->o.peer_csv, "r");
    if (!f) {
        fprintf(stderr, "speed: --peer-csv %s: %s\n", r->o.peer_csv, strerror(errno));
        return -1;
    }
    char line[512];
    while (fgets(line, sizeof line, f) && r->n_peers < MAX_PEERS) {
        peer x;
        long h;
        memset(&x, 0, sizeof x);
        if (sscanf(line, "%15[^,],%d,%ld,%ld,%lf,%63[^,\r\n]", x.family, &x.fw, &x.size, &h,
                   &x.ms, x.name) == 6 && x.ms > 0)
            r->peers[r->n_peers++] = x;
    }
    fclose(f);
    return 0;
}

static const peer *find_peer(const run *r, manifest_family f, int fw, long size)
{
    for (size_t i = 0; i < r->n_peers; i++)
        if (strcmp(r->peers[i].family, family_name(f)) == 0 && r->peers[i].fw == fw &&
            r->peers[i].size == size)
            return &r->peers[i];
    return NULL;
}

/* --best: one series per (family, width), the variant clcpack_best_variant
 * picks here; measured like any other key. */
static void measure_best(run *r, const clcpack *p, const manifest_file *m)
{
    clcpack_device_info here = {.struct_size = sizeof here};
    clcpack_error ce;
    if (clcpack_device_query(r->dev.dev, &here, &ce) != CLCPACK_OK) {
        fprintf(stderr, "speed: %s\n", ce.message);
        r->failed = 1;
        return;
    }
    static const manifest_family fams[] = {MANIFEST_FAMILY_CONV_GREY, MANIFEST_FAMILY_CONV_RGBA};
    for (size_t f = 0; f < 2; f++)
        for (size_t i = 0; i < r->o.n_widths; i++) {
            clcpack_choice c = {.struct_size = sizeof c};
            int fw = (int)r->o.widths[i];
            char value[16];
            snprintf(value, sizeof value, "%d", fw);
            const clcpack_define width = {"FILTER_WIDTH", value};
            if (clcpack_best_variant(p, family_name(fams[f]), &width, fw ? 1 : 0, "FILTER_WIDTH",
                                     &here, &c, &ce) != CLCPACK_OK)
                continue; /* the pack has nothing of this family at this width */
            clcpack_entry_info e = {.struct_size = sizeof e};
            if (clcpack_get_entry(p, c.entry, &e) != CLCPACK_OK)
                continue;
            const manifest_kernel *k = manifest_find(m, e.kernel);
            if (!k || k->family != fams[f])
                continue;
            series *s = &r->ser[r->n_ser];
            memset(s, 0, sizeof *s);
            bench_key_label(&e, s->label, sizeof s->label);
            bfmt(s->kernel, sizeof s->kernel, "%s", e.kernel);
            bench_wg_text(e.wg, s->wg, sizeof s->wg);
            s->family = fams[f];
            s->fw = fw;
            s->measured = c.measured;
            size_t ser = r->n_ser++;
            size_t before = r->n_smp;
            measure_key(r, p, m, c.entry, ser);
            /* A width-argument pick was timed at every --widths value:
             * keep this width's samples only. */
            size_t keep = before;
            for (size_t j = before; j < r->n_smp; j++)
                if (r->smp[j].fw == fw)
                    r->smp[keep++] = r->smp[j];
            r->n_smp = keep;
        }
}

static void print_best_table(const run *r)
{
    printf("### The variant clcpack_best_variant picks, against %s\n\n",
           r->n_peers ? r->peers[0].name : "no peer (none given)");
    printf("Device: %s (%s, driver %s). Median of %d launches after %d warm-up launches "
           "(OpenCL event profiling), each pick checked against the CPU reference first. "
           "Flops: 2·FW² per output and channel; bytes: the padded input read once and the "
           "output written once. Roofline measured in this run: copy %.1f GB/s, FP32 FMA "
           "%.1f GFLOP/s.%s\n",
           r->dev.name, r->dev.platform_name, r->dev.driver, r->o.runs, r->o.warmup,
           r->roof.copy_gbps, r->roof.fma_gflops,
           r->n_peers ? " Peer: the same problem, its own timing (the peer's program says how)."
                      : "");
    for (size_t si = 0; si < r->o.n_sizes; si++) {
        long size = r->o.sizes[si];
        static const manifest_family fams[] = {MANIFEST_FAMILY_CONV_GREY, MANIFEST_FAMILY_CONV_RGBA};
        for (size_t f = 0; f < 2; f++) {
            int any = 0;
            for (size_t i = 0; i < r->n_ser; i++)
                any |= r->ser[i].family == fams[f];
            if (!any)
                continue;
            printf("\n#### %s, %ldx%ld %s\n\n", family_name(fams[f]), size, size,
                   fams[f] == MANIFEST_FAMILY_CONV_RGBA ? "RGBA float" : "grey float");
            printf("| FW | best variant | from | ms | peer ms | time / peer's | GFLOP/s | "
                   "%% FP32 peak | GB/s | %% copy bandwidth |\n"
                   "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
            for (size_t i = 0; i < r->n_ser; i++) {
                const series *s = &r->ser[i];
                if (s->family != fams[f])
                    continue;
                const sample *x = find(r, i, s->fw, si);
                const peer *pe = find_peer(r, fams[f], s->fw, size);
                printf("| %d | %s | %s |", s->fw, s->label, s->measured ? "timings" : "default rule");
                if (!x) {
                    printf(" not measured | | | | | | |\n");
                    continue;
                }
                printf(" %.4f |", x->ms);
                if (pe)
                    printf(" %.4f | %.2f |", pe->ms, x->ms / pe->ms);
                else
                    printf(" | |");
                printf(" %.0f | %.0f | %.0f | %.0f |\n", x->gflops,
                       r->roof.fma_gflops > 0 ? 100 * x->gflops / r->roof.fma_gflops : 0,
                       x->gbps, r->roof.copy_gbps > 0 ? 100 * x->gbps / r->roof.copy_gbps : 0);
            }
        }
    }
}

static int standard(const options *o)
{
    if (o->n_sizes != sizeof standard_sizes / sizeof standard_sizes[0])
        return 0;
    for (size_t i = 0; i < o->n_sizes; i++)
        if (o->sizes[i] != standard_sizes[i])
            return 0;
    return 1;
}

static void print_tables(const run *r)
{
    printf("### Kernel speed\n\n");
    printf("Device: %s (%s, driver %s). Median of %d launches after %d warm-up launches, "
           "timed with OpenCL event profiling; each kernel loaded from the pack",
           r->dev.name, r->dev.platform_name, r->dev.driver, r->o.runs, r->o.warmup);
    const char *path = r->n_ser ? r->ser[0].path : "";
    int same = 1;
    for (size_t i = 1; i < r->n_ser; i++)
        same &= strcmp(r->ser[i].path, path) == 0;
    if (same && r->n_ser)
        printf(" (%s form)", path);
    printf(" and checked against the CPU reference at each width before it was timed.\n\n");
    printf("Image sizes:");
    for (size_t i = 0; i < r->o.n_sizes; i++)
        printf("%s %ldx%ld", i ? "," : "", r->o.sizes[i], r->o.sizes[i]);
    if (!standard(&r->o))
        printf(" — reduced from the standard 512x512, 1024x1024 and 2048x2048%s", 
               bench_device_is_cpu(&r->dev) ? " because this is a CPU device (keeps `make "
                                              "bench` short)" : "");
    printf(". RGBA float for conv-rgba (Reda), grey float for conv-grey (AMD, NVIDIA pragma).\n");
    printf("\n#### Roofline of this device, measured in this run\n\n");
    printf("| copy bandwidth GB/s | FP32 peak GFLOP/s (FMA) | ridge flop/byte | copy buffers | "
           "runs |\n|---:|---:|---:|---:|---:|\n");
    printf("| %.1f | %.1f | %.1f | 2 x %.0f MiB | %d |\n", r->roof.copy_gbps, r->roof.fma_gflops,
           r->roof.copy_gbps > 0 ? r->roof.fma_gflops / r->roof.copy_gbps : 0,
           (double)r->roof.copy_bytes / 1048576.0, r->roof.runs);
    static const manifest_family fams[] = {MANIFEST_FAMILY_CONV_GREY, MANIFEST_FAMILY_CONV_RGBA};
    for (size_t si = 0; si < r->o.n_sizes; si++)
        for (size_t f = 0; f < 2; f++) {
            print_family_table(r, fams[f], si, VIEW_MS);
            print_family_table(r, fams[f], si, VIEW_RELATIVE);
        }
    size_t last = r->o.n_sizes - 1;
    for (size_t f = 0; f < 2; f++)
        print_family_table(r, fams[f], last, VIEW_ROOF);
    print_throughput(r, last);
}

static void write_csvs(const run *r)
{
    char err[512];
    if (r->o.csv) {
        bench_text t = {0};
        bench_text_add(&t, "device,kernel,series,family,wg,path,fw,width,height,runs,median_ms,"
                           "gbps,gflops,attainable_gflops,roof_fraction\n");
        for (size_t i = 0; i < r->n_smp; i++) {
            const sample *x = &r->smp[i];
            const series *s = &r->ser[x->series];
            bench_text_csv_field(&t, r->dev.name);
            bench_text_add(&t, ",%s,", s->kernel);
            bench_text_csv_field(&t, s->label);
            bench_text_add(&t, ",%s,%s,%s,%d,%ld,%ld,%d,%.6f,%.3f,%.3f,%.3f,%.4f\n",
                           family_name(s->family), s->wg, s->path, x->fw, r->o.sizes[x->size],
                           r->o.sizes[x->size], r->o.runs, x->ms, x->gbps, x->gflops,
                           x->attainable, x->attainable > 0 ? x->gflops / x->attainable : 0);
        }
        if (bench_text_write(&t, r->o.csv, err, sizeof err) != 0)
            fprintf(stderr, "speed: %s\n", err);
        bench_text_free(&t);
    }
    if (r->o.roof_csv) {
        bench_text t = {0};
        bench_text_add(&t, "device,driver,copy_gbps,fma_gflops,copy_bytes,runs\n");
        bench_text_csv_field(&t, r->dev.name);
        bench_text_add(&t, ",");
        bench_text_csv_field(&t, r->dev.driver);
        bench_text_add(&t, ",%.3f,%.3f,%zu,%d\n", r->roof.copy_gbps, r->roof.fma_gflops,
                       r->roof.copy_bytes, r->roof.runs);
        if (bench_text_write(&t, r->o.roof_csv, err, sizeof err) != 0)
            fprintf(stderr, "speed: %s\n", err);
        bench_text_free(&t);
    }
}

int main(int argc, char **argv)
{
    static run r;
    int rc = parse_args(argc, argv, &r.o);
    if (rc != 0)
        return rc;
    static manifest_file m;
    char merr[MANIFEST_ERR_MAX];
    if (manifest_load(r.o.kernels, &m, merr) != 0) {
        fprintf(stderr, "speed: %s\n", merr);
        return 1;
    }
    clcpack *p = NULL;
    clcpack_error ce;
    if (clcpack_open_file(r.o.pack, &p, &ce) != CLCPACK_OK) {
        fprintf(stderr, "speed: %s\n", ce.message); /* it names the file */
        return 1;
    }
    char err[DEVICE_SELECT_ERR_MAX];
    if (bench_device_open(r.o.device, r.o.platform, 1, &r.dev, err) != 0 ||
        !(r.q = bench_queue(&r.dev, 1, err))) {
        fprintf(stderr, "speed: %s\n", err);
        clcpack_close(p);
        return 1;
    }
    size_t copy = (size_t)(r.o.copy_mb > 0 ? r.o.copy_mb
                                           : bench_device_is_cpu(&r.dev) ? 128 : 512) << 20;
    if (copy > r.dev.global_mem / 4)
        copy = (size_t)(r.dev.global_mem / 4);
    char rerr[ROOFLINE_ERR_MAX];
    if (roofline_measure(r.dev.ctx, r.dev.dev, r.q, copy, r.o.warmup, r.o.runs, &r.roof, rerr) !=
        0) {
        fprintf(stderr, "speed: %s\n", rerr);
        r.failed = 1;
    }
    fprintf(stderr, "speed: roofline: copy %.1f GB/s, FMA %.1f GFLOP/s\n", r.roof.copy_gbps,
            r.roof.fma_gflops);

    size_t *keys = NULL, n_keys = 0;
    if (bench_distinct_keys(p, &keys, &n_keys) != 0 ||
        !(r.ser = calloc(n_keys + 2 * MAX_WIDTHS, sizeof *r.ser))) {
        fprintf(stderr, "speed: out of memory\n");
        return 1;
    }
    if (r.o.peer_csv && read_peers(&r) != 0)
        r.failed = 1;
    if (r.o.best)
        measure_best(&r, p, &m);
    /* Manifest order, so the tables list kernels as the manifest does. */
    for (size_t ki = 0; !r.o.best && ki < m.n_kernels; ki++) {
        const manifest_kernel *k = &m.kernels[ki];
        if (k->family == MANIFEST_FAMILY_POLY || !wanted_kernel(&r.o, k->name))
            continue;
        int multi_wg, multi_other;
        count_variety(p, keys, n_keys, k->name, &multi_wg, &multi_other);
        for (size_t i = 0; i < n_keys; i++) {
            clcpack_entry_info e = {.struct_size = sizeof e};
            if (clcpack_get_entry(p, keys[i], &e) != CLCPACK_OK || strcmp(e.kernel, k->name) != 0)
                continue;
            int fw = bench_entry_filter_width(&e);
            if (fw ? !wanted_width(&r.o, fw) : !has_arg(k, MANIFEST_ARG_FILTER_WIDTH))
                continue;
            measure_key(&r, p, &m, keys[i], series_of(&r, k, &e, multi_wg, multi_other));
        }
    }
    if (r.o.best)
        print_best_table(&r);
    else
        print_tables(&r);
    write_csvs(&r);
    free(keys);
    free(r.ser);
    free(r.smp);
    clReleaseCommandQueue(r.q);
    bench_device_close(&r.dev);
    clcpack_close(p);
    return r.failed;
}
