/* cmd_verify.c — `clc-pack verify PACK [--load [--check]] [--device SPEC]`:
 * every structure of the index a load trusts (clcpack_check_index), every
 * checksum, and optionally every entry loaded (and run) through the
 * library on this machine's devices, in a load worker process per device
 * (load_worker.h), so a driver that crashes on a binary fails that entry,
 * not verify. */
#include "commands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build_variant.h"
#include "cli_files.h"
#include "cli_opts.h"
#include "cli_report.h"
#include "clcpack_write.h"
#include "device_select.h"
#include "entry_key.h"
#include "load_worker.h"
#include "manifest.h"
#include "pack_text.h"
#include "pocl_binary.h"
#include "strbuf.h"
#include "text_format.h"
#include "worker_pool.h"
#include "worker_proto.h"

#define LABEL_MAX 640

typedef struct verify_args {
    const char *path;
    int load, check;
    const char *device;      /* NULL: the devices the pack was built for */
    const char *platform;
    const char *kernels_dir; /* NULL when --check needs no manifest */
    uint32_t load_flags;     /* --no-cubin: CLCPACK_LOAD_NO_CUBIN */
    int no_cubin;            /* --no-cubin as given */
    int verbosity;           /* -q, -v */
} verify_args;

static const cli_opt verify_opts[] = {
    OPT_FLAG("load", 0, verify_args, load,
             "also load every entry through libclcpack on the devices of\n"
             "this machine that the pack was built for (or --device), and\n"
             "report the path each took: native, cubin, ptx or source"),
    OPT_FLAG("check", 0, verify_args, check,
             "with --load: run each loaded program on random data and\n"
             "compare with the CPU reference (needs the manifest)"),
    OPT_STR("kernels", 0, verify_args, kernels_dir, "DIR", "kernel folder for --check (default: kernels)"),
    OPT_FLAG("no-cubin", 0, verify_args, no_cubin,
             "with --load: skip cubins (CLCPACK_LOAD_NO_CUBIN), so NVIDIA\n"
             "devices load the PTX"),
    OPT_STR("device", 0, verify_args, device, "SPEC", "load on these devices (as for pack)"),
    OPT_STR("platform", 0, verify_args, platform, "NAME", "only platforms whose name contains NAME"),
    OPT_QUIET(verify_args, verbosity, "less output"),
    OPT_VERBOSE(verify_args, verbosity, "more"),
    OPT_HELP,
};

const cli_optspec verify_optspec = {"verify", verify_opts, sizeof verify_opts / sizeof verify_opts[0], 0, 19};

/* Whether the pack holds an entry of one kernel (not a program entry):
 * one a manifest kernel may give a reference check. */
static int has_kernel_entries(const clcpack *p)
{
    for (size_t i = 0; i < clcpack_entry_count(p); i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        if (clcpack_get_entry(p, i, &e) == CLCPACK_OK && e.kernel_name_count == 0)
            return 1;
    }
    return 0;
}

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
                clcpack_source_info si = {.struct_size = sizeof si};
                if (clcpack_get_source(p, i, &si) == CLCPACK_OK)
                {
                    char name[LABEL_MAX - 8];
                    bfmt(label, sizeof label, " (%s)", pack_text_esc(si.name, name, sizeof name));
                }
                cli_error("%s: source %zu%s is bad: %s", path, i, label, e.message);
            } else {
                clcpack_entry_info ei = {.struct_size = sizeof ei};
                if (clcpack_get_entry(p, i, &ei) == CLCPACK_OK) {
                    char l[LABEL_MAX - 8];
                    pack_text_entry_label(&ei, l, sizeof l);
                    bfmt(label, sizeof label, " (%s)", l);
                }
                cli_error("%s: entry %zu%s is bad: %s", path, i, label, e.message);
            }
        }
    }
    free(buf);
    return bad;
}

/* What one PoCL native entry means for a first launch (pocl_binary.h):
 * "" when its binary holds every form of its local size, else the
 * launches that compile a work-group function. 0, or 1 when the entry is
 * not a PoCL binary (or cannot be read). */
