/* cmd_record.c — `clc-pack record -o APP.clcpack -- APP ARGS...`: runs an
 * unmodified application with libclcpack-preload.so in record mode, then
 * writes a pack holding, for each program it built from source, the
 * binary of its own build with the exact source and options, keyed by the
 * content key (docs/RECORD.md). An existing pack is added to, under a lock
 * on it, so records of several programs and commands accumulate in one;
 * --replace starts afresh. */
#include "commands.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bounded_fmt.h"
#include "cli_opts.h"
#include "cli_report.h"
#include "clcpack_write.h"
#include "file_atomic.h"
#include "file_lock.h"
#include "pack_merge.h"
#include "pack_text.h"
#include "pocl_binary_canon.h"
#include "pocl_cache_files.h"
#include "preload_launch.h"
#include "ptx_text.h"
#include "ptxas_run.h"
#include "rec_capture.h"

#define NVIDIA_VENDOR_ID 0x10DEu
#define MAX_KERNEL_NAMES 256

typedef struct record_args {
    const char *output;
    const char *ptxas;
    const char *keep;      /* --keep-captures DIR: capture here, keep the files */
    int log;
    int replace;           /* --replace: a new pack, not added to the one at output */
    clcpack_compression codec; /* --codec */
    char **app;
} record_args;

static const cli_opt record_opts[] = {
    OPT_STR("output", 'o', record_args, output, "FILE",
            "the pack to write, or to add to when it exists (written\n"
            "atomically, under a lock; checked first)"),
    OPT_FLAG("replace", 0, record_args, replace,
             "write a new pack FILE, dropping what it held (by default\n"
             "the record is added to it)"),
    OPT_FLAG("log", 0, record_args, log, "CLCPACK_LOG=1: one line per program build on stderr"),
    OPT_STR("ptxas", 0, record_args, ptxas, "PATH",
            "NVIDIA: assemble the PTX into cubins with this ptxas\n"
            "(default: ptxas on $PATH or in /usr/local/cuda/bin)"),
    OPT_STR("keep-captures", 0, record_args, keep, "DIR",
            "capture into DIR (an existing folder) and keep the files"),
    OPT_CALL_AT("codec", 0, record_args, codec, cli_opt_codec, "zlib|zstd",
                "the codecs written (default zstd where clc-pack has it)"),
    OPT_QUIET_CLI("no summary line"),
    OPT_VERBOSE_CLI("one line per capture"),
    OPT_HELP,
};

const cli_optspec record_optspec = {"record", record_opts, sizeof record_opts / sizeof record_opts[0], 1, 21};

