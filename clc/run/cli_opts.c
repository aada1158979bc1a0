/* cli_opts.c — the table-driven option parser (cli_opts.h). */
#include "cli_opts.h"

#include <getopt.h>
#include <stdarg.h>
#include <string.h>

#include "cli_report.h"
#include "clcpack.h"
#include "nearest_name.h"
#include "pack_text.h"

#define MAX_OPTS 96
#define KEY_BASE 256 /* getopt's value of row i is KEY_BASE + i */

/* 0: no value, 1: a value, 2: an optional value (--name=VALUE only). */
static int value_kind(const cli_opt *o)
{
    switch (o->kind) {
    case CO_STR:
    case CO_NAME:
    case CO_LONG:
    case CO_CHOICE:
        return 1;
    case CO_CALL:
        return !o->what ? 0 : o->what[0] == '[' ? 2 : 1;
    default:
        return 0;
    }
}

static void shown_name(const cli_opt *o, char *buf, size_t cap)
{
    if (o->key)
        bfmt(buf, cap, "-%c", o->key);
    else
        bfmt(buf, cap, "--%s", o->name);
}

int cli_opt_fail(cli_optctx *c, int with_value, const char *fmt, ...)
{
    char why[512], clip[BFMT_QUOTE_MAX + 4];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (with_value && c->arg)
        bfmt(c->err, c->cap, "%s %s: %s", c->shown, bfmt_clip(c->arg, clip), why);
    else
        bfmt(c->err, c->cap, "%s: %s", c->shown, why);
    return -1;
}

/* "asm, c" as "asm or c", "a,b,c" as "a, b or c". */
static void format_choices(const char *list, char *buf, size_t cap)
{
    size_t len = 0, n = 1;
    for (const char *p = list; *p; p++)
        n += *p == ',';
    buf[0] = '\0';
    const char *p = list;
    for (size_t i = 0; i < n && len < cap; i++) {
        size_t k = strcspn(p, ",");
        bfmt(buf + len, cap - len, "%s%.*s", i == 0 ? "" : i + 1 == n ? " or " : ", ", (int)k, p);
        len += strlen(buf + len);
        p += k + (p[k] == ',');
    }
}

/* The index of value among the comma-separated choices, or -1. */
static int choice_index(const char *choices, const char *value)
{
    size_t n = strlen(value);
    int i = 0;
    for (const char *p = choices;; i++) {
        size_t k = strcspn(p, ",");
        if (k == n && strncmp(p, value, n) == 0)
            return i;
        if (!p[k])
            return -1;
        p += k + 1;
    }
}

/* One option with its value into args. 0, CLI_OPTS_HELP, or -1. */
static int apply(const cli_opt *o, void *args, cli_optctx *c)
{
    char *field = (char *)args + o->off;
    switch (o->kind) {
    case CO_FLAG:
        *(int *)field = (int)o->lo;
        return 0;
    case CO_QUIET:
        *(int *)field = -1;
        return 0;
    case CO_VERBOSE:
        *(int *)field = *(int *)field < 0 ? 1 : *(int *)field + 1;
        return 0;
    case CO_HELP:
        return CLI_OPTS_HELP;
    case CO_NAME:
        if (!*c->arg)
            return cli_opt_fail(c, 0, "the %s is empty", o->what);
        /* fall through */
    case CO_STR:
        *(const char **)field = c->arg;
        return 0;
    case CO_LONG:
        if (cli_parse_long(c->arg, o->lo, o->hi, (long *)field) != 0)
            return cli_opt_fail(c, 1, "expected %s from %ld to %ld", o->what, o->lo, o->hi);
        return 0;
    case CO_CHOICE: {
        int k = choice_index(o->what, c->arg);
        if (k < 0) {
            char list[256];
            format_choices(o->what, list, sizeof list);
            return cli_opt_fail(c, 1, "expected %s", list);
        }
        *(int *)field = k;
        return 0;
    }
    case CO_CALL:
    case CO_OPERAND:
        return o->fn(args, c) == 0 ? 0 : -1;
    case CO_TEXT: /* names no option: getopt never gives it */
        break;
    }
    return -1;
}

/* Appends "; did you mean --NAME?" to err when a long option of the table
 * is a likely typo of the unknown one, arg ("--widht" or "--widht=5"). */
static void suggest(const cli_optspec *s, const char *arg, char *err, size_t cap)
{
    if (strncmp(arg, "--", 2) != 0)
        return;
    nearest_name_best b;
    nearest_name_init(&b, arg + 2);
    for (size_t i = 0; i < s->n; i++)
        nearest_name_offer(&b, s->opts[i].name);
    const char *near = nearest_name_result(&b);
    /* "--check-command" for --check-cmd: too many edits apart for a typo,
     * but a name spelt out in full. */
    for (size_t i = 0; !near && i < s->n; i++)
        if (s->opts[i].name && (nearest_name_contracts(s->opts[i].name, arg + 2) ||
                                nearest_name_contracts(arg + 2, s->opts[i].name)))
            near = s->opts[i].name;
    size_t len = strlen(err);
    if (near)
        bfmt(err + len, cap - len, "; did you mean --%s?", near);
}

/* The message for what getopt refused: a missing value (':'), an unknown
 * option or a value given to an option that takes none ('?'). */
