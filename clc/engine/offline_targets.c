/* offline_targets.c — Intel, AMD and SPIR-V targets of a pack build (offline_targets.h). */
#include "offline_targets.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bin_check.h"
#include "bounded_fmt.h"
#include "clcpack_write.h"
#include "ocloc_run.h"
#include "task_run.h"
#include "mono_clock.h"

#define INTEL_VENDOR_ID 0x8086u
#define AMD_VENDOR_ID 0x1002u

const char *offline_targets_chain_name(offline_targets_chain c)
{
    return c == OFFLINE_TARGETS_INTEL ? "intel" : c == OFFLINE_TARGETS_AMD ? "amd" : "spirv";
}

clcpack_binary_kind offline_targets_chain_kind(offline_targets_chain c)
{
    return c == OFFLINE_TARGETS_INTEL ? CLCPACK_KIND_INTEL : c == OFFLINE_TARGETS_AMD ? CLCPACK_KIND_AMDGCN
                                                            : CLCPACK_KIND_SPIRV;
}

static void add_note(char *notes, size_t cap, const char *fmt, ...) BFMT_PRINTF(3, 4);
static void add_note(char *notes, size_t cap, const char *fmt, ...)
{
    size_t len = strlen(notes);
    if (len + 2 >= cap)
        return;
    if (len)
        notes[len++] = '\n', notes[len] = '\0';
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(notes + len, cap - len, fmt, ap);
    va_end(ap);
}

static void version_text(uint32_t v, char *buf, size_t cap)
{
    bfmt(buf, cap, "%u.%u.%u", v >> 22, v >> 12 & 0x3ff, v & 0xfff);
}

/* Appends (name, arch) unless that arch is there already (acm-g10 and
 * dg2-g10 are one target). 0, or -1 when the list is full. */
static int add_target(offline_targets_config *c, offline_targets_chain ch, const char *name, uint32_t arch)
{
    for (size_t i = 0; i < c->n[ch]; i++)
        if (c->targets[ch][i].arch == arch)
            return 0;
    if (c->n[ch] >= OFFLINE_TARGETS_MAX_TARGETS)
        return -1;
    offline_targets_target *t = &c->targets[ch][c->n[ch]++];
    bfmt(t->name, sizeof t->name, "%s", name);
    t->arch = arch;
    return 0;
}

/* ocloc's product names with their one IP version each, asked of ocloc
 * once per run and only when a range or a family needs them. Families and
 * releases (gen9, xe-hpg, ...) are left out: ocloc lists them after the
 * products, and `ocloc compile -device xe-hp` refuses some of them. */
typedef struct intel_names {
    size_t n;
    char name[128][32];
    uint32_t ip[128];
} intel_names;

static int is_family(const char *name)
{
    return strncmp(name, "gen", 3) == 0 || strcmp(name, "xe") == 0 || strncmp(name, "xe-", 3) == 0;
}

static int load_names(const offline_targets_config *c, intel_names *t, char *msg, size_t cap)
{
    if (t->n)
        return 0;
    char **names;
    size_t n_names;
    if (ocloc_names(c->ocloc, &names, &n_names) != 0) {
        bfmt(msg, cap, "ocloc lists no target names");
        return -1;
    }
    for (size_t i = 0; i < n_names; i++) {
        uint32_t ids[OCLOC_MAX_IDS];
        size_t n;
        char why[TOOL_MSG_MAX];
        if (t->n < 128 && !is_family(names[i]) && strlen(names[i]) < sizeof t->name[0] &&
            ocloc_ids(c->ocloc, names[i], ids, &n, why, sizeof why) == 0 && n == 1) {
            bfmt(t->name[t->n], sizeof t->name[0], "%s", names[i]);
            t->ip[t->n++] = ids[0];
        }
        free(names[i]);
    }
    free(names);
    return 0;
}