static int parse_args(int argc, char **argv, record_args *x)
{
    /* in_order: the application's own options are not ours. */
    memset(x, 0, sizeof *x);
    int operand;
    int rc = cli_opts_run(&record_optspec, usage_record, argc, argv, x, &operand);
    if (rc != CLI_OPTS_GO)
        return rc == EXIT_OK_STATUS ? -1 : rc;
    if (!x->output)
        return cli_usage_error("record", "record: expected the output pack (-o FILE)");
    if (operand >= argc)
        return cli_usage_error("record", "record: expected the application to run (-- APP ARGS...)");
    x->app = argv + operand;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct record_stats {
    size_t captures, links, entries, no_binary, conflicts, bad, from_binary;
    size_t cache_files; /* files added from PoCL's kernel cache */
    size_t keys, devices;
    /* Written: the record's distinct entries (a build made twice with the
     * same bytes is one), and when it was added to a pack, the entries that
     * pack held before and holds now, and what it kept of its own. */
    size_t distinct, before, total, kept, joined;
    int added;
} record_stats;

/* Adds one entry; a second build of the same program with other bytes
 * keeps the first. */
static int add_entry(clcpack_writer *w, const capture *c, uint32_t dev, uint32_t src,
                     clcpack_binary_kind kind, uint32_t arch, const void *bin, size_t size,
                     record_stats *s)
{
    /* A program entry: named by its key, holding the kernels the driver
     * listed (so that verify --load can check them). */
    const char *names[MAX_KERNEL_NAMES];
    char buf[4096];
    size_t n_names = 0;
    bfmt(buf, sizeof buf, "%s", c->kernel_names ? c->kernel_names : "");
    for (char *save = NULL, *t = strtok_r(buf, ";", &save); t && n_names < MAX_KERNEL_NAMES;
         t = strtok_r(NULL, ";", &save))
        if (*t)
            names[n_names++] = t;
    clcpack_entry_spec e = {.struct_size = sizeof e,
                            .kernel = c->key,
                            .options = c->options,
                            .device = dev,
                            .source = src,
                            .kind = kind,
                            .arch = arch,
                            .binary = bin,
                            .binary_size = size,
                            .kernel_names = n_names ? names : NULL,
                            .kernel_name_count = n_names};
    clcpack_error err;
    clcpack_status st = clcpack_writer_add_entry(w, &e, &err);
    if (st == CLCPACK_E_CONFLICT) {
        s->conflicts++;
        return 0;
    }
    if (st != CLCPACK_OK) {
        cli_error("%s", err.message);
        return -1;
    }
    s->entries++;
    return 0;
}

static int add_capture(clcpack_writer *w, const capture *c, const char *ptxas,
                       const char *pocl_cache, record_stats *s)
{
    clcpack_error err;
    uint32_t dev, src;
    if (!c->binary) {
        s->no_binary++;
        return 0;
    }
    if (clcpack_writer_add_device(w, &c->device, &dev, &err) != CLCPACK_OK ||
        clcpack_writer_add_source(w, c->key, c->source, c->source_size, &src, &err) !=
            CLCPACK_OK) {
        cli_error("%s", err.message);
        return -1;
    }
    if (c->device.vendor_id != NVIDIA_VENDOR_ID || !ptx_text_is_text(c->binary, c->binary_size)) {
        /* PoCL's binary is a snapshot of the program's folder in its kernel
         * cache, taken right after the build: program.bc and the generic
         * work-group functions. The functions the application's launches
         * compiled later are in the private cache the application ran
         * with, under the binary's build hash: added here. Then the files
         * in a fixed order and PoCL's random names scrubbed, so that
         * recording twice gives the same bytes (merge needs it). Other
         * drivers' bytes stay as they are. */
        unsigned char *canon = NULL;
        size_t canon_size = 0, added = 0;
        char why[256], hash[POCL_BINARY_CANON_HASH_MAX], program_dir[PRELOAD_PATH_MAX + POCL_BINARY_CANON_HASH_MAX + 2];
        int from_cache = pocl_cache && pocl_binary_canon_build_hash(c->binary, c->binary_size, hash) == 0;
        if (from_cache)
            bfmt(program_dir, sizeof program_dir, "%s/%s", pocl_cache, hash);
        int k = pocl_binary_canon_canonicalize_all_more(c->binary, c->binary_size,
                                          from_cache ? pocl_cache_files_kernel_files : NULL, program_dir,
                                          &added, &canon, &canon_size, why, sizeof why);
        if (k < 0) {
            cli_error("out of memory rewriting a %zu-byte binary", c->binary_size);
            return -1;
        }
        s->cache_files += added;
        int rc = add_entry(w, c, dev, src, CLCPACK_KIND_NATIVE, 0, k == 0 ? canon : c->binary,
                           k == 0 ? canon_size : c->binary_size, s);
        free(canon);
        return rc;
    }
    /* NVIDIA: PTX without its NUL, and a cubin when ptxas is there. */
    size_t len = ptx_text_length(c->binary, c->binary_size);
    char arch_name[PTX_TEXT_ARCH_NAME_MAX];
    uint32_t arch = 0;
    if (ptx_text_target(c->binary, len, arch_name, &arch) != 0)
        ptx_text_arch_from_cc(c->device.nv_cc_major, c->device.nv_cc_minor, arch_name, &arch);
    if (add_entry(w, c, dev, src, CLCPACK_KIND_PTX, arch, c->binary, len, s) != 0)
        return -1;
    if (!ptxas[0])
        return 0;
    unsigned char *cubin = NULL;
    size_t cubin_size = 0;
    char msg[2048];
    if (ptxas_compile(ptxas, c->binary, len, arch_name, &cubin, &cubin_size, msg, sizeof msg) !=
        0) {
        cli_note("%s: ptxas failed, PTX only: %s", c->key, msg);
        return 0;
    }
    int rc = add_entry(w, c, dev, src, CLCPACK_KIND_CUBIN, arch, cubin, cubin_size, s);
    free(cubin);
    return rc;
}

/* Reads every capture in dir into the writer; pocl_cache: the PoCL kernel
 * cache the application ran with, or NULL. */
static int collect(const char *dir, clcpack_writer *w, const char *ptxas, const char *pocl_cache,
                   record_stats *s)
{
    DIR *d = opendir(dir);
    if (!d) {
        cli_error("cannot read the capture folder %s", dir);
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    int rc = 0;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len > 7 && strcmp(de->d_name + len - 7, ".binary") == 0)
            s->from_binary++;
        if (len < 5 || strcmp(de->d_name + len - 4, ".rec") != 0)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **more = realloc(names, cap * sizeof *names);
            if (!more) {
                rc = -1;
                break;
            }
            names = more;
        }
        if (!(names[n] = strdup(de->d_name))) {
            rc = -1;
            break;
        }
        n++;
    }
    closedir(d);
    if (rc != 0)
        cli_error("out of memory listing %s", dir);
    if (n)
        qsort(names, n, sizeof *names, by_name);
    char **keys = calloc(n ? n : 1, sizeof *keys);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char path[PRELOAD_PATH_MAX + 256], err[REC_CAPTURE_ERR_MAX + PRELOAD_PATH_MAX];
        bfmt(path, sizeof path, "%s/%s", dir, names[i]);
        capture c;
        if (rec_capture_read(path, &c, err, sizeof err) != 0) {
            cli_note("skipped: %s", err);
            s->bad++;
            continue;
        }
        if (c.kind == CAPTURE_LINK)
            s->links++;
        else
            s->captures++;
        if (cli_verbosity > 0)
            fprintf(stderr, "clc-pack: captured %s on %s, options '%s', %zu-byte %s, "
                            "%zu-byte binary\n",
                    c.key, c.device.device_name, c.options, c.source_size,
                    c.kind == CAPTURE_LINK ? "link description" : "source", c.binary_size);
        size_t k = 0;
        while (keys && k < s->keys && strcmp(keys[k], c.key) != 0)
            k++;
        if (keys && k == s->keys && (keys[k] = strdup(c.key)) != NULL)
            s->keys++;
        rc = add_capture(w, &c, ptxas, pocl_cache, s);
        capture_free(&c);
    }
    for (size_t i = 0; i < s->keys; i++)
        free(keys[i]);
    free(keys);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

