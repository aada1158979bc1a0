/*
 * define_value.h — what a -D can carry into an OpenCL build option string,
 * and the command line's -D, --variant and --derive arguments
 * (docs/MANIFEST.md, "Defines and their values").
 *
 * A define name is an identifier, or a function-like macro head with
 * identifier parameters: MOD2(x,y). A value goes into the build options as
 * -DNAME=VALUE, a string the OpenCL implementation splits at blanks and
 * does not unquote, so a value with whitespace, a control character, a
 * quote, a backslash or a non-ASCII byte is refused before any build, as is
 * an empty one (-D NAME is the bare define) or one longer than DEFINE_VALUE_VALUE_MAX.
 * Numbers (5, -1, 0x10, 1.5f), type names (uchar, float4) and expressions
 * without blanks ((1<<4), ((x)%(y))) are all fine.
 *
 * Pure: no printing, no global state. Every parse function fills its
 * output only on success (free it with the matching _free); on an error it
 * returns -1 with the output empty and err (errlen bytes, DEFINE_VALUE_ERR_MAX is
 * enough) naming the argument, the value and why.
 */
#ifndef CLC_DEFINE_VALUE_H
#define CLC_DEFINE_VALUE_H

#include <stddef.h>

#define DEFINE_VALUE_NAME_MAX 256       /* bytes of a name, with a macro's parameters */
#define DEFINE_VALUE_VALUE_MAX 256      /* bytes of one value */
#define DEFINE_VALUE_VALUES_MAX 65536   /* values of one -D list */
#define DEFINE_VALUE_ERR_MAX 512

/* Checks the len bytes at name as a define name. Returns 0 and sets
 * *is_function (may be NULL) to 1 for a macro head NAME(a,b); -1 with err. */
int define_value_check_name(const char *name, size_t len, int *is_function, char *err, size_t errlen);

/* Checks that a build option can carry value as the value of name (used
 * in messages only). Returns 0, or -1 with err: "-D TS: value 'a b' holds a
 * space; a build option cannot carry it". */
int define_value_check_value(const char *name, const char *value, char *err, size_t errlen);

/* One item of a list: len bytes at at (not NUL-terminated). */
typedef struct define_value_span {
    const char *at;
    size_t len;
} define_value_span;

/* Splits text at the commas outside parentheses (the lists of -D, --variant,
 * --wg) into items with blanks around them trimmed; *items (malloc'd,
 * caller frees) points into text. Returns the count (at least 1), or -1
 * with *items NULL and err "PREFIX: what is wrong": an empty list or item,
 * unbalanced parentheses. */
long define_value_split_top(const char *text, define_value_span **items, const char *prefix, char *err,
                  size_t errlen);

/* A -D argument: NAME (bare), NAME=LIST or FUNC(a,b)=VALUE. */
typedef struct define_value_define {
    char *name;          /* "TS", or the whole head "MOD2(x,y)" */
    int is_function;     /* name is a function-like macro head */
    int bare;            /* -D NAME: defined with no value; n_values is 0 */
    size_t n_values;
    char **values;       /* in the order given, ranges spelled out */
} define_value_define;

/* Parses a -D argument. LIST is comma-separated at the top level (commas
 * inside parentheses do not split); an item is a value, or a decimal range
 * of value_list.h (3-7, 3-31:2, 3,5,...,31) spelled out as its values. A
 * macro head takes exactly one value, commas and all. A value given twice,
 * more than DEFINE_VALUE_VALUES_MAX values or unbalanced parentheses are refused. */
int define_value_parse_define(const char *arg, define_value_define *out, char *err, size_t errlen);
void define_value_define_free(define_value_define *d);

/* One item of a --variant: NAME=VALUE, or a bare NAME (value NULL). */
typedef struct define_value_item {
    char *name;
    int is_function;
    char *value;
} define_value_item;

/* A --variant argument: one explicit define set, items comma-separated at
 * the top level ('KERNEL=3,TS=32,USE_LOCAL,F(a,b)=((a)+(b))'). A name given
 * twice is refused. */
typedef struct define_value_variant {
    size_t n;
    define_value_item *items;      /* in the order given */
} define_value_variant;

int define_value_parse_variant(const char *arg, define_value_variant *out, char *err, size_t errlen);
void define_value_variant_free(define_value_variant *v);

/* A --derive argument NAME=EXPR: an identifier and an expression of expr.h,
 * checked for syntax (its names are not looked up here). */
typedef struct define_value_derive {
    char *name;
    char *expr;          /* as given, blanks around it trimmed */
} define_value_derive;

int define_value_parse_derive(const char *arg, define_value_derive *out, char *err, size_t errlen);
void define_value_derive_free(define_value_derive *d);

#endif /* CLC_DEFINE_VALUE_H */
