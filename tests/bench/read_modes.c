/*
 * read_modes — how a fresh process should get a pack's bytes: the three
 * ways a loader can read a file, timed alone, without decoding anything.
 *
 *   read_modes --pack PACK [--blob BYTES[,BYTES...]] [--reps N]
 *
 * Each mode, in a fresh process (this program re-executed), opens the
 * file, checks the header and index CRC-32 as an open does, then gets
 * BYTES of payload (the blob a load decodes) and checks their CRC-32:
 *  - whole: read the whole file into a fresh buffer (what the loader did
 *    for packs up to 16 MiB);
 *  - mmap: map the file read-only and touch the index and the blob there
 *    (what it did for larger packs);
 *  - pread: read the index into a buffer, then only the blob (what it does
 *    now).
 * The file is read once before the runs, so the page cache is warm, as
 * for an application started a second time. Prints a markdown table of
 * medians in microseconds; exit status 0, 1 when the pack cannot be read,
 * 2 on a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "codec.h"
#include "crc32.h"
#include "common/bench_stats.h"

#define MAX_BLOBS 8

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static int read_all(int fd, void *buf, size_t n, off_t at)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, (uint8_t *)buf + got, n - got, at + (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    return 0;
}

/* One run of a mode in this process: prints "open_us blob_us crc". */
static int child(const char *mode, const char *path, size_t blob)
{
    volatile uint32_t sink = 0;
    double t0 = now_us();
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    uint8_t head[64];
    if (fd < 0 || fstat(fd, &sb) != 0 || read_all(fd, head, 64, 0) != 0)
        return 1;
    size_t size = (size_t)sb.st_size;
    uint64_t io = le64(head + 24), in = le64(head + 32);
    if (io + in > size || blob > io - 64)
        return 1;
    const uint8_t *index, *payload;
    uint8_t *whole = NULL, *ibuf = NULL, *bbuf = NULL;
    void *map = NULL;
    if (strcmp(mode, "whole") == 0) {
        whole = malloc(size);
        if (!whole || read_all(fd, whole, size, 0) != 0)
            return 1;
        index = whole + io;
    } else if (strcmp(mode, "mmap") == 0) {
        map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED)
            return 1;
        index = (const uint8_t *)map + io;
    } else {
        ibuf = malloc(in ? in : 1);
        if (!ibuf || read_all(fd, ibuf, in, (off_t)io) != 0)
            return 1;
        index = ibuf;
    }
    sink ^= clcpk_crc32(index, in);
    double t1 = now_us();
    if (whole) {
        payload = whole + 64;
    } else if (map) {
        payload = (const uint8_t *)map + 64;
    } else {
        bbuf = malloc(blob ? blob : 1);
        if (!bbuf || read_all(fd, bbuf, blob, 64) != 0)
            return 1;
        payload = bbuf;
    }
    sink ^= clcpk_crc32(payload, blob);
    double t2 = now_us();
    printf("%.3f %.3f %u\n", t1 - t0, t2 - t1, (unsigned)sink);
    free(whole);
    free(ibuf);
    free(bbuf);
    if (map)
        munmap(map, size);
    close(fd);
    return 0;
}

/* Runs `self --child MODE PATH BLOB` and reads its two timings. */
static int run_child(const char *self, const char *mode, const char *path, size_t blob,
                     double *open_us, double *blob_us)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' --child %s '%s' %zu", self, mode, path, blob);
    FILE *f = popen(cmd, "r");
    if (!f)
        return -1;
    unsigned crc;
    int ok = fscanf(f, "%lf %lf %u", open_us, blob_us, &crc) == 3;
    return pclose(f) == 0 && ok ? 0 : -1;
}

static void usage(FILE *f)
{
    fputs("usage: read_modes --pack PACK [--blob BYTES[,BYTES...]] [--reps N]\n", f);
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "--child") == 0)
        return child(argv[2], argv[3], (size_t)strtoull(argv[4], NULL, 10));
    const char *pack = NULL;
    size_t blobs[MAX_BLOBS] = {100 << 10, 1 << 20};
    size_t n_blobs = 2;
    long reps = 15;
    static const struct option opts[] = {{"pack", required_argument, NULL, 'p'},
                                         {"blob", required_argument, NULL, 'b'},
                                         {"reps", required_argument, NULL, 'r'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'p': pack = optarg; break;
        case 'b': {
            n_blobs = 0;
            for (char *s = optarg; *s && n_blobs < MAX_BLOBS;) {
                char *end;
                blobs[n_blobs++] = (size_t)strtoull(s, &end, 10);
                s = *end == ',' ? end + 1 : end;
                if (end == s && *end)
                    break;
            }
            break;
        }
        case 'r': reps = strtol(optarg, NULL, 10); break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (!pack || reps < 1 || reps > 1000 || optind != argc) {
        usage(stderr);
        return 2;
    }
    struct stat sb;
    if (stat(pack, &sb) != 0) {
        fprintf(stderr, "read_modes: cannot stat '%s'\n", pack);
        return 1;
    }
    /* Warm the page cache: every run reads from memory, as a second start does. */
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "cat '%s' >/dev/null", pack);
    if (system(cmd) != 0)
        return 1;
    static const char *modes[] = {"whole", "mmap", "pread"};
    printf("| pack bytes | blob bytes | mode | open: header + index, µs | blob, µs | total, µs |\n"
           "|---:|---:|---|---:|---:|---:|\n");
    for (size_t b = 0; b < n_blobs; b++) {
        double o[3][1000], l[3][1000], t[3][1000];
        for (long r = 0; r < reps; r++)
            for (int m = 0; m < 3; m++) {
                /* Rotate the order so no mode always runs first. */
                int k = (m + (int)r) % 3;
                if (run_child(argv[0], modes[k], pack, blobs[b], &o[k][r], &l[k][r]) != 0) {
                    fprintf(stderr, "read_modes: %s run failed\n", modes[k]);
                    return 1;
                }
                t[k][r] = o[k][r] + l[k][r];
            }
        for (int m = 0; m < 3; m++)
            printf("| %lld | %zu | %s | %.0f | %.0f | %.0f |\n", (long long)sb.st_size, blobs[b],
                   modes[m], bench_median(o[m], (size_t)reps), bench_median(l[m], (size_t)reps),
                   bench_median(t[m], (size_t)reps));
    }
    return 0;
}