/* A folder the capture files can go to: it exists and we may write there. */
static int check_capture_dir(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        cli_error("--keep-captures %s: %s (make the folder first)", dir, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        cli_error("--keep-captures %s: not a folder", dir);
        return -1;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        cli_error("--keep-captures %s: cannot write there", dir);
        return -1;
    }
    return 0;
}

/* The entries of the pack at path into *n; -1 after a message. */
static int count_entries(const char *path, size_t *n)
{
    clcpack *p = NULL;
    clcpack_error err;
    if (clcpack_open_file(path, &p, &err) != CLCPACK_OK) {
        cli_error("%s", err.message);
        return -1;
    }
    *n = clcpack_entry_count(p);
    clcpack_close(p);
    return 0;
}

/* A pack at output that the record would add to must open: checked before
 * the application runs, so that nothing is recorded for nothing. */
static int check_existing(const record_args *a)
{
    struct stat st;
    if (a->replace || stat(a->output, &st) != 0)
        return 0;
    clcpack *p = NULL;
    clcpack_error err;
    if (clcpack_open_file(a->output, &p, &err) != CLCPACK_OK) {
        cli_error("%s: the record cannot be added to it (--replace writes a new pack there)",
                  err.message);
        return -1;
    }
    clcpack_close(p);
    return 0;
}

/* Adds the record (written to fresh) to the pack at output: merged with
 * what it holds, its own entries kept where the record's differ (nothing
 * recorded is lost), written atomically. */
static int add_to_pack(const record_args *a, const char *fresh, record_stats *s)
{
    const char *inputs[2] = {a->output, fresh};
    merge_args m;
    memset(&m, 0, sizeof m);
    m.output = a->output;
    m.codec = a->codec;
    m.inputs = inputs;
    m.n_inputs = 2;
    m.keep_first = 1;
    merge_stats ms;
    if (count_entries(fresh, &s->distinct) != 0 || count_entries(a->output, &s->before) != 0 ||
        pack_merge_run(&m, &ms) != EXIT_OK_STATUS)
        return -1;
    s->total = ms.entries;
    s->kept = ms.kept;
    s->joined = ms.joined;
    s->added = 1;
    return 0;
}

