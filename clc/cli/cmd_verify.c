/* cmd_verify.c — `clc-pack verify PACK [--load [--check]] [--device SPEC]`:
 * every checksum, and optionally every entry loaded (and run) through the
 * library on this machine's devices. */
#include "commands.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli_report.h"
#include "clcpack.h"
#include "device_select.h"
#include "kernel_run.h"
#include "manifest.h"
#include "pack_text.h"

#define LABEL_MAX 640
/* Same tolerance as the pack-time check (build_variant.c). */
#define CHECK_TOL 1e-4
#define CHECK_SEED 77u

typedef struct verify_args {
    const char *path;
    int load, check;
    const char *device;      /* NULL: the devices the pack was built for */
    const char *platform;
    const char *kernels_dir;
    uint32_t load_flags;     /* --no-cubin: CLCPACK_LOAD_NO_CUBIN */
} verify_args;

/* Decodes every source and entry; returns the number of bad ones. */
static size_t verify_checksums(const clcpack *p, const char *path)
{
    size_t bad = 0;
    unsigned char *buf = NULL;
    size_t cap = 0;
    size_t ns = clcpack_source_count(p), ne = clcpack_entry_count(p);
    for (size_t pass = 0; pass < 2; pass++) {
        size_t n = pass == 0 ? ns : ne;
        for (size_t i = 0; i < n; i++) {
            size_t size = 0;
            clcpack_error e;
            clcpack_status st = pass == 0 ? clcpack_read_source(p, i, NULL, 0, &size, &e)
                                          : clcpack_read_binary(p, i, NULL, 0, &size, &e);
            if (st == CLCPACK_OK && size > cap) {
                unsigned char *grown = realloc(buf, size);
                if (!grown) {
                    cli_error("%s: out of memory for %zu bytes", path, size);
                    bad++;
                    continue;
                }
                buf = grown;
                cap = size;
            }
            if (st == CLCPACK_OK)
                st = pass == 0 ? clcpack_read_source(p, i, buf, cap, &size, &e)
                               : clcpack_read_binary(p, i, buf, cap, &size, &e);
            if (st == CLCPACK_OK)
                continue;
            bad++;
            char label[LABEL_MAX] = "";
            if (pass == 0) {
                clcpack_source_info si;
                if (clcpack_get_source(p, i, &si) == CLCPACK_OK)
                    bfmt(label, sizeof label, " (%s)", si.name);
                cli_error("%s: source %zu%s is bad: %s", path, i, label, e.message);
            } else {
                clcpack_entry_info ei;
                if (clcpack_get_entry(p, i, &ei) == CLCPACK_OK) {
                    char l[LABEL_MAX - 8];
                    pt_entry_label(&ei, l, sizeof l);
                    bfmt(label, sizeof label, " (%s)", l);
                }
                cli_error("%s: entry %zu%s is bad: %s", path, i, label, e.message);
            }
        }
    }
    free(buf);
    return bad;
}

/* The variant an entry was built from, for kr_check: the manifest's kernel
 * and the entry's own defines, work-group and options. */
static int entry_variant(const mf_manifest *m, const clcpack_entry_info *e, mf_variant *v,
                         char *err, size_t cap)
{
    memset(v, 0, sizeof *v);
    v->kernel = mf_find(m, e->kernel);
    if (!v->kernel) {
        bfmt(err, cap, "kernel %s is not in %s/manifest.txt", e->kernel, m->dir);
        return -1;
    }
    if (e->define_count > MF_MAX_DEFINES) {
        bfmt(err, cap, "%zu defines", e->define_count);
        return -1;
    }
    v->n_defines = e->define_count;
    for (size_t i = 0; i < e->define_count; i++) {
        bfmt(v->define_names[i], sizeof v->define_names[i], "%s", e->defines[i].name);
        bfmt(v->define_values[i], sizeof v->define_values[i], "%s", e->defines[i].value);
    }
    memcpy(v->wg, e->wg, sizeof v->wg);
    bfmt(v->options, sizeof v->options, "%s", e->options);
    return 0;
}

typedef struct load_counts {
    size_t by_path[5];
    size_t failed, check_failed, keys;
} load_counts;

/* Loads every key of the pack meant for local device d (pack devices whose
 * fingerprint equals it; every key when none does) and reports each path. */