static void refusal(const cli_optspec *s, int c, char **argv, char *err, size_t cap)
{
    char clip[BFMT_QUOTE_MAX + 4];
    const cli_opt *o = optopt >= KEY_BASE && (size_t)(optopt - KEY_BASE) < s->n
                           ? &s->opts[optopt - KEY_BASE]
                           : NULL;
    if (c == ':') {
        if (o)
            bfmt(err, cap, "--%s needs a value", o->name);
        else
            bfmt(err, cap, "-%c needs a value", optopt);
    } else if (o) {
        bfmt(err, cap, "--%s takes no value", o->name);
    } else if (optopt) {
        bfmt(err, cap, "unknown option -%c", optopt);
    } else {
        const char *a = argv[optind - 1];
        bfmt(err, cap, "unknown option %.*s", (int)strcspn(bfmt_clip(a, clip), "="),
             bfmt_clip(a, clip));
        suggest(s, a, err, cap);
    }
}

int cli_opts_parse(const cli_optspec *s, int argc, char **argv, void *args, int *first,
                   char *err, size_t cap)
{
    struct option longopts[MAX_OPTS + 1];
    char shorts[3 * MAX_OPTS + 3];
    size_t nl = 0, ns = 0;
    if (s->n > MAX_OPTS) {
        bfmt(err, cap, "more than %d options in one table", MAX_OPTS);
        return -1;
    }
    const cli_opt *operand = NULL;
    for (size_t i = 0; i < s->n && !operand; i++)
        if (s->opts[i].kind == CO_OPERAND)
            operand = &s->opts[i];
    /* '-': getopt returns each operand as the value of option 1, in its
     * place (RETURN_IN_ORDER; the BSDs' getopt_long reads '-' so too). */
    if (operand)
        shorts[ns++] = '-';
    else if (s->in_order)
        shorts[ns++] = '+';
    shorts[ns++] = ':';
    for (size_t i = 0; i < s->n; i++) {
        const cli_opt *o = &s->opts[i];
        if (o->kind == CO_OPERAND || o->kind == CO_TEXT)
            continue;
        int v = value_kind(o);
        if (o->name)
            longopts[nl++] = (struct option){o->name, v == 0   ? no_argument
                                                      : v == 1 ? required_argument
                                                               : optional_argument,
                                             NULL, KEY_BASE + (int)i};
        if (o->key) {
            shorts[ns++] = o->key;
            if (v == 1)
                shorts[ns++] = ':';
        }
    }
    longopts[nl] = (struct option){NULL, 0, NULL, 0};
    shorts[ns] = '\0';
    opterr = 0;
    /* A full reset: after a parse that stopped inside a cluster of short
     * options (-kq...), glibc would go on reading that cluster, in an
     * argument vector that may be gone, unless optind is 0. */
#ifdef __GLIBC__
    optind = 0;
#else
    optind = 1;
#endif
    int c;
    while ((c = getopt_long(argc, argv, shorts, longopts, NULL)) != -1) {
        const cli_opt *o = c == 1 ? operand : NULL;
        if (c >= KEY_BASE && (size_t)(c - KEY_BASE) < s->n)
            o = &s->opts[c - KEY_BASE];
        for (size_t i = 0; !o && c != ':' && c != '?' && i < s->n; i++)
            if (s->opts[i].key == c)
                o = &s->opts[i];
        if (!o) {
            refusal(s, c, argv, err, cap);
            return -1;
        }
        char shown[80] = "";
        if (o->kind != CO_OPERAND)
            shown_name(o, shown, sizeof shown);
        cli_optctx ctx = {o, optarg, shown, argc, argv, &optind, err, cap};
        int rc = apply(o, args, &ctx);
        if (rc != 0)
            return rc;
    }
    *first = optind;
    return 0;
}

int cli_opts_run(const cli_optspec *s, void (*usage)(FILE *), int argc, char **argv, void *args,
                 int *first)
{
    char err[1024];
    int rc = cli_opts_parse(s, argc, argv, args, first, err, sizeof err);
    if (rc == CLI_OPTS_HELP) {
        usage(stdout);
        return EXIT_OK_STATUS;
    }
    if (rc != 0)
        return cli_usage_error(s->cmd, "%s%s%s", s->cmd ? s->cmd : "", s->cmd ? ": " : "",
                               err);
    return CLI_OPTS_GO;
}

int cli_opt_quiet(void *args, cli_optctx *c)
{
    (void)args;
    (void)c;
    cli_verbosity = -1;
    return 0;
}

int cli_opt_verbose(void *args, cli_optctx *c)
{
    (void)args;
    (void)c;
    cli_verbosity = cli_verbosity < 0 ? 1 : cli_verbosity + 1;
    return 0;
}

int cli_opt_codec(void *args, cli_optctx *c)
{
    clcpack_compression *out = (clcpack_compression *)((char *)args + c->opt->off);
    char msg[256];
    /* pack_text_parse_codec's message, the same as clc-pack [pack]'s. */
    int rc = pack_text_parse_codec(c->arg, out, msg, sizeof msg);
    if (rc != 0)
        bfmt(c->err, c->cap, "%s", msg);
    return rc == 0 ? 0 : -1;
}
