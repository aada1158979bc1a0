/* cmd_extract.c — `clc-pack extract PACK (--entry N | --kernel NAME ...) -o FILE`:
 * one entry's binary or source, CRC-checked, to a file. */
#include "commands.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli_files.h"
#include "cli_opts.h"
#include "cli_report.h"
#include "pack_blob.h"
#include "clcpack.h"
#include "entry_filter.h"
#include "pack_text.h"
#include "value_list.h"

#define SHOW_MATCHES 10
#define LABEL_MAX 640

typedef struct extract_args {
    const char *path, *output, *kernel;
    long entry;                       /* -1: find by --kernel */
    int source;
    int kind;                         /* -1: any */
    entry_filter_defines defs;                  /* -D NAME=VALUE */
    int has_wg;
    uint32_t wg[3];
    int verbosity; /* -q */
} extract_args;

/* --wg XxYxZ: the entry's work-group size. */
static int opt_wg(void *args, cli_optctx *c)
{
    extract_args *x = args;
    value_list l;
    char why[VALUE_LIST_ERR_MAX];
    if (value_list_parse_wgs(c->arg, &l, why) != 0)
        return cli_opt_fail(c, 1, "%s", why);
    if (l.n != 1)
        return cli_opt_fail(c, 1, "expected one work-group size");
    x->has_wg = 1;
    for (int d = 0; d < 3; d++)
        x->wg[d] = (uint32_t)l.values[0].v[d];
    return 0;
}

_Static_assert(CLCPACK_KIND_NATIVE == 0 && CLCPACK_KIND_PTX == 1 && CLCPACK_KIND_CUBIN == 2 &&
                   CLCPACK_KIND_INTEL == 3 && CLCPACK_KIND_AMDGCN == 4 && CLCPACK_KIND_SPIRV == 5,
               "--kind's choices are in CLCPACK_KIND_* order");
static const cli_opt extract_opts[] = {
    OPT_LONG("entry", 0, extract_args, entry, "an entry index", 0, 0x7fffffffL, "N",
             "the entry with index N (as in list)"),
    OPT_STR("kernel", 0, extract_args, kernel, "NAME",
            "the entry of this kernel, narrowed by -D and --wg: each -D\n"
            "must match one of its defines; it must be the only match"),
    OPT_CALL_AT(NULL, 'D', extract_args, defs, entry_filter_opt_define, "NAME=VALUE",
                "with --kernel: only entries with this define value"),
    OPT_CALL("wg", 0, opt_wg, "WxH", "with --kernel: only entries of this work-group"),
    OPT_CHOICE("kind", 0, extract_args, kind, "native,ptx,cubin,intel,amdgcn,spirv", "KIND",
               "only entries of this kind: native, ptx, cubin, intel,\n"
               "amdgcn or spirv"),
    OPT_FLAG("source", 0, extract_args, source, "the source instead of the binary"),
    OPT_STR("output", 'o', extract_args, output, "FILE",
            "where to write (written atomically; '-' for stdout; a\n"
            "link, device, FIFO, folder or read-only file is refused)"),
    OPT_QUIET(extract_args, verbosity, "no line saying what was written"),
    OPT_HELP,
};

const cli_optspec extract_optspec = {"extract", extract_opts, sizeof extract_opts / sizeof extract_opts[0], 0, 19};

static int matches(const clcpack_entry_info *e, const extract_args *x)
{
    if (!entry_filter_named(e, x->kernel))
        return 0;
    if (x->kind >= 0 && (int)e->kind != x->kind)
        return 0;
    if (x->has_wg && (e->wg[0] != x->wg[0] || e->wg[1] != x->wg[1] || e->wg[2] != x->wg[2]))
        return 0;
    return entry_filter_has_defines(e, &x->defs);
}

