/* commands.c — the command table (commands.h) and its look-ups. */
#include "commands.h"

#include <string.h>

#include "bounded_fmt.h"

#define CLC_COMMAND_ROW(id, name, synopsis, summary) {name, cmd_##id, synopsis, summary, &id##_optspec},
const clc_command clc_commands[] = {CLC_COMMANDS(CLC_COMMAND_ROW)};
#undef CLC_COMMAND_ROW
const size_t clc_n_commands = sizeof clc_commands / sizeof clc_commands[0];

const clc_command *clc_command_named(const char *name)
{
    for (size_t i = 0; i < clc_n_commands; i++)
        if (strcmp(clc_commands[i].name, name) == 0)
            return &clc_commands[i];
    return NULL;
}

void clc_command_names(char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < clc_n_commands && len < cap; i++) {
        bfmt(buf + len, cap - len, "%s%s", i ? ", " : "", clc_commands[i].name);
        len += strlen(buf + len);
    }
}
