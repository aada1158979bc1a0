/* build_worker.c — a build worker's jobs (build_worker.h). */
#include "build_worker.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bounded_fmt.h"
#include "lcache.h"
#include "make_dirs.h"
#include "offline_targets_id.h"
#include "ptxas_run.h"
#include "rcache_key.h"
#include "temp_tree.h"
#include "worker_proto.h"

/* Room for an offline toolchain's identity and target list: the device
 * libraries' folder names a few dozen files. */
#define OFFLINE_KEY_ID_MAX (64u << 10)

void build_worker_init(build_worker *w)
{
    memset(w, 0, sizeof *w);
    spare_inherit(&w->spare);
    build_variant_default_options(&w->opts);
    w->remote_config.timeout_s = 10;
    w->load_local_hits = lcache_env_load_hits();
}

/* The context of slot's device, made for the first job that builds or
 * loads (a local hit needs none): 0, or -1 with r failed. */
static int need_context(build_worker *w, uint32_t slot, build_variant_result *r)
{
    char err[BUILD_WORKER_ERR_MAX];
    if (build_variant_target_context(&w->targets[slot], err, sizeof err) == 0)
        return 0;
    build_variant_result_free(r);
    r->status = BUILD_VARIANT_ERROR;
    r->message = strdup(err);
    return -1;
}

/* The remote cache's key text of job on slot (rcache_key.h), malloc'd, or
 * NULL (no fingerprint, no memory: then the cache is not used for it). */
static char *key_text(build_worker *w, uint32_t slot, const build_job *job, size_t *len)
{
    build_variant_target *t = &w->targets[slot];
    if (!w->have_info[slot]) {
        clcpack_error e;
        w->dev_info[slot].struct_size = sizeof w->dev_info[slot];
        if (clcpack_device_query(t->device, &w->dev_info[slot], &e) != CLCPACK_OK)
            return NULL;
        w->have_info[slot] = 1;
    }
    rcache_key_target kt = {&w->dev_info[slot], "native", "", "", w->opts.warmup,
                            w->opts.pocl_small_grids, NULL, NULL};
    char archs[8 * NV_FORMS_MAX_ARCHS] = "";
    if (t->is_nvidia && t->ptxas[0]) {
        if (!w->ptxas_id_asked) {
            w->ptxas_id_asked = 1;
            if (ptxas_version(t->ptxas, w->ptxas_id, sizeof w->ptxas_id) != 0)
                w->ptxas_id[0] = '\0';
        }
        if (!w->ptxas_id[0])
            return NULL; /* an assembler we cannot name: no key */
        nv_forms_format_archs(&w->nv_archs, archs, sizeof archs);
        kt.forms = "ptx+cubin";
        kt.ptxas = w->ptxas_id;
        kt.nv_arch = archs;
    } else if (t->is_nvidia) {
        kt.forms = "ptx";
    }
    return rcache_key_text(&kt, job, len);
}

/* A record's variant on the device (build_variant_adopt): the forms pass
 * the checks: 1 with r filled, *found left HIT. They failed after the
 * driver had the binary: 1 with r BUILD_VARIANT_REMOTE_RETRY, the job to
 * be built by a fresh worker (what the driver kept of the binary, in
 * PoCL's kernel cache, would be picked up by a build here; the pool ends
 * this worker, and its private folder with it). They failed before: 0,
 * *found REJECTED, *why saying why (for the build that follows). */
static int adopt_record(build_worker *w, uint32_t slot, const build_job *job, rcache_record *rec,
                        const char *what, build_variant_result *r, build_variant_remote *found, char **why)
{
    int checked = build_variant_adopt(&w->targets[slot], job, &w->opts, rec->signature, rec->kernel_names,
                           rec->n_kernel_names, rec->note, rec->forms, &rec->n_forms, r);
    if (checked == 0)
        return 1;
    char line[RCACHE_MSG_MAX];
    bfmt(line, sizeof line, "the %s variant failed its check: %s", what,
         r->message ? r->message : "no reason given");
    build_variant_result_free(r);
    *why = strdup(line);
    *found = BUILD_VARIANT_REMOTE_REJECTED;
    if (checked == 1)
        return 0;
    r->status = BUILD_VARIANT_ERROR;
    bfmt(line, sizeof line, "a %s binary failed on the device: to be built in a fresh worker", what);
    r->message = strdup(line);
    *found = BUILD_VARIANT_REMOTE_RETRY;
    return 1;
}

