/* pack_outputs.c — what a pack build leaves behind (pack_run.h): the
 * output's default name, --merge, the depfile, and the summary read back
 * from the written pack. */
#include "pack_run.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_report.h"
#include "depfile.h"
#include "pack_merge.h"

/* packs/<slug>.clcpack; creates packs/ when missing. */
int pack_default_output(const pack_run *run, char *out, size_t cap)
{
    char slug[DEVICE_SELECT_SLUG_MAX];
    if (run->slots->n_dev == 1)
        device_select_slug(run->slots->devs[0]->name, slug);
    else
        bfmt(slug, sizeof slug, run->slots->n_dev ? "all-devices" : "offline");
    if (mkdir("packs", 0777) != 0 && errno != EEXIST) {
        cli_error("cannot create the folder packs: %s", strerror(errno));
        return -1;
    }
    bfmt(out, cap, "packs/%s.clcpack", slug);
    return 0;
}

static void format_bytes(uint64_t n, char *buf, size_t cap)
{
    if (n < 10 * 1024)
        bfmt(buf, cap, "%llu bytes", (unsigned long long)n);
    else if (n < 10ull * 1024 * 1024)
        bfmt(buf, cap, "%llu bytes (%.1f KiB)", (unsigned long long)n, (double)n / 1024);
    else
        bfmt(buf, cap, "%llu bytes (%.1f MiB)", (unsigned long long)n,
             (double)n / (1024.0 * 1024.0));
}

/* The summary's tuning and checks lines: how many variants were timed,
 * and how many of those with a check command passed it (said out loud, so
 * that a check that never ran cannot pass unseen; a variant with a check
 * command is always built, never reused unchecked). */
static void print_timed_checked(const pack_run *run)
{
    if (run->a->tune)
        printf("  tuning    %zu of %zu variants timed at %ux%u, median of %ld runs\n",
               run->work->n_timed, run->work->n_ok, run->a->tune_width, run->a->tune_height,
               run->a->tune_runs);
    else if (run->in->user_timings)
        printf("  tuning    %zu of %zu variants timed by --tune-cmd\n", run->work->n_timed, run->work->n_ok);
    if (run->in->n_check_variants)
        printf("  checks    %zu of %zu variants passed --check-cmd\n", run->work->n_checked,
               run->in->n_check_variants * run->slots->n_slots);
}

/* Reads the written pack back: the summary reports what is in the file. */
void pack_print_summary(const pack_run *run, const char *path, double wall_s, int written)
{
    if (cli_verbosity < 0)
        return;
    uint64_t raw_bin = 0, raw_src = 0, file_size = 0;
    size_t n_entries = 0, by_kind[CLCPACK_KIND_SPIRV + 1] = {0}; /* reused ones count too */
    char sha[2 * CLCPACK_SHA256_SIZE + 1] = "";
    if (written) {
        clcpack *p = NULL;
        clcpack_error e;
        if (clcpack_open_file(path, &p, &e) != CLCPACK_OK) {
            cli_error("reading the pack back failed: %s", e.message);
        } else {
            n_entries = clcpack_entry_count(p);
            for (size_t i = 0; i < n_entries; i++) {
                clcpack_entry_info ei = {.struct_size = sizeof ei};
                if (clcpack_get_entry(p, i, &ei) == CLCPACK_OK) {
                    raw_bin += ei.raw_size;
                    if ((unsigned)ei.kind <= CLCPACK_KIND_SPIRV)
                        by_kind[ei.kind]++;
                }
            }
            for (size_t i = 0; i < clcpack_source_count(p); i++) {
                clcpack_source_info si = {.struct_size = sizeof si};
                if (clcpack_get_source(p, i, &si) == CLCPACK_OK)
                    raw_src += si.raw_size;
            }
            uint8_t digest[CLCPACK_SHA256_SIZE];
            if (clcpack_pack_sha256(p, digest) == CLCPACK_OK)
                for (size_t k = 0; k < sizeof digest; k++)
                    snprintf(sha + 2 * k, 3, "%02x", digest[k]);
            clcpack_close(p);
        }
        struct stat st;
        if (stat(path, &st) == 0)
            file_size = (uint64_t)st.st_size;
    }
    char wall[32], b1[64], b2[64], b3[64], b4[64];
    progress_format_duration(wall_s, wall, sizeof wall);
    size_t total = run->work->n_jobs;
    if (written)
        printf("wrote %s\n", path);
    else
        printf("nothing written\n");
    printf("  variants  %zu built, %zu failed",
           run->work->n_ok - run->work->n_reused - run->cache->n_hits - run->cache->n_local_hits, run->work->n_failed);
    if (run->work->n_reused)
        printf(", %zu reused from the old pack", run->work->n_reused);
    if (run->cache->n_local_hits)
        printf(", %zu from the local cache", run->cache->n_local_hits);
    if (run->cache->n_hits)
        printf(", %zu fetched from the remote cache", run->cache->n_hits);
    printf(", of %zu\n", total);
    if (run->cache->remote_url)
        printf("  remote    %zu hits, %zu misses, %zu uploaded, %zu rejected, %zu request "
               "errors (%s%s)\n",
               run->cache->n_hits, run->cache->n_misses, run->cache->n_uploaded, run->cache->n_rejected,
               run->cache->n_request_errors, run->cache->remote_url, run->cache->remote_readonly ? ", read-only" : "");
    pack_cache_summary(run);
    if (run->a->shard.n)
        printf("  shard     %u/%u: %zu of %zu variants (%.1f %% of the estimated cost)\n",
               run->a->shard.k, run->a->shard.n, run->in->plan->n, run->in->shard_total,
               100.0 * run->in->shard_share);
    printf("  devices   %zu:", run->slots->n_slots);
    for (size_t i = 0; i < run->slots->n_slots; i++)
        printf("%s %s", i ? "," : "", run->slots->slot_name[i]);
    printf("\n");
    if (written) {
        printf("  entries   %zu (native %zu, ptx %zu, cubin %zu", n_entries,
               by_kind[CLCPACK_KIND_NATIVE], by_kind[CLCPACK_KIND_PTX], by_kind[CLCPACK_KIND_CUBIN]);
        if (by_kind[CLCPACK_KIND_INTEL] || by_kind[CLCPACK_KIND_AMDGCN] ||
            by_kind[CLCPACK_KIND_SPIRV])
            printf(", intel %zu, amdgcn %zu, spirv %zu", by_kind[CLCPACK_KIND_INTEL],
                   by_kind[CLCPACK_KIND_AMDGCN], by_kind[CLCPACK_KIND_SPIRV]);
        printf(")\n");
        format_bytes(raw_bin + raw_src, b1, sizeof b1);
        format_bytes(raw_bin, b2, sizeof b2);
        format_bytes(raw_src, b3, sizeof b3);
        printf("  raw       %s: binaries %s, sources %s\n", b1, b2, b3);
        format_bytes(file_size, b4, sizeof b4);
        printf("  pack      %s, ratio %.1f:1\n", b4,
               file_size ? (double)(raw_bin + raw_src) / (double)file_size : 0.0);
        if (sha[0])
            printf("  sha256    %s\n", sha);
    }
    printf("  time      %s wall (%.1f s), -j %ld, %.1f s of builds\n", wall, wall_s, run->a->jobs,
           run->work->build_s);
    print_timed_checked(run);
    if (run->work->n_failed) {
        printf("  failed:\n");
        for (size_t j = 0; j < run->work->n_jobs; j++) {
            if (!run->work->fail_reason[j][0])
                continue;
            char label[LABEL_MAX];
            pack_job_label(run, j, label, sizeof label);
            printf("    %s (%s)\n", label, run->work->fail_reason[j]);
        }
    }
    fflush(stdout);
}

