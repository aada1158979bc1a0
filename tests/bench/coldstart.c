/*
 * coldstart — what an application's start pays for its kernel: the bare
 * driver call on bytes it already holds, against the loader opening the
 * pack file and making the kernel, each in a fresh process.
 *
 *   coldstart --pack PACK [--pack PACK]... [--label TEXT]... [--device SPEC]
 *             [--platform NAME] [--kernel NAME] [--reps N] [--csv FILE]
 *
 * For each pack, one key (kernel, defines, work-group): with --kernel the
 * entry of that kernel whose binary is nearest 100 KB, else the nearest of
 * all entries (the same key in packs made from one pack). Each of --reps
 * rounds runs, in fresh processes (this program re-executed):
 *  - loader: clcpack_open_file + clcpack_create_kernel (rebuild cache
 *    off), timed from before the open to the kernel; the split is printed
 *    too;
 *  - bare: the same entry's bytes (the one the loader used) read from the
 *    pack before the clock starts, then clCreateProgramWithBinary +
 *    clBuildProgram (the entry's options) + clCreateKernel;
 *  - own: the loader's own work without the driver's, for the same entry:
 *    clcpack_open_file + clcpack_read_binary (read, decode, CRC-32), what
 *    the loader adds to the bare call, alone so that the driver's
 *    variation on a shared machine does not hide it.
 * Both create their context before the clock starts. The two alternate,
 * the first of each round changing, so that drift on a shared machine
 * falls on both. The pack is read once first: the page cache is warm, as
 * for an application started a second time. Run with POCL_KERNEL_CACHE=0
 * and CUDA_CACHE_DISABLE=1 (scripts/bench.sh sets both).
 *
 * Prints a markdown table of medians (ms) and writes the CSV, with the
 * ratio twice: of the two medians, and the median of each round's ratio
 * (a round's loader and bare runs are neighbours in time, so drift on a
 * shared machine cancels within it). Exit status
 * 0; 1 when a run failed; 2 on a usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clcpack.h"
#include "common/bench_device.h"
#include "common/bench_entry.h"
#include "common/bench_stats.h"

#define MAX_PACKS 16
#define MAX_REPS 201
#define NEAR_BYTES (100u << 10)

typedef struct options {
    const char *packs[MAX_PACKS], *labels[MAX_PACKS];
    size_t n_packs, n_labels;
    const char *device, *platform, *kernel, *csv;
    long reps;
} options;

static void usage(FILE *f)
{
    fputs("usage: coldstart --pack PACK [--pack PACK]... [--label TEXT]... [--device SPEC]\n"
          "                 [--platform NAME] [--kernel NAME] [--reps N] [--csv FILE]\n",
          f);
}

/* The entry whose key a run loads: nearest NEAR_BYTES, of --kernel if given. */
static long pick_entry(const clcpack *p, const char *kernel)
{
    long best = -1;
    uint64_t best_d = UINT64_MAX;
    for (size_t i = 0; i < clcpack_entry_count(p); i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        if (clcpack_get_entry(p, i, &e) != CLCPACK_OK || strncmp(e.kernel, "filler_", 7) == 0 ||
            (kernel && strcmp(e.kernel, kernel) != 0))
            continue;
        uint64_t d = e.raw_size > NEAR_BYTES ? e.raw_size - NEAR_BYTES : NEAR_BYTES - e.raw_size;
        if (d < best_d) {
            best_d = d;
            best = (long)i;
        }
    }
    return best;
}

static double now_ms(void) { return bench_now_ms(); }

/* A child: `coldstart --child loader|bare PACK ENTRY DEVICE PLATFORM`.
 * Prints "ms open_ms create_ms entry" (loader) or "ms" (bare). */