/* The product name of an IP version, else its version text. */
static void name_of(const intel_names *t, uint32_t ip, char *buf, size_t cap)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->ip[i] == ip) {
            bfmt(buf, cap, "%s", t->name[i]);
            return;
        }
    version_text(ip, buf, cap);
}

/* "A:B", "A:" or ":B": ocloc's products whose IP versions lie between A's
 * lowest and B's highest. */
static int intel_range(offline_targets_config *c, intel_names *t, const char *item, char *msg, size_t cap)
{
    char a[64], b[64];
    const char *colon = strchr(item, ':');
    bfmt(a, sizeof a, "%.*s", (int)(colon - item), item);
    bfmt(b, sizeof b, "%s", colon + 1);
    uint32_t lo = 0, hi = UINT32_MAX, ids[OCLOC_MAX_IDS];
    size_t n;
    if (a[0]) {
        if (ocloc_ids(c->ocloc, a, ids, &n, msg, cap) != 0)
            return -1;
        lo = ids[0];
        for (size_t i = 1; i < n; i++)
            lo = ids[i] < lo ? ids[i] : lo;
    }
    if (b[0]) {
        if (ocloc_ids(c->ocloc, b, ids, &n, msg, cap) != 0)
            return -1;
        hi = ids[0];
        for (size_t i = 1; i < n; i++)
            hi = ids[i] > hi ? ids[i] : hi;
    }
    if (load_names(c, t, msg, cap) != 0)
        return -1;
    for (size_t i = 0; i < t->n; i++)
        if (t->ip[i] >= lo && t->ip[i] <= hi && add_target(c, OFFLINE_TARGETS_INTEL, t->name[i], t->ip[i]) != 0) {
            bfmt(msg, cap, "more than %d Intel targets", OFFLINE_TARGETS_MAX_TARGETS);
            return -1;
        }
    return 0;
}

static int resolve_intel_in(offline_targets_config *c, intel_names *names, const char *list,
                            int is_default, char *notes, size_t ncap, char *msg, size_t cap)
{
    char buf[4096];
    bfmt(buf, sizeof buf, "%s", list);
    char *save = NULL;
    for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        if (!item[0] || strlen(item) > CLCPACK_TARGET_MAX) {
            bfmt(msg, cap, "--intel-gpu: bad target '%s'", item);
            return -1;
        }
        if (strchr(item, ':')) {
            if (intel_range(c, names, item, msg, cap) != 0)
                return -1;
            continue;
        }
        uint32_t ids[OCLOC_MAX_IDS];
        size_t n;
        char why[TOOL_MSG_MAX];
        if (ocloc_ids(c->ocloc, item, ids, &n, why, sizeof why) != 0) {
            if (is_default) {
                add_note(notes, ncap, "--intel-gpu: this ocloc does not know %s: left out", item);
                continue;
            }
            bfmt(msg, cap, "--intel-gpu: %s", why);
            return -1;
        }
        if (n > 1 && load_names(c, names, msg, cap) != 0)
            return -1;
        for (size_t i = 0; i < n; i++) {
            char name[64];
            /* A family or release spans several IP versions: each is named
             * by the product of that version, or by the version itself
             * (which ocloc's -device takes too) when no product has it. */
            if (n == 1)
                bfmt(name, sizeof name, "%s", item);
            else
                name_of(names, ids[i], name, sizeof name);
            if (add_target(c, OFFLINE_TARGETS_INTEL, name, ids[i]) != 0) {
                bfmt(msg, cap, "--intel-gpu: more than %d targets", OFFLINE_TARGETS_MAX_TARGETS);
                return -1;
            }
        }
    }
    return 0;
}

static int resolve_intel(offline_targets_config *c, const char *list, int is_default, char *notes,
                         size_t ncap, char *msg, size_t cap)
{
    intel_names *names = calloc(1, sizeof *names); /* large: on the heap */
    if (!names) {
        bfmt(msg, cap, "--intel-gpu: out of memory");
        return -1;
    }
    int rc = resolve_intel_in(c, names, list, is_default, notes, ncap, msg, cap);
    free(names);
    return rc;
}

