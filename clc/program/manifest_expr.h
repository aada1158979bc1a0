/*
 * manifest_expr.h — the integer expressions of the manifest's derive lines
 * (docs/MANIFEST.md): decimal numbers, names, + - * / %, unary minus and
 * parentheses, with C's precedence and truncating division.
 *
 * Names are looked up through a callback, so the same parser checks an
 * expression when the manifest is read (every name must be known) and
 * evaluates it for one variant (every name must have a value). Pure: no
 * printing, no global state.
 */
#ifndef CLC_MANIFEST_EXPR_H
#define CLC_MANIFEST_EXPR_H

#include <stddef.h>

/* Looks a name up: returns 1 and sets *value when the name has a value, 0
 * when it is known but has no value in this variant, -1 when it is unknown. */
typedef int (*mfx_lookup)(void *ctx, const char *name, long *value);

/* Largest magnitude of any operand or intermediate result; beyond it the
 * expression is refused rather than overflowing. */
#define MFX_LIMIT 1000000000000L

/* Evaluates expr. Returns 0 with *value set; 1 when some name it uses has
 * no value (the derive is then not emitted); -1 with err (errlen bytes)
 * saying what is wrong: a syntax error, an unknown name, a division by
 * zero, a result beyond MFX_LIMIT. With evaluate == 0 the expression is only
 * checked (syntax and names; values are neither needed nor computed) and
 * the result is 0 or -1. */
int mfx_eval(const char *expr, int evaluate, mfx_lookup lookup, void *ctx, long *value,
             char *err, size_t errlen);

#endif /* CLC_MANIFEST_EXPR_H */
