/*
 * commands.h — clc-pack's subcommands, listed once: CLC_COMMANDS below is
 * the table (as git.c's commands[]) that main dispatches through, that the
 * usage and the unknown-command message print, and that the tests read
 * (tests/cli/cli_docs.sh, tests/cli/cli_surface.sh). Each command takes its own
 * argv (argv[0] is the command's name), prints its own diagnostics and
 * returns the exit status (cli_report.h).
 */
#ifndef CLC_COMMANDS_H
#define CLC_COMMANDS_H

#include <stddef.h>
#include <stdio.h>

#include "cli_opts.h"

/* X(ID, NAME, SYNOPSIS, SUMMARY): cmd_ID runs it, usage_ID prints its
 * --help around ID_optspec's option lines; SYNOPSIS follows "clc-pack NAME"
 * in the main usage (pack's own lines are usage_pack's). A new command is a
 * row here, its cmd_ID.c, and its usage_ID in usage.c. */
#define CLC_COMMANDS(X)                                                                          \
    X(pack, "pack", "", "build a pack from .cl files or the kernels folder")                    \
    X(list, "list", "PACK [--json]", "print a pack's devices, sources and entries")            \
    X(verify, "verify", "PACK [--load [--check]] [--device SPEC]",                             \
      "check every entry's CRC-32, and load it with --load")                                   \
    X(extract, "extract",                                                                       \
      "PACK (--entry N | --kernel NAME [-D NAME=V]... [--wg WxH])\n"                            \
      "                        [--source] [--kind KIND] -o FILE",                               \
      "write one entry's binary or source to a file")                                          \
    X(embed, "embed", "PACK -o FILE [--format asm|c|rc] [--symbol NAME] [--header FILE.h]",     \
      "write a pack as assembler, C or a resource for an application's build")                 \
    X(merge, "merge", "PACK... -o FILE", "join packs built on different machines")             \
    X(retarget, "retarget", "PACK [--nv-arch LIST] -o FILE",                                    \
      "add cubins for more NVIDIA architectures")                                               \
    X(warm, "warm", "PACK [--device SPEC] [--cache-dir DIR]",                                   \
      "fill the rebuild cache for this machine's devices")                                     \
    X(record, "record", "-o FILE -- APP [ARGS...]",                                             \
      "pack the programs an unmodified application builds")                                   \
    X(run, "run", "PACK -- APP [ARGS...]", "run an application with its builds served from a pack") \
    X(best, "best", "PACK (--family F --width N | --kernel NAME [-D NAME=V]...)",               \
      "the fastest variant, as an application would choose it")                                \
    X(tune, "tune", "SPEC.json [-o PACK] [--t4 FILE] [--strategy NAME] [--budget N|Ns]",          \
      "tune any OpenCL program from a T1 spec, and pack the fastest")                          \
    X(tune_report, "tune-report", "PACK [--family F | --kernel NAME]",                          \
      "the timings of a pack built with --tune, --tune-cmd or tune")                           \
    X(cache, "cache", "stats | clear", "what the variant cache holds, or empty it")

#define CLC_COMMAND_DECLARE(id, name, synopsis, summary)                                         \
    int cmd_##id(int argc, char **argv);                                                         \
    void usage_##id(FILE *f);                                                                    \
    extern const cli_optspec id##_optspec;
CLC_COMMANDS(CLC_COMMAND_DECLARE)
#undef CLC_COMMAND_DECLARE

typedef struct clc_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *synopsis;
    const char *summary;
    const cli_optspec *opts;
} clc_command;

extern const clc_command clc_commands[];
extern const size_t clc_n_commands;

/* The command called name, or NULL. */
const clc_command *clc_command_named(const char *name);

/* "pack, list, ..., tune-report": every name, for messages. */
void clc_command_names(char *buf, size_t cap);

/* A bare clc-pack with nothing to pack: how to pack one's own FILE.cl. */
void usage_short(FILE *f);
void print_version(FILE *f);

#endif /* CLC_COMMANDS_H */