static int resolve_amd(offline_targets_config *c, const char *list, char *notes, size_t ncap, char *msg,
                       size_t cap)
{
    char buf[4096];
    bfmt(buf, sizeof buf, "%s", list);
    char *save = NULL;
    for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        uint32_t arch;
        if (clcpack_target_arch(CLCPACK_KIND_AMDGCN, item, &arch) != CLCPACK_OK) {
            bfmt(msg, cap, "--amd-gpu: '%s' is not a gfx target ID (gfx1030, gfx90a:xnack-)",
                 item);
            return -1;
        }
        if (!bin_check_amdgpu_mach(arch >> 16 & 0xff, arch >> 8 & 0xff, arch & 0xff)) {
            bfmt(msg, cap, "--amd-gpu: %s is not a gfx target clc-pack knows", item);
            return -1;
        }
        if (!amdgcn_has_isa_library(&c->amd, item))
            add_note(notes, ncap,
                     "--amd-gpu: %s: %s has no ISA library for it; clc-pack supplies its "
                     "__oclc_ISA_version (docs/vendors/AMD.md)",
                     item, c->amd.bitcode);
        /* Stored as LLVM spells it: features in their order. */
        char canon[64];
        int k = snprintf(canon, sizeof canon, "gfx%u", arch >> 16 & 0xff);
        static const char hex[] = "0123456789abcdef";
        canon[k++] = hex[arch >> 8 & 15];
        canon[k++] = hex[arch & 15];
        canon[k] = '\0';
        static const char *const feat[] = {"", "-", "+"};
        if (arch >> 26 & 3)
            k += snprintf(canon + k, sizeof canon - (size_t)k, ":sramecc%s", feat[arch >> 26 & 3]);
        if (arch >> 28 & 3)
            snprintf(canon + k, sizeof canon - (size_t)k, ":xnack%s", feat[arch >> 28 & 3]);
        if (add_target(c, OFFLINE_TARGETS_AMD, canon, arch) != 0) {
            bfmt(msg, cap, "--amd-gpu: more than %d targets", OFFLINE_TARGETS_MAX_TARGETS);
            return -1;
        }
    }
    return 0;
}

int offline_targets_resolve(offline_targets_config *c, offline_targets_chain ch, const char *list, char *notes, size_t notes_cap,
               char *msg, size_t cap)
{
    c->on[ch] = 0;
    c->n[ch] = 0;
    if (ch == OFFLINE_TARGETS_INTEL) {
        if (ocloc_find(c->ocloc, msg, cap) != 0 ||
            ocloc_version(c->ocloc, c->version[ch] + 6, sizeof c->version[ch] - 6, msg, cap) != 0)
            return 1;
        memcpy(c->version[ch], "ocloc ", 6);
        if (resolve_intel(c, list ? list : OFFLINE_TARGETS_DEFAULT_INTEL, !list, notes, notes_cap, msg,
                          cap) != 0)
            return -1;
    } else if (ch == OFFLINE_TARGETS_AMD) {
        if (amdgcn_find(&c->amd, msg, cap) != 0 ||
            amdgcn_version(&c->amd, c->version[ch], sizeof c->version[ch], msg, cap) != 0)
            return 1;
        if (resolve_amd(c, list ? list : OFFLINE_TARGETS_DEFAULT_AMD, notes, notes_cap, msg, cap) != 0)
            return -1;
    } else {
        if (spirv_find(&c->spv, msg, cap) != 0 ||
            spirv_version(&c->spv, c->version[ch], sizeof c->version[ch], msg, cap) != 0)
            return 1;
        add_target(c, OFFLINE_TARGETS_SPIRV, SPIRV_TARGET, SPIRV_VERSION_WORD);
    }
    if (!c->n[ch]) {
        bfmt(msg, cap, "--%s: no target", ch == OFFLINE_TARGETS_INTEL ? "intel-gpu" : "amd-gpu");
        return -1;
    }
    c->on[ch] = 1;
    return 0;
}

