/*
 * pack_args_target.h — the fuzz target over the pack command's options and
 * the direct planner (pack_args.h, direct_jobs.h): the input split at NUL
 * bytes is the argument vector after the command name (at most 64
 * arguments). When it parses as a direct command line, every path in it is
 * replaced by one inside a private temporary folder (a small source that
 * includes a header, a missing file, the folder itself), so direct_jobs_make folds
 * and expands on known files only; it never builds anything. A refusal must
 * carry a message, a usage error of direct_jobs_make too, and each job it makes must
 * be whole. The arguments are parsed a second time from a fresh copy (the
 * first freed), which must give the same answer, and then a known command
 * line (-j 2 -koout.clcpack) must parse as it always does: nothing of one
 * parse may stay behind for the next. Shared by fuzz_pack_args.c and
 * tests/unit/test_fuzz_targets.c.
 */
#ifndef CLC_PACK_ARGS_TARGET_H
#define CLC_PACK_ARGS_TARGET_H

#include <stdint.h>
#include <string.h>

#include "cli_fuzz.h"
#include "direct_jobs.h"
#include "pack_args.h"

#define PAT_ARGS 64

static const char pat_source[] = "#include \"b.h\"\n"
                                 "__kernel void k(__global int *o) { o[0] = TS * B; }\n"
                                 "__kernel void j(__global int *o) { o[1] = 2; }\n";
static const char pat_header[] = "#pragma once\n#define B 3\n";

/* One of the folder's paths, chosen by the first byte of what it replaces. */
static inline const char *pat_path(char paths[4][300], const char *was)
{
    size_t n = strlen(was);
    if (n > 2 && strcmp(was + n - 2, ".h") == 0)
        return paths[1];
    return paths[(unsigned char)was[0] % 4 == 1 ? 0 : (unsigned char)was[0] % 4];
}

/* "NAME=A,B" with A and B replaced by the folder's paths (malloc'd). */
static inline char *pat_program(char paths[4][300], const char *was)
{
    const char *eq = strchr(was, '=');
    size_t head = eq ? (size_t)(eq - was) + 1 : 0;
    size_t cap = head + 4 * 310 + 1;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    memcpy(s, was, head);
    size_t o = head;
    const char *p = eq ? eq + 1 : was;
    for (int k = 0; k < 4; k++) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        char item[8] = "x";
        if (n > 0)
            item[0] = p[0];
        if (n > 2 && p[n - 2] == '.' && p[n - 1] == 'h')
            strcpy(item, "x.h");
        o += (size_t)snprintf(s + o, cap - o, "%s%s", k ? "," : "", pat_path(paths, item));
        if (!comma)
            break;
        p = comma + 1;
    }
    return s;
}

static inline void pat_check_jobs(const build_job_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        const build_job *j = &l->jobs[i];
        cf_require(j->entry_name && j->entry_name[0] && j->options && j->source);
        cf_require(strlen(j->source) == j->source_size);
        for (size_t d = 1; d < j->n_defines; d++)
            cf_require(strcmp(j->defines[d - 1].name, j->defines[d].name) < 0);
    }
}

static inline void pat_plan(pack_args *a)
{
    char dir[256];
    if (cf_tmpdir(dir) != 0)
        return;
    char paths[4][300];
    snprintf(paths[0], sizeof paths[0], "%s/a.cl", dir);
    snprintf(paths[1], sizeof paths[1], "%s/b.h", dir);
    snprintf(paths[2], sizeof paths[2], "%s/missing.cl", dir);
    snprintf(paths[3], sizeof paths[3], "%s", dir);
    direct_jobs_spec *s = &a->direct_spec;
    char *owned[PAT_ARGS];
    size_t n_owned = 0;
    int ok = cf_write(dir, "a.cl", pat_source, sizeof pat_source - 1) == 0 &&
             cf_write(dir, "b.h", pat_header, sizeof pat_header - 1) == 0;
    for (size_t i = 0; ok && i < s->n_programs; i++)
        if (s->programs[i].file)
            s->programs[i].file = pat_path(paths, s->programs[i].file);
    for (size_t i = 0; ok && i < s->n_includes; i++)
        s->includes[i] = paths[(unsigned char)s->includes[i][0] % 2 ? 3 : 2];
    for (size_t i = 0; ok && i < s->n_programs && n_owned < PAT_ARGS; i++) {
        if (!s->programs[i].program)
            continue;
        char *p = pat_program(paths, s->programs[i].program);
        if (!p)
            ok = 0;
        else
            s->programs[i].program = owned[n_owned++] = p;
    }
    if (ok) {
        build_job_list out;
        memset(&out, 0, sizeof out);
        char err[DIRECT_JOBS_ERR_MAX];
        err[0] = '\0';
        int rc = direct_jobs_make(s, &out, err);
        cf_require(rc == 0 || rc == 1 || rc == 2);
        if (rc != 0)
            cf_require_message(err, sizeof err);
        pat_check_jobs(&out);
        build_job_list_free(&out);
    }
    for (size_t i = 0; i < n_owned; i++)
        free(owned[i]);
    cf_rmtree(dir);
}

/* Parses the input as arguments; 0 or -1, with err. With plan, a direct
 * command line is planned too. */
static inline int pat_parse(const uint8_t *data, size_t size, int plan, char err[PACK_ARGS_ERR_MAX])
{
    char *argv[PAT_ARGS + 2];
    char *arena = NULL;
    argv[0] = "pack";
    size_t n = size ? cf_split(data, size, argv + 1, PAT_ARGS, &arena) : 0;
    argv[n + 1] = NULL;
    pack_args a;
    memset(&a, 0, sizeof a);
    err[0] = '\0';
    int rc = pack_args_parse((int)n + 1, argv, &a, err);
    if (rc != 0) {
        cf_require(rc == -1);
        cf_require_message(err, PACK_ARGS_ERR_MAX);
    } else {
        cf_require(a.jobs >= 1 && a.jobs <= PACK_ARGS_MAX_JOBS);
        if (a.direct && plan)
            pat_plan(&a);
    }
    pack_args_free(&a);
    free(arena);
    return rc;
}

/* Twice, each time from a fresh copy of the arguments (the first freed):
 * the second parse must not see anything of the first, and says the same. */
static inline int fuzz_pack_args(const uint8_t *data, size_t size)
{
    char err1[PACK_ARGS_ERR_MAX], err2[PACK_ARGS_ERR_MAX];
    int rc1 = pat_parse(data, size, 1, err1);
    int rc2 = pat_parse(data, size, 0, err2);
    cf_require(rc1 == rc2 && (rc1 == 0 || strcmp(err1, err2) == 0));
    /* A known command line after it parses as it always does. */
    static const char probe[] = "-j\0" "2\0" "-koout.clcpack";
    char *argv[5] = {"pack", NULL, NULL, NULL, NULL};
    char *arena = NULL;
    size_t n = cf_split((const uint8_t *)probe, sizeof probe - 1, argv + 1, 3, &arena);
    pack_args a;
    memset(&a, 0, sizeof a);
    int rc = arena && n == 3 ? pack_args_parse(4, argv, &a, err1) : 0;
    cf_require(rc == 0 && (!arena || (a.jobs == 2 && a.keep_going && a.output &&
                                      strcmp(a.output, "out.clcpack") == 0)));
    pack_args_free(&a);
    free(arena);
    return 0;
}

#endif /* CLC_PACK_ARGS_TARGET_H */