/* Writes the record into a->output under its lock (file_lock.h), so that
 * records made at once each add to what the other wrote: added to the pack
 * there, or, when there is none or with --replace, a new pack. tmp is the
 * record's private folder. */
static int write_output(const record_args *a, clcpack_writer *w, const char *tmp,
                        record_stats *s)
{
    char err[PRELOAD_PATH_MAX + 256], fresh[PRELOAD_PATH_MAX + 32];
    file_lock *lock = NULL;
    int rc = file_lock_take(a->output, 0, &lock, err, sizeof err);
    if (rc == FILE_LOCK_BUSY) {
        cli_note("waiting for another process writing %s", a->output);
        rc = file_lock_take(a->output, 1, &lock, err, sizeof err);
    }
    if (rc != FILE_LOCK_OK) {
        cli_error("%s", err);
        return -1;
    }
    struct stat st;
    int add = !a->replace && stat(a->output, &st) == 0;
    bfmt(fresh, sizeof fresh, "%s/record.clcpack", tmp);
    clcpack_error werr;
    rc = -1;
    if (clcpack_writer_write_file(w, add ? fresh : a->output, &werr) != CLCPACK_OK)
        cli_error("%s", werr.message);
    else if (add)
        rc = add_to_pack(a, fresh, s);
    else if (count_entries(a->output, &s->distinct) == 0)
        rc = 0;
    s->total = add ? s->total : s->distinct;
    file_lock_release(lock);
    return rc;
}

static void summary(const record_args *a, const record_stats *s)
{
    fprintf(stderr, "clc-pack: recorded ");
    if (s->captures || !s->links)
        fprintf(stderr, "%zu program build%s%s", s->captures, s->captures == 1 ? "" : "s",
                s->links ? " and " : "");
    if (s->links)
        fprintf(stderr, "%zu link%s", s->links, s->links == 1 ? "" : "s");
    fprintf(stderr, " (%zu distinct program%s) into %s: %zu entr%s", s->keys,
            s->keys == 1 ? "" : "s", a->output, s->distinct, s->distinct == 1 ? "y" : "ies");
    if (s->added)
        fprintf(stderr, ", %zu new, %zu in the pack", s->total - s->before, s->total);
    if (s->kept)
        fprintf(stderr, "; %zu already recorded there otherwise, the recorded kept",
                s->kept);
    if (s->joined)
        fprintf(stderr, "; %zu joined with the recorded one's work-group functions", s->joined);
    if (s->conflicts)
        fprintf(stderr, "; %zu rebuild%s with other bytes kept the first", s->conflicts,
                s->conflicts == 1 ? "" : "s");
    if (s->no_binary)
        fprintf(stderr, "; %zu without a binary", s->no_binary);
    if (s->cache_files)
        fprintf(stderr, "; %zu work-group function file%s from PoCL's cache", s->cache_files,
                s->cache_files == 1 ? "" : "s");
    if (s->from_binary)
        fprintf(stderr, "; %zu program%s created from the application's own binaries "
                        "(not captured)",
                s->from_binary, s->from_binary == 1 ? "" : "s");
    fputc('\n', stderr);
}

/* What to say to an application that built only from binaries it cached
 * itself: how each of those docs/RECORD.md names turns its cache off. */
#define OWN_CACHE_HINT                                                                    \
    ". Turn its own binary cache off while recording (PyOpenCL: PYOPENCL_NO_CACHE=1; "   \
    "OpenCV: OPENCV_OPENCL_CACHE_ENABLE=0; hashcat: empty "                               \
    "$XDG_CACHE_HOME/hashcat/kernels; docs/RECORD.md)"

