/* pack_args.c — option parsing of the pack command (pack_args.h). */
#include "pack_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bounded_fmt.h"
#include "check_cmd.h"
#include "cli_opts.h"
#include "cli_report.h"
#include "pack_text.h"
#include "pack_timings.h"

/* Adds an axis request; refuses an axis given twice. */
static int add_axis(pack_args *a, const char *name, const char *option, const char *list,
                    char err[PACK_ARGS_ERR_MAX])
{
    variant_plan_request *r = &a->req;
    for (size_t i = 0; i < r->n_axes; i++)
        if (strcmp(r->axes[i].name, name) == 0) {
            bfmt(err, PACK_ARGS_ERR_MAX, "%s: %s is already given by %s", option, name,
                 r->axes[i].option);
            return -1;
        }
    if (r->n_axes >= MANIFEST_MAX_AXES) {
        bfmt(err, PACK_ARGS_ERR_MAX, "%s: more than %d axes", option, MANIFEST_MAX_AXES);
        return -1;
    }
    variant_plan_axis_request *ax = &r->axes[r->n_axes];
    bfmt(ax->name, sizeof ax->name, "%s", name);
    bfmt(ax->option, sizeof ax->option, "%s", option);
    char why[VALUE_LIST_ERR_MAX];
    int rc = strcmp(name, "WG") == 0 ? value_list_parse_wgs(list, &ax->values, why)
                                     : value_list_parse_ints(list, &ax->values, why);
    if (rc != 0) {
        char clip[BFMT_QUOTE_MAX + 4];
        bfmt(err, PACK_ARGS_ERR_MAX, "%s '%s': %s", option, bfmt_clip(list, clip), why);
        return -1;
    }
    r->n_axes++;
    return 0;
}

/* -D NAME=LIST */
static int parse_define(pack_args *a, const char *arg, char err[PACK_ARGS_ERR_MAX])
{
    char clip[BFMT_QUOTE_MAX + 4];
    const char *shown = bfmt_clip(arg, clip);
    const char *eq = strchr(arg, '=');
    size_t n = eq ? (size_t)(eq - arg) : 0;
    if (!eq || n == 0) {
        bfmt(err, PACK_ARGS_ERR_MAX, "-D %s: expected NAME=LIST, e.g. -D NUMCOEFFS=8,16", shown);
        return -1;
    }
    if (n >= MANIFEST_NAME_MAX) {
        bfmt(err, PACK_ARGS_ERR_MAX, "-D %s: the name is too long", shown);
        return -1;
    }
    char name[MANIFEST_NAME_MAX];
    memcpy(name, arg, n);
    name[n] = '\0';
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        int ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
                 (i > 0 && c >= '0' && c <= '9');
        if (!ok) {
            bfmt(err, PACK_ARGS_ERR_MAX, "-D %s: '%s' is not a macro name", shown, name);
            return -1;
        }
    }
    char option[MANIFEST_NAME_MAX + 8];
    bfmt(option, sizeof option, "-D %s", name);
    return add_axis(a, name, option, eq + 1, err);
}

/* The direct spec's lists: every axis list of `all`, which each
 * program's own lists are slices of, the -I folders and the programs. */
static const char ***axis_lists(direct_axes *x, size_t i)
{
    const char ***lists[] = {&x->defines,  &x->derives,  &x->wheres,
                             &x->variants, &x->defaults, &x->kernels};
    return i < sizeof lists / sizeof lists[0] ? lists[i] : NULL;
}

/* Room for every argument in each list of the direct spec. */
static int alloc_lists(pack_args *a, int argc)
{
    direct_jobs_spec *d = &a->direct_spec;
    size_t n = argc > 0 ? (size_t)argc : 1;
    for (size_t i = 0; axis_lists(&d->all, i); i++)
        if (!(*axis_lists(&d->all, i) = calloc(n, sizeof(const char *))))
            return -1;
    d->includes = calloc(n, sizeof *d->includes);
    d->programs = calloc(n, sizeof *d->programs);
    a->scope = &d->all;
    return d->includes && d->programs ? 0 : -1;
}

void pack_args_free(pack_args *a)
{
    direct_jobs_spec *d = &a->direct_spec;
    for (size_t i = 0; axis_lists(&d->all, i); i++)
        free(*axis_lists(&d->all, i));
    free(d->includes);
    free(d->programs);
    memset(d, 0, sizeof *d);
    a->scope = NULL;
}

/* A program (a source file, or --program's NAME=FILES): the axis options
 * after it are its own, their lists the slices of all's that follow the
 * scope before it. */