static int pocl_entry_text(const clcpack *p, size_t i, const clcpack_entry_info *e, char *text,
                           size_t cap)
{
    size_t size = 0;
    clcpack_error err;
    unsigned char *bin = NULL;
    unsigned held = 0;
    const char *kernel = e->kernel_name_count ? NULL : e->kernel;
    int rc = 1;
    if (clcpack_read_binary(p, i, NULL, 0, &size, &err) == CLCPACK_OK && size &&
        (bin = malloc(size)) != NULL &&
        clcpack_read_binary(p, i, bin, size, &size, &err) == CLCPACK_OK &&
        clcpk_pocl_forms_held(bin, size, kernel, kernel ? strlen(kernel) : 0, e->wg, &held) == 0) {
        char wg[64], local[80];
        clcpk_wg_text(e->wg, "", wg, sizeof wg);
        bfmt(local, sizeof local, "local size %s", wg);
        if (!e->wg[0])
            bfmt(text, cap, "fixes no local size: the first launch at each local size compiles "
                            "its work-group function (a NULL local size too, at the size PoCL "
                            "picks)");
        else
            clcpk_pocl_forms_missing_text(held, local, text, cap);
        rc = 0;
    }
    free(bin);
    return rc;
}

/* Says which first launches of the pack's PoCL native entries will compile
 * a work-group function (docs/vendors/POCL.md, "No JIT"): a count, and
 * each entry that lacks forms (ten of them unless -v). */
static void report_pocl_forms(const clcpack *p)
{
    size_t n_pocl = 0, n_short = 0, ne = clcpack_entry_count(p);
    for (size_t i = 0; i < ne; i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        char text[512], label[LABEL_MAX];
        if (clcpack_get_entry(p, i, &e) != CLCPACK_OK || e.kind != CLCPACK_KIND_NATIVE ||
            pocl_entry_text(p, i, &e, text, sizeof text) != 0)
            continue;
        n_pocl++;
        if (!text[0])
            continue;
        if (n_short++ < 10 || cli_verbosity > 0) {
            pack_text_entry_label(&e, label, sizeof label);
            printf("  entry %zu (%s): %s\n", i, label, text);
        }
    }
    if (n_short > 10 && cli_verbosity <= 0)
        printf("  ... and %zu more (-v lists them)\n", n_short - 10);
    if (n_pocl)
        printf("PoCL native entries holding every work-group function of their local size "
               "(no first launch at it compiles one): %zu of %zu%s\n",
               n_pocl - n_short, n_pocl,
               n_short ? "; the others' first launches named above compile one" : "");
}

typedef struct load_counts {
    size_t by_path[CLCPACK_PATH_SPIRV + 1];
    size_t failed, check_failed, keys;
} load_counts;

/* ---------------------------------------------------------------------- */
/* The parent side: one worker per device, one job per key. */

typedef struct load_run {
    const clcpack *p;
    const size_t *first;      /* job -> the first entry of its key */
    build_variant_result *results;       /* job -> what came back */
    char *done;
} load_run;

static void on_loaded(void *ctx, size_t job, build_variant_result *r)
{
    load_run *run = ctx;
    /* Keep it: printed in job order once every key is done. */
    run->results[job] = *r;
    memset(r, 0, sizeof *r);
    run->done[job] = 1;
}

