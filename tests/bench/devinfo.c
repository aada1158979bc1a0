/*
 * devinfo — the device the benchmarks run on, for scripts/bench.sh:
 *
 *   devinfo [--device SPEC] [--platform NAME] [--slug]
 *
 * Prints key=value lines (slug, name, platform, version, driver, type (CPU,
 * GPU, ...),
 * compute_units, clock_mhz, global_mem, compute_capability); with --slug,
 * only the slug, the name of the device's folder under docs/bench/ (the
 * one clc-pack names its default pack after). Exit status 0, 1 when the
 * device cannot be found, 2 on a usage error.
 */
#include <getopt.h>
#include <stdio.h>

#include "common/bench_device.h"

static void usage(FILE *f)
{
    fputs("usage: devinfo [--device SPEC] [--platform NAME] [--slug]\n", f);
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"device", required_argument, NULL, 'd'},
                                         {"platform", required_argument, NULL, 'p'},
                                         {"slug", no_argument, NULL, 's'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *spec = NULL, *platform = NULL;
    int slug_only = 0, c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': spec = optarg; break;
        case 'p': platform = optarg; break;
        case 's': slug_only = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc) {
        fprintf(stderr, "devinfo: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return 2;
    }
    bench_device d;
    char err[DEVICE_SELECT_ERR_MAX];
    if (bench_device_open(spec, platform, 0, &d, err) != 0) {
        fprintf(stderr, "devinfo: %s\n", err);
        return 1;
    }
    if (slug_only) {
        printf("%s\n", d.slug);
        return 0;
    }
    printf("slug=%s\nname=%s\nplatform=%s\nversion=%s\ndriver=%s\ntype=%s\n", d.slug, d.name,
           d.platform_name, d.version, d.driver, device_select_type_name(d.type));
    printf("compute_units=%u\nclock_mhz=%u\nglobal_mem=%llu\n", d.compute_units, d.clock_mhz,
           d.global_mem);
    if (d.nv_cc_major)
        printf("compute_capability=%u.%u\n", d.nv_cc_major, d.nv_cc_minor);
    return 0;
}