static void open_program(pack_args *a, const char *file, const char *program)
{
    direct_jobs_spec *d = &a->direct_spec;
    direct_program *p = &d->programs[d->n_programs++];
    memset(p, 0, sizeof *p);
    p->file = file;
    p->program = program;
    direct_axes *before = a->scope;
    p->own.defines = before->defines + before->n_defines;
    p->own.derives = before->derives + before->n_derives;
    p->own.wheres = before->wheres + before->n_wheres;
    p->own.variants = before->variants + before->n_variants;
    p->own.defaults = before->defaults + before->n_defaults;
    p->own.kernels = before->kernels + before->n_kernels;
    a->scope = &p->own;
}

/* A failed axis option of a program's own: its message names the program
 * first ("scan.cl: --wg ..."). Returns rc. */
static int scoped(pack_args *a, cli_optctx *c, int rc)
{
    direct_jobs_spec *d = &a->direct_spec;
    if (rc == 0 || a->scope == &d->all)
        return rc;
    char label[300], why[PACK_ARGS_ERR_MAX];
    direct_jobs_program_label(&d->programs[d->n_programs - 1], label, sizeof label);
    bfmt(why, sizeof why, "%s", c->err);
    bfmt(c->err, c->cap, "%s: %s", label, why);
    return rc;
}

#define ARGS(c) ((pack_args *)(c))
#define DS(c) (&ARGS(c)->direct_spec)

static int opt_kernel(void *p, cli_optctx *c)
{
    pack_args *a = ARGS(p);
    if (a->req.n_kernels >= MANIFEST_MAX_KERNELS)
        return scoped(a, c, cli_opt_fail(c, 0, "more than %d kernels", MANIFEST_MAX_KERNELS));
    if (!*c->arg)
        return scoped(a, c, cli_opt_fail(c, 0, "the name is empty"));
    a->req.kernels[a->req.n_kernels++] = c->arg;
    a->scope->kernels[a->scope->n_kernels++] = c->arg;
    return 0;
}

static int opt_widths(void *p, cli_optctx *c)
{
    return add_axis(ARGS(p), "FILTER_WIDTH", "--widths", c->arg, c->err) == 0 ? 0 : -1;
}

/* --wg LIST: kept in the scope's axes; with the kernels folder it becomes an
 * axis in the order of the -D options around it. */
static int check_wg(pack_args *a, cli_optctx *c)
{
    direct_axes *x = a->scope;
    if (x->wg) {
        bfmt(c->err, c->cap, "--wg is given twice ('%s' and '%s'): give one list", x->wg, c->arg);
        return -1;
    }
    /* A range ("1-64") has only numbers, so it is no expression naming a
     * define, and no list: read as an expression it is 1 minus 64. */
    const char *v = c->arg, *dash = strchr(v, '-');
    if (dash && dash > v && v[strspn(v, "0123456789-:, ")] == '\0' &&
        dash[-1] >= '0' && dash[-1] <= '9' && dash[1] >= '0' && dash[1] <= '9') {
        const char *item = dash;
        while (item > v && item[-1] != ',')
            item--;
        int lo = (int)(dash - item), hi = (int)strspn(dash + 1, "0123456789");
        bfmt(c->err, c->cap,
             "--wg '%s': --wg takes sizes (64, 16x16) or lists of them (64,128,256), not a "
             "range as -D takes; '%.*s' reads as the expression %.*s minus %.*s: list "
             "the sizes one by one",
             v, lo + 1 + hi, item, lo, item, hi, dash + 1);
        return -1;
    }
    x->wg = c->arg;
    if (x == &a->direct_spec.all)
        a->wg_after = x->n_defines;
    return 0;
}

static int opt_wg(void *p, cli_optctx *c)
{
    return scoped(ARGS(p), c, check_wg(ARGS(p), c));
}

/* --check-cmd, --tune-cmd: the scope's; the placeholders are checked here,
 * before anything is planned. The last one given in a scope counts. */
static int opt_user_cmd(void *p, cli_optctx *c)
{
    pack_args *a = ARGS(p);
    char cerr[CHECK_CMD_MSG_MAX];
    if (check_cmd_validate(c->shown, c->arg, cerr) != 0) {
        bfmt(c->err, c->cap, "%s", cerr);
        return scoped(a, c, -1);
    }
    if (strcmp(c->opt->name, "check-cmd") == 0)
        a->scope->check_cmd = c->arg;
    else
        a->scope->tune_cmd = c->arg;
    return 0;
}

/* -D slips a compiler would report only as a syntax error in the kernel:
 * a range written "1..4" (a usage error: no C value reads so), and two
 * defines in one argument, "T=float;TILE=2" (a note: a macro body may hold
 * ';' on purpose). */