int cmd_record(int argc, char **argv)
{
    record_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != 0)
        return rc < 0 ? EXIT_OK_STATUS : rc;
    char ptxas[PTXAS_PATH_MAX] = "";
    if (a.ptxas && ptxas_find(a.ptxas, ptxas) != 0)
        return cli_usage_error("record", "%s", ptxas);
    if (!a.ptxas && ptxas_find(NULL, ptxas) != 0)
        ptxas[0] = '\0';

    /* Everything that could fail after the application ran is checked
     * before it starts: the output path, the capture folder, the
     * application itself, the interposer. */
    clcpack_error werr;
    char err[PRELOAD_PATH_MAX + 256], lib[PRELOAD_PATH_MAX];
    if (clcpk_check_output_path(a.output, &werr) != CLCPACK_OK) {
        cli_error("%s", werr.message);
        return EXIT_FAILURE_STATUS;
    }
    if ((a.keep && check_capture_dir(a.keep) != 0) || check_existing(&a) != 0)
        return EXIT_FAILURE_STATUS;
    if (preload_check_app(a.app[0], err, sizeof err) != 0 || preload_find(lib, err, sizeof err) != 0) {
        cli_error("%s", err);
        return EXIT_FAILURE_STATUS;
    }

    /* A private folder: the captures (unless kept elsewhere), the
     * forwarding loader's links, and a PoCL kernel cache of its own, on,
     * so that what is recorded is what this run built and launched, the
     * same bytes whatever the user's cache holds or whether it is on. */
    char tmp[PRELOAD_PATH_MAX], dir[PRELOAD_PATH_MAX], pocl[PRELOAD_PATH_MAX + 16],
        shim[PRELOAD_PATH_MAX + 16];
    const char *tmpdir = getenv("TMPDIR");
    bfmt(tmp, sizeof tmp, "%s/clcpack-record-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    if (!mkdtemp(tmp)) {
        cli_error("cannot make a capture folder %s: %s", tmp, strerror(errno));
        return EXIT_FAILURE_STATUS;
    }
    bfmt(dir, sizeof dir, "%s%s", a.keep ? a.keep : tmp, a.keep ? "" : "/captures");
    bfmt(pocl, sizeof pocl, "%s/pocl", tmp);
    bfmt(shim, sizeof shim, "%s/lib/", tmp);
    if ((!a.keep && mkdir(dir, 0700) != 0) || mkdir(pocl, 0700) != 0) {
        cli_error("cannot make a capture folder in %s: %s", tmp, strerror(errno));
        preload_remove_tree(tmp);
        return EXIT_FAILURE_STATUS;
    }
    char env_cache[PRELOAD_PATH_MAX + 32];
    bfmt(env_cache, sizeof env_cache, "POCL_CACHE_DIR=%s", pocl);
    const char *env[] = {env_cache, "POCL_KERNEL_CACHE=1", NULL};
    preload_opts o = {"CLCPACK_RECORD", dir, a.log, dir, tmp, env};
    int status = preload_run(a.app, &o, err, sizeof err);
    if (status < 0) {
        cli_error("%s", err);
        preload_remove_tree(tmp);
        return EXIT_FAILURE_STATUS;
    }

    clcpack_writer *w = NULL;
    record_stats s = {0};
    if (clcpack_writer_new(0, &w, &werr) != CLCPACK_OK ||
        clcpack_writer_set_compression(w, a.codec, &werr) != CLCPACK_OK) {
        cli_error("%s", werr.message);
        rc = EXIT_FAILURE_STATUS;
        goto out;
    }
    if (collect(dir, w, ptxas, pocl, &s) != 0) {
        rc = EXIT_FAILURE_STATUS;
        goto out;
    }
    if (s.entries == 0) {
        char why[2048];
        if (preload_no_call_reason(dir, shim, a.app[0], why, sizeof why) == 0)
            cli_error("%s; nothing written to %s", why, a.output);
        else
            cli_error("%s built no program from source while recording%s; nothing written to "
                      "%s%s",
                      a.app[0],
                      s.from_binary ? " (it created its programs from binaries it brought "
                                      "itself)"
                                    : "",
                      a.output,
                      s.from_binary ? OWN_CACHE_HINT : "");
        rc = EXIT_FAILURE_STATUS;
        goto out;
    }
    if (write_output(&a, w, tmp, &s) != 0) {
        rc = EXIT_FAILURE_STATUS;
        goto out;
    }
    if (cli_verbosity >= 0)
        summary(&a, &s);
    rc = EXIT_OK_STATUS;
out:
    clcpack_writer_free(w);
    preload_remove_tree(tmp);
    if (status != 0) {
        cli_error("%s exited with status %d", a.app[0], status);
        if (rc == EXIT_OK_STATUS)
            rc = EXIT_FAILURE_STATUS;
    }
    return rc;
}
