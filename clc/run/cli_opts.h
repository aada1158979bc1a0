/*
 * cli_opts.h — option parsing for every subcommand and worker process.
 *
 * A command describes its options in a table, one cli_opt row each: its
 * names, what its value is and which field of the command's argument
 * struct it fills. One parser (getopt_long underneath) reads argv into
 * that struct, so the same mistake gives the same message everywhere:
 *
 *   unknown option --bogus            unknown option -Z
 *   --widths needs a value            -o needs a value
 *   --list-devices takes no value
 *   -o: the file name is empty        (CO_NAME: what = "file name")
 *   -j 0: expected a number of jobs from 1 to 256   (CO_LONG)
 *   --kind elf: expected native, ptx or cubin       (CO_CHOICE)
 *
 * and one help convention: -h/--help stops the parse; the command prints
 * its usage on stdout and exits 0 (cli_opts_run does both). The option
 * lines of that usage come from the table too: every row carries its help
 * text (and the name of its value), as git's OPT_STRING(s, l, v, a, h)
 * does, so an option cannot be added without it (the macros need the
 * argument; tests/cli/cli_surface.sh refuses an empty one). A usage error
 * is "clc-pack: CMD: message" and a hint on stderr, exit status 2.
 * Options may come before and after the operands (getopt's permutation),
 * "--" ends them; in_order stops at the first operand instead. A table
 * with an OPT_OPERAND row takes each operand in its place among the
 * options instead, so that what follows an operand can be its own (the
 * pack command's per-program axes).
 */
#ifndef CLC_CLI_OPTS_H
#define CLC_CLI_OPTS_H

#include <stddef.h>
#include <stdio.h>

#include "bounded_fmt.h"

typedef enum cli_opt_kind {
    CO_FLAG,    /* no value: the int field becomes lo */
    CO_STR,     /* the const char * field becomes the value */
    CO_NAME,    /* the same, and an empty value is refused */
    CO_LONG,    /* the long field: a whole number from lo to hi */
    CO_CHOICE,  /* the int field: the index of the value in what ("asm,c") */
    CO_QUIET,   /* -q: the int field becomes -1 */
    CO_VERBOSE, /* -v: the int field becomes 1 after -q, else one more */
    CO_HELP,    /* -h, --help: the parse stops; the usage is printed */
    CO_CALL,    /* fn does what the option asks */
    CO_OPERAND, /* no option: fn takes each operand where it stands (c->arg);
                   its help is a line printed as it is, as CO_TEXT's */
    CO_TEXT     /* no option: a line of the help (a heading, a note) */
} cli_opt_kind;

typedef struct cli_optctx cli_optctx;

/* A CO_CALL option: 0, or -1 after cli_opt_fail. */
typedef int (*cli_opt_fn)(void *args, cli_optctx *c);

typedef struct cli_opt {
    const char *name;  /* the long name without "--", or NULL */
    char key;          /* the short option's letter, or 0 */
    cli_opt_kind kind;
    size_t off;        /* offsetof the field it fills in the argument struct */
    /* CO_NAME: what the value names ("file name"); CO_LONG: what the
     * number counts ("a number of jobs"); CO_CHOICE: the choices,
     * comma-separated; CO_CALL: NULL when it takes no value, "[=NAME]"
     * when the value is optional (--intel-gpu[=LIST]), anything else
     * (the value's name) when it needs one. */
    const char *what;
    long lo, hi;
    cli_opt_fn fn;
    /* The help: the value's name after the option ("FILE"; NULL for none;
     * "[=LIST]" and a leading '~' join it to the name: -MD), and the text,
     * its lines joined by '\n'. CO_TEXT: the line printed as it is. */
    const char *arg;
    const char *help;
} cli_opt;

/* Each row: long name, short key, [the struct and field it fills, what
 * the parser checks,] the value's name for the help, the help text. */
#define OPT_FLAG(l, s, T, f, h) {l, s, CO_FLAG, offsetof(T, f), NULL, 1, 0, NULL, NULL, h}
#define OPT_STR(l, s, T, f, a, h) {l, s, CO_STR, offsetof(T, f), NULL, 0, 0, NULL, a, h}
#define OPT_NAME(l, s, T, f, what, a, h) {l, s, CO_NAME, offsetof(T, f), what, 0, 0, NULL, a, h}
#define OPT_LONG(l, s, T, f, what, lo, hi, a, h)                                                 \
    {l, s, CO_LONG, offsetof(T, f), what, lo, hi, NULL, a, h}
