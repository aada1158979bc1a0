/* cmd_cache.c — `clc-pack cache stats|clear`: what the variant cache
 * holds (its folder, entries, bytes, bound and the hits and misses counted
 * over the runs), or removing every entry (docs/CACHE.md, "The variant
 * cache"). The folder is the one a pack run would use; the command works
 * also while the cache is turned off, so that its files can be seen and
 * removed. */
#include "commands.h"

#include <inttypes.h>
#include <string.h>

#include "cli_opts.h"
#include "cli_report.h"
#include "lcache.h"
#include "lcache_blob.h"
#include "lcache_space.h"
#include "pack_run.h"

typedef struct cache_args {
    int unused;
} cache_args;

static const cli_opt cache_opts[] = {
    OPT_HELP,
};

const cli_optspec cache_optspec = {"cache", cache_opts, sizeof cache_opts / sizeof cache_opts[0], 0, 17};

/* "1.0 GiB (1073741824 bytes)". */
static void both_sizes(uint64_t n, char *out, size_t cap)
{
    char h[32];
    pack_cache_human_size(n, h, sizeof h);
    if (n < 1024)
        bfmt(out, cap, "%s", h);
    else
        bfmt(out, cap, "%s (%" PRIu64 " bytes)", h, n);
}

static int stats(const char *folder, const char *from, uint64_t bound, const char *bound_from)
{
    lcache_space_usage u;
    char err[LCACHE_SPACE_ERR_MAX], bytes[64], cap[64];
    if (lcache_space_usage_of(folder, &u, err) != 0) {
        cli_error("%s", err);
        return EXIT_FAILURE_STATUS;
    }
    uint64_t hits, misses;
    lcache_space_counts(folder, &hits, &misses);
    both_sizes(u.bytes, bytes, sizeof bytes);
    both_sizes(bound, cap, sizeof cap);
    printf("location  %s (from %s)\n", folder, from);
    printf("state     %s\n", lcache_env_off() ? "off (CLC_PACK_NO_CACHE)" : "on");
    printf("entries   %zu\n", u.entries);
    printf("bytes     %s\n", bytes);
    printf("bound     %s, %s\n", cap, bound_from);
    printf("hits      %" PRIu64 "\n", hits);
    printf("misses    %" PRIu64 "\n", misses);
    return EXIT_OK_STATUS;
}

static int clear(const char *folder)
{
    lcache_space_usage gone;
    char err[LCACHE_SPACE_ERR_MAX], bytes[64];
    int rc = lcache_space_clear(folder, &gone, err);
    pack_cache_human_size(gone.bytes, bytes, sizeof bytes);
    printf("removed %zu entr%s (%s) from %s\n", gone.entries, gone.entries == 1 ? "y" : "ies",
           bytes, folder);
    /* The encoder's results (lcache_blob.h) go with the variants. */
    char blobs[4200];
    bfmt(blobs, sizeof blobs, "%s/%s", folder, LCACHE_BLOB_SUBFOLDER);
    if (rc == 0 && (rc = lcache_space_clear(blobs, &gone, err)) == 0 && gone.entries) {
        pack_cache_human_size(gone.bytes, bytes, sizeof bytes);
        printf("removed %zu encoder result%s (%s) from %s\n", gone.entries,
               gone.entries == 1 ? "" : "s", bytes, blobs);
    }
    if (rc != 0) {
        cli_error("%s", err);
        return EXIT_FAILURE_STATUS;
    }
    return EXIT_OK_STATUS;
}

int cmd_cache(int argc, char **argv)
{
    cache_args a = {0};
    int operand;
    int rc = cli_opts_run(&cache_optspec, usage_cache, argc, argv, &a, &operand);
    if (rc != CLI_OPTS_GO)
        return rc;
    if (operand != argc - 1)
        return cli_usage_error("cache", "cache: expected stats or clear, got %d arguments",
                               argc - operand);
    const char *what = argv[operand];
    if (strcmp(what, "stats") != 0 && strcmp(what, "clear") != 0)
        return cli_usage_error("cache", "cache: '%s': expected stats or clear", what);
    uint64_t bound;
    const char *bound_from;
    if ((rc = pack_cache_bound("cache", &bound, &bound_from)) != 0)
        return rc;
    char folder[4096];
    const char *from;
    if (lcache_folder(folder, sizeof folder, &from) != 0) {
        cli_error("cache: no folder: set CLC_PACK_CACHE_DIR, XDG_CACHE_HOME or HOME to an "
                  "absolute path");
        return EXIT_FAILURE_STATUS;
    }
    return strcmp(what, "stats") == 0 ? stats(folder, from, bound, bound_from) : clear(folder);
}
