/*
 * hardening — what packs made to be expensive cost a reader, and how fast
 * the writer is with many entries (docs/FORMAT.md, "Threat model"):
 *
 *   hardening [--dir DIR] [--sparse-gib N] [--junk-gib N] [--chain-mib N]
 *             [--entries N] [--csv FILE]
 *
 *  - open: clcpack_open_file of a valid pack with an N GiB hole before its
 *    index (a sparse file made here, default 4 GiB), and of a sparse file
 *    that is not a pack (default 8 GiB): wall time and the peak resident
 *    memory of the process that opened it;
 *  - decode: a crafted pack whose 8-long delta chain of N MiB entries
 *    (default 64) shares one small zlib blob: open and read the last
 *    entry, then every entry in turn: wall time and peak memory;
 *  - write: clcpack_writer_write_file of N entries (default 100000) of
 *    64-byte binaries, distinct keys in two kernels: add and write time,
 *    peak memory.
 * Wall and CPU time (user + system) are both shown: on a shared machine
 * the CPU time is the steadier figure. Each measurement runs in a fresh
 * child process, so one's memory does not
 * count in the next. Files go to DIR (default /tmp), removed after.
 * Prints a markdown table to stdout; exit status 0, 1 when a measurement
 * failed, 2 on a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../common/hostile_pack.h"
#include "clcpack_write.h"

typedef struct result {
    int ok;
    double ms;
    double cpu_ms;     /* user + system time of the measuring process */
    long peak_kib;     /* growth of the peak resident memory */
    char note[1200];
} result;

typedef struct options {
    const char *dir, *csv;
    unsigned long long sparse_gib, junk_gib, chain_mib, entries;
} options;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static double cpu_ms(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

/* Runs fn in a child; the child fills the result and sends it back. */
static result in_child(void (*fn)(const options *, result *), const options *o)
{
    result r;
    memset(&r, 0, sizeof r);
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(r.note, sizeof r.note, "pipe: %s", strerror(errno));
        return r;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        result c;
        memset(&c, 0, sizeof c);
        fn(o, &c);
        ssize_t n = write(fds[1], &c, sizeof c);
        _exit(n == (ssize_t)sizeof c ? 0 : 1);
    }
    close(fds[1]);
    if (pid < 0 || read(fds[0], &r, sizeof r) != (ssize_t)sizeof r) {
        memset(&r, 0, sizeof r);
        snprintf(r.note, sizeof r.note, "the measuring process failed");
    }
    close(fds[0]);
    if (pid > 0)
        waitpid(pid, NULL, 0);
    return r;
}

static void open_sparse(const options *o, result *r)
{
    char path[512];
    snprintf(path, sizeof path, "%s/hardening-%ld.clcpack", o->dir, (long)getpid());
    if (hostile_sparse_pack(path, o->sparse_gib << 30) != 0) {
        snprintf(r->note, sizeof r->note, "cannot write %s", path);
        return;
    }
    size_t start = hostile_peak_rss_kib();
    double t = now_ms(), c0 = cpu_ms();
    clcpack *p = NULL;
    clcpack_error e;
    clcpack_status st = clcpack_open_file(path, &p, &e);
    r->ms = now_ms() - t;
    r->cpu_ms = cpu_ms() - c0;
    r->peak_kib = (long)(hostile_peak_rss_kib() - start);
    r->ok = st == CLCPACK_OK && clcpack_entry_count(p) == 1;
    snprintf(r->note, sizeof r->note, "%s", r->ok ? "opened" : e.message);
    clcpack_close(p);
    unlink(path);
}

static void open_not_a_pack(const options *o, result *r)
{
    char path[512];
    snprintf(path, sizeof path, "%s/hardening-%ld.bin", o->dir, (long)getpid());
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ftruncate(fd, (off_t)o->junk_gib << 30) != 0) {
        snprintf(r->note, sizeof r->note, "cannot make %s", path);
        if (fd >= 0)
            close(fd);
        return;
    }
    close(fd);
    size_t start = hostile_peak_rss_kib();
    double t = now_ms(), c0 = cpu_ms();
    clcpack *p = NULL;
    clcpack_error e;
    clcpack_status st = clcpack_open_file(path, &p, &e);
    r->ms = now_ms() - t;
    r->cpu_ms = cpu_ms() - c0;
    r->peak_kib = (long)(hostile_peak_rss_kib() - start);
    r->ok = st == CLCPACK_E_FORMAT;
    snprintf(r->note, sizeof r->note, "%s", st == CLCPACK_OK ? "opened?" : clcpack_strerror(st));
    clcpack_close(p);
    unlink(path);
}