void offline_targets_device_info(const offline_targets_config *c, offline_targets_chain ch, clcpack_device_info *d)
{
    memset(d, 0, sizeof *d);
    d->struct_size = sizeof *d;
    static const char *const platform_version[] = {"ocloc", "clang amdgcn-amd-amdhsa",
                                                   "clang spir64 + llvm-spirv"};
    static const char *const device[] = {"Intel GPU", "AMD GPU", "SPIR-V"};
    bfmt(d->platform_name, sizeof d->platform_name, "clc-pack offline");
    /* How the Intel binaries were made is part of the record: a pack
     * rebuilt with the other setting makes its entries again instead of
     * reusing them, and two packs merged keep both. */
    bfmt(d->platform_version, sizeof d->platform_version, "%s%s", platform_version[ch],
         ch == OFFLINE_TARGETS_INTEL && c->intel_exclude_ir ? " -exclude_ir" : "");
    bfmt(d->device_name, sizeof d->device_name, "%s", device[ch]);
    bfmt(d->driver_version, sizeof d->driver_version, "%s", c->version[ch]);
    d->device_type = ch == OFFLINE_TARGETS_SPIRV ? 0 : CL_DEVICE_TYPE_GPU;
    d->vendor_id = ch == OFFLINE_TARGETS_INTEL ? INTEL_VENDOR_ID : ch == OFFLINE_TARGETS_AMD ? AMD_VENDOR_ID : 0;
    d->address_bits = 64;
}

int offline_targets_format_args(const offline_targets_config *c, char **argv, size_t cap)
{
    static const char *const opt[] = {"--ot-intel", "--ot-amd", "--ot-spirv"};
    size_t n = 0;
    for (int ch = 0; ch < OFFLINE_TARGETS_N_CHAINS; ch++) {
        if (!c->on[ch])
            continue;
        /* TOOL|SECOND|name@arch,name@arch|VERSION: the version text goes
         * to the worker for its variant cache's key (offline_targets_id.h). */
        const char *tool = ch == OFFLINE_TARGETS_INTEL ? c->ocloc : ch == OFFLINE_TARGETS_AMD ? c->amd.clang : c->spv.clang;
        const char *second = ch == OFFLINE_TARGETS_AMD     ? c->amd.bitcode
                             : ch == OFFLINE_TARGETS_SPIRV ? c->spv.llvm_spirv
                             : c->intel_exclude_ir ? "exclude_ir"
                                                   : "";
        /* A target is at most 63 bytes, '@', 8 hex digits and ',': 80. */
        size_t len = strlen(tool) + strlen(second) + strlen(c->version[ch]) + 16 + c->n[ch] * 80;
        char *v = malloc(len);
        if (!v || n + 2 > cap) {
            free(v);
            return -1;
        }
        size_t at = (size_t)snprintf(v, len, "%s|%s|", tool, second);
        for (size_t i = 0; i < c->n[ch]; i++)
            at += (size_t)snprintf(v + at, len - at, "%s%s@%x", i ? "," : "",
                                   c->targets[ch][i].name, (unsigned)c->targets[ch][i].arch);
        snprintf(v + at, len - at, "|%s", c->version[ch]);
        argv[n++] = strdup(opt[ch]);
        argv[n++] = v;
        if (!argv[n - 2])
            return -1;
    }
    return (int)n;
}