static int child(const char *mode, const char *path, long key_entry, const char *device,
                 const char *platform)
{
    char err[DEVICE_SELECT_ERR_MAX];
    bench_device d;
    if (bench_device_open(device[0] ? device : NULL, platform[0] ? platform : NULL, 1, &d,
                          err) != 0) {
        fprintf(stderr, "coldstart: %s\n", err);
        return 1;
    }
    /* The key comes from the pack, read outside the clock by both modes
     * (an application has its key compiled in). */
    clcpack *key_pack = NULL;
    clcpack_error e;
    clcpack_entry_info ki = {.struct_size = sizeof ki};
    if (clcpack_open_file(path, &key_pack, &e) != CLCPACK_OK ||
        clcpack_get_entry(key_pack, (size_t)key_entry, &ki) != CLCPACK_OK) {
        fprintf(stderr, "coldstart: %s: %s\n", path, e.message);
        return 1;
    }
    /* A program entry answers to any of its kernels: ask for the first. */
    const char *kname = ki.kernel_name_count ? ki.kernel_names[0] : ki.kernel;
    clcpack_key key = {kname, ki.defines, ki.define_count, {ki.wg[0], ki.wg[1], ki.wg[2]}};
    int rc = 1;
    if (strcmp(mode, "own") == 0) {
        clcpack *p = NULL;
        clcpack_entry_info ei = {.struct_size = sizeof ei};
        double t0 = now_ms();
        clcpack_status st = clcpack_open_file(path, &p, &e);
        uint8_t *bytes = NULL;
        size_t got = 0;
        if (st == CLCPACK_OK && (st = clcpack_get_entry(p, (size_t)key_entry, &ei)) == CLCPACK_OK &&
            (bytes = malloc((size_t)ei.raw_size)) != NULL)
            st = clcpack_read_binary(p, (size_t)key_entry, bytes, (size_t)ei.raw_size, &got, &e);
        double t1 = now_ms();
        if (st == CLCPACK_OK && bytes) {
            printf("%.4f\n", t1 - t0);
            rc = 0;
        } else {
            fprintf(stderr, "coldstart: %s: own work failed: %s\n", path, e.message);
        }
        free(bytes);
        clcpack_close(p);
    } else if (strcmp(mode, "loader") == 0) {
        clcpack_load_options opts = {sizeof opts, CLCPACK_LOAD_NO_CACHE | CLCPACK_LOAD_NO_SOURCE};
        clcpack_load_report rep = {.struct_size = sizeof rep};
        cl_program prog = NULL;
        cl_kernel kern = NULL;
        clcpack *p = NULL;
        double t0 = now_ms();
        clcpack_status st = clcpack_open_file(path, &p, &e);
        double t1 = now_ms();
        if (st == CLCPACK_OK)
            st = clcpack_create_kernel(p, &key, d.ctx, d.dev, &opts, &prog, &kern, &rep, &e);
        double t2 = now_ms();
        if (st == CLCPACK_OK) {
            printf("%.4f %.4f %.4f %u\n", t2 - t0, t1 - t0, t2 - t1, (unsigned)rep.entry);
            rc = 0;
        } else {
            fprintf(stderr, "coldstart: %s: %s\n", path, e.message);
        }
        if (kern)
            clReleaseKernel(kern);
        if (prog)
            clReleaseProgram(prog);
        clcpack_close(p);
    } else {
        /* `path ENTRY` names the entry the loader used; its bytes, as the
         * loader hands them over (PTX with its NUL). */
        clcpack_entry_info bi = {.struct_size = sizeof bi};
        size_t n = 0;
        uint8_t *bytes = NULL;
        if (clcpack_get_entry(key_pack, (size_t)key_entry, &bi) == CLCPACK_OK &&
            (bytes = malloc((size_t)bi.raw_size + 1)) != NULL &&
            clcpack_read_binary(key_pack, (size_t)key_entry, bytes, (size_t)bi.raw_size, &n, &e) ==
                CLCPACK_OK) {
            if (bi.kind == CLCPACK_KIND_PTX && bytes[n - 1] != '\0')
                bytes[n++] = '\0';
            const unsigned char *ptr = bytes;
            cl_int st = CL_SUCCESS, bst = CL_SUCCESS;
            double t0 = now_ms();
            cl_program prog = clCreateProgramWithBinary(d.ctx, 1, &d.dev, &n, &ptr, &bst, &st);
            if (st == CL_SUCCESS && bst == CL_SUCCESS)
                st = clBuildProgram(prog, 1, &d.dev, bi.options, NULL, NULL);
            cl_kernel kern = NULL;
            if (st == CL_SUCCESS)
                kern = clCreateKernel(prog, kname, &st);
            double t1 = now_ms();
            if (st == CL_SUCCESS) {
                printf("%.4f\n", t1 - t0);
                rc = 0;
            } else {
                fprintf(stderr, "coldstart: bare load of entry %ld failed (%d)\n", key_entry,
                        (int)st);
            }
            if (kern)
                clReleaseKernel(kern);
            if (prog)
                clReleaseProgram(prog);
        } else {
            fprintf(stderr, "coldstart: %s: entry %ld: %s\n", path, key_entry, e.message);
        }
        free(bytes);
    }
    clcpack_close(key_pack);
    bench_device_close(&d);
    return rc;
}