/* Reads the chain pack's last entry (first == 1) or every entry. */
static void decode_chain(const options *o, result *r, int last_only)
{
    size_t size;
    uint64_t raw = o->chain_mib << 20;
    uint8_t *pack = hostile_chain_pack(8, 8, raw, 1, &size);
    uint8_t *buf = malloc((size_t)raw);
    if (!pack || !buf) {
        snprintf(r->note, sizeof r->note, "out of memory making the pack");
        return;
    }
    memset(buf, 0, (size_t)raw);
    size_t start = hostile_peak_rss_kib();
    double t = now_ms(), c0 = cpu_ms();
    clcpack *p = NULL;
    clcpack_error e;
    clcpack_status st = clcpack_open_memory(pack, size, &p, &e);
    size_t n = st == CLCPACK_OK ? clcpack_entry_count(p) : 0;
    for (size_t i = last_only ? 7 : 0; st == CLCPACK_OK && i < (last_only ? 8 : n); i++) {
        size_t got;
        st = clcpack_read_binary(p, i, buf, (size_t)raw, &got, &e);
    }
    r->ms = now_ms() - t;
    r->cpu_ms = cpu_ms() - c0;
    r->peak_kib = (long)(hostile_peak_rss_kib() - start);
    r->ok = st == CLCPACK_OK;
    snprintf(r->note, sizeof r->note, "%zu-byte pack, %s", size, r->ok ? "decoded" : e.message);
    clcpack_close(p);
    free(buf);
    free(pack);
}

static void decode_last(const options *o, result *r) { decode_chain(o, r, 1); }
static void decode_all(const options *o, result *r) { decode_chain(o, r, 0); }

static void write_many(const options *o, result *r)
{
    char path[512];
    snprintf(path, sizeof path, "%s/hardening-%ld-w.clcpack", o->dir, (long)getpid());
    size_t start = hostile_peak_rss_kib();
    double t = now_ms(), c0 = cpu_ms();
    clcpack_writer *w = NULL;
    clcpack_error e;
    clcpack_status st = clcpack_writer_new(0, &w, &e);
    clcpack_device_info d = {.struct_size = sizeof d};
    memset(&d, 0, sizeof d);
    d.struct_size = sizeof d;
    snprintf(d.platform_name, sizeof d.platform_name, "Bench");
    snprintf(d.device_name, sizeof d.device_name, "bench device");
    d.device_type = CL_DEVICE_TYPE_CPU;
    uint32_t dev = 0;
    if (st == CLCPACK_OK)
        st = clcpack_writer_add_device(w, &d, &dev, &e);
    uint8_t bin[64];
    for (unsigned long long i = 0; st == CLCPACK_OK && i < o->entries; i++) {
        char value[32];
        snprintf(value, sizeof value, "%llu", i);
        clcpack_define def = {"N", value};
        for (size_t k = 0; k < sizeof bin; k++)
            bin[k] = (uint8_t)(k < 8 ? i >> (8 * k) : k * 31);
        clcpack_entry_spec s;
        memset(&s, 0, sizeof s);
        s.struct_size = sizeof s;
        s.kernel = i % 2 ? "odd" : "even";
        s.defines = &def;
        s.define_count = 1;
        s.device = dev;
        s.source = CLCPACK_NONE;
        s.kind = CLCPACK_KIND_NATIVE;
        s.binary = bin;
        s.binary_size = sizeof bin;
        st = clcpack_writer_add_entry(w, &s, &e);
    }
    double t_add = now_ms() - t;
    if (st == CLCPACK_OK)
        st = clcpack_writer_write_file(w, path, &e);
    r->ms = now_ms() - t;
    r->cpu_ms = cpu_ms() - c0;
    r->peak_kib = (long)(hostile_peak_rss_kib() - start);
    r->ok = st == CLCPACK_OK;
    if (r->ok)
        snprintf(r->note, sizeof r->note, "adding took %.0f ms", t_add);
    else
        snprintf(r->note, sizeof r->note, "%s", e.message);
    clcpack_writer_free(w);
    unlink(path);
}