/* A local hit taken without loading it (build_variant_adopt_unloaded): 1
 * with r filled, or 0 with *found REJECTED and *why when a check failed. */
static int adopt_unloaded(build_worker *w, uint32_t slot, const build_job *job, rcache_record *rec,
                          build_variant_result *r, build_variant_remote *found, char **why)
{
    if (build_variant_adopt_unloaded(&w->targets[slot], job, &w->opts, rec->kernel_names,
                                     rec->n_kernel_names, rec->note, rec->forms, &rec->n_forms,
                                     r) == 0)
        return 1;
    char line[RCACHE_MSG_MAX];
    bfmt(line, sizeof line, "the cached variant failed its check: %s",
         r->message ? r->message : "no reason given");
    build_variant_result_free(r);
    *why = strdup(line);
    *found = BUILD_VARIANT_REMOTE_REJECTED;
    return 0;
}

/* The record of r, built or fetched, for either cache: a view of r's
 * fields, nothing copied. */
static void record_of(rcache_record *rec, const char *text, size_t len, const build_variant_result *r,
                      const char *signature)
{
    memset(rec, 0, sizeof *rec);
    rec->key_text = (char *)text;
    rec->key_len = len;
    rec->signature = (char *)signature;
    rec->n_kernel_names = r->n_kernel_names;
    rec->kernel_names = r->kernel_names;
    rec->note = r->note ? r->note : (char *)"";
    rec->n_forms = r->n_forms;
    memcpy(rec->forms, r->forms, r->n_forms * sizeof *r->forms);
}

/* Writes r to the variant cache, when there is one. */
static void store_local(build_worker *w, const char *key, const char *text, size_t len,
                        build_variant_result *r, const char *signature)
{
    if (!w->local_dir || r->status != BUILD_VARIANT_OK || !signature)
        return;
    rcache_record rec;
    record_of(&rec, text, len, r, signature);
    char msg[LCACHE_MSG_MAX];
    r->local_stored = lcache_store(w->local_dir, key, &rec, msg) == 0;
    if (!r->local_stored && !r->local_note)
        r->local_note = strdup(msg);
}

/* The variant cache's entry of key into *rec: 1; 0 for none (a miss, or
 * one damaged or for another variant, the reason in r->local_note). */
static int lookup_local(build_worker *w, const char *key, const char *text, size_t len, rcache_record *rec,
                        build_variant_result *r)
{
    char msg[LCACHE_MSG_MAX];
    r->local = lcache_lookup(w->local_dir, key, text, len, rec, msg);
    if (r->local == BUILD_VARIANT_REMOTE_HIT)
        return 1;
    if (msg[0])
        r->local_note = strdup(msg);
    return 0;
}

/* Looks the job up in the variant cache. A hit that passes the device's
 * checks, or fails them after the driver had it: 1 (adopt_record). A
 * miss, or an entry refused (then removed): 0. */
static int take_local(build_worker *w, uint32_t slot, const build_job *job, const char *key,
                      const char *text, size_t len, build_variant_result *r)
{
    rcache_record rec;
    if (!lookup_local(w, key, text, len, &rec, r))
        return 0;
    build_variant_remote found = BUILD_VARIANT_REMOTE_HIT;
    char *why = NULL;
    int done;
    if (!w->load_local_hits && !build_job_has_check_cmd(job)) {
        /* Stored here after its checks passed on the device and driver
         * its key names, and whole (its SHA-256): only what needs no
         * device is checked again (docs/CACHE.md). A user's check command
         * runs on every hit, as it would on a fetched one. */
        done = adopt_unloaded(w, slot, job, &rec, r, &found, &why);
    } else if (need_context(w, slot, r) != 0) {
        rcache_record_free(&rec);
        return 1;
    } else {
        done = adopt_record(w, slot, job, &rec, "cached", r, &found, &why);
    }
    rcache_record_free(&rec);
    r->local = found;
    free(r->local_note);
    r->local_note = why;
    if (found != BUILD_VARIANT_REMOTE_HIT)
        lcache_drop(w->local_dir, key);
    return done;
}

