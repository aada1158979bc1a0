/*
 * test_cli_help.c — --help is made from the option tables and commands
 * come from one table (clc/cli/commands.h, cli_opts.h): every option row of
 * every command carries a help text and shows in the command's option
 * lines; the help layout (column, later lines, long options); the command
 * table's look-ups and names. No OpenCL device needed.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli_opts.h"
#include "commands.h"

/* What cli_opts_help prints for s, in a malloc'd string. */
static char *help_text(const cli_optspec *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    cli_opts_help(f, s);
    fclose(f);
    return buf;
}

/* Every option of every command's table has help, shown in its lines. */
static void check_tables(void)
{
    size_t n_opts = 0;
    for (size_t i = 0; i < clc_n_commands; i++) {
        const clc_command *c = &clc_commands[i];
        char *text = help_text(c->opts);
        CHECK(text != NULL, "%s: the help is made", c->name);
        for (size_t k = 0; text && k < c->opts->n; k++) {
            const cli_opt *o = &c->opts->opts[k];
            if (o->kind == CO_TEXT || o->kind == CO_OPERAND)
                continue;
            char shown[80];
            if (o->name)
                snprintf(shown, sizeof shown, "--%s", o->name);
            else
                snprintf(shown, sizeof shown, "-%c", o->key);
            CHECK(o->help && o->help[0], "%s %s: the row has a help text", c->name, shown);
            CHECK(strstr(text, shown) != NULL, "%s %s: in the option lines", c->name, shown);
            n_opts++;
        }
        free(text);
    }
    CHECK(n_opts >= 100, "the tables hold %zu options", n_opts);
}

typedef struct demo {
    const char *out;
    int flag;
} demo;

/* The layout: text at the column, its later lines there, a long option
 * followed by two spaces, a value joined to the name, text rows as is. */
static void check_layout(void)
{
    static const cli_opt opts[] = {
        OPT_TEXT("Head:"),
        OPT_STR("output", 'o', demo, out, "FILE", "first line\nsecond line"),
        OPT_FLAG("a-very-long-option-name", 0, demo, flag, "text"),
        OPT_CALL("opt", 0, NULL, "[=LIST]", "optional value"),
        OPT_HELP,
    };
    static const cli_optspec spec = {"demo", opts, sizeof opts / sizeof opts[0], 0, 20};
    char *text = help_text(&spec);
    const char *want = "Head:\n"
                       "  -o, --output FILE  first line\n"
                       "                    second line\n"
                       "  --a-very-long-option-name  text\n"
                       "  --opt[=LIST]      optional value\n"
                       "  -h, --help        this text\n";
    CHECK(text && strcmp(text, want) == 0, "the help layout:\n%s\nwanted:\n%s", text ? text : "",
          want);
    free(text);
}

static void check_commands(void)
{
    CHECK(clc_n_commands >= 12, "%zu commands in the table", clc_n_commands);
    const clc_command *list = clc_command_named("list");
    CHECK(list && list->run == cmd_list && list->opts == &list_optspec,
          "list is found with its function and options");
    CHECK(clc_command_named("tune-report") != NULL, "tune-report is found by its name");
    CHECK(clc_command_named("frobnicate") == NULL, "an unknown name is not found");
    CHECK(clc_command_named("help") == NULL, "help is main's, not a table row");
    char names[512];
    clc_command_names(names, sizeof names);
    for (size_t i = 0; i < clc_n_commands; i++) {
        const clc_command *c = &clc_commands[i];
        CHECK(strstr(names, c->name) != NULL, "%s is in the names: %s", c->name, names);
        CHECK(c->run && c->summary[0] && c->opts, "%s has a function, a summary, options", c->name);
        for (size_t k = 0; k < i; k++)
            CHECK(strcmp(clc_commands[k].name, c->name) != 0, "%s is in the table once", c->name);
    }
    CHECK(strncmp(names, "pack, list, ", 12) == 0, "the names in the table's order: %s", names);
}

int main(void)
{
    check_tables();
    check_layout();
    check_commands();
    return check_summary();
}
