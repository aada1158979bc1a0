/*
 * commands.h — clc-pack's subcommands. Each takes its own argv (argv[0] is
 * the command's name), prints its own diagnostics and returns the exit
 * status (cli_report.h).
 */
#ifndef CLC_COMMANDS_H
#define CLC_COMMANDS_H

#include <stdio.h>

int cmd_pack(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_extract(int argc, char **argv);
int cmd_best(int argc, char **argv);
int cmd_tune_report(int argc, char **argv);
int cmd_embed(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_retarget(int argc, char **argv);
int cmd_warm(int argc, char **argv);

/* Usage texts (--help); "pack" is the main one. */
void usage_pack(FILE *f);
/* A bare clc-pack with nothing to pack: how to pack one's own FILE.cl. */
void usage_short(FILE *f);
void usage_list(FILE *f);
void usage_verify(FILE *f);
void usage_extract(FILE *f);
void usage_best(FILE *f);
void usage_tune_report(FILE *f);
void usage_embed(FILE *f);
void usage_merge(FILE *f);
void usage_retarget(FILE *f);
void usage_warm(FILE *f);
void usage_record(FILE *f);
void usage_run(FILE *f);
void print_version(FILE *f);

#endif /* CLC_COMMANDS_H */
