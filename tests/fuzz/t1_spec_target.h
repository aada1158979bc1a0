/*
 * t1_spec_target.h — the fuzz target over T1 specs (t1_spec.h) and their
 * expressions (t1_expr.h), both untrusted input of `clc-pack tune`. The
 * input is read as a spec (kernel files and data sources relative to
 * tests/data/tune, so that a spec of the corpus reaches its arguments);
 * one that parses has its space walked when it holds at most 100,000 raw
 * combinations, and each valid configuration's launch and label made. The
 * same input, up to its first NUL, is also compiled as an expression of
 * two names (a and b) and evaluated twice with ints, floats and strings
 * bound: a compile error always has a message, an evaluation gives the same
 * answer twice, and a 9-byte error buffer holds a cut, terminated message.
 * Shared by fuzz_t1_spec.c and tests/unit/test_fuzz_targets.c.
 */
#ifndef CLC_T1_SPEC_TARGET_H
#define CLC_T1_SPEC_TARGET_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli_fuzz.h"
#include "t1_expr.h"
#include "t1_spec.h"
#include "tune_space.h"

static inline int t1f_resolve(void *ctx, const char *name, size_t len)
{
    (void)ctx;
    if (len == 1 && (name[0] == 'a' || name[0] == 'b'))
        return name[0] - 'a';
    return -1;
}

static inline void t1f_expr(const char *text)
{
    char err[T1_EXPR_ERR_MAX];
    err[0] = '\0';
    t1_expr *x = t1_expr_compile(text, t1f_resolve, NULL, err, sizeof err);
    if (!x) {
        cf_require(err[0] != '\0');
        char small[10];
        small[9] = 'Z';
        cf_require(t1_expr_compile(text, t1f_resolve, NULL, small, 9) == NULL);
        cf_require(small[9] == 'Z' && memchr(small, 0, 9) != NULL);
        return;
    }
    static const t1_value binds[3][2] = {
        {{.type = T1_INT, .i = 7}, {.type = T1_INT, .i = -3}},
        {{.type = T1_FLOAT, .f = 0.5}, {.type = T1_BOOL, .i = 1}},
        {{.type = T1_STRING, .s = "row", .len = 3}, {.type = T1_INT, .i = INT64_MAX}},
    };
    t1_arena arena = {0};
    arena.limit = 1u << 20;
    for (int k = 0; k < 3; k++) {
        t1_value v1, v2;
        char e1[T1_EXPR_ERR_MAX], e2[T1_EXPR_ERR_MAX];
        int r1 = t1_expr_eval(x, binds[k], &arena, &v1, e1, sizeof e1);
        char f1[256] = "", f2[256] = "";
        if (r1 == 0)
            t1_value_format(&v1, 0, f1, sizeof f1);
        /* The same room for the second evaluation: the arena's limit is
         * per evaluation. */
        t1_arena_reset(&arena);
        int r2 = t1_expr_eval(x, binds[k], &arena, &v2, e2, sizeof e2);
        if (r2 == 0)
            t1_value_format(&v2, 0, f2, sizeof f2);
        cf_require(r1 == r2);
        cf_require(r1 != 0 || strcmp(f1, f2) == 0);
        cf_require(r1 == 0 || (e1[0] != '\0' && strcmp(e1, e2) == 0));
        t1_arena_reset(&arena);
    }
    t1_arena_free(&arena);
    int slots[8];
    size_t n = t1_expr_slots(x, slots, 8);
    for (size_t i = 0; i < n && i < 8; i++)
        cf_require(slots[i] == 0 || slots[i] == 1);
    t1_expr_free(x);
}

static inline int fuzz_t1_spec(const uint8_t *data, size_t size)
{
    static t1_spec s;
    char err[T1_SPEC_ERR_MAX];
    err[0] = '\0';
    if (t1_spec_parse("fuzz.json", "tests/data/tune", (const char *)data, size, &s, err) == 0) {
        tune_space sp;
        char serr[TUNE_SPACE_ERR_MAX];
        uint64_t raw = 1;
        for (size_t k = 0; k < s.n_params && raw <= 100000; k++)
            raw *= s.params[k].n_values;
        if (raw <= 100000 && tune_space_build(&sp, &s, serr) == 0) {
            for (size_t i = 0; i < sp.n_valid && i < 64; i++) {
                size_t g[3], l[3];
                char e[600];
                cf_require(tune_space_launch(&sp, sp.valid[i], g, l, e, sizeof e) == 0);
                cf_require(tune_space_find(&sp, sp.valid[i]) == (long long)i);
                free(tune_space_label(&sp, sp.valid[i]));
                free(tune_space_options(&sp, sp.valid[i]));
            }
            tune_space_free(&sp);
        }
    } else {
        cf_require(err[0] != '\0');
    }
    t1_spec_free(&s);
    char *text = cf_string(data, size);
    if (text) {
        t1f_expr(text);
        free(text);
    }
    return 0;
}

#endif /* CLC_T1_SPEC_TARGET_H */
