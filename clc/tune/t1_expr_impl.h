/*
 * t1_expr_impl.h — private to the expression files (t1_error.c, t1_lex.c,
 * t1_parse.c, t1_names.c, t1_eval.c, t1_builtins.c, t1_arena.c): the
 * tree, the tokens and what those files call in one another. Callers use
 * t1_expr.h; nothing here is an interface.
 *
 * The tree is one array of nodes joined by indices, so a compiled
 * expression is a few blocks that evaluation only reads (several threads
 * may evaluate one at once). The operands of a run of one precedence level
 * (a + b - c, a and b and c, a < b < c) hang off one node as a sibling
 * list that evaluation walks in a loop: the C stack then grows with the
 * nesting the parser bounds (T1_EXPR_DEPTH_MAX), never with the length of
 * a sum.
 */
#ifndef CLC_T1_EXPR_IMPL_H
#define CLC_T1_EXPR_IMPL_H

#include "t1_expr.h"

#include <stddef.h>
#include <stdint.h>

#if defined(__MINGW32__)
#define T1_PRINTF(a, b) __attribute__((format(gnu_printf, a, b)))
#elif defined(__GNUC__)
#define T1_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define T1_PRINTF(a, b)
#endif

/* A name or a value inside a reason: at most this many bytes, so a reason
 * never outgrows T1_EXPR_ERR_MAX whatever the input. */
#define SHOW_MAX 40
/* Iterations all comprehensions of one evaluation may take: a filter that
 * keeps nothing builds no list, so the list bound alone would not stop
 * [0 for a in range(1000000) for b in range(1000000) if 0]. */
#define COMP_STEPS_MAX ((uint64_t)16 * T1_EXPR_LIST_MAX)

/* Operators; the punctuation after OP_OR never reaches a node. */
enum op {
    OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_FDIV, OP_MOD, OP_POW,
    OP_SHL, OP_SHR, OP_BAND, OP_BOR, OP_BXOR,
    OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE, OP_IN, OP_NOTIN,
    OP_NEG, OP_POS, OP_INV, OP_NOT, OP_AND, OP_OR,
    P_LPAREN, P_RPAREN, P_LBRACK, P_RBRACK, P_COMMA, P_COLON
};
/* Each enum op as messages show it (t1_error.c). */
extern const char *const t1_op_name[];

enum kw { KW_AND, KW_OR, KW_NOT, KW_IN, KW_IF, KW_ELSE, KW_FOR, KW_TRUE, KW_FALSE };

enum tok { TK_END, TK_INT, TK_FLOAT, TK_STR, TK_NAME, TK_OP, TK_KW };

enum fn { F_MIN, F_MAX, F_ABS, F_INT, F_FLOAT, F_ROUND, F_LEN, F_BOOL, F_STR, F_RANGE, F_COUNT };
/* The functions, by enum fn (t1_builtins.c): the parser checks a call's
 * arguments against them, the evaluation names them. */
typedef struct t1_fn_info {
    const char *name;
    int min_args, max_args; /* max_args -1: any number */
} t1_fn_info;
extern const t1_fn_info t1_fns[F_COUNT];

/* Node kinds. N_NAME exists only between parsing and resolution, which
 * turns each into N_SLOT or N_LOCAL. */
enum kind {
    N_CONST,    /* a: index in consts */
    N_SLOT,     /* a: the resolver's slot */
    N_LOCAL,    /* a: a comprehension variable's index in the locals */
    N_NAME,     /* pos: where the name starts, a: its length */
    N_UNARY,    /* op, a */
    N_NOT,      /* a */
    N_BIN,      /* op, a, b */
    N_CHAIN,    /* a: first operand; the others follow by next, each with its lop, lpos */
    N_CMP,      /* op, a, b */
    N_CMPCHAIN, /* as N_CHAIN, with comparison operators */
    N_BOOL,     /* op (OP_AND, OP_OR), a: first operand, the others by next */
    N_IFELSE,   /* a if b else c */
    N_INDEX,    /* a[b] */
    N_CALL,     /* op: enum fn, a: first argument (the others by next), c: how many */
    N_LIST,     /* a: first item (the others by next), c: how many */
    N_COMP,     /* a: the item, b: first clause (the others by next) */
    N_FOR,      /* for NAME in a: pos, b: the name, c: its index in the locals */
    N_IF        /* if a */
};

typedef struct node {
    uint8_t kind;
    uint8_t op;
    uint8_t lop;   /* in a sibling list: the operator joining this node to the one before */
    uint32_t pos;  /* byte offset shown as the column of an error here */
    uint32_t lpos; /* where lop is */
    int32_t a, b, c;
    int32_t next; /* the next sibling, or -1 */
} node;

struct t1_expr {
    char *text;
    size_t len;
    node *nodes;
    size_t n_nodes, nodes_cap;
    t1_value *consts;
    size_t n_consts, consts_cap;
    char *pool; /* the bytes of string literals, each NUL-terminated */
    size_t pool_len, pool_cap;
    t1_value *citems; /* the items of constant lists */
    size_t n_citems, citems_cap;
    int *slots;
    size_t n_slots;
    int32_t n_locals;
    int32_t root;
};

/* ---------------------------------------------------------------- compile */