int offline_targets_parse_arg(offline_targets_config *c, const char *opt, const char *value)
{
    offline_targets_chain ch = strcmp(opt, "ot-intel") == 0 ? OFFLINE_TARGETS_INTEL
                  : strcmp(opt, "ot-amd") == 0 ? OFFLINE_TARGETS_AMD
                                               : OFFLINE_TARGETS_SPIRV;
    char buf[8192];
    if (strlen(value) >= sizeof buf)
        return -1;
    strcpy(buf, value);
    char *bar1 = strchr(buf, '|'), *bar2 = bar1 ? strchr(bar1 + 1, '|') : NULL;
    if (!bar2)
        return -1;
    *bar1 = *bar2 = '\0';
    if (ch == OFFLINE_TARGETS_INTEL) {
        bfmt(c->ocloc, sizeof c->ocloc, "%s", buf);
        c->intel_exclude_ir = strcmp(bar1 + 1, "exclude_ir") == 0;
    } else if (ch == OFFLINE_TARGETS_AMD) {
        bfmt(c->amd.clang, sizeof c->amd.clang, "%s", buf);
        bfmt(c->amd.bitcode, sizeof c->amd.bitcode, "%s", bar1 + 1);
    } else {
        bfmt(c->spv.clang, sizeof c->spv.clang, "%s", buf);
        bfmt(c->spv.llvm_spirv, sizeof c->spv.llvm_spirv, "%s", bar1 + 1);
    }
    /* The version text is last and may hold any character but NUL. */
    char *bar3 = strchr(bar2 + 1, '|');
    if (!bar3)
        return -1;
    *bar3 = '\0';
    bfmt(c->version[ch], sizeof c->version[ch], "%s", bar3 + 1);
    c->n[ch] = 0;
    char *save = NULL;
    for (char *item = strtok_r(bar2 + 1, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *at = strrchr(item, '@');
        if (!at || c->n[ch] >= OFFLINE_TARGETS_MAX_TARGETS)
            return -1;
        *at = '\0';
        offline_targets_target *t = &c->targets[ch][c->n[ch]++];
        bfmt(t->name, sizeof t->name, "%s", item);
        t->arch = (uint32_t)strtoul(at + 1, NULL, 16);
    }
    c->on[ch] = c->n[ch] > 0;
    return c->on[ch] ? 0 : -1;
}

/* One target of one job, built on a thread of its own. */
typedef struct target_task {
    const offline_targets_config *c;
    offline_targets_chain ch;
    const offline_targets_target *t;
    const build_job *job;
    unsigned char *bin;
    size_t size;
    bin_check_names names;
    int rc;
    char msg[OFFLINE_TARGETS_MSG_MAX];
} target_task;

/* The header check of one binary of chain ch for arch, its kernels read
 * into names (bin_check.h): a fresh build's and a cached entry's. */
static int check_form(offline_targets_chain ch, const unsigned char *bin, size_t size, uint32_t arch,
                      bin_check_names *names, char why[BIN_CHECK_MSG_MAX])
{
    if (ch == OFFLINE_TARGETS_INTEL)
        return bin_check_check_intel(bin, size, arch, names, why);
    if (ch == OFFLINE_TARGETS_AMD)
        return bin_check_check_amdgcn(bin, size, arch, names, why);
    return bin_check_check_spirv(bin, size, arch, names, why);
}

/* The first kernel of job's that names lacks, or NULL. */
static const char *missing_kernel(const build_job *job, const bin_check_names *names)
{
    for (size_t i = 0; i < job->n_kernels; i++) {
        size_t a = 0;
        while (a < names->n && strcmp(names->names[a], job->kernels[i]) != 0)
            a++;
        if (a == names->n)
            return job->kernels[i];
    }
    return NULL;
}

static void build_target(target_task *k)
{
    const build_job *j = k->job;
    char msg[OFFLINE_TARGETS_MSG_MAX];
    int rc;
    if (k->ch == OFFLINE_TARGETS_INTEL)
        rc = ocloc_compile(k->c->ocloc, j->source, j->source_size, j->options, k->t->name,
                           k->c->intel_exclude_ir, &k->bin, &k->size, msg, sizeof msg);
    else if (k->ch == OFFLINE_TARGETS_AMD)
        rc = amdgcn_compile(&k->c->amd, j->source, j->source_size, j->options, k->t->name,
                            &k->bin, &k->size, msg, sizeof msg);
    else
        rc = spirv_compile(&k->c->spv, j->source, j->source_size, j->options, &k->bin, &k->size,
                           msg, sizeof msg);
    if (rc != 0) {
        bfmt(k->msg, sizeof k->msg, "%s", msg);
        k->rc = -1;
        return;
    }
    char why[BIN_CHECK_MSG_MAX];
    if (check_form(k->ch, k->bin, k->size, k->t->arch, &k->names, why) != 0) {
        bfmt(k->msg, sizeof k->msg, "its header does not fit the target: %s", why);
        free(k->bin);
        k->bin = NULL;
        k->rc = -1;
        return;
    }
    k->rc = 0;
}

/* task_run's task i: build tasks[i]. */
static void run_target_task(void *ctx, size_t i)
{
    build_target(&((target_task *)ctx)[i]);
}

static char *dup_text(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* Appends "; "-separated text to *notes. */
static void append(char **notes, const char *line)
{
    size_t old = *notes ? strlen(*notes) : 0;
    char *grown = realloc(*notes, old + strlen(line) + 3);
    if (!grown)
        return;
    if (old)
        memcpy(grown + old, "; ", 2), old += 2;
    strcpy(grown + old, line);
    *notes = grown;
}

void offline_targets_build(const offline_targets_config *c, offline_targets_chain ch, const build_job *job, const spare_slots *spare,
              build_variant_result *r)
{
    memset(r, 0, sizeof *r);
    double t0 = mono_clock_s();
    size_t n = c->n[ch];
    target_task tasks[OFFLINE_TARGETS_MAX_TARGETS];
    memset(tasks, 0, sizeof tasks);
    for (size_t i = 0; i < n; i++)
        tasks[i] = (target_task){.c = c, .ch = ch, .t = &c->targets[ch][i], .job = job};
    /* One compiler at a time, and one more for each slot an idle worker
     * lends (spare_slots.h), as ptxas runs do. */
    int lent = spare && n > 1 ? spare_take(spare, (int)n - 1) : 0;
    task_run(n, (size_t)lent + 1, run_target_task, tasks);
    if (lent)
        spare_give(spare, lent);

    const bin_check_names *names = NULL;
    char line[OFFLINE_TARGETS_MSG_MAX + 128], first_fail[OFFLINE_TARGETS_MSG_MAX + 128] = "";
    clcpack_binary_kind kind = offline_targets_chain_kind(ch);
    for (size_t i = 0; i < n; i++) {
        target_task *k = &tasks[i];
        if (k->rc == 0 && names) {
            int same = k->names.n == names->n;
            for (size_t a = 0; same && a < names->n; a++)
                same = strcmp(k->names.names[a], names->names[a]) == 0;
            if (!same) {
                k->rc = -1;
                bfmt(k->msg, sizeof k->msg, "it holds other kernels than %s's",
                     tasks[0].t->name);
                free(k->bin);
                k->bin = NULL;
            }
        }
        if (k->rc != 0) {
            bfmt(line, sizeof line, "no %s binary for %s: %s", offline_targets_chain_name(ch), k->t->name,
                 k->msg);
            append(&r->note, line);
            if (!first_fail[0])
                bfmt(first_fail, sizeof first_fail, "%s", line);
            continue;
        }
        if (!names)
            names = &k->names;
        build_variant_form *f = &r->forms[r->n_forms++];
        f->kind = kind;
        f->arch = k->t->arch;
        f->data = k->bin;
        f->size = k->size;
        bfmt(f->target, sizeof f->target, "%s", k->t->name);
        k->bin = NULL;
    }
    if (!r->n_forms) {
        r->status = BUILD_VARIANT_BUILD_FAILED;
        r->message = dup_text(first_fail[0] ? first_fail : "no target");
        free(r->note);
        r->note = NULL;
    } else {
        /* The kernels the job asks for are all there. */
        const char *lacking = missing_kernel(job, names);
        if (lacking) {
            bfmt(line, sizeof line, "kernel %s is not in the %s binary", lacking,
                 offline_targets_chain_name(ch));
            r->status = BUILD_VARIANT_CHECK_FAILED;
            r->message = dup_text(line);
        }
        r->kernel_names = calloc(names->n ? names->n : 1, sizeof *r->kernel_names);
        for (size_t a = 0; r->kernel_names && a < names->n; a++)
            if ((r->kernel_names[a] = dup_text(names->names[a])))
                r->n_kernel_names = a + 1;
    }
    for (size_t i = 0; i < n; i++) {
        free(tasks[i].bin);
        bin_check_names_free(&tasks[i].names);
    }
    /* The compilers' time is the job's: its compile phase (-v prints it). */
    r->build_s = mono_clock_s() - t0;
    r->phase_s[BUILD_VARIANT_PHASE_COMPILE] = r->build_s;
}

/* Whether names holds exactly the n kernels of want, in any order. */
static int same_kernels(const bin_check_names *names, char *const *want, size_t n)
{
    if (names->n != n)
        return 0;
    for (size_t i = 0; i < n; i++) {
        size_t a = 0;
        while (a < names->n && strcmp(names->names[a], want[i]) != 0)
            a++;
        if (a == names->n)
            return 0;
    }
    return 1;
}

int offline_targets_adopt(const offline_targets_config *c, offline_targets_chain ch, const build_job *job,
                          char *const *kernel_names, size_t n_kernel_names, const char *note,
                          build_variant_form *forms, size_t *n_forms, build_variant_result *r,
                          char *why, size_t cap)
{
    memset(r, 0, sizeof *r);
    clcpack_binary_kind kind = offline_targets_chain_kind(ch);
    if (*n_forms != c->n[ch]) {
        bfmt(why, cap, "it holds %zu binaries for the %zu %s targets", *n_forms, c->n[ch],
             offline_targets_chain_name(ch));
        return -1;
    }
    for (size_t i = 0; i < *n_forms; i++) {
        const build_variant_form *f = &forms[i];
        const offline_targets_target *t = &c->targets[ch][i];
        if (f->kind != kind || f->arch != t->arch || strcmp(f->target, t->name) != 0) {
            bfmt(why, cap, "binary %zu is not the %s binary for %s", i, offline_targets_chain_name(ch),
                 t->name);
            return -1;
        }
        bin_check_names names = {0};
        char msg[BIN_CHECK_MSG_MAX];
        int rc = check_form(ch, f->data, f->size, t->arch, &names, msg);
        const char *lacking = rc == 0 ? missing_kernel(job, &names) : NULL;
        int same = rc == 0 && same_kernels(&names, kernel_names, n_kernel_names);
        bin_check_names_free(&names);
        if (rc != 0) {
            bfmt(why, cap, "its %s binary's header does not fit the target: %s", t->name, msg);
            return -1;
        }
        if (lacking || !same) {
            bfmt(why, cap, "its %s binary holds other kernels than %s", t->name,
                 lacking ? lacking : "the entry names");
            return -1;
        }
    }
    r->kernel_names = calloc(n_kernel_names ? n_kernel_names : 1, sizeof *r->kernel_names);
    r->note = note && note[0] ? dup_text(note) : NULL;
    if (!r->kernel_names || (note && note[0] && !r->note)) {
        free(r->kernel_names);
        free(r->note);
        memset(r, 0, sizeof *r);
        bfmt(why, cap, "out of memory");
        return -1;
    }
    for (size_t a = 0; a < n_kernel_names; a++)
        if ((r->kernel_names[a] = dup_text(kernel_names[a])))
            r->n_kernel_names = a + 1;
    memcpy(r->forms, forms, *n_forms * sizeof *forms);
    r->n_forms = *n_forms;
    *n_forms = 0;
    r->status = BUILD_VARIANT_OK;
    return 0;
}