/* The one entry the filters name; else a usage error listing the matches. */
static int find_entry(const clcpack *p, const extract_args *x, size_t *out)
{
    size_t n = clcpack_entry_count(p), found = 0, first = 0;
    for (size_t i = 0; i < n; i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        if (clcpack_get_entry(p, i, &e) == CLCPACK_OK && matches(&e, x)) {
            if (found == 0)
                first = i;
            found++;
        }
    }
    if (found == 1) {
        *out = first;
        return 0;
    }
    if (found == 0) {
        char held[1024], hint[160];
        if (!entry_filter_pack_has(p, x->kernel, held, sizeof held, hint, sizeof hint))
            cli_error("extract: %s holds no kernel %s%s", x->path, x->kernel, hint);
        else
            cli_error("extract: no entry of %s matches --kernel %s and the given filters",
                      x->path, x->kernel);
        return -1;
    }
    cli_error("extract: %zu entries match; narrow with -D, --wg or --kind, or use --entry N:",
              found);
    size_t shown = 0;
    for (size_t i = 0; i < n && shown < SHOW_MATCHES; i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        if (clcpack_get_entry(p, i, &e) == CLCPACK_OK && matches(&e, x)) {
            char label[LABEL_MAX];
            pack_text_entry_label(&e, label, sizeof label);
            fprintf(stderr, "  entry %zu: %s (device %u)\n", i, label, (unsigned)e.device);
            shown++;
        }
    }
    if (found > shown)
        fprintf(stderr, "  ... and %zu more\n", found - shown);
    return -1;
}

static int parse_args(int argc, char **argv, extract_args *x)
{
    memset(x, 0, sizeof *x);
    x->entry = -1;
    x->kind = -1;
    x->verbosity = cli_verbosity;
    int operand;
    int rc = cli_opts_run(&extract_optspec, usage_extract, argc, argv, x, &operand);
    if (rc != CLI_OPTS_GO)
        return rc == EXIT_OK_STATUS ? -2 : rc;
    cli_verbosity = x->verbosity;
    if (operand != argc - 1)
        return cli_usage_error("extract", "extract: expected one pack file, got %d arguments",
                               argc - operand);
    x->path = argv[operand];
    if ((x->entry >= 0) == (x->kernel != NULL))
        return cli_usage_error("extract", "extract: give either --entry N or --kernel NAME");
    if (x->entry >= 0 && (x->defs.n || x->has_wg || x->kind >= 0))
        return cli_usage_error("extract", "extract: -D, --wg and --kind go with --kernel, "
                                          "not --entry");
    if (!x->output || !*x->output)
        return cli_usage_error("extract", "extract: -o FILE is required ('-' for stdout)");
    return 0;
}

int cmd_extract(int argc, char **argv)
{
    extract_args x;
    int prc = parse_args(argc, argv, &x);
    if (prc == -2)
        return EXIT_OK_STATUS;
    if (prc != 0)
        return prc;
    int orc = cli_check_output("extract", "-o", x.output, 1);
    if (orc != 0)
        return orc;

    clcpack *p = cli_open_pack(x.path);
    if (!p)
        return EXIT_FAILURE_STATUS;
    clcpack_error e;
    int status = EXIT_FAILURE_STATUS;
    unsigned char *buf = NULL;
    size_t index;
    if (x.entry >= 0) {
        if ((size_t)x.entry >= clcpack_entry_count(p)) {
            status = cli_usage_error("extract", "extract: --entry %ld: %s has %zu entries",
                                     x.entry, x.path, clcpack_entry_count(p));
            goto out;
        }
        index = (size_t)x.entry;
    } else if (find_entry(p, &x, &index) != 0) {
        status = EXIT_USAGE_STATUS;
        goto out;
    }
    clcpack_entry_info ei = {.struct_size = sizeof ei};
    if (clcpack_get_entry(p, index, &ei) != CLCPACK_OK) {
        cli_error("%s: entry %zu cannot be read", x.path, index);
        goto out;
    }
    char label[LABEL_MAX];
    pack_text_entry_label(&ei, label, sizeof label);
    if (x.source && ei.source == CLCPACK_NONE) {
        cli_error("%s: entry %zu (%s) has no stored source", x.path, index, label);
        goto out;
    }
    size_t size = 0;
    buf = x.source ? pack_blob_read(p, PACK_BLOB_SOURCE, ei.source, &size, &e)
                   : pack_blob_read(p, PACK_BLOB_BINARY, index, &size, &e);
    if (!buf) {
        cli_error("%s: entry %zu (%s): %s", x.path, index, label, e.message);
        goto out;
    }
    if (cli_write_output(x.output, buf, size) != 0)
        goto out;
    const char *where = strcmp(x.output, "-") == 0 ? "stdout" : x.output;
    if (cli_verbosity >= 0)
        fprintf(stderr, "clc-pack: wrote %zu bytes (%s of entry %zu, %s) to %s\n", size,
                x.source ? "source" : "binary", index, label, where);
    status = EXIT_OK_STATUS;
out:
    free(buf);
    clcpack_close(p);
    return status;
}
