/* pack_cache.c — `clc-pack [pack]`'s side of its caches: the remote
 * cache's settings (docs/REMOTE_CACHE.md), and the variant cache
 * (docs/CACHE.md, "The variant cache"): its folder and bound from the
 * options and the environment, what each job's worker did with it (the
 * workers look up and store: build_worker.c), and at the end the bound
 * kept and the run's counts added. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli_report.h"
#include "lcache.h"
#include "lcache_space.h"
#include "make_dirs.h"
#include "pack_run.h"
#include "rcache.h"
#include "rcache_http.h"

/* Whether an environment variable says yes (1, yes, true, on). */
static int env_true(const char *name)
{
    const char *v = getenv(name);
    return v && (strcmp(v, "1") == 0 || strcasecmp(v, "yes") == 0 ||
                 strcasecmp(v, "true") == 0 || strcasecmp(v, "on") == 0);
}

/* The remote cache's URL (docs/REMOTE_CACHE.md): --remote-cache, else
 * CLC_PACK_REMOTE_CACHE, none with --no-remote-cache or an empty value,
 * its trailing '/' dropped, into *url (malloc'd, or NULL). A URL that
 * cannot be used is a usage error (its status returned); a clc-pack
 * without libcurl, or credentials that cannot be read, a note. */
static int remote_settings(const pack_args *a, char **url)
{
    *url = NULL;
    const char *from = "--remote-cache", *u = a->remote_cache;
    if (!u) {
        from = "CLC_PACK_REMOTE_CACHE";
        u = getenv(from);
    }
    if (a->no_remote_cache || !u || !*u)
        return 0;
    char err[600];
    if (rcache_http_check_url(u, err, sizeof err) != 0)
        return cli_usage_error(NULL, "%s: %s", from, err);
    if (!rcache_http_available()) {
        cli_note("%s: this clc-pack was built without libcurl (make CURL=0): no remote cache; "
                 "building every variant here",
                 from);
        return 0;
    }
    char bearer[RCACHE_CRED_MAX], userpwd[RCACHE_CRED_MAX], note[RCACHE_MSG_MAX];
    rcache_credentials(bearer, userpwd, note);
    memset(bearer, 0, sizeof bearer);
    memset(userpwd, 0, sizeof userpwd);
    if (note[0])
        cli_note("remote cache: %s", note);
    *url = strdup(u);
    if (!*url) {
        cli_error("out of memory");
        return EXIT_FAILURE_STATUS;
    }
    size_t n = strlen(*url);
    while (n > 0 && (*url)[n - 1] == '/')
        (*url)[--n] = '\0';
    return 0;
}

/* The remote cache's settings (docs/REMOTE_CACHE.md). 0, or the exit status. */
int pack_remote_setup(pack_run *run, const pack_args *a)
{
    int rc = remote_settings(a, &run->cache->remote_url_buf);
    if (rc != 0)
        return rc;
    run->cache->remote_url = run->cache->remote_url_buf;
    run->cache->remote_lookups = run->cache->remote_url && !a->tune && !run->in->user_timings; /* timings are taken while building */
    run->cache->remote_readonly = a->remote_readonly || env_true("CLC_PACK_REMOTE_CACHE_READONLY");
    run->cache->remote_timeout = a->remote_timeout;
    return 0;
}

int pack_cache_bound(const char *cmd, uint64_t *bound, const char **from)
{
    *bound = LCACHE_DEFAULT_BOUND;
    *from = "the default";
    const char *size = getenv("CLC_PACK_CACHE_SIZE");
    if (!size || !*size)
        return 0;
    if (lcache_parse_size(size, bound) != 0)
        return cli_usage_error(cmd,
                               "CLC_PACK_CACHE_SIZE=%s: expected a size above 0 (bytes, or "
                               "with K, M, G or T: 512M, 2G)",
                               size);
    *from = "CLC_PACK_CACHE_SIZE";
    return 0;
}

