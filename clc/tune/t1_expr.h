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
 *   literals    42, 0x1f, 0o17, 0b101, 1_000, 1.5, .5, 1e-3, True, False,
 *               'text', "text" (Python's escapes: \n \t \' \x41 \u00e9 ...)
 *   lists       [a, b, ...], range(stop), range(start, stop[, step]),
 *               [expr for NAME in iterable] and [expr for NAME in iterable if cond],
 *               several for and if clauses ([x*y for x in A for y in B if x != y]);
 *               a tuple (a, b) is a list; max(x for x in L) takes the generator
 *               as a list
 *   operators   (lowest to highest) x if c else y; or; and; not;
 *               comparisons (< <= > >= == != in, not in; chained: a < b < c);
 *               |; ^; &; << >>; + -; * / // %; unary - + ~; **; x[i]
 *   synonyms    && || ! (as and, or, not), for specs written in C style; they
 *               keep Python's precedence: !a == b is not (a == b)
 *   functions   min(...), max(...) (of arguments or of one list), abs(x),
 *               int(x) (of a number or a string), float(x) (also 'inf',
 *               'nan'), round(x) (halves to even, an int), round(x, digits),
 *               len(list or string), bool(x), str(x)
 * `/` is true division (a float); `//` and `%` floor toward minus infinity
 * as Python's do (ints and floats); `**` of ints is an int, of an int to a
 * negative int a float. bool is an int in arithmetic (True + 1 == 2); & | ^
 * of two bools is a bool. == between an int and a float compares exactly.
 * and/or give the operand that decided (0 or 'x' is 'x'). Strings compare
 * by bytes, lists item by item; + joins two strings or two lists, * repeats
 * one; `in` looks for an item of a list or a part of a string; a string's
 * len and x[i] count UTF-8 characters; x[-1] is the last item, an index out
 * of range an error. Integers are int64_t and every operation on them is
 * checked: a result that does not fit is an error, never wrapped (where
 * Python has big ints: 2**63 is an error here). Division or modulo by zero
 * is an error, and so is a shift by a count outside 0..63 (1 >> 64 too,
 * which Python makes 0) and a negative number to a fractional power (no
 * complex numbers). Lists hold at most T1_EXPR_LIST_MAX
 * values (range() longer than that is refused before anything is made),
 * the text at most T1_EXPR_TEXT_MAX bytes and its nesting at most
 * T1_EXPR_DEPTH_MAX levels, all comprehensions of one evaluation take at
 * most 16 * T1_EXPR_LIST_MAX steps, so hostile input costs little.
 *
 * Pure: no printing, no global state; a compiled expression may be
 * evaluated from several threads at once (each with its own arena).
 */
#ifndef CLC_T1_EXPR_H
#define CLC_T1_EXPR_H

#include <stddef.h>
#include <stdint.h>

#define T1_EXPR_TEXT_MAX 65536    /* longest expression, in bytes */
#define T1_EXPR_DEPTH_MAX 200     /* deepest nesting (each ( [ x[i] unary op, not, **, if-else, for) */
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
 * the values it binds to slots (a result may share those: t1_expr_eval of
 * "L" gives the caller's own list back). A result never points into the
 * t1_expr: it outlives t1_expr_free. Only the fields of its type are
 * meaningful; t1_expr_eval zeroes the others of its result. */
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
 * evaluations allocates nothing once warm); t1_arena_free releases them.
 * An expression whose evaluation makes no string or list (a condition, a
 * size; a list of constants such as [16, 32] is made once by the compile)
 * takes nothing from it. Past limit, the evaluation fails, naming it. */
typedef struct t1_arena {
    void *blocks;               /* internal */
    size_t used;                /* bytes handed out since the last reset */
    size_t limit;               /* most bytes one evaluation may take; 0: 64 MiB */
} t1_arena;
void t1_arena_reset(t1_arena *a);
void t1_arena_free(t1_arena *a);

/* Resolves a name at compile time: the len bytes at name (not
 * NUL-terminated), asked once per use. Returns the slot (>= 0) whose value
 * t1_expr_eval will find at slots[slot], or -1 when the name is unknown
 * here (the compile then fails, naming it and its column). A
 * comprehension's own loop variable never reaches the resolver. Function
 * names (a name followed by '(') and True/False are not names. */
typedef int (*t1_resolve)(void *ctx, const char *name, size_t len);

typedef struct t1_expr t1_expr; /* compiled, opaque */

/* Compiles text. resolve may be NULL (then every name is unknown, e.g. for
 * a parameter's Values list). Returns the expression (t1_expr_free it), or
 * NULL with err (cap bytes, always NUL-terminated) saying what is wrong and
 * where: the quoted text (cut around the error, "...", when over about 100
 * bytes), the reason and the 1-based column, e.g.
 * "'TS * (WPT': ')' expected (column 10)" or
 * "'TS + TSS': 'TSS' is not a parameter or a name of the spec (column 6)";
 * when the whole text is the unknown name, the quote is left out:
 * "'TSS' is not a parameter or a name of the spec (column 1)". A small cap
 * shortens the quote before the reason. Out of memory: NULL with err
 * "out of memory". */
t1_expr *t1_expr_compile(const char *text, t1_resolve resolve, void *ctx, char *err, size_t cap);
void t1_expr_free(t1_expr *e);

/* The slots e reads, each once, in the order evaluation first reads them
 * (a conditional's condition before its branches, a comprehension's
 * iterable before its item): writes up to cap of them to out and returns
 * how many there are. */
size_t t1_expr_slots(const t1_expr *e, int *out, size_t cap);

/* Evaluates e with slots[k] the value of slot k (only those e reads need
 * be set). Strings and lists made go to arena (reset it between
 * evaluations when the results are no longer needed; NULL is fine for an
 * expression that makes none). Returns 0 with *out set, or -1 with err
 * (may be NULL) as t1_expr_compile's: the expression and what failed,
 * where, e.g. "'N // TS': division by zero (column 3)", "'a < s': '<'
 * between int and string (column 3)", "'2**63': '**' overflows a 64-bit
 * integer: 2 ** 63 (column 2)". */
int t1_expr_eval(const t1_expr *e, const t1_value *slots, t1_arena *arena, t1_value *out,
                 char *err, size_t cap);

/* Python's truth value: 0 and 0.0, False, '' and [] are false. */
int t1_value_truth(const t1_value *v);

/* The value as Python's repr prints it, but strings unquoted when
 * bare_strings ("32", "0.5", "True", "row", "[1, 2]"): what a -D define
 * and a T4 configuration show. bare_strings is Python's str: only a string
 * itself is bare, the strings in a list stay quoted ("['row', 'col']").
 * Floats are the shortest text that reads back the same ("0.1", "2.0",
 * "1e+16", "1e-05", "inf", "nan"). Writes at most cap bytes, NUL-terminated
 * (buf may be NULL when cap is 0); returns the length it needed. */
size_t t1_value_format(const t1_value *v, int bare_strings, char *buf, size_t cap);

#endif /* CLC_T1_EXPR_H */
