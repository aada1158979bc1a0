/* offline_opts.c — build options as offline compiler arguments (offline_opts.h). */
#include "offline_opts.h"

#include <stdlib.h>
#include <string.h>

#include "bounded_fmt.h"

static int allowed(const char *a)
{
    static const char *const exact[] = {"-w", "-Werror", "-g", "-D", "-U", "-I", NULL};
    for (size_t i = 0; exact[i]; i++)
        if (strcmp(a, exact[i]) == 0)
            return 1;
    return strncmp(a, "-D", 2) == 0 || strncmp(a, "-U", 2) == 0 || strncmp(a, "-I", 2) == 0 ||
           strncmp(a, "-cl-", 4) == 0;
}

void offline_opts_free(offline_opts_args *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->arg[i]);
    memset(a, 0, sizeof *a);
}

int offline_opts_split(const char *options, offline_opts_args *out, char *msg, size_t cap)
{
    memset(out, 0, sizeof *out);
    const char *p = options ? options : "";
    int takes_value = 0; /* the previous item was a bare -D, -U or -I */
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        if (!*p)
            break;
        size_t len = strlen(p);
        char *item = malloc(len + 1), quote = 0;
        size_t n = 0;
        if (!item) {
            offline_opts_free(out);
            bfmt(msg, cap, "out of memory");
            return -1;
        }
        for (; *p && (quote || (*p != ' ' && *p != '\t' && *p != '\n')); p++) {
            if (!quote && (*p == '\'' || *p == '"'))
                quote = *p;
            else if (quote && *p == quote)
                quote = 0;
            else
                item[n++] = *p;
        }
        item[n] = '\0';
        if (!takes_value && !allowed(item)) {
            bfmt(msg, cap, "build option '%s' is not an OpenCL build option an offline compiler "
                           "is given", item);
            free(item);
            offline_opts_free(out);
            return -1;
        }
        if (out->n == OFFLINE_OPTS_MAX_ARGS) {
            free(item);
            offline_opts_free(out);
            bfmt(msg, cap, "more than %d build options", OFFLINE_OPTS_MAX_ARGS);
            return -1;
        }
        if (!takes_value) {
            out->fast_math |= strcmp(item, "-cl-fast-relaxed-math") == 0;
            out->finite_only |= strcmp(item, "-cl-finite-math-only") == 0;
            out->unsafe_math |= strcmp(item, "-cl-unsafe-math-optimizations") == 0;
            out->denorms_zero |= strcmp(item, "-cl-denorms-are-zero") == 0;
            out->correct_sqrt |= strcmp(item, "-cl-fp32-correctly-rounded-divide-sqrt") == 0;
            out->opt_disable |= strcmp(item, "-cl-opt-disable") == 0;
        }
        int bare = !takes_value && (strcmp(item, "-D") == 0 || strcmp(item, "-U") == 0 ||
                                    strcmp(item, "-I") == 0);
        out->arg[out->n++] = item;
        takes_value = bare;
    }
    if (takes_value) {
        bfmt(msg, cap, "build option '%s' has no value", out->arg[out->n - 1]);
        offline_opts_free(out);
        return -1;
    }
    return 0;
}