static void load_on_device(const clcpack *p, const ds_device *d, const mf_manifest *m,
                           const verify_args *va, load_counts *lc)
{
    clcpack_device_info here;
    clcpack_error e;
    if (clcpack_device_query(d->device, &here, &e) != CLCPACK_OK) {
        cli_error("device %u (%s): %s", d->ordinal, d->name, e.message);
        lc->failed++;
        return;
    }
    size_t nd = clcpack_device_count(p), ne = clcpack_entry_count(p);
    int *mine = calloc(nd ? nd : 1, sizeof *mine);
    char *seen = calloc(ne ? ne : 1, 1);
    if (!mine || !seen) {
        free(mine);
        free(seen);
        cli_error("out of memory");
        lc->failed++;
        return;
    }
    int any_mine = 0;
    for (size_t i = 0; i < nd; i++) {
        clcpack_device_info pd;
        if (clcpack_get_device(p, i, &pd) == CLCPACK_OK && clcpack_device_equal(&pd, &here))
            mine[i] = any_mine = 1;
    }
    if (cli_verbosity >= 0)
        printf("device %u: %s%s\n", d->ordinal, d->name,
               any_mine ? "" : " (not a device of the pack: every key, no native binary)");

    cl_int rc;
    cl_context ctx = clCreateContext(NULL, 1, &d->device, NULL, NULL, &rc);
    cl_command_queue q = ctx ? clCreateCommandQueue(ctx, d->device, 0, &rc) : NULL;
    if (!ctx || !q) {
        cli_error("device %u (%s): creating a context and queue failed with error %d",
                  d->ordinal, d->name, (int)rc);
        lc->failed++;
        goto out;
    }
    for (size_t i = 0; i < ne; i++) {
        clcpack_entry_info ei;
        if (seen[i] || clcpack_get_entry(p, i, &ei) != CLCPACK_OK)
            continue;
        if (any_mine && (ei.device >= nd || !mine[ei.device]))
            continue;
        /* One load per key: the other forms of it are the loader's choice. */
        for (size_t j = i; j < ne; j++) {
            clcpack_entry_info ej;
            if (!seen[j] && clcpack_get_entry(p, j, &ej) == CLCPACK_OK && pt_same_key(&ei, &ej))
                seen[j] = 1;
        }
        lc->keys++;
        char label[LABEL_MAX], defs[512], wg[48];
        pt_defines(&ei, defs, sizeof defs);
        pt_wg(ei.wg, wg, sizeof wg);
        bfmt(label, sizeof label, "%s %s wg=%s", ei.kernel, defs, wg);
        clcpack_key key = pt_key(&ei);
        clcpack_load_report rep;
        cl_program prog = NULL;
        clcpack_load_options lo = {sizeof lo, va->load_flags};
        clcpack_status st = clcpack_create_program(p, &key, ctx, d->device, &lo, &prog, &rep, &e);
        if (st != CLCPACK_OK) {
            lc->failed++;
            cli_error("%s: not loaded: %s", label, e.message);
            if (cli_verbosity > 0)
                fprintf(stderr, "  tried: %s\n", rep.why);
            continue;
        }
        lc->by_path[rep.path < 5 ? rep.path : 0]++;
        const char *result = "";
        char check_text[KR_ERR_MAX + 64] = "";
        if (va->check) {
            mf_variant v;
            kr_problem pr;
            kr_result res;
            char err[KR_ERR_MAX];
            int c = -1;
            if (entry_variant(m, &ei, &v, err, sizeof err) == 0) {
                kr_default_problem(&v, CHECK_SEED, &pr);
                c = kr_check(ctx, q, prog, &v, &pr, CHECK_TOL, &res, err);
            }
            if (c == 0) {
                bfmt(check_text, sizeof check_text, ", check ok (max rel err %.2g)",
                     res.max_rel_err);
            } else {
                lc->check_failed++;
                if (c > 0)
                    bfmt(check_text, sizeof check_text,
                         ", CHECK FAILED: max relative error %.3g, first bad element %zu, %zu "
                         "unwritten",
                         res.max_rel_err, res.bad_index, res.unwritten);
                else
                    bfmt(check_text, sizeof check_text, ", CHECK FAILED: %s", err);
            }
            result = check_text;
        }
        clReleaseProgram(prog);
        if (cli_verbosity >= 0 || (check_text[0] && strstr(check_text, "FAILED")))
            printf("  entry %u %s: %s%s\n", (unsigned)rep.entry, label,
                   clcpack_path_name(rep.path), result);
        if (cli_verbosity > 0)
            printf("    %s\n", rep.why);
    }
out:
    if (q)
        clReleaseCommandQueue(q);
    if (ctx)
        clReleaseContext(ctx);
    free(mine);
    free(seen);
}

/* The local devices to load on: --device, else those whose fingerprint is
 * in the pack. */
static int pick_devices(const clcpack *p, const verify_args *va, ds_list *all,
                        size_t sel[DS_MAX_DEVICES], size_t *n_sel)
{
    char err[DS_ERR_MAX];
    if (ds_enumerate(all, err) != 0) {
        cli_error("%s", err);
        return -1;
    }
    if (va->device || va->platform) {
        if (ds_select(all, va->device ? va->device : "all", va->platform, sel, n_sel, err) !=
            0) {
            cli_error("%s", err);
            return -1;
        }
        return 0;
    }
    *n_sel = 0;
    for (size_t i = 0; i < all->n; i++) {
        clcpack_device_info here;
        clcpack_error e;
        if (clcpack_device_query(all->dev[i].device, &here, &e) != CLCPACK_OK)
            continue;
        for (size_t k = 0; k < clcpack_device_count(p); k++) {
            clcpack_device_info pd;
            if (clcpack_get_device(p, k, &pd) == CLCPACK_OK && clcpack_device_equal(&pd, &here)) {
                sel[(*n_sel)++] = i;
                break;
            }
        }
    }
    if (*n_sel == 0) {
        char why[CLCPACK_MESSAGE_MAX] = "";
        clcpack_device_info pd, here;
        clcpack_error e;
        if (all->n > 0 && clcpack_device_count(p) > 0 &&
            clcpack_get_device(p, 0, &pd) == CLCPACK_OK &&
            clcpack_device_query(all->dev[0].device, &here, &e) == CLCPACK_OK)
            clcpack_device_describe_difference(&pd, &here, why, sizeof why);
        if (why[0])
            cli_error("no device of this machine is a device the pack was built for (pack "
                      "device 0 and device 0 here: %s); --device SPEC loads on one anyway",
                      why);
        else
            cli_error("no device of this machine is a device the pack was built for; "
                      "--device SPEC loads on one anyway");
        return -1;
    }
    return 0;
}