static int check_define_arg(cli_optctx *c)
{
    const char *eq = strchr(c->arg, '='), *v = eq ? eq + 1 : "";
    const char *dots = strstr(v, "..");
    if (dots && dots > v && dots[2] && strspn(v, "0123456789") == (size_t)(dots - v) &&
        strspn(dots + 2, "0123456789") == strlen(dots + 2)) {
        bfmt(c->err, c->cap, "-D %s: a range is written %.*s-%s (every integer from %.*s to %s)",
             c->arg, (int)(dots - v), v, dots + 2, (int)(dots - v), v, dots + 2);
        return -1;
    }
    const char *semi = strchr(v, ';');
    if (semi) {
        size_t name = strspn(semi + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789");
        if (name > 0 && semi[1 + name] == '=')
            cli_note("-D %s gives %.*s one value holding ';' (as the compiler will see it); "
                     "for two defines give -D once for each",
                     c->arg, (int)(eq - c->arg), c->arg);
    }
    return 0;
}

/* "-D TAPS=8 16": the shell split a value list at a blank, and the word
 * after it would be taken for a source file ("16: cannot open"). A word
 * is taken for such a value only when no file has its name and it looks
 * like a value: digits (with the list's ',', '-', ':', 'x'), or a word
 * with no '.' (no .cl-like extension) and no path separator. */
static int check_split_value(cli_optctx *c)
{
    const char *eq = strchr(c->arg, '=');
    const char *w = *c->next < c->argc ? c->argv[*c->next] : NULL;
    if (!eq || !eq[1] || !w || !*w || w[0] == '-' || strchr(w, '/') ||
        access(w, F_OK) == 0)
        return 0;
    int digits = w[strspn(w, "0123456789,-:x")] == '\0';
    if (!digits && strchr(w, '.'))
        return 0;
    char clip[BFMT_QUOTE_MAX + 4];
    bfmt(c->err, c->cap,
         "-D %s %s: '%s' is no file and looks like a value of the -D before it; a list's "
         "values are comma-separated: -D %s,%s",
         c->arg, bfmt_clip(w, clip), w, c->arg, w);
    return -1;
}

/* The direct mode's repeatable axis options: each appends its value to
 * its list of the scope (alloc_lists made room for every argument). */
static int opt_list(void *p, cli_optctx *c)
{
    pack_args *a = ARGS(p);
    direct_axes *x = a->scope;
    const char **list;
    size_t *n;
    const char *name = c->opt->name ? c->opt->name : "";
    if (c->opt->key == 'D') {
        if (check_define_arg(c) != 0 || check_split_value(c) != 0)
            return scoped(a, c, -1);
        list = x->defines, n = &x->n_defines;
    } else if (strcmp(name, "derive") == 0)
        list = x->derives, n = &x->n_derives;
    else if (strcmp(name, "where") == 0)
        list = x->wheres, n = &x->n_wheres;
    else if (strcmp(name, "variant") == 0)
        list = x->variants, n = &x->n_variants;
    else
        list = x->defaults, n = &x->n_defaults;
    list[(*n)++] = c->arg;
    return 0;
}

/* -I DIR: every program's, wherever it is given. */
static int opt_include(void *p, cli_optctx *c)
{
    direct_jobs_spec *ds = DS(p);
    if (!*c->arg)
        return cli_opt_fail(c, 0, "the folder name is empty");
    ds->includes[ds->n_includes++] = c->arg;
    return 0;
}

/* --program NAME=A,B: a program, whose own axes follow it. */
static int opt_program(void *p, cli_optctx *c)
{
    open_program(ARGS(p), NULL, c->arg);
    return 0;
}

/* A source file: a program, whose own axes follow it. "-D T = float"
 * reads as -D T and two words: the second is named as the slip. */
static int opt_source(void *p, cli_optctx *c)
{
    if (c->arg[0] == '=' && access(c->arg, F_OK) != 0) {
        bfmt(c->err, c->cap, "'%s' is not a source file: write a define as -D NAME=VALUE, "
                             "with no blanks around '='",
             c->arg);
        return -1;
    }
    open_program(ARGS(p), c->arg, NULL);
    return 0;
}

static int opt_options(void *p, cli_optctx *c)
{
    if (DS(p)->options) {
        bfmt(c->err, c->cap, "--options is given twice: give all options in one");
        return -1;
    }
    DS(p)->options = c->arg;
    return 0;
}

static int opt_update(void *p, cli_optctx *c)
{
    (void)c;
    ARGS(p)->rebuild = 0; /* reuse is the default when -o exists */
    return 0;
}

static int opt_shard(void *p, cli_optctx *c)
{
    char serr[PLAN_SHARD_ERR_MAX];
    if (plan_shard_parse(c->arg, &ARGS(p)->shard, serr) != 0) {
        bfmt(c->err, c->cap, "%s", serr);
        return -1;
    }
    return 0;
}

static int opt_wg_defines(void *p, cli_optctx *c)
{
    (void)c;
    DS(p)->wg_defines = 1;
    return 0;
}

static int opt_codec(void *p, cli_optctx *c)
{
    return pack_text_parse_codec(c->arg, &ARGS(p)->codec, c->err, c->cap) == 0 ? 0 : -1;
}

static int opt_jobs(void *p, cli_optctx *c)
{
    pack_args *a = ARGS(p);
    if (cli_parse_long(c->arg, 1, PACK_ARGS_MAX_JOBS, &a->jobs) != 0)
        return cli_opt_fail(c, 1, "expected a number of jobs from 1 to %d", PACK_ARGS_MAX_JOBS);
    a->jobs_given = 1;
    return 0;
}

static int opt_tune_size(void *p, cli_optctx *c)
{
    pack_args *a = ARGS(p);
    long w, h;
    const char *x = strchr(c->arg, 'x');
    char wbuf[32];
    if (!x || (size_t)(x - c->arg) >= sizeof wbuf)
        return cli_opt_fail(c, 1, "expected WIDTHxHEIGHT, e.g. 2048x2048");
    bfmt(wbuf, sizeof wbuf, "%.*s", (int)(x - c->arg), c->arg);
    if (cli_parse_long(wbuf, 1, 16384, &w) != 0 || cli_parse_long(x + 1, 1, 16384, &h) != 0)
        return cli_opt_fail(c, 1, "width and height from 1 to 16384");
    a->tune_width = (unsigned)w;
    a->tune_height = (unsigned)h;
    return 0;
}

/* The compilers' spellings of a dependency file: -MD, and -MF FILE (or
 * -MFFILE), -MT TARGET. */
static int opt_m(void *p, cli_optctx *c)
{
    pack_args *a = ARGS(p);
    const char *arg = c->arg;
    if (strcmp(arg, "D") == 0) {
        a->depfile_md = 1;
        return 0;
    }
    if (arg[0] != 'F' && arg[0] != 'T') {
        bfmt(c->err, c->cap, "unknown option -M%s (-MD, -MF FILE and -MT TARGET are known)", arg);
        return -1;
    }
    const char *v = arg[1] ? arg + 1 : *c->next < c->argc ? c->argv[(*c->next)++] : NULL;
    if (!v || !*v) {
        bfmt(c->err, c->cap, "-M%c needs a %s", arg[0], arg[0] == 'F' ? "file name" : "target name");
        return -1;
    }
    if (arg[0] == 'F')
        a->depfile = v;
    else
        a->depfile_target = v;
    return 0;
}

/* --intel-gpu[=LIST], --amd-gpu[=LIST]. */
static int opt_offline(void *p, cli_optctx *c)
{
    pack_args *a = ARGS(p);
    const char *name = c->opt->name;
    if (c->arg && !*c->arg) {
        bfmt(c->err, c->cap, "--%s=: the list is empty (leave out '=' for the default)", name);
        return -1;
    }
    /* The list is --intel-gpu=LIST: a word after a bare --intel-gpu would
     * be taken for a source file. */
    const char *next = *c->next < c->argc ? c->argv[*c->next] : NULL;
    if (!c->arg && next && next[0] != '-' && !strchr(next, '.') && !strchr(next, '/')) {
        bfmt(c->err, c->cap, "--%s %s: give the list as --%s=%s (a bare --%s takes the default "
             "list)", name, next, name, next, name);
        return -1;
    }
    if (strcmp(name, "intel-gpu") == 0)
        a->intel_gpu = 1, a->intel_list = c->arg;
    else
        a->amd_gpu = 1, a->amd_list = c->arg;
    return 0;
}

static int opt_merge(void *p, cli_optctx *c)
{
    pack_args *a = ARGS(p);
    if (!*c->arg || a->n_merge >= PACK_ARGS_MAX_MERGE)
        return cli_opt_fail(c, 0, "%s", *c->arg ? "more than 16 packs" : "no file");
    a->merge[a->n_merge++] = c->arg;
    return 0;
}

/* --timings FILE: its extension picks the format, checked at once. */
static int opt_timings(void *p, cli_optctx *c)
{
    if (pack_timings_format_of(c->arg) == PACK_TIMINGS_NONE)
        return cli_opt_fail(c, 1, "the extension picks the format: .html (a page) or .json "
                                  "(a trace for Perfetto or chrome://tracing)");
    ARGS(p)->timings = c->arg;
    return 0;
}

static int opt_nv_arch(void *p, cli_optctx *c)
{
    char nerr[NV_FORMS_ERR_MAX];
    if (nv_arch_list_parse(c->arg, &ARGS(p)->nv_archs, nerr) != 0)
        return cli_opt_fail(c, 1, "%s", nerr);
    return 0;
}

/* docs/CLI.md lists them; usage_pack (usage.c) prints this table between
 * its intro and its closing lines, in this order. */
static const cli_opt pack_opts[] = {
    OPT_OPERAND(opt_source,
                "Your own programs (source files as arguments; docs/CLI.md):\n"
                "  FILE.cl...           each file is one program; every kernel it holds is\n"
                "                       stored with it and found by its name\n"
                "  The axis options (-D, --derive, --where, --wg, --variant, --default,\n"
                "  --kernel, --check-cmd, --tune-cmd) before the first program are every\n"
                "  program's; after a FILE.cl or --program, that program's own: its -D NAME,\n"
                "  --derive NAME, --variant, --wg and commands replace every program's, its\n"
                "  --where, --default and --kernel are added to them.\n"
                "    clc-pack fir.cl -D TAPS=8,16 scan.cl --wg 64,128 -o app.clcpack"),
    OPT_CALL("program", 0, opt_program, "NAME=A,B",
             "files A, B, ... as one program, texts in order"),
    OPT_CALL(NULL, 'D', opt_list, "NAME=LIST",
             "a define's values: numbers, ranges, names, types\n"
             "(Ti=uchar,float); -D NAME: defined, no value;\n"
             "-D 'F(x,y)=EXPR': a function-like macro"),
    OPT_CALL("derive", 0, opt_list, "NAME=EXPR",
             "a define computed from the others (repeatable, in order)"),
    OPT_CALL("where", 0, opt_list, "EXPR", "build only the variants where EXPR is not 0"),
    OPT_CALL("wg", 0, opt_wg, "LIST",
             "local sizes 16x16,8x8 | 64,128, or one expression per\n"
             "dimension naming defines: --wg 'TS,TS/WPT'"),
    OPT_CALL("wg-defines", 0, opt_wg_defines, NULL,
             "also pass the local size as -DWG_X=.. -DWG_Y=.. -DWG_Z=.."),
    OPT_CALL("variant", 0, opt_list, "A=1,B=x",
             "exactly these define sets (repeatable), each combined\n"
             "with the -D lists of the names it does not give"),
    OPT_CALL("default", 0, opt_list, "A=1,WG=16x16", "mark matching variants as the pack's defaults"),
    OPT_CALL("kernel", 0, opt_kernel, "NAME", "a kernel the program must hold (repeatable)"),
    OPT_CALL(NULL, 'I', opt_include, "DIR",
             "where #include looks after the including file's folder\n"
             "(every program's, wherever given)"),
    OPT_CALL("options", 0, opt_options, "STRING",
             "more build options, e.g. -cl-std=CL2.0 (--options=...)"),
    OPT_CALL("check-cmd", 0, opt_user_cmd, "CMD",
            "your own test per variant: {binary} {defines} {wg}\n"
            "{device} {kernel} are replaced; non-zero fails it;\n"
            "runs in the folder clc-pack was started in; every\n"
            "variant is built (none reused from -o)"),
    OPT_CALL("tune-cmd", 0, opt_user_cmd, "CMD",
            "your own timing per variant (same placeholders): it\n"
            "prints 'median_ns=N runs=R size=WxH', which is stored"),
    OPT_LONG("check-timeout", 0, pack_args, check_timeout, "seconds", 1, 86400, "S",
             "either command's time limit (default 600)"),
    OPT_TEXT("Expressions: integers, defines, C operators (+ - * / % << >> < == && || ?: ...).\n"
             "\n"
             "The kernels folder (no source file given):"),
    OPT_STR("kernels", 0, pack_args, kernels_dir, "DIR",
            "kernel folder holding manifest.txt (default: kernels)"),
    OPT_CALL("widths", 0, opt_widths, "LIST",
             "FILTER_WIDTH values (default: each kernel's defaults)"),
    /* --wg, -D and --kernel have their rows above; here what they mean for
     * the kernels folder. */
    OPT_TEXT("  --wg, -D and --kernel as above: --wg 8x8,16x16 (2-D) or 64,128 (1-D);\n"
             "  -D NAME=LIST another axis (-D NUMCOEFFS=8,16); --kernel NAME builds this\n"
             "  kernel (repeatable; default: every kernel).\n"
             "  With every kernel, a kernel skips the values it does not allow (a note\n"
             "  says so); with --kernel, such a value is an error.\n"
             "\n"
             "LIST: 3 | 3,5,9 | 3,5,7,...,31 (the step of the values before '...', up to\n"
             "and including the last) | 3-31 | 3-31:2. At most 64 values (a -D list of\n"
             "source files: 65536), no duplicates.\n"
             "\n"
             "Where:"),
    OPT_NAME("device", 0, pack_args, device, "value", "SPEC",
             "default | gpu | cpu | accelerator | all | N | NAME |\n"
             "none (default: the first GPU, else the first CPU; N as\n"
             "in --list-devices; NAME: a part of the device name;\n"
             "none: no OpenCL device, offline targets only)"),
    OPT_STR("platform", 0, pack_args, platform, "NAME", "only platforms whose name contains NAME"),
    OPT_FLAG("list-devices", 0, pack_args, list_devices, "print every platform and device, then exit"),
    OPT_NAME("output", 'o', pack_args, output, "file name", "FILE",
             "the pack (default: packs/<device>.clcpack)"),
    OPT_TEXT("\n"
             "Devices you do not have (offline compilers, no device needed; docs/vendors/):"),
    OPT_CALL("intel-gpu", 0, opt_offline, "[=LIST]",
             "Intel GPUs: a binary per target made by ocloc; LIST:\n"
             "ocloc's names (tgllp, acm-g10, pvc), families or\n"
             "releases (xe-hpg), ranges (dg1:acm-g12); default\n"
             "tgllp,rkl,adl-s,adl-p,adl-n,dg1,acm-g10,acm-g11,acm-g12,pvc\n"
             "(and mtl where this ocloc knows it)"),
    OPT_FLAG("intel-ir", 0, pack_args, intel_ir,
             "keep the program's SPIR-V inside each Intel binary (left\n"
             "out by default unless --no-sources without --spirv)"),
    OPT_CALL("amd-gpu", 0, opt_offline, "[=LIST]",
             "AMD GPUs: a code object per gfx target ID made by\n"
             "clang with the ROCm device libraries (gfx90a,\n"
             "gfx90a:xnack-); default gfx900,gfx906,gfx908,gfx90a,\n"
             "gfx1010,gfx1030,gfx1100,gfx1101,gfx1102"),
    OPT_FLAG("spirv", 0, pack_args, spirv,
             "a SPIR-V module per variant (clang + llvm-spirv), loaded\n"
             "with clCreateProgramWithIL where no binary fits"),
    OPT_CALL("merge", 0, opt_merge, "PACK",
             "take every entry of PACK into the result (repeatable),\n"
             "its PTX given cubins for --nv-arch when ptxas is found"),
    OPT_NAME("depfile", 0, pack_args, depfile, "file name", "FILE",
             "also write a make rule: the pack depends on the manifest,\n"
             "the kernels and every file they include"),
    OPT_CALL(NULL, 'M', opt_m, "~D, -MF FILE, -MT TARGET",
             "the same, as compilers spell it (-MD alone:\n"
             "FILE is the pack's name with .d; -MT: the rule's target)"),
    OPT_CALL("timings", 0, opt_timings, "FILE",
             "also write where the build's time went: FILE.html a\n"
             "page with each worker's builds over time, FILE.json\n"
             "the same as a trace for Perfetto (docs/TIMINGS.md)"),
    OPT_TEXT("\n"
             "How:"),
    OPT_CALL("jobs", 'j', opt_jobs, "N",
             "parallel builds (default: the number of cores; under\n"
             "make -jN with a '+' rule, N, sharing make's job slots)"),
    OPT_FLAG("keep-going", 'k', pack_args, keep_going,
             "write the variants that built even if others failed"),
    OPT_FLAG("rebuild", 0, pack_args, rebuild,
             "build every variant; by default, when -o exists, the\n"
             "variants it already holds unchanged are reused"),
    OPT_CALL("update", 0, opt_update, NULL, "reuse what -o holds (the default)"),
    OPT_STR("ptxas", 0, pack_args, ptxas, "PATH",
            "NVIDIA: ptxas for cubins (default: PATH, then\n"
            "/usr/local/cuda/bin); without one, PTX only;\n"
            "'none': PTX only, as the driver gave it"),
    OPT_CALL("nv-arch", 0, opt_nv_arch, "LIST",
             "NVIDIA: a cubin for each sm number of LIST besides the\n"
             "device's own, from the PTX retargeted to it (default\n"
             "75,80,86,89,90,100,120); the PTX stored is its most\n"
             "portable form (docs/vendors/NVIDIA.md)"),
    OPT_FLAG("no-sources", 0, pack_args, no_sources, "store no kernel sources (no rebuild fallback)"),
    OPT_FLAG("store-cubins", 0, pack_args, store_cubins,
             "store the cubins for the device's own architecture\n"
             "as they are (about 0.1 ms faster at a cold start,\n"
             "a pack about twice the size); by default they are\n"
             "compressed like every binary, except with --codec zlib"),
    OPT_FLAG("compress-cubins", 0, pack_args, compress_cubins, "compress them with --codec zlib too"),
    OPT_CALL("codec", 0, opt_codec, "zlib|zstd",
             "zstd (the default where clc-pack has it): pack format\n"
             "5, about a third of zlib's size, read by libclcpack\n"
             "1.0 or newer built with zstd; zlib: formats 1-3, read\n"
             "by every libclcpack (docs/FORMAT.md)"),
    OPT_FLAG("no-check", 0, pack_args, no_check,
             "kernels folder: launch each variant once without\n"
             "checking its output against the CPU reference"),
    OPT_FLAG("no-warmup", 0, pack_args, no_warmup,
             "do not launch at all: on PoCL the binary then lacks the\n"
             "compiled work-group function (for comparisons)"),
    OPT_CHOICE("pocl-grids", 0, pack_args, pocl_small_grids, "all,small", "all|small",
               "PoCL: the work-group functions stored for a variant's\n"
               "local size; all (the default): small and large grids,\n"
               "with and without a global offset, so no first launch\n"
               "at it compiles; small: grids below 65535 work-items\n"
               "wide only (half the build time, smaller packs;\n"
               "docs/vendors/POCL.md)"),
    OPT_FLAG("tune", 0, pack_args, tune,
             "time every variant (median of --tune-runs runs after a\n"
             "warm-up, event profiling, random data) and store the\n"
             "times; builds one variant at a time (docs/TUNING.md);\n"
             "bundled kernels only: for your own, --tune-cmd"),
    OPT_CALL("tune-size", 0, opt_tune_size, "WxH",
             "problem size for --tune (default 2048x2048; poly\n"
             "kernels take W*H inputs)"),
    OPT_LONG("tune-runs", 0, pack_args, tune_runs, "a number of runs", 10, 10000, "N",
             "timed runs per variant, 10 or more (default 11)"),
    OPT_TEXT("\n"
             "Caches and many machines (docs/CACHE.md, docs/CLI.md, docs/REMOTE_CACHE.md):"),
    OPT_CALL("shard", 0, opt_shard, "K/N",
             "build part K of N of the variants (the same partition on\n"
             "every machine, by estimated cost); clc-pack merge joins\n"
             "the parts into the pack one machine would build"),
    OPT_STR("remote-cache", 0, pack_args, remote_cache, "URL",
            "before building a variant, look it up in an HTTP cache\n"
            "(Bazel's /ac/ and /cas/ layout: nginx with WebDAV PUT,\n"
            "bazel-remote); after, upload it (default:\n"
            "$CLC_PACK_REMOTE_CACHE); credentials from\n"
            "CLC_PACK_REMOTE_CACHE_TOKEN or ..._BASIC_AUTH"),
    OPT_FLAG("remote-cache-readonly", 0, pack_args, remote_readonly, "look up, never upload"),
    OPT_LONG("remote-cache-timeout", 0, pack_args, remote_timeout, "seconds", 1, 600, "S",
             "each request's time limit (default 10)"),
    OPT_FLAG("no-remote-cache", 0, pack_args, no_remote_cache, "ignore CLC_PACK_REMOTE_CACHE"),
    OPT_FLAG("no-cache", 0, pack_args, no_cache,
             "no variant cache on this machine (docs/CACHE.md: it is\n"
             "on by default, in $CLC_PACK_CACHE_DIR, else\n"
             "$XDG_CACHE_HOME/clc-pack; also CLC_PACK_NO_CACHE=1)"),
    OPT_TEXT(""),
    OPT_QUIET(pack_args, verbosity, "only errors"),
    OPT_VERBOSE(pack_args, verbosity, "more detail"),
    OPT_HELP,
    OPT_FLAG("version", 0, pack_args, version, "the version"),
};

/* The options of clc-pack [pack]: usage_pack prints them. */
const cli_optspec pack_optspec = {NULL, pack_opts, sizeof pack_opts / sizeof pack_opts[0], 0, 23};

/* The defaults of every option. 0, or -1 out of memory. */
static int set_defaults(pack_args *a, int argc, char err[PACK_ARGS_ERR_MAX])
{
    pack_args_free(a);
    memset(a, 0, sizeof *a);
    if (alloc_lists(a, argc) != 0) {
        bfmt(err, PACK_ARGS_ERR_MAX, "out of memory");
        return -1;
    }
    a->check_timeout = 600;
    a->remote_timeout = 10;
    a->kernels_dir = "kernels";
    a->device = "default";
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    a->jobs = cores > 0 ? (cores > PACK_ARGS_MAX_JOBS ? PACK_ARGS_MAX_JOBS : cores) : 1;
    a->tune_width = a->tune_height = 2048;
    a->tune_runs = 11;
    nv_arch_list_parse(NV_FORMS_DEFAULT_ARCHS, &a->nv_archs, err);
    return 0;
}

/* After the options: the source files, and what the mode allows. */
static int finish(pack_args *a, int argc, char **argv, int operand, char err[PACK_ARGS_ERR_MAX])
{
    direct_jobs_spec *ds = &a->direct_spec;
    const char *wg = ds->all.wg;
    size_t wg_after = a->wg_after;
    if (a->compress_cubins && a->store_cubins) {
        bfmt(err, PACK_ARGS_ERR_MAX, "--compress-cubins and --store-cubins together: give one");
        return -1;
    }
    /* The files after "--": programs with no axes of their own. */
    for (; operand < argc; operand++)
        open_program(a, argv[operand], NULL);
    a->direct = ds->n_programs > 0;
    if (a->direct) {
        /* --tune launches the bundled kernels with the arguments their
         * manifest knows; a program of the user's takes arguments only its
         * own program knows, so only its own command can time it. */
        if (a->tune) {
            char label[300];
            direct_jobs_program_label(&ds->programs[0], label, sizeof label);
            bfmt(err, PACK_ARGS_ERR_MAX, "--tune times the bundled kernels only: it cannot know the "
                                  "arguments of %s; time it with your own command, "
                                  "--tune-cmd 'CMD' (docs/TUNING.md)",
                 label);
            return -1;
        }
        if (a->req.n_axes) {
            bfmt(err, PACK_ARGS_ERR_MAX, "--widths selects the kernels folder's FILTER_WIDTH; with "
                                  "source files give -D FILTER_WIDTH=LIST");
            return -1;
        }
        return 0;
    }
    /* The kernels folder's manifest: -D and --wg select its axes. */
    const direct_axes *all = &ds->all;
    const char *direct_only = ds->n_includes    ? "-I"
                              : all->n_derives  ? "--derive"
                              : all->n_wheres   ? "--where"
                              : all->n_variants ? "--variant"
                              : all->n_defaults ? "--default"
                              : ds->options     ? "--options"
                              : ds->wg_defines  ? "--wg-defines"
                              : all->check_cmd  ? "--check-cmd"
                              : all->tune_cmd   ? "--tune-cmd"
                                                : NULL;
    if (direct_only) {
        /* The kernels folder's program blocks take their own commands. */
        int cmd = strcmp(direct_only, "--check-cmd") == 0 || strcmp(direct_only, "--tune-cmd") == 0;
        bfmt(err, PACK_ARGS_ERR_MAX, "%s applies to source files given on the command line "
                              "(clc-pack FILE.cl ... %s ...); none was given%s",
             direct_only, direct_only,
             cmd ? "; a manifest program block takes check_cmd and tune_cmd lines "
                   "(docs/MANIFEST.md)"
                 : "");
        return -1;
    }
    for (size_t i = 0; i <= all->n_defines; i++) {
        if (wg && i == wg_after && add_axis(a, "WG", "--wg", wg, err) != 0)
            return -1;
        if (i < all->n_defines && parse_define(a, all->defines[i], err) != 0)
            return -1;
    }
    return 0;
}

int pack_args_parse(int argc, char **argv, pack_args *a, char err[PACK_ARGS_ERR_MAX])
{
    if (set_defaults(a, argc, err) != 0)
        return -1;
    int first;
    int rc = cli_opts_parse(&pack_optspec, argc, argv, a, &first, err, PACK_ARGS_ERR_MAX);
    if (rc == CLI_OPTS_HELP) {
        /* -h/--help stops the parse, as in every subcommand: what follows
         * it is not looked at. */
        a->help = 1;
        return 0;
    }
    if (rc != 0)
        return -1;
    return finish(a, argc, argv, first, err);
}
