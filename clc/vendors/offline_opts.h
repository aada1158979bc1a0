/*
 * offline_opts.h — a variant's build options (the text handed to
 * clBuildProgram: -D, -I, -cl-std, the user's --options) as the argv items
 * an offline compiler takes the same way. Only OpenCL's own build options
 * pass (-D, -U, -I, -cl-*, -w, -Werror, -g): anything else would be an
 * option of the compiler itself (-o FILE), so it is refused with its name.
 * Split at blanks outside '...' and "..." quotes, as drivers split them.
 */
#ifndef CLC_OFFLINE_OPTS_H
#define CLC_OFFLINE_OPTS_H

#include <stddef.h>

#define OFFLINE_OPTS_MAX_ARGS 256

typedef struct offline_opts_args {
    size_t n;
    char *arg[OFFLINE_OPTS_MAX_ARGS]; /* malloc'd, each one option; "-I DIR" gives "-I", "DIR" */
    int fast_math, finite_only, unsafe_math, denorms_zero, correct_sqrt, opt_disable;
} offline_opts_args;

/* 0, or -1 with msg naming the option refused (or too many). */
int offline_opts_split(const char *options, offline_opts_args *out, char *msg, size_t cap);
void offline_opts_free(offline_opts_args *a);

#endif /* CLC_OFFLINE_OPTS_H */