/* -MD / --depfile: the pack depends on every file its jobs were made from
 * (the manifest, each source and every file it includes: plan->read). */
int pack_write_depfile(const pack_args *a, const build_job_list *plan, const char *output)
{
    char path[4200];
    if (a->depfile)
        bfmt(path, sizeof path, "%s", a->depfile);
    else
        bfmt(path, sizeof path, "%s.d", output);
    if (plan->read_failed) {
        cli_error("%s: out of memory listing the files read", path);
        return -1;
    }
    depfile_list deps;
    depfile_init(&deps);
    for (size_t i = 0; i < plan->n_read; i++)
        depfile_add(&deps, plan->read[i]);
    char werr[4400];
    const char *target = a->depfile_target ? a->depfile_target : output;
    int rc = depfile_write(&deps, target, path, werr, sizeof werr);
    if (rc != 0)
        cli_error("%s", werr);
    depfile_free(&deps);
    return rc;
}

/* --merge: the built pack (at built, removed here) and every --merge pack,
 * its PTX entries first given cubins for --nv-arch when ptxas is known
 * (as `clc-pack retarget` does), merged into output. 0, or -1 after a
 * message (output untouched). */
int pack_merge_into(const pack_args *a, const char *built, const char *output,
                      const char *ptxas)
{
    const char *inputs[1 + PACK_ARGS_MAX_MERGE];
    char temp[PACK_ARGS_MAX_MERGE][4200];
    size_t n = 0;
    int rc = 0;
    inputs[n++] = built;
    for (size_t i = 0; i < a->n_merge && rc == 0; i++) {
        temp[i][0] = '\0';
        inputs[n++] = a->merge[i];
        clcpack *p = NULL;
        clcpack_error e;
        if (clcpack_open_file(a->merge[i], &p, &e) != CLCPACK_OK) {
            cli_error("--merge %s: %s", a->merge[i], e.message);
            rc = -1;
            break;
        }
        int has_ptx = 0;
        for (size_t k = 0; k < clcpack_entry_count(p); k++) {
            clcpack_entry_info ei = {.struct_size = sizeof ei};
            has_ptx |= clcpack_get_entry(p, k, &ei) == CLCPACK_OK && ei.kind == CLCPACK_KIND_PTX;
        }
        clcpack_close(p);
        if (!has_ptx || !ptxas[0])
            continue;
        bfmt(temp[i], sizeof temp[i], "%s.merge%zu.%ld", output, i, (long)getpid());
        uint32_t cubins = (a->compress_cubins ? CLCPACK_WRITE_COMPRESS_CUBINS : 0) |
                          (a->store_cubins ? CLCPACK_WRITE_STORE_CUBINS : 0);
        if (pack_retarget_file(a->merge[i], temp[i], &a->nv_archs, ptxas, cubins, a->codec,
                          a->jobs) != EXIT_OK_STATUS)
            rc = -1;
        else
            inputs[n - 1] = temp[i];
    }
    if (rc == 0) {
        merge_args m;
        memset(&m, 0, sizeof m);
        m.output = output;
        m.compress_cubins = a->compress_cubins;
        m.store_cubins = a->store_cubins;
        m.codec = a->codec;
        m.inputs = inputs;
        m.n_inputs = n;
        m.threads = (unsigned)a->jobs;
        merge_stats st;
        rc = pack_merge_run(&m, &st) == EXIT_OK_STATUS ? 0 : -1;
    }
    unlink(built);
    for (size_t i = 0; i < a->n_merge; i++)
        if (i < n - 1 && temp[i][0])
            unlink(temp[i]);
    return rc;
}
