/* t1_spec_json.c — the JSON helpers the T1 spec's readers share
 * (t1_spec_read.h): checked members, choices with the nearest name, and
 * messages that name the field. */
#include "t1_spec_read.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "nearest_name.h"

int t1s_fail(reader *r, const char *where, const char *fmt, ...)
{
    char what[T1_SPEC_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    bfmt(r->err, T1_SPEC_ERR_MAX, "%s: %s: %s", r->file, where, what);
    return -1;
}

const char *t1s_json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE: case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

/* The member key of obj, which must be of the given JSON type (0 for any);
 * NULL when absent and not required (-1 in *bad when it fails). */
json_t *t1s_member(reader *r, json_t *obj, const char *where, const char *key, json_type type,
                      int required, int *bad)
{
    json_t *v = json_object_get(obj, key);
    char at[512];
    bfmt(at, sizeof at, "%s%s%s", where, where[0] ? "." : "", key);
    if (!v) {
        if (required)
            *bad = t1s_fail(r, at, "missing (the schema requires it)");
        return NULL;
    }
    int ok = type == (json_type)-1 || json_typeof(v) == type ||
             (type == JSON_REAL && json_is_number(v)) ||
             (type == JSON_TRUE && json_is_boolean(v));
    if (!ok) {
        const char *want = type == JSON_OBJECT ? "an object" : type == JSON_ARRAY ? "an array"
                         : type == JSON_STRING ? "a string" : type == JSON_INTEGER ? "an integer"
                         : type == JSON_TRUE ? "a boolean" : "a number";
        *bad = t1s_fail(r, at, "is %s; the schema wants %s", t1s_json_kind(v), want);
        return NULL;
    }
    return v;
}

/* The index of text in the comma-separated choices, or a failure naming
 * them all (and the nearest one). */
int t1s_choice(reader *r, const char *at, const char *text, const char *choices)
{
    nearest_name_best best;
    nearest_name_init(&best, text);
    char list[512];
    bfmt(list, sizeof list, "%s", choices);
    int i = 0;
    for (char *save = NULL, *c = strtok_r(list, ",", &save); c; c = strtok_r(NULL, ",", &save), i++) {
        if (strcmp(c, text) == 0)
            return i;
        nearest_name_offer(&best, c);
    }
    char shown[512];
    bfmt(shown, sizeof shown, "%s", choices);
    for (char *p = shown; (p = strchr(p, ',')) != NULL; p++)
        *p = '|';
    char spaced[600] = "";
    for (const char *p = shown; *p; p++) {
        size_t len = strlen(spaced);
        if (*p == '|')
            bfmt(spaced + len, sizeof spaced - len, ", ");
        else
            bfmt(spaced + len, sizeof spaced - len, "%c", *p);
    }
    const char *near = nearest_name_result(&best);
    char hint[300] = "";
    if (near)
        bfmt(hint, sizeof hint, " (did you mean %s?)", near);
    t1s_fail(r, at, "'%s' is not one of %s%s", text, spaced, hint);
    return -1;
}

int t1s_resolve_name(void *ctx, const char *name, size_t len)
{
    names_ctx *n = ctx;
    int p = t1_spec_param_index(n->s, name, len);
    if (p >= 0)
        return p;
    if (n->allow_problem && len == 11 && memcmp(name, "ProblemSize", 11) == 0)
        return (int)n->s->n_params;
    return -1;
}

t1_expr *t1s_compile_at(reader *r, const char *at, const char *text, t1_resolve res, void *ctx)
{
    char e[T1_EXPR_ERR_MAX];
    t1_expr *x = t1_expr_compile(text, res, ctx, e, sizeof e);
    if (!x)
        t1s_fail(r, at, "%s", e);
    return x;
}