/* Looks the job up in the remote cache: 1 for a hit that passed the
 * device's checks (then written to the variant cache too) or failed them
 * after the driver had it; otherwise 0, with *why (a rejected object, a
 * failed request) for the result of the build that follows. */
static int fetch_job(build_worker *w, uint32_t slot, const build_job *job, const char *key,
                     const char *text, size_t len, build_variant_result *r, build_variant_remote *found, char **why)
{
    rcache_record rec;
    char msg[RCACHE_MSG_MAX];
    *found = rcache_lookup(w->remote, key, text, len, &rec, msg);
    if (*found != BUILD_VARIANT_REMOTE_HIT) {
        if (msg[0])
            *why = strdup(msg);
        return 0;
    }
    /* adopt_record leaves r empty when it refuses: what take_local said
     * goes on with the build. */
    build_variant_remote local = r->local;
    char *local_note = r->local_note;
    r->local_note = NULL;
    int done = adopt_record(w, slot, job, &rec, "fetched", r, found, why);
    r->local = local;
    free(r->local_note);
    r->local_note = local_note;
    if (done && *found == BUILD_VARIANT_REMOTE_HIT)
        store_local(w, key, text, len, r, rec.signature);
    rcache_record_free(&rec);
    return done;
}

/* After a local build: the record of r for the remote cache. */
static build_variant_upload store_job(build_worker *w, const char *key, const char *text, size_t len,
                           const build_variant_result *r, const char *signature, int replace, char **why)
{
    rcache_record rec;
    record_of(&rec, text, len, r, signature);
    char msg[RCACHE_MSG_MAX];
    build_variant_upload up = rcache_store(w->remote, key, &rec, replace, msg);
    if (up == BUILD_VARIANT_UPLOAD_FAILED)
        *why = strdup(msg);
    return up;
}

/* Finds the device of slot on its first job: 0, or -1 with r failed. */
static int open_slot(build_worker *w, uint32_t slot, build_variant_result *r)
{
    char err[BUILD_WORKER_ERR_MAX];
    if (w->opened[slot])
        return 0;
    cl_device_id dev;
    unsigned ordinal = 0;
    if (w->find_device(w->find_self, w->plat[slot], w->dev[slot], &dev, &ordinal, err) != 0) {
        r->status = BUILD_VARIANT_ERROR;
        r->message = strdup(err);
        return -1;
    }
    /* The context waits for a job that builds or loads (need_context). */
    build_variant_target_identify(dev, w->ptxas, &w->targets[slot]);
    bfmt(w->targets[slot].ordinal, sizeof w->targets[slot].ordinal, "%u", ordinal);
    bfmt(w->targets[slot].slot, sizeof w->targets[slot].slot, "%u:%u", w->plat[slot],
         w->dev[slot]);
    w->targets[slot].nv_archs = w->nv_archs;
    w->targets[slot].spare = w->spare;
    w->opened[slot] = 1;
    return 0;
}

/* Whether the worker talks to a remote cache, to look up or to upload. */
static int uses_remote(const build_worker *w)
{
    return w->remote && (rcache_lookups_on(w->remote) || rcache_uploads_on(w->remote));
}

/* Whether a job may be taken from a cache: not with --tune, nor with a
 * tune command of its own (both are timed while they build), nor when the
 * pool said not to (a fresh worker's retry). */
static int may_look(const build_worker *w, uint32_t flags, const build_job *job)
{
    return !w->opts.tune.enabled && !build_job_has_tune_cmd(job) && !(flags & WORKER_PROTO_JOB_NO_LOOKUP);
}

/* Builds job on slot's device into r, after the variant cache and then
 * the remote cache were asked (not with --tune: timings are taken while
 * building; not when told so: the job is built and stored in place of
 * what the caches have), and stores what it built in both. */