int pack_cache_setup(pack_run *run, const pack_args *a)
{
    const char *bound_from;
    int rc = pack_cache_bound(NULL, &run->cache->local_bound, &bound_from);
    if (rc != 0)
        return rc;
    if (a->no_cache || lcache_env_off())
        return 0;
    const char *from;
    if (lcache_folder(run->cache->local_dir, sizeof run->cache->local_dir, &from) != 0) {
        cli_note("variant cache: no folder (set CLC_PACK_CACHE_DIR, XDG_CACHE_HOME or HOME "
                 "to an absolute path): building without it");
        return 0;
    }
    /* A folder we cannot write costs this run its cache, never its build. */
    if (clcpk_make_dirs(run->cache->local_dir, 0700, 0700) != 0 ||
        access(run->cache->local_dir, R_OK | W_OK | X_OK) != 0) {
        cli_note("variant cache: cannot use %s (%s, from %s): building without it",
                 run->cache->local_dir, strerror(errno), from);
        run->cache->local_dir[0] = '\0';
        return 0;
    }
    run->cache->local_lookups = !a->tune && !run->in->user_timings; /* timings are taken while building */
    return 0;
}

void pack_cache_outcome(pack_run *run, const build_variant_result *r, const char *label)
{
    int say = cli_verbosity >= 0;
    const char *why = r->local_note ? r->local_note : "no reason given";
    switch (r->local) {
    case BUILD_VARIANT_REMOTE_HIT:
        run->cache->n_local_hits += r->status == BUILD_VARIANT_OK;
        break;
    case BUILD_VARIANT_REMOTE_MISS:
        run->cache->n_local_misses++;
        break;
    case BUILD_VARIANT_REMOTE_REJECTED:
    case BUILD_VARIANT_REMOTE_RETRY:
        run->cache->n_local_rejected++;
        pack_cache_refused(run, "local", label, why, r->local == BUILD_VARIANT_REMOTE_RETRY);
        break;
    case BUILD_VARIANT_REMOTE_FAILED:
    case BUILD_VARIANT_REMOTE_NONE:
        break;
    }
    run->cache->n_local_stored += r->local_stored != 0;
    /* A full disk says so once, not once per variant. */
    if (!r->local_stored && r->local_note && r->status == BUILD_VARIANT_OK &&
        (r->local == BUILD_VARIANT_REMOTE_MISS || r->local == BUILD_VARIANT_REMOTE_NONE) && say &&
        !run->cache->said_local_store_error) {
        progress_clear(&run->rep->prog);
        fprintf(stderr, "clc-pack: local cache: %s not stored: %s\n", label, r->local_note);
        run->cache->said_local_store_error = 1;
    }
}

void pack_cache_finish(pack_run *run)
{
    if (!run->cache->local_dir[0])
        return;
    char err[LCACHE_SPACE_ERR_MAX];
    lcache_space_usage gone;
    if (lcache_space_evict(run->cache->local_dir, run->cache->local_bound, &gone, err) != 0)
        cli_note("variant cache: %s", err);
    else if (gone.entries && cli_verbosity > 0)
        fprintf(stderr, "clc-pack: local cache: removed %zu least recently used entries (%llu bytes)\n",
                gone.entries, (unsigned long long)gone.bytes);
    if (lcache_space_count(run->cache->local_dir, run->cache->n_local_hits, run->cache->n_local_misses, err) != 0)
        cli_note("variant cache: %s", err);
    if (lcache_space_usage_of(run->cache->local_dir, &run->cache->local_usage, err) != 0)
        memset(&run->cache->local_usage, 0, sizeof run->cache->local_usage);
}

void pack_cache_human_size(uint64_t n, char *out, size_t cap)
{
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)n;
    size_t u = 0;
    while (v >= 1024 && u + 1 < sizeof units / sizeof units[0]) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(out, cap, "%llu bytes", (unsigned long long)n);
    else
        snprintf(out, cap, "%.1f %s", v, units[u]);
}

void pack_cache_summary(const pack_run *run)
{
    if (!run->cache->local_dir[0])
        return;
    char used[32], bound[32];
    pack_cache_human_size(run->cache->local_usage.bytes, used, sizeof used);
    pack_cache_human_size(run->cache->local_bound, bound, sizeof bound);
    printf("  local     %zu hits, %zu misses, %zu stored, %zu rejected (%s, %s of %s)\n",
           run->cache->n_local_hits, run->cache->n_local_misses, run->cache->n_local_stored, run->cache->n_local_rejected,
           run->cache->local_dir, used, bound);
}

void pack_cache_free(pack_run_caches *cache)
{
    if (!cache)
        return;
    free(cache->remote_url_buf);
    free(cache);
}
