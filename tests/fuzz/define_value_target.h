/*
 * define_value_target.h — the fuzz target over define values and value
 * lists (define_value.h, value_list.h): the input, up to its first NUL, as
 * the argument of -D, --variant, --derive, as a top-level list, as a define
 * name and value, and as an integer list and a work-group list. A refusal
 * must leave its output empty and a message; what is accepted must hold
 * together: every -D value passes define_value_check_value, every name define_value_check_name,
 * every split item lies inside the text, every list value within the
 * bounds value_list.h promises. Shared by fuzz_define_value.c and
 * tests/unit/test_fuzz_targets.c.
 */
#ifndef CLC_DEFINE_VALUE_TARGET_H
#define CLC_DEFINE_VALUE_TARGET_H

#include <stdint.h>
#include <string.h>

#include "cli_fuzz.h"
#include "define_value.h"
#include "value_list.h"

static inline void dvt_check_item_name(const char *name, int is_function)
{
    char err[DEFINE_VALUE_ERR_MAX];
    int fn = -1;
    cf_require(name != NULL && define_value_check_name(name, strlen(name), &fn, err, sizeof err) == 0);
    cf_require(fn == is_function);
}

static inline void dvt_lists(const char *text)
{
    char err[VALUE_LIST_ERR_MAX];
    value_list *l = malloc(sizeof *l);
    if (!l)
        return;
    err[0] = '\0';
    if (value_list_parse_ints(text, l, err) == 0) {
        cf_require(l->n >= 1 && l->n <= MANIFEST_MAX_VALUES);
        for (size_t i = 0; i < l->n; i++) {
            cf_require(l->values[i].v[0] >= 0 && l->values[i].v[0] <= VALUE_LIST_VALUE_MAX);
            cf_require(memchr(l->tokens[i], 0, VALUE_LIST_TOKEN_MAX) != NULL);
            for (size_t k = 0; k < i; k++)
                cf_require(l->values[k].v[0] != l->values[i].v[0]);
        }
    } else {
        cf_require_message(err, VALUE_LIST_ERR_MAX);
    }
    err[0] = '\0';
    if (value_list_parse_wgs(text, l, err) == 0) {
        cf_require(l->n >= 1 && l->n <= MANIFEST_MAX_VALUES);
        for (size_t i = 0; i < l->n; i++) {
            for (int d = 0; d < 3; d++)
                cf_require(l->values[i].v[d] >= 1 && l->values[i].v[d] <= VALUE_LIST_VALUE_MAX);
            char buf[64];
            value_list_format_wg(l->values[i].v, buf, sizeof buf);
            /* The formatted size reads back as the same size. */
            value_list *again = malloc(sizeof *again);
            if (again) {
                char e2[VALUE_LIST_ERR_MAX];
                cf_require(value_list_parse_wgs(buf, again, e2) == 0 && again->n == 1);
                cf_require(memcmp(again->values[0].v, l->values[i].v, sizeof again->values[0].v) ==
                           0);
                free(again);
            }
        }
    } else {
        cf_require_message(err, VALUE_LIST_ERR_MAX);
    }
    free(l);
    value_list_ints arr;
    memset(&arr, 0x5a, sizeof arr);
    err[0] = '\0';
    if (value_list_parse_int_array(text, 100000, &arr, err) == 0) {
        cf_require(arr.n >= 1 && arr.n <= 100000);
        for (size_t i = 0; i < arr.n; i++)
            cf_require(arr.values[i] >= 0 && arr.values[i] <= VALUE_LIST_VALUE_MAX);
        value_list_ints_free(&arr);
    } else {
        cf_require_message(err, VALUE_LIST_ERR_MAX);
        cf_require(arr.n == 0 && arr.values == NULL);
    }
}

static inline int fuzz_define_value(const uint8_t *data, size_t size)
{
    char *text = cf_string(data, size);
    if (!text)
        return 0;
    size_t len = strlen(text);
    char err[DEFINE_VALUE_ERR_MAX];

    define_value_define d;
    memset(&d, 0x5a, sizeof d);
    err[0] = '\0';
    if (define_value_parse_define(text, &d, err, sizeof err) == 0) {
        dvt_check_item_name(d.name, d.is_function);
        cf_require(d.bare ? d.n_values == 0 : d.n_values >= 1);
        cf_require(d.n_values <= DEFINE_VALUE_VALUES_MAX);
        if (d.is_function && !d.bare)
            cf_require(d.n_values == 1);
        for (size_t i = 0; i < d.n_values; i++) {
            char e2[DEFINE_VALUE_ERR_MAX];
            cf_require(define_value_check_value(d.name, d.values[i], e2, sizeof e2) == 0);
            cf_require(strlen(d.values[i]) <= DEFINE_VALUE_VALUE_MAX);
        }
        define_value_define_free(&d);
    } else {
        cf_require_message(err, sizeof err);
        cf_require(d.name == NULL && d.values == NULL && d.n_values == 0);
    }

    define_value_variant v;
    memset(&v, 0x5a, sizeof v);
    err[0] = '\0';
    if (define_value_parse_variant(text, &v, err, sizeof err) == 0) {
        cf_require(v.n >= 1);
        for (size_t i = 0; i < v.n; i++) {
            dvt_check_item_name(v.items[i].name, v.items[i].is_function);
            char e2[DEFINE_VALUE_ERR_MAX];
            if (v.items[i].value)
                cf_require(define_value_check_value(v.items[i].name, v.items[i].value, e2, sizeof e2) == 0);
            for (size_t k = 0; k < i; k++)
                cf_require(strcmp(v.items[k].name, v.items[i].name) != 0);
        }
        define_value_variant_free(&v);
    } else {
        cf_require_message(err, sizeof err);
        cf_require(v.n == 0 && v.items == NULL);
    }

    define_value_derive dr;
    memset(&dr, 0x5a, sizeof dr);
    err[0] = '\0';
    if (define_value_parse_derive(text, &dr, err, sizeof err) == 0) {
        dvt_check_item_name(dr.name, 0);
        cf_require(dr.expr != NULL && strlen(dr.expr) < len);
        define_value_derive_free(&dr);
    } else {
        cf_require_message(err, sizeof err);
        cf_require(dr.name == NULL && dr.expr == NULL);
    }

    define_value_span *items = (define_value_span *)1;
    err[0] = '\0';
    long n = define_value_split_top(text, &items, "-D X", err, sizeof err);
    if (n >= 1) {
        for (long i = 0; i < n; i++) {
            cf_require(items[i].at >= text && items[i].len >= 1);
            cf_require(items[i].at + items[i].len <= text + len);
        }
        free(items);
    } else {
        cf_require(n == -1 && items == NULL);
        cf_require_message(err, sizeof err);
    }

    int fn = -1;
    err[0] = '\0';
    if (define_value_check_name(text, len, &fn, err, sizeof err) != 0)
        cf_require_message(err, sizeof err);
    else
        cf_require(fn == 0 || fn == 1);
    err[0] = '\0';
    if (define_value_check_value("X", text, err, sizeof err) != 0)
        cf_require_message(err, sizeof err);

    dvt_lists(text);
    free(text);
    return 0;
}

#endif /* CLC_DEFINE_VALUE_TARGET_H */