static void print_load_result(const load_run *run, size_t job, load_counts *lc)
{
    const build_variant_result *r = &run->results[job];
    clcpack_entry_info ei = {.struct_size = sizeof ei};
    char label[LABEL_MAX] = "";
    if (clcpack_get_entry(run->p, run->first[job], &ei) == CLCPACK_OK)
        pack_text_key_label(&ei, label, sizeof label);
    if (!run->done[job]) {
        lc->failed++;
        cli_error("entry %zu %s: not loaded: the load worker did not answer", run->first[job],
                  label);
        return;
    }
    if (r->status == BUILD_VARIANT_ERROR) {
        lc->failed++;
        if (r->signal)
            cli_error("entry %zu %s: the driver crashed (signal %d, %s) loading it",
                      run->first[job], label, r->signal, strsignal(r->signal));
        else
            cli_error("entry %zu %s: not loaded: %s", run->first[job], label,
                      r->message ? r->message : "no reason given");
        if (cli_verbosity > 0 && r->note)
            fprintf(stderr, "  tried: %s\n", r->note);
        return;
    }
    size_t path = 0;
    for (size_t k = 0; k <= CLCPACK_PATH_SPIRV; k++)
        if (r->n_kernel_names &&
            strcmp(r->kernel_names[0], clcpack_path_name((clcpack_path)k)) == 0)
            path = k;
    lc->by_path[path]++;
    if (r->status == BUILD_VARIANT_CHECK_FAILED)
        lc->check_failed++;
    if (cli_verbosity >= 0 || r->status == BUILD_VARIANT_CHECK_FAILED)
        printf("  %s\n", r->message ? r->message : "");
    if (cli_verbosity > 0 && r->note)
        printf("    %s\n", r->note);
}

/* Loads every key of the pack meant for local device d (pack devices whose
 * fingerprint equals it; every key when none does) in a worker process and
 * reports each path. */
static void load_on_device(const clcpack *p, const device_select_device *d, const verify_args *va,
                           load_counts *lc)
{
    clcpack_device_info here = {.struct_size = sizeof here};
    clcpack_error e;
    if (clcpack_device_query(d->device, &here, &e) != CLCPACK_OK) {
        cli_error("device %u (%s): %s", d->ordinal, d->name, e.message);
        lc->failed++;
        return;
    }
    size_t nd = clcpack_device_count(p), ne = clcpack_entry_count(p);
    int *mine = calloc(nd ? nd : 1, sizeof *mine);
    char *seen = calloc(ne ? ne : 1, 1);
    size_t *first = calloc(ne ? ne : 1, sizeof *first);
    strbuf *jobs = calloc(ne ? ne : 1, sizeof *jobs);
    load_run run = {p, first, calloc(ne ? ne : 1, sizeof *run.results), calloc(ne ? ne : 1, 1)};
    size_t n_jobs = 0;
    if (!mine || !seen || !first || !jobs || !run.results || !run.done) {
        cli_error("out of memory");
        lc->failed++;
        goto out;
    }
    int any_mine = 0;
    for (size_t i = 0; i < nd; i++) {
        clcpack_device_info pd = {.struct_size = sizeof pd};
        if (clcpack_get_device(p, i, &pd) == CLCPACK_OK && clcpack_device_equal(&pd, &here))
            mine[i] = any_mine = 1;
    }
    if (cli_verbosity >= 0)
        printf("device %u: %s%s\n", d->ordinal, d->name,
               any_mine ? "" : " (not a device of the pack: every key, no native binary)");
    for (size_t i = 0; i < ne; i++) {
        clcpack_entry_info ei = {.struct_size = sizeof ei};
        if (seen[i] || clcpack_get_entry(p, i, &ei) != CLCPACK_OK)
            continue;
        if (any_mine && (ei.device >= nd || !mine[ei.device]))
            continue;
        /* One load per key: the other forms of it are the loader's choice. */
        for (size_t j = i; j < ne; j++) {
            clcpack_entry_info ej = {.struct_size = sizeof ej};
            if (!seen[j] && clcpack_get_entry(p, j, &ej) == CLCPACK_OK && clcpk_same_key(&ei, &ej))
                seen[j] = 1;
        }
        first[n_jobs] = i;
        sb_init(&jobs[n_jobs]);
        worker_proto_encode_load_job(&jobs[n_jobs], (uint32_t)n_jobs, (uint32_t)i);
        n_jobs++;
    }
    lc->keys += n_jobs;
    if (n_jobs == 0)
        goto out;
    char exe[4096], slot[LOAD_WORKER_SLOT_MAX], err[512];
    /* The optional arguments first, each list ending at the first NULL. */
    char *argv[12];
    size_t na = load_worker_argv(argv, va->path, d->platform_index, d->device_index, slot);
    if (va->load_flags & CLCPACK_LOAD_NO_CUBIN)
        argv[na++] = (char *)"--no-cubin";
    if (va->check) {
        if (va->kernels_dir) {
            argv[na++] = (char *)"--kernels";
            argv[na++] = (char *)va->kernels_dir;
        }
        argv[na++] = (char *)"--check";
    }
    argv[na] = NULL;
    worker_pool_callbacks cb = {&run, NULL, on_loaded, NULL, NULL, 0, NULL, NULL, NULL, NULL};
    /* One worker: loads run one after the other, as a program would. */
    if (cli_worker_path(exe, sizeof exe) != 0) {
        cli_error("cannot find the clc-pack executable to start a load worker");
        lc->failed += n_jobs;
        goto out;
    }
    if (worker_pool_run(exe, argv, 1, cli_verbosity > 0, jobs, NULL, n_jobs, &cb, err, sizeof err) !=
        0)
        cli_error("device %u (%s): %s", d->ordinal, d->name, err);
    for (size_t k = 0; k < n_jobs; k++)
        print_load_result(&run, k, lc);
out:
    for (size_t k = 0; k < n_jobs; k++) {
        sb_free(&jobs[k]);
        if (run.results)
            build_variant_result_free(&run.results[k]);
    }
    free(jobs);
    free(run.results);
    free(run.done);
    free(first);
    free(mine);
    free(seen);
}