static void build_device_job(build_worker *w, uint32_t slot, uint32_t flags, const build_job *job,
                             build_variant_result *r)
{
    char *text = NULL, key[RCACHE_KEY_HEX_SIZE] = "", *why = NULL;
    size_t len = 0;
    build_variant_remote found = BUILD_VARIANT_REMOTE_NONE;
    int fetched = 0, remote_on = uses_remote(w);
    if (w->local_dir || remote_on)
        text = key_text(w, slot, job, &len);
    if (text) {
        rcache_key_sha256_hex(text, len, key);
        int look = may_look(w, flags, job);
        if (look && w->local_dir)
            fetched = take_local(w, slot, job, key, text, len, r);
        if (look && !fetched && remote_on) {
            if (need_context(w, slot, r) != 0) {
                free(text);
                return;
            }
            fetched = fetch_job(w, slot, job, key, text, len, r, &found, &why);
        }
    }
    if (!fetched && need_context(w, slot, r) != 0) {
        free(text);
        return;
    }
    if (!fetched) {
        build_variant_remote local = r->local;
        char *local_note = r->local_note, *signature = NULL;
        r->local_note = NULL;
        build_variant_build_signed(&w->targets[slot], job, &w->opts, w->hook, r,
                        text ? &signature : NULL);
        r->local = local;
        r->local_note = local_note;
        build_variant_upload up = BUILD_VARIANT_UPLOAD_NONE;
        char *up_why = NULL;
        if (text)
            store_local(w, key, text, len, r, signature);
        if (text && remote_on && r->status == BUILD_VARIANT_OK && signature)
            up = store_job(w, key, text, len, r, signature,
                           found == BUILD_VARIANT_REMOTE_REJECTED || (flags & WORKER_PROTO_JOB_NO_LOOKUP), &up_why);
        free(signature);
        r->upload = up;
        r->upload_note = up_why;
    }
    r->remote = found;
    r->remote_note = why;
    free(text);
}

/* The variant cache's key text of an offline job, malloc'd, or NULL (a
 * tool that cannot be looked at, no memory: then it is built uncached).
 * The device fields are the chain's record (offline_targets_device_info:
 * its version text, -exclude_ir), the lines added the tools' identity and
 * the target list; warmup and PoCL's grids do not touch these builds. */
static char *offline_key_text(build_worker *w, offline_targets_chain ch, const build_job *job, size_t *len)
{
    char *id = malloc(OFFLINE_KEY_ID_MAX), *list = malloc(OFFLINE_KEY_ID_MAX), *text = NULL;
    if (id && list && offline_targets_identity(&w->offline, ch, id, OFFLINE_KEY_ID_MAX) == 0 &&
        offline_targets_list(&w->offline, ch, list, OFFLINE_KEY_ID_MAX) == 0) {
        clcpack_device_info d;
        offline_targets_device_info(&w->offline, ch, &d);
        rcache_key_target kt = {&d, offline_targets_chain_name(ch), "", "", 0, 0, id, list};
        text = rcache_key_text(&kt, job, len);
    }
    free(id);
    free(list);
    return text;
}

/* A record of either cache for an offline job: 1 with got filled when it
 * passes a fresh build's checks (offline_targets_adopt); 0 with *why. */
static int adopt_offline(build_worker *w, offline_targets_chain ch, const build_job *job, rcache_record *rec,
                         const char *what, build_variant_result *got, char **why)
{
    char msg[OFFLINE_TARGETS_MSG_MAX];
    if (offline_targets_adopt(&w->offline, ch, job, rec->kernel_names, rec->n_kernel_names, rec->note,
                              rec->forms, &rec->n_forms, got, msg, sizeof msg) == 0)
        return 1;
    char line[RCACHE_MSG_MAX];
    bfmt(line, sizeof line, "the %s variant failed its check: %s", what, msg);
    *why = strdup(line);
    return 0;
}

/* Looks an offline job up in the variant cache: 1 for an entry that
 * passed the checks; 0 for a miss or an entry refused (then removed, the
 * reason in r->local_note). */
static int take_offline_local(build_worker *w, offline_targets_chain ch, const build_job *job,
                              const char *key, const char *text, size_t len, build_variant_result *r)
{
    rcache_record rec;
    if (!lookup_local(w, key, text, len, &rec, r))
        return 0;
    build_variant_result got;
    char *why = NULL;
    int ok = adopt_offline(w, ch, job, &rec, "cached", &got, &why);
    rcache_record_free(&rec);
    if (ok) {
        got.local = BUILD_VARIANT_REMOTE_HIT;
        *r = got;
        return 1;
    }
    r->local = BUILD_VARIANT_REMOTE_REJECTED;
    r->local_note = why;
    lcache_drop(w->local_dir, key);
    return 0;
}

