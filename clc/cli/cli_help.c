/* cli_help.c — a command's option lines of --help, made from its option
 * table (cli_opts.h), so that the help cannot miss an option. */
#include <string.h>

#include "bounded_fmt.h"
#include "cli_opts.h"

/* "-o, --output FILE", "--intel-gpu[=LIST]", "-MD, -MF FILE, ...". */
static void label_of(const cli_opt *o, char *buf, size_t cap)
{
    size_t len = 0;
    if (o->key)
        len += (size_t)snprintf(buf + len, cap - len, "-%c%s", o->key, o->name ? ", " : "");
    if (o->name && len < cap)
        len += (size_t)snprintf(buf + len, cap - len, "--%s", o->name);
    if (o->arg && len < cap) {
        int joined = o->arg[0] == '[' || o->arg[0] == '~';
        snprintf(buf + len, cap - len, "%s%s", joined ? "" : " ", o->arg + (o->arg[0] == '~'));
    }
}

void cli_opts_help(FILE *f, const cli_optspec *s)
{
    for (size_t i = 0; i < s->n; i++) {
        const cli_opt *o = &s->opts[i];
        if (o->kind == CO_TEXT || o->kind == CO_OPERAND) {
            fprintf(f, "%s\n", o->help);
            continue;
        }
        char label[128];
        label_of(o, label, sizeof label);
        int len = 2 + (int)strlen(label);
        fprintf(f, "  %s%*s", label, len + 2 > s->col ? 2 : s->col - len, "");
        /* The text's later lines start at the column too. */
        for (const char *p = o->help ? o->help : "";;) {
            size_t k = strcspn(p, "\n");
            fprintf(f, "%.*s\n", (int)k, p);
            if (!p[k])
                break;
            p += k + 1;
            fprintf(f, "%*s", s->col, "");
        }
    }
}
