/*
 * t1_expr.h — the expressions of T1 tuning specs (docs/TUNING.md, "Tuning
 * any program from a T1 spec"): the Python-style language T1 files are
 * written in, for a parameter's Values, a condition, a GlobalSize or
 * LocalSize dimension, an argument's Size and a Generator fill.
 *
 * Evaluated by this code alone, never by a shell or an interpreter.
 * Compiled once (t1_expr_compile), evaluated many times (t1_expr_eval): a
 * space of millions of raw combinations checks its conditions in well under
 * a second.
 *
 * The language, Python's meaning throughout:
 *   literals    42, 0x1f, 1.5, 1e-3, True, False, 'text', "text"
 *   lists       [a, b, ...], range(stop), range(start, stop[, step]),
 *               [expr for NAME in iterable] and [expr for NAME in iterable if cond]
 *   operators   (lowest to highest) x if c else y; or; and; not;
 *               comparisons (< <= > >= == != in, not in; chained: a < b < c);
 *               |; ^; &; << >>; + -; * / // %; unary - + ~; **; x[i]
 *   synonyms    && || ! (as and, or, not), for specs written in C style
 *   functions   min(...), max(...) (of arguments or of one list), abs(x),
 *               int(x), float(x), round(x), len(list), bool(x), str(x)
 * `/` is true division (a float); `//` and `%` floor toward minus infinity
 * as Python's do; `**` of ints is an int. Integers are int64_t and every
 * operation on them is checked: a result that does not fit is an error,
 * never wrapped. Division or modulo by zero is an error. Lists hold at most
 * T1_EXPR_LIST_MAX values, the text at most T1_EXPR_TEXT_MAX bytes and its
 * nesting at most T1_EXPR_DEPTH_MAX levels, so hostile input costs little.
 *
 * Pure: no printing, no global state; a compiled expression may be
 * evaluated from several threads at once.
 */
#ifndef CLC_T1_EXPR_H
#define CLC_T1_EXPR_H

#include <stddef.h>
#include <stdint.h>

#define T1_EXPR_TEXT_MAX 65536    /* longest expression, in bytes */
#define T1_EXPR_DEPTH_MAX 200     /* deepest nesting */
#define T1_EXPR_LIST_MAX 1048576  /* most values one list may hold */
#define T1_EXPR_ERR_MAX 512       /* an err buffer this large never cuts the reason */

typedef enum t1_type {
    T1_INT = 0,
    T1_FLOAT = 1,
    T1_BOOL = 2,
    T1_STRING = 3,
    T1_LIST = 4
} t1_type;

/* A value. A string's bytes and a list's items are owned by whoever made
 * the value: by a t1_arena for results of t1_expr_eval, by the caller for
 * the values it binds to slots. */
typedef struct t1_value {
    t1_type type;
    int64_t i;                  /* T1_INT; T1_BOOL: 0 or 1 */
    double f;                   /* T1_FLOAT */
    const char *s;              /* T1_STRING: s[0..len), NUL-terminated */
    size_t len;                 /* T1_STRING: bytes; T1_LIST: items */
    const struct t1_value *items; /* T1_LIST */
} t1_value;

/* Memory for the strings and lists one evaluation makes. Zero-initialize;
 * t1_arena_reset keeps the blocks for the next evaluation (so a loop of
 * evaluations allocates nothing once warm); t1_arena_free releases them. */
typedef struct t1_arena {
    void *blocks;               /* internal */
    size_t used;                /* bytes handed out since the last reset */
    size_t limit;               /* most bytes one evaluation may take; 0: 64 MiB */
} t1_arena;
void t1_arena_reset(t1_arena *a);
void t1_arena_free(t1_arena *a);

/* Resolves a name at compile time: the len bytes at name (not
 * NUL-terminated). Returns the slot (>= 0) whose value t1_expr_eval will
 * find at slots[slot], or -1 when the name is unknown here (the compile
 * then fails, naming it and its column). A comprehension's own loop
 * variable never reaches the resolver. */
typedef int (*t1_resolve)(void *ctx, const char *name, size_t len);

typedef struct t1_expr t1_expr; /* compiled, opaque */

/* Compiles text. resolve may be NULL (then every name is unknown, e.g. for
 * a parameter's Values list). Returns the expression (t1_expr_free it), or
 * NULL with err (cap bytes) saying what is wrong and where, e.g.
 * "'TS * (WPT' : ')' expected at column 10" or "'TSS' is not a parameter
 * or a name of the spec (column 1)" — the quoted text cut around the error
 * when long. Out of memory: NULL with err "out of memory". */
t1_expr *t1_expr_compile(const char *text, t1_resolve resolve, void *ctx, char *err, size_t cap);
void t1_expr_free(t1_expr *e);

/* The slots e reads, each once, in order of first use: writes up to cap of
 * them to out and returns how many there are. */
size_t t1_expr_slots(const t1_expr *e, int *out, size_t cap);

/* Evaluates e with slots[k] the value of slot k (only those e reads need
 * be set). Strings and lists made go to arena (reset it between
 * evaluations when the results are no longer needed). Returns 0 with *out
 * set, or -1 with err: the expression and what failed, e.g.
 * "'N // TS': division by zero (column 3)", "'a < s': '<' between int
 * and string (column 3)". */
int t1_expr_eval(const t1_expr *e, const t1_value *slots, t1_arena *arena, t1_value *out,
                 char *err, size_t cap);

/* Python's truth value: 0 and 0.0, False, '' and [] are false. */
int t1_value_truth(const t1_value *v);

/* The value as Python's repr prints it, but strings unquoted when
 * bare_strings ("32", "0.5", "True", "row", "[1, 2]"): what a -D define
 * and a T4 configuration show. Writes at most cap bytes, NUL-terminated;
 * returns the length it needed. */
size_t t1_value_format(const t1_value *v, int bare_strings, char *buf, size_t cap);

#endif /* CLC_T1_EXPR_H */