/* Looks an offline job up in the remote cache: 1 for a record that passed
 * the checks (then written to the variant cache too); otherwise 0, with
 * *why (a refused record, a failed request) for the build that follows. */
static int fetch_offline(build_worker *w, offline_targets_chain ch, const build_job *job, const char *key,
                         const char *text, size_t len, build_variant_result *r, build_variant_remote *found,
                         char **why)
{
    rcache_record rec;
    char msg[RCACHE_MSG_MAX];
    *found = rcache_lookup(w->remote, key, text, len, &rec, msg);
    if (*found != BUILD_VARIANT_REMOTE_HIT) {
        if (msg[0])
            *why = strdup(msg);
        return 0;
    }
    build_variant_result got;
    int ok = adopt_offline(w, ch, job, &rec, "fetched", &got, why);
    rcache_record_free(&rec);
    if (!ok) {
        *found = BUILD_VARIANT_REMOTE_REJECTED;
        return 0;
    }
    got.local = r->local;
    got.local_note = r->local_note;
    *r = got;
    store_local(w, key, text, len, r, "");
    return 1;
}

/* An offline toolchain's job: from the variant cache, then the remote
 * cache, when they have the variant (not with --tune or a tune command,
 * nor when told so, as for a device's), else built, and stored in both
 * when every target built (an entry holds the plan's whole target list,
 * which is what a lookup checks). */
static void build_offline_job(build_worker *w, offline_targets_chain ch, uint32_t flags, const build_job *job,
                              build_variant_result *r)
{
    char *text = NULL, key[RCACHE_KEY_HEX_SIZE] = "", *why = NULL;
    size_t len = 0;
    build_variant_remote found = BUILD_VARIANT_REMOTE_NONE;
    int remote_on = uses_remote(w);
    if (w->local_dir || remote_on)
        text = offline_key_text(w, ch, job, &len);
    if (text) {
        rcache_key_sha256_hex(text, len, key);
        int look = may_look(w, flags, job);
        if ((look && w->local_dir && take_offline_local(w, ch, job, key, text, len, r)) ||
            (look && remote_on && fetch_offline(w, ch, job, key, text, len, r, &found, &why))) {
            r->remote = found;
            r->remote_note = why;
            free(text);
            return;
        }
    }
    build_variant_remote local = r->local;
    char *local_note = r->local_note;
    offline_targets_build(&w->offline, ch, job, &w->spare, r);
    r->local = local;
    r->local_note = local_note;
    /* No source build signs these: the record's signature is empty. */
    if (text && r->status == BUILD_VARIANT_OK && r->n_forms == w->offline.n[ch]) {
        store_local(w, key, text, len, r, "");
        if (remote_on)
            r->upload = store_job(w, key, text, len, r, "",
                                  found == BUILD_VARIANT_REMOTE_REJECTED || (flags & WORKER_PROTO_JOB_NO_LOOKUP),
                                  &r->upload_note);
    }
    r->remote = found;
    r->remote_note = why;
    free(text);
}

/* Builds one job into r, opening its device on first use. */
static void run_job(build_worker *w, uint32_t slot, uint32_t flags, const build_job *job,
                    build_variant_result *r)
{
    memset(r, 0, sizeof *r);
    /* An offline toolchain's slot: no device, no driver (a machine
     * without OpenCL builds these too). */
    if (slot >= WORKER_PROTO_OFFLINE_SLOT && slot < WORKER_PROTO_OFFLINE_SLOT + OFFLINE_TARGETS_N_CHAINS) {
        offline_targets_chain ch = (offline_targets_chain)(slot - WORKER_PROTO_OFFLINE_SLOT);
        if (!w->offline.on[ch]) {
            r->status = BUILD_VARIANT_ERROR;
            r->message = strdup("job for an offline toolchain the worker was not given");
            return;
        }
        build_offline_job(w, ch, flags, job, r);
        return;
    }
    if (w->setup_error[0]) {
        r->status = BUILD_VARIANT_ERROR;
        r->message = strdup(w->setup_error);
        return;
    }
    if (slot >= w->n_slots) {
        r->status = BUILD_VARIANT_ERROR;
        r->message = strdup("job for an unknown device slot");
        return;
    }
    if (open_slot(w, slot, r) != 0)
        return;
    build_device_job(w, slot, flags, job, r);
    /* PoCL compiles every program of a process in one LLVM context that
     * lives while any OpenCL context does, and the bitcode it stores
     * depends on what that LLVM context compiled before (the IR is the
     * same, the encoding is not): with the OpenCL context released after
     * each job, every program starts from a fresh one and the binary is a
     * function of the program alone, whatever ran before in this worker. */
    /* After a failed job the context may be broken too (a kernel that
     * faulted on an NVIDIA GPU leaves its context unusable, and every later
     * build in it fails): the next job opens a fresh one. */
    if (w->targets[slot].is_pocl || r->status != BUILD_VARIANT_OK) {
        build_variant_target_close(&w->targets[slot]);
        w->opened[slot] = 0;
    }
}

