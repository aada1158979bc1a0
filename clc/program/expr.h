/*
 * expr.h — the one integer expression language of clc-pack: the manifest's
 * derive lines, the command line's --derive, --where and --wg expressions
 * (docs/MANIFEST.md, "Expressions").
 *
 * Values are int64_t. Decimal and hexadecimal (0x..) literals, identifiers
 * looked up through a callback, and C's operators with C's precedence and
 * meaning: unary - + ! ~, * / %, + -, << >>, < <= > >=, == !=, &, ^, |,
 * && and || (short-circuit), ?: and parentheses. Comparisons and logic give
 * 0 or 1; division truncates toward zero. Every operation is checked: a
 * result that does not fit in an int64_t (INT64_MIN / -1, -INT64_MIN, a left
 * shift into the sign bit), a division or modulo by zero and a shift count
 * outside 0..63 are refused, never wrapped. The text is bounded (EXPR_TEXT_MAX)
 * and so is its nesting (EXPR_DEPTH_MAX), so hostile input costs little.
 *
 * Pure: no printing, no global state, safe from any thread.
 */
#ifndef CLC_EXPR_H
#define CLC_EXPR_H

#include <stddef.h>
#include <stdint.h>

#define EXPR_TEXT_MAX 4096   /* longest expression, in bytes */
#define EXPR_DEPTH_MAX 100   /* deepest nesting of (), unary operators and ?: */
#define EXPR_NAME_MAX 255    /* longest identifier, in bytes */
#define EXPR_ERR_MAX 512     /* an err buffer this large never cuts the reason */

/* Looks up a name: the len bytes at name (not NUL-terminated). Returns 1 and
 * sets *value when the name has a value, 0 when it is known but has no value
 * here (in this variant), -1 when it is unknown. */
typedef int (*expr_lookup)(void *ctx, const char *name, size_t len, int64_t *value);

typedef enum expr_mode {
    EXPR_CHECK = 0,      /* syntax and names only; nothing is computed */
    EXPR_EVALUATE = 1    /* compute the value */
} expr_mode;

/* Parses text and, with EXPR_EVALUATE, computes it. lookup may be NULL:
 * EXPR_CHECK then checks the syntax alone (every name is accepted), and
 * EXPR_EVALUATE knows no name (a constant expression such as a define's
 * value "0x10" or "(1<<4)" evaluates; "uchar" is an unknown name).
 * Returns 0 with *value set (0 in EXPR_CHECK mode; value may be NULL);
 *   1 when some name the expression uses, on either side of && || ?:, is
 *     known but has no value (EXPR_EVALUATE only; *value untouched);
 *  -1 with err (errlen bytes) saying what is wrong and where: the expression
 *     (cut around the error when long) followed by the reason, e.g.
 *     "4294967296 * 4294967296: '*' overflows a 64-bit integer (column 12)".
 *     With errlen >= EXPR_ERR_MAX only the quoted expression is ever cut.
 * Operations on the side of && || ?: that C would not evaluate are parsed
 * and their names looked up, but not computed (no division by zero there). */
int expr_eval(const char *text, expr_mode mode, expr_lookup lookup, void *ctx, int64_t *value,
              char *err, size_t errlen);

/* Called once per distinct identifier of an expression, in the order of
 * first use (len bytes at name, not NUL-terminated); non-zero stops the walk. */
typedef int (*expr_name_fn)(void *ctx, const char *name, size_t len);

/* Lists the identifiers text uses. Returns 0; or -1 with err when text is not
 * a well-formed expression (names are not looked up, so none is unknown);
 * or the non-zero value fn returned, err untouched. */
int expr_names(const char *text, expr_name_fn fn, void *ctx, char *err, size_t errlen);

#endif /* CLC_EXPR_H */