static void usage(FILE *f)
{
    fputs("usage: hardening [--dir DIR] [--sparse-gib N] [--junk-gib N] [--chain-mib N] "
          "[--entries N] [--csv FILE]\n",
          f);
}

static int parse_num(const char *s, unsigned long long max, unsigned long long *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || v == 0 || v > max)
        return -1;
    *out = v;
    return 0;
}

int main(int argc, char **argv)
{
    options o = {"/tmp", NULL, 4, 8, 64, 100000};
    static const struct option opts[] = {{"dir", required_argument, NULL, 'd'},
                                         {"sparse-gib", required_argument, NULL, 's'},
                                         {"chain-mib", required_argument, NULL, 'c'},
                                         {"junk-gib", required_argument, NULL, 'j'},
                                         {"entries", required_argument, NULL, 'n'},
                                         {"csv", required_argument, NULL, 'o'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        int bad = 0;
        switch (c) {
        case 'd': o.dir = optarg; break;
        case 's': bad = parse_num(optarg, 1024, &o.sparse_gib); break;
        case 'c': bad = parse_num(optarg, 1024, &o.chain_mib); break;
        case 'j': bad = parse_num(optarg, 1024, &o.junk_gib); break;
        case 'n': bad = parse_num(optarg, 10000000, &o.entries); break;
        case 'o': o.csv = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
        if (bad) {
            fprintf(stderr, "hardening: bad value '%s' for --%s\n", optarg,
                    c == 's' ? "sparse-gib" : c == 'c' ? "chain-mib" : c == 'j' ? "junk-gib" : "entries");
            return 2;
        }
    }
    if (optind != argc) {
        usage(stderr);
        return 2;
    }
    struct {
        const char *what;
        void (*fn)(const options *, result *);
        char label[96];
    } runs[] = {
        {"open", open_sparse, ""},
        {"open", open_not_a_pack, ""},
        {"decode", decode_last, ""},
        {"decode", decode_all, ""},
        {"write", write_many, ""},
    };
    snprintf(runs[0].label, sizeof runs[0].label, "valid pack with a %llu GiB hole", o.sparse_gib);
    snprintf(runs[1].label, sizeof runs[1].label, "%llu GiB sparse file, not a pack", o.junk_gib);
    snprintf(runs[2].label, sizeof runs[2].label, "chain of 8 x %llu MiB, the last entry",
             o.chain_mib);
    snprintf(runs[3].label, sizeof runs[3].label, "chain of 8 x %llu MiB + 8, every entry",
             o.chain_mib);
    snprintf(runs[4].label, sizeof runs[4].label, "%llu entries to a file", o.entries);
    FILE *csv = o.csv ? fopen(o.csv, "w") : NULL;
    if (o.csv && !csv) {
        fprintf(stderr, "hardening: cannot write '%s': %s\n", o.csv, strerror(errno));
        return 1;
    }
    if (csv)
        fprintf(csv, "what,case,ok,ms,cpu_ms,peak_rss_growth_kib,note\n");
    printf("| what | case | wall ms | CPU ms | peak RSS growth MiB | result |\n"
           "|---|---|---:|---:|---:|---|\n");
    int failed = 0;
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        result r = in_child(runs[i].fn, &o);
        failed |= !r.ok;
        printf("| %s | %s | %.1f | %.1f | %.1f | %s%s |\n", runs[i].what, runs[i].label, r.ms,
               r.cpu_ms, (double)r.peak_kib / 1024.0, r.ok ? "" : "FAILED: ", r.note);
        if (csv)
            fprintf(csv, "%s,\"%s\",%d,%.3f,%.3f,%ld,\"%s\"\n", runs[i].what, runs[i].label,
                    r.ok, r.ms, r.cpu_ms, r.peak_kib, r.note);
        fflush(stdout);
    }
    if (csv)
        fclose(csv);
    return failed;
}