/* The variables build_worker_enter_work_dir sets for the builds, which the user's
 * commands get back as the user had them. */
static const char *const POCL_VARS[] = {"POCL_CACHE_DIR", "POCL_KERNEL_CACHE",
                                        "POCL_BINARY_SPECIALIZE_WG"};

/* Before the worker leaves it: the folder it started in (clc-pack's: the
 * pool starts workers there) and the values of POCL_VARS. A user's command
 * runs there with those values (check_cmd.h); the build's own cache stays
 * the worker's. */
static void keep_user_place(build_worker *w)
{
    check_cmd_place *p = &w->user_place;
    memset(p, 0, sizeof *p);
    if (getcwd(w->user_dir, sizeof w->user_dir))
        p->dir = w->user_dir;
    for (size_t i = 0; i < sizeof POCL_VARS / sizeof POCL_VARS[0] && i < CHECK_CMD_MAX_ENV; i++) {
        const char *v = getenv(POCL_VARS[i]);
        p->env_name[p->n_env] = POCL_VARS[i];
        p->env_value[p->n_env++] = v ? strdup(v) : NULL;
    }
    w->opts.user_place = p;
}

/* The worker's folder, its current folder from here on: clc-pack's own
 * cache folder ($XDG_CACHE_HOME/clc-pack, else ~/.cache/clc-pack), or a
 * temporary folder removed at exit when there is none. PoCL writes the path
 * of its cache folder into the binaries it makes, so its cache is
 * "pocl-cache" relative to this folder: the same text on every machine and
 * in every run, whatever POCL_CACHE_DIR the user has. The cache is on
 * (without it PoCL names its temporary files at random; those names are
 * scrubbed too, pocl_binary_canon.h) and kept between runs, so a second
 * pack of the same programs compiles little.
 * With --work-root (a cache looks variants up), the folder is
 * this worker's own, made in that root and removed at exit: a fetched
 * binary reaches the driver, and whatever PoCL keeps of one that is wrong
 * must not reach another worker's build, nor a later run's. */