int cmd_verify(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"load", no_argument, NULL, 'L'},          {"check", no_argument, NULL, 'C'},
        {"device", required_argument, NULL, 'd'},  {"platform", required_argument, NULL, 'P'},
        {"kernels", required_argument, NULL, 'K'}, {"quiet", no_argument, NULL, 'q'},
        {"verbose", no_argument, NULL, 'v'},       {"help", no_argument, NULL, 'h'},
        {"no-cubin", no_argument, NULL, 'N'},
        {NULL, 0, NULL, 0}};
    verify_args va = {NULL, 0, 0, NULL, NULL, "kernels", 0};
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":qvh", longopts, NULL)) != -1) {
        switch (c) {
        case 'L':
            va.load = 1;
            break;
        case 'C':
            va.check = 1;
            break;
        case 'N':
            va.load_flags |= CLCPACK_LOAD_NO_CUBIN;
            break;
        case 'd':
            va.device = optarg;
            break;
        case 'P':
            va.platform = optarg;
            break;
        case 'K':
            va.kernels_dir = optarg;
            break;
        case 'q':
            cli_verbosity = -1;
            break;
        case 'v':
            cli_verbosity = cli_verbosity < 0 ? 1 : cli_verbosity + 1;
            break;
        case 'h':
            usage_verify(stdout);
            return EXIT_OK_STATUS;
        case ':':
            return cli_usage_error("verify", "verify: %s needs a value", argv[optind - 1]);
        default:
            return cli_usage_error("verify", "verify: unknown option %s", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return cli_usage_error("verify", "verify: expected one pack file, got %d arguments",
                               argc - optind);
    if (va.check && !va.load)
        return cli_usage_error("verify", "verify: --check needs --load");
    if ((va.device || va.platform) && !va.load)
        return cli_usage_error("verify", "verify: --device and --platform need --load");
    if (va.load_flags && !va.load)
        return cli_usage_error("verify", "verify: --no-cubin needs --load");
    va.path = argv[optind];

    static mf_manifest manifest;
    if (va.check) {
        char merr[MF_ERR_MAX];
        if (mf_load(va.kernels_dir, &manifest, merr) != 0) {
            cli_error("%s/%s", va.kernels_dir, merr);
            return EXIT_FAILURE_STATUS;
        }
    }

    clcpack *p = NULL;
    clcpack_error e;
    if (clcpack_open_file(va.path, &p, &e) != CLCPACK_OK) {
        cli_error("%s: %s", va.path, e.message);
        return EXIT_FAILURE_STATUS;
    }
    size_t bad = verify_checksums(p, va.path);
    size_t ne = clcpack_entry_count(p), ns = clcpack_source_count(p);
    if (cli_verbosity >= 0) {
        if (bad == 0)
            printf("%s: %zu entr%s and %zu source%s, every checksum matches\n", va.path, ne,
                   ne == 1 ? "y" : "ies", ns, ns == 1 ? "" : "s");
        else
            printf("%s: %zu of %zu entries and sources are bad\n", va.path, bad, ne + ns);
    }
    int status = bad ? EXIT_FAILURE_STATUS : EXIT_OK_STATUS;

    if (va.load) {
        static ds_list all;
        size_t sel[DS_MAX_DEVICES], n_sel = 0;
        if (pick_devices(p, &va, &all, sel, &n_sel) != 0) {
            clcpack_close(p);
            return EXIT_FAILURE_STATUS;
        }
        load_counts lc;
        memset(&lc, 0, sizeof lc);
        for (size_t i = 0; i < n_sel; i++)
            load_on_device(p, &all.dev[sel[i]], &manifest, &va, &lc);
        size_t loaded = lc.keys - lc.failed;
        printf("loaded %zu of %zu: native %zu, cubin %zu, ptx %zu, source %zu, failed %zu",
               loaded, lc.keys, lc.by_path[CLCPACK_PATH_NATIVE], lc.by_path[CLCPACK_PATH_CUBIN],
               lc.by_path[CLCPACK_PATH_PTX], lc.by_path[CLCPACK_PATH_SOURCE], lc.failed);
        if (va.check)
            printf("; checks failed %zu", lc.check_failed);
        printf("\n");
        if (lc.failed || lc.check_failed || lc.keys == 0)
            status = EXIT_FAILURE_STATUS;
    }
    clcpack_close(p);
    fflush(stdout);
    return status;
}