#define OPT_CHOICE(l, s, T, f, choices, a, h)                                                    \
    {l, s, CO_CHOICE, offsetof(T, f), choices, 0, 0, NULL, a, h}
/* A CO_CALL's value name is also what tells the parser whether it takes a
 * value (see what above). */
#define OPT_CALL(l, s, fn, a, h) {l, s, CO_CALL, 0, a, 0, 0, fn, a, h}
/* A CO_CALL that fills a field (c->opt->off), for callbacks shared by
 * several commands (cli_opt_codec). */
#define OPT_CALL_AT(l, s, T, f, fn, a, h) {l, s, CO_CALL, offsetof(T, f), a, 0, 0, fn, a, h}
#define OPT_QUIET(T, f, h) {"quiet", 'q', CO_QUIET, offsetof(T, f), NULL, 0, 0, NULL, NULL, h}
#define OPT_VERBOSE(T, f, h) {"verbose", 'v', CO_VERBOSE, offsetof(T, f), NULL, 0, 0, NULL, NULL, h}
#define OPT_HELP {"help", 'h', CO_HELP, 0, NULL, 0, 0, NULL, NULL, "this text"}
/* A line of the help that is no option: a heading, a note. */
#define OPT_TEXT(text) {NULL, 0, CO_TEXT, 0, NULL, 0, 0, NULL, NULL, text}
/* The operands, taken in order among the options by fn (at most one such
 * row a table; without one, getopt moves the operands after the options).
 * Those after "--" are not handed to fn: they are argv[*first..argc). */
#define OPT_OPERAND(fn, text) {NULL, 0, CO_OPERAND, 0, NULL, 0, 0, fn, NULL, text}

/* What a CO_CALL function is handed. */
struct cli_optctx {
    const cli_opt *opt;
    const char *arg;   /* the value (CO_OPERAND: the operand), or NULL */
    const char *shown; /* the option as messages name it: "-j", "--nv-arch"; "" for an operand */
    /* For an option that takes the next word too (-MF FILE): argv[*next]
     * is that word; increment *next to take it. */
    int argc;
    char **argv;
    int *next;
    char *err;
    size_t cap;
};

/* Writes "SHOWN: message" (or "SHOWN VALUE: message" when with_value)
 * into c->err; returns -1. */
int cli_opt_fail(cli_optctx *c, int with_value, const char *fmt, ...) BFMT_PRINTF(3, 4);

typedef struct cli_optspec {
    const char *cmd;      /* the subcommand, named in messages; NULL for pack */
    const cli_opt *opts;
    size_t n;
    int in_order;         /* stop at the first operand (record's application) */
    int col;              /* the help's column for the option texts */
} cli_optspec;

/* The table of s as help lines: "  -o, --output FILE  text", the text at
 * column s->col (after two spaces where the option is longer), its later
 * lines there too; CO_TEXT rows as they are. */
void cli_opts_help(FILE *f, const cli_optspec *s);

#define CLI_OPTS_HELP 1

/* Parses argv[1..argc) into args. Returns 0 with *first the index of the
 * first operand (the operands are argv[*first..argc), in order);
 * CLI_OPTS_HELP when -h or --help came (the parse stopped there); -1 with
 * err (cap bytes) saying what is wrong. Prints nothing. */
int cli_opts_parse(const cli_optspec *s, int argc, char **argv, void *args, int *first,
                   char *err, size_t cap);

/* What a command does with cli_opts_parse's answer. */
#define CLI_OPTS_GO (-1)
/* Returns CLI_OPTS_GO with *first set when the command is to run; after
 * --help, prints usage on stdout and returns EXIT_OK_STATUS; after a
 * mistake, prints it with the hint and returns EXIT_USAGE_STATUS. */
int cli_opts_run(const cli_optspec *s, void (*usage)(FILE *), int argc, char **argv, void *args,
                 int *first);

/* -q and -v straight into cli_verbosity (cli_report.h), for commands whose
 * argument struct has no verbosity field: -q makes it -1, -v 1 after -q,
 * else one more. */
int cli_opt_quiet(void *args, cli_optctx *c);
int cli_opt_verbose(void *args, cli_optctx *c);
#define OPT_QUIET_CLI(h) OPT_CALL("quiet", 'q', cli_opt_quiet, NULL, h)
#define OPT_VERBOSE_CLI(h) OPT_CALL("verbose", 'v', cli_opt_verbose, NULL, h)

/* --codec zlib|zstd into the clcpack_compression field (OPT_CALL_AT). */
int cli_opt_codec(void *args, cli_optctx *c);

#endif /* CLC_CLI_OPTS_H */