int build_worker_enter_work_dir(build_worker *w, char *err, size_t cap)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    w->work_dir[0] = '\0';
    keep_user_place(w);
    if (w->work_root) {
        if (temp_tree_make(w->work_root, "worker", w->temp_dir, sizeof w->temp_dir) != 0 ||
            chdir(w->temp_dir) != 0) {
            bfmt(err, cap, "worker: cannot create a folder in %s: %s", w->work_root,
                 strerror(errno));
            w->temp_dir[0] = '\0';
            return -1;
        }
        bfmt(w->work_dir, sizeof w->work_dir, "%s", w->temp_dir);
    } else if (xdg && xdg[0] == '/')
        bfmt(w->work_dir, sizeof w->work_dir, "%s/clc-pack", xdg);
    else if (home && home[0] == '/')
        bfmt(w->work_dir, sizeof w->work_dir, "%s/.cache/clc-pack", home);
    if (w->work_dir[0] && (clcpk_make_dirs(w->work_dir, 0700, 0700) != 0 || chdir(w->work_dir) != 0))
        w->work_dir[0] = '\0';
    if (!w->work_dir[0]) {
        if (temp_tree_make(NULL, "clc-pack-worker", w->temp_dir, sizeof w->temp_dir) != 0 ||
            chdir(w->temp_dir) != 0) {
            bfmt(err, cap, "worker: cannot create a temporary folder: %s", strerror(errno));
            w->temp_dir[0] = '\0';
            return -1;
        }
        bfmt(w->work_dir, sizeof w->work_dir, "%s", w->temp_dir);
    }
    /* {binary} is a path in this folder, given to a command that runs in
     * the user's: absolute. */
    char abs_dir[PATH_MAX];
    if (w->work_dir[0] != '/' && getcwd(abs_dir, sizeof abs_dir))
        bfmt(w->work_dir, sizeof w->work_dir, "%s", abs_dir);
    setenv("POCL_CACHE_DIR", "pocl-cache", 1);
    setenv("POCL_KERNEL_CACHE", "1", 1);
    /* Before the first build: PoCL reads it once (pocl_wg.h). */
    if (w->pocl_wg)
        setenv("POCL_BINARY_SPECIALIZE_WG", w->pocl_wg, 1);
    else
        unsetenv("POCL_BINARY_SPECIALIZE_WG");
    w->opts.work_dir = w->work_dir;
    return 0;
}

/* One job frame: a build job for a slot, answered in r. */
static void serve_job(void *self, const unsigned char *payload, size_t size, uint32_t *job,
                      build_variant_result *r)
{
    build_worker *w = self;
    uint32_t slot = 0, flags = 0;
    build_job bj;
    char ferr[WORKER_PROTO_ERR_MAX];
    if (worker_proto_decode_job(payload, size, job, &slot, &flags, &bj, ferr) != 0) {
        memset(r, 0, sizeof *r);
        r->status = BUILD_VARIANT_ERROR;
        r->message = strdup(w->setup_error[0] ? w->setup_error : ferr);
        return;
    }
    run_job(w, slot, flags, &bj, r);
    build_job_free(&bj);
}

void build_worker_open_remote(build_worker *w)
{
    /* The parent checked the URL and that libcurl is there; a failure
     * here (memory) only means building without the cache. */
    w->curl_started = w->remote_config.url && rcache_http_global_init() == 0;
    if (w->curl_started) {
        char rerr[RCACHE_MSG_MAX];
        w->remote = rcache_open(&w->remote_config, rerr, sizeof rerr);
    }
}

/* A worker started ahead of its first job (worker_pool_standby_start:
 * `clc-pack tune` starts its pack's worker while it tunes) opens its
 * devices while it waits, so that the context's start, the longest part
 * of a first job on an NVIDIA GPU, is over when the job comes. A worker
 * whose job is already there opens them for the job, as before. PoCL's
 * are left alone: there each job opens a context of its own (run_job). */
static void open_while_idle(build_worker *w)
{
    struct pollfd pf = {0, POLLIN, 0};
    if (w->setup_error[0] || poll(&pf, 1, 0) != 0)
        return;
    for (uint32_t slot = 0; slot < w->n_slots; slot++) {
        cl_device_id dev;
        unsigned ordinal;
        char err[BUILD_WORKER_ERR_MAX], version[256] = "";
        if (w->find_device(w->find_self, w->plat[slot], w->dev[slot], &dev, &ordinal, err) != 0 ||
            clGetDeviceInfo(dev, CL_DEVICE_VERSION, sizeof version - 1, version, NULL) !=
                CL_SUCCESS ||
            strstr(version, "PoCL") || strstr(version, "pocl"))
            continue;
        build_variant_result r;
        memset(&r, 0, sizeof r);
        if (open_slot(w, slot, &r) != 0 || need_context(w, slot, &r) != 0)
            free(r.message); /* the job opens it again, and says why */
    }
}

int build_worker_serve(build_worker *w)
{
    open_while_idle(w);
    int status = worker_proto_serve("worker", serve_job, w);
    for (size_t i = 0; i < w->n_slots; i++)
        if (w->opened[i])
            build_variant_target_close(&w->targets[i]);
    rcache_close(w->remote);
    if (w->curl_started)
        rcache_http_global_cleanup();
    if (w->temp_dir[0] && chdir("/") == 0)
        temp_tree_remove(w->temp_dir);
    return status;
}