/* Runs one child and reads its line. */
static int run(const char *self, const char *mode, const char *pack, long entry,
               const options *o, double v[4])
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' --child %s '%s' %ld '%s' '%s'", self, mode, pack, entry,
             o->device ? o->device : "", o->platform ? o->platform : "");
    FILE *f = popen(cmd, "r");
    if (!f)
        return -1;
    int want = strcmp(mode, "loader") == 0 ? 4 : 1;
    int got = want == 4 ? fscanf(f, "%lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3])
                        : fscanf(f, "%lf", &v[0]);
    int status = pclose(f);
    return status == 0 && got == want ? 0 : -1;
}

static int parse_args(int argc, char **argv, options *o)
{
    static const struct option opts[] = {
        {"pack", required_argument, NULL, 'P'},     {"label", required_argument, NULL, 'l'},
        {"device", required_argument, NULL, 'd'},   {"platform", required_argument, NULL, 'p'},
        {"kernel", required_argument, NULL, 'k'},   {"reps", required_argument, NULL, 'r'},
        {"csv", required_argument, NULL, 'c'},      {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    o->reps = 11;
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'P':
            if (o->n_packs == MAX_PACKS)
                return 2;
            o->packs[o->n_packs++] = optarg;
            break;
        case 'l':
            if (o->n_labels == MAX_PACKS)
                return 2;
            o->labels[o->n_labels++] = optarg;
            break;
        case 'd': o->device = optarg; break;
        case 'p': o->platform = optarg; break;
        case 'k': o->kernel = optarg; break;
        case 'c': o->csv = optarg; break;
        case 'r': o->reps = strtol(optarg, NULL, 10); break;
        case 'h': usage(stdout); exit(0);
        default: return 2;
        }
    }
    if (optind != argc || o->n_packs == 0 || o->reps < 1 || o->reps > MAX_REPS)
        return 2;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 7 && strcmp(argv[1], "--child") == 0)
        return child(argv[2], argv[3], strtol(argv[4], NULL, 10), argv[5], argv[6]);
    options o;
    if (parse_args(argc, argv, &o) != 0) {
        usage(stderr);
        return 2;
    }
    const char *pc = getenv("POCL_KERNEL_CACHE"), *cc = getenv("CUDA_CACHE_DISABLE");
    if (!pc || strcmp(pc, "0") != 0 || !cc || strcmp(cc, "1") != 0)
        fprintf(stderr, "coldstart: note: run with POCL_KERNEL_CACHE=0 CUDA_CACHE_DISABLE=1 "
                        "(driver caches would make a binary load cheaper than it is)\n");
    FILE *csv = o.csv ? fopen(o.csv, "w") : NULL;
    if (o.csv && !csv) {
        fprintf(stderr, "coldstart: cannot write '%s'\n", o.csv);
        return 1;
    }
    if (csv)
        fprintf(csv, "pack,bytes,entries,key,entry,bare_ms,loader_ms,ratio,open_ms,create_ms,"
                     "own_ms,own_ratio,reps,round_ratio\n");
    printf("| pack | bytes | entries | key | bare driver call, ms | clcpack_open_file + "
           "clcpack_create_kernel, ms | ratio | ratio, median of rounds | of which open, ms | "
           "create_kernel, ms | loader's own work (open + read + decode), ms | (bare + own) / "
           "bare |\n"
           "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    int failed = 0;
    for (size_t k = 0; k < o.n_packs; k++) {
        const char *path = o.packs[k];
        clcpack *p = NULL;
        clcpack_error e;
        struct stat sb;
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "cat '%s' >/dev/null", path);
        if (stat(path, &sb) != 0 || system(cmd) != 0 ||
            clcpack_open_file(path, &p, &e) != CLCPACK_OK) {
            fprintf(stderr, "coldstart: cannot read '%s'\n", path);
            failed = 1;
            continue;
        }
        long key = pick_entry(p, o.kernel);
        char label[512] = "?";
        clcpack_entry_info ki = {.struct_size = sizeof ki};
        if (key >= 0 && clcpack_get_entry(p, (size_t)key, &ki) == CLCPACK_OK)
            bench_key_label(&ki, label, sizeof label);
        size_t n_entries = clcpack_entry_count(p);
        clcpack_close(p);
        if (key < 0) {
            fprintf(stderr, "coldstart: %s: no entry to load\n", path);
            failed = 1;
            continue;
        }
        double v[4], bare[MAX_REPS], total[MAX_REPS], open_ms[MAX_REPS], create[MAX_REPS],
            own[MAX_REPS], round_ratio[MAX_REPS];
        /* A first loader run finds which entry the loader uses here. */
        if (run(argv[0], "loader", path, key, &o, v) != 0) {
            fprintf(stderr, "coldstart: %s: the loader run failed\n", path);
            printf("| %s | %lld | %zu | %s | the loader found no form for this device | | | | | | | |\n",
                   k < o.n_labels ? o.labels[k] : path, (long long)sb.st_size, n_entries, label);
            failed = 1;
            continue;
        }
        long used = (long)v[3];
        int ok = 1;
        for (long r = 0; ok && r < o.reps; r++) {
            double w[4];
            if (run(argv[0], "own", path, used, &o, w) != 0) {
                ok = 0;
                break;
            }
            own[r] = w[0];
            for (int half = 0; ok && half < 2; half++) {
                int loader = (half + (int)r) % 2 == 0;
                if (run(argv[0], loader ? "loader" : "bare", path, loader ? key : used, &o, w) != 0) {
                    ok = 0;
                    break;
                }
                if (loader) {
                    total[r] = w[0];
                    open_ms[r] = w[1];
                    create[r] = w[2];
                } else {
                    bare[r] = w[0];
                }
            }
        }
        if (!ok) {
            fprintf(stderr, "coldstart: %s: a run failed\n", path);
            printf("| %s | %lld | %zu | %s | failed (stderr says why) | | | | | | | |\n",
                   k < o.n_labels ? o.labels[k] : path, (long long)sb.st_size, n_entries, label);
            failed = 1;
            continue;
        }
        size_t n = (size_t)o.reps;
        for (size_t r = 0; r < n; r++)
            round_ratio[r] = bare[r] > 0 ? total[r] / bare[r] : 0;
        double mr = bench_median(round_ratio, n);
        double mb = bench_median(bare, n), ml = bench_median(total, n);
        double mo = bench_median(open_ms, n), mc = bench_median(create, n);
        double mw = bench_median(own, n);
        const char *name = k < o.n_labels ? o.labels[k] : path;
        printf("| %s | %lld | %zu | %s | %.2f | %.2f | %.2fx | %.2fx | %.3f | %.2f | %.3f | %.2fx "
               "|\n",
               name, (long long)sb.st_size, n_entries, label, mb, ml, ml / mb, mr, mo, mc, mw,
               (mb + mw) / mb);
        if (csv)
            fprintf(csv,
                    "\"%s\",%lld,%zu,\"%s\",%ld,%.4f,%.4f,%.3f,%.4f,%.4f,%.4f,%.3f,%ld,%.3f\n",
                    name, (long long)sb.st_size, n_entries, label, used, mb, ml, ml / mb, mo, mc,
                    mw, (mb + mw) / mb, o.reps, mr);
        fflush(stdout);
    }
    if (csv)
        fclose(csv);
    return failed;
}