/* The local devices to load on: --device, else those whose fingerprint is
 * in the pack. */
static int pick_devices(const clcpack *p, const verify_args *va, device_select_list *all,
                        size_t sel[DEVICE_SELECT_MAX_DEVICES], size_t *n_sel)
{
    char err[DEVICE_SELECT_ERR_MAX];
    if (device_select_enumerate(all, err) != 0) {
        cli_error("%s", err);
        return -1;
    }
    if (va->device || va->platform) {
        if (device_select(all, va->device ? va->device : "all", va->platform, sel, n_sel, err) !=
            0) {
            cli_error("%s", err);
            return -1;
        }
        return 0;
    }
    *n_sel = 0;
    for (size_t i = 0; i < all->n; i++) {
        clcpack_device_info here = {.struct_size = sizeof here};
        clcpack_error e;
        if (clcpack_device_query(all->dev[i].device, &here, &e) != CLCPACK_OK)
            continue;
        for (size_t k = 0; k < clcpack_device_count(p); k++) {
            clcpack_device_info pd = {.struct_size = sizeof pd};
            if (clcpack_get_device(p, k, &pd) == CLCPACK_OK && clcpack_device_equal(&pd, &here)) {
                sel[(*n_sel)++] = i;
                break;
            }
        }
    }
    if (*n_sel == 0) {
        char why[CLCPACK_MESSAGE_MAX] = "";
        clcpack_device_info pd = {.struct_size = sizeof pd}, here = {.struct_size = sizeof here};
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

/* The manifest of --kernels DIR read here, to say what is wrong with it
 * before any worker starts: 0, or -1 after saying why. */
static int check_manifest(const char *dir)
{
    manifest_file *manifest = malloc(sizeof *manifest); /* large: on the heap */
    char merr[MANIFEST_ERR_MAX] = "out of memory";
    int bad = !manifest || manifest_load(dir, manifest, merr) != 0;
    free(manifest);
    if (bad)
        cli_error("%s (verify --check compares the pack's kernel entries with the references "
                  "of this manifest; --kernels DIR names its folder)",
                  merr);
    return bad ? -1 : 0;
}

int cmd_verify(int argc, char **argv)
{
    verify_args va = {NULL, 0, 0, NULL, NULL, "kernels", 0, 0, cli_verbosity};
    int operand;
    int rc = cli_opts_run(&verify_optspec, usage_verify, argc, argv, &va, &operand);
    if (rc != CLI_OPTS_GO)
        return rc;
    cli_verbosity = va.verbosity;
    if (va.no_cubin)
        va.load_flags |= CLCPACK_LOAD_NO_CUBIN;
    if (operand != argc - 1)
        return cli_usage_error("verify", "verify: expected one pack file, got %d arguments",
                               argc - operand);
    if (va.check && !va.load)
        return cli_usage_error("verify", "verify: --check needs --load");
    if ((va.device || va.platform) && !va.load)
        return cli_usage_error("verify", "verify: --device and --platform need --load");
    if (va.load_flags && !va.load)
        return cli_usage_error("verify", "verify: --no-cubin needs --load");
    va.path = argv[operand];

    clcpack *p = cli_open_pack(va.path);
    if (!p)
        return EXIT_FAILURE_STATUS;
    /* --check compares a manifest kernel's entries with its reference, so
     * it reads the manifest, and the workers are given it, only when the
     * pack holds kernel entries: program entries (the direct mode's) are
     * loaded and built, with no reference to compare with. */
    if (va.check && has_kernel_entries(p)) {
        if (check_manifest(va.kernels_dir) != 0) {
            clcpack_close(p);
            return EXIT_FAILURE_STATUS;
        }
    } else {
        va.kernels_dir = NULL;
    }
    /* The index first, as a load reads it (lookup rows, buckets and lists
     * included): reading every blob alone never touches those. */
    clcpack_error ie;
    int index_bad = clcpack_check_index(p, &ie) != CLCPACK_OK;
    if (index_bad)
        cli_error("%s: %s", va.path, ie.message);
    size_t bad = verify_checksums(p, va.path);
    size_t ne = clcpack_entry_count(p), ns = clcpack_source_count(p);
    if (cli_verbosity >= 0) {
        if (index_bad)
            printf("%s: the index is damaged; %zu of %zu entries and sources are bad\n", va.path,
                   bad, ne + ns);
        else if (bad == 0)
            printf("%s: %zu entr%s and %zu source%s, every checksum matches\n", va.path, ne,
                   ne == 1 ? "y" : "ies", ns, ns == 1 ? "" : "s");
        else
            printf("%s: %zu of %zu entries and sources are bad\n", va.path, bad, ne + ns);
    }
    int status = bad || index_bad ? EXIT_FAILURE_STATUS : EXIT_OK_STATUS;
    if (cli_verbosity >= 0 && !index_bad)
        report_pocl_forms(p);

    if (va.load) {
        device_select_list *all = calloc(1, sizeof *all); /* large: on the heap */
        size_t sel[DEVICE_SELECT_MAX_DEVICES], n_sel = 0;
        if (!all)
            cli_error("out of memory");
        if (!all || pick_devices(p, &va, all, sel, &n_sel) != 0) {
            free(all);
            clcpack_close(p);
            return EXIT_FAILURE_STATUS;
        }
        load_counts lc;
        memset(&lc, 0, sizeof lc);
        for (size_t i = 0; i < n_sel; i++)
            load_on_device(p, &all->dev[sel[i]], &va, &lc);
        free(all);
        size_t loaded = lc.keys - lc.failed;
        printf("loaded %zu of %zu: native %zu, cubin %zu, ptx %zu, source %zu", loaded, lc.keys,
               lc.by_path[CLCPACK_PATH_NATIVE], lc.by_path[CLCPACK_PATH_CUBIN],
               lc.by_path[CLCPACK_PATH_PTX], lc.by_path[CLCPACK_PATH_SOURCE]);
        /* The offline forms only where they were used: the line other
         * packs give stays the same. */
        if (lc.by_path[CLCPACK_PATH_TARGET])
            printf(", target %zu", lc.by_path[CLCPACK_PATH_TARGET]);
        if (lc.by_path[CLCPACK_PATH_SPIRV])
            printf(", spirv %zu", lc.by_path[CLCPACK_PATH_SPIRV]);
        if (lc.by_path[CLCPACK_PATH_CACHE])
            printf(", cache %zu", lc.by_path[CLCPACK_PATH_CACHE]);
        printf(", failed %zu", lc.failed);
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