typedef struct token {
    int kind;        /* enum tok */
    int code;        /* TK_OP: enum op; TK_KW: enum kw */
    size_t start, end;
    int64_t i;       /* TK_INT */
    double f;        /* TK_FLOAT */
    size_t str_off;  /* TK_STR: the decoded bytes in the pool */
    size_t str_len;
} token;

/* The lexer and the parser share it: the parser reads ps->tok, the lexer
 * fills it and writes string literals to e's pool. */
typedef struct parser {
    const char *text;
    size_t len;
    size_t p; /* where the lexer reads next */
    token tok;
    int depth;
    int failed;
    char *err;
    size_t cap;
    t1_expr *e;
} parser;

/* t1_error.c: the messages. */
void t1_write_error(char *err, size_t cap, const char *text, size_t len, size_t pos, int quote,
                    const char *reason);
const char *t1_show_bytes(const char *s, size_t n, char *out);
const char *t1_show_value(const t1_value *v, char *out);
const char *t1_type_name(t1_type t);
const char *t1_a_type(t1_type t);
int t1_perr(parser *ps, size_t pos, const char *fmt, ...) T1_PRINTF(3, 4);
int t1_oom(parser *ps);

/* t1_lex.c: the tokens, and the number scanning int() and float() of a
 * string share with the literals. */
int t1_lex_next(parser *ps);
int t1_next_is_in(const parser *ps);
int t1_next_char_is(const parser *ps, char c);
void *t1_grow(void *p, size_t *cap, size_t need, size_t size);
size_t t1_scan_digits(const char *s, size_t n, size_t p, int base);
size_t t1_scan_decimal(const char *s, size_t n, int *is_float);
int t1_decimal_to_double(const char *s, size_t n, double *out);

/* t1_names.c: every N_NAME made an N_SLOT (through resolve) or an N_LOCAL,
 * and e->slots those read, each once. -1 with err set. */
int t1_resolve_names(t1_expr *e, t1_resolve resolve, void *ctx, char *err, size_t cap);

static inline int t1_is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* ---------------------------------------------------------------- evaluate */

typedef struct evctx {
    const t1_expr *e;
    const node *nodes;
    const t1_value *consts;
    const t1_value *slots;
    t1_value *locals;
    t1_arena *arena;
    char *err;
    size_t cap;
    uint64_t steps; /* comprehension iterations left */
} evctx;

/* t1_arena.c. The reason of a failure goes to *why. */
enum { A_LIMIT = 1, A_NOMEM = 2 };
size_t t1_arena_limit(const t1_arena *a);
void *t1_arena_alloc(t1_arena *a, size_t n, int *why);
void *t1_arena_grow(t1_arena *a, void *p, size_t old, size_t n, int *why);

/* t1_error.c */
int t1_efail(const evctx *c, uint32_t pos, const char *fmt, ...) T1_PRINTF(3, 4);

/* t1_eval.c */
int t1_eval_node(evctx *c, int32_t k, t1_value *out);
int t1_alloc_fail(const evctx *c, uint32_t pos, int why);
void *t1_alloc(const evctx *c, size_t n, uint32_t pos);
int t1_make_string(const evctx *c, uint32_t pos, const char *a, size_t na, const char *b, size_t nb,
                   t1_value *out);
int t1_order(const evctx *c, int op, uint32_t pos, const t1_value *l, const t1_value *r, int *res);

/* t1_builtins.c: calls, x[i], lists and comprehensions. */
int t1_call(evctx *c, const node *nd, t1_value *out);
int t1_index_value(const evctx *c, uint32_t pos, const t1_value *obj, const t1_value *idx,
                   t1_value *out);
int t1_make_list(evctx *c, const node *nd, t1_value *out);
int t1_comprehension(evctx *c, const node *nd, t1_value *out);

/* Inline: the evaluation's inner loop tests and sets values at every
 * node, and a call there would cost more than the test. */
static inline int t1_is_int(const t1_value *v) { return v->type == T1_INT || v->type == T1_BOOL; }
static inline int t1_is_num(const t1_value *v) { return t1_is_int(v) || v->type == T1_FLOAT; }
static inline double t1_num_f(const t1_value *v) { return v->type == T1_FLOAT ? v->f : (double)v->i; }

static inline int t1_set_int(t1_value *out, int64_t i)
{
    out->type = T1_INT;
    out->i = i;
    return 0;
}

static inline int t1_set_bool(t1_value *out, int b)
{
    out->type = T1_BOOL;
    out->i = b != 0;
    return 0;
}

static inline int t1_set_float(t1_value *out, double f)
{
    out->type = T1_FLOAT;
    out->f = f;
    return 0;
}

static inline void t1_set_list(t1_value *out, const t1_value *items, size_t n)
{
    out->type = T1_LIST;
    out->items = items;
    out->len = n;
}

static inline int t1_truth(const t1_value *v)
{
    switch (v->type) {
    case T1_INT:
    case T1_BOOL: return v->i != 0;
    case T1_FLOAT: return v->f != 0.0;
    case T1_STRING:
    case T1_LIST: return v->len != 0;
    }
    return 0;
}

#endif /* CLC_T1_EXPR_IMPL_H */
