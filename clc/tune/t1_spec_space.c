/* t1_spec_space.c — a T1 spec's ConfigurationSpace read (t1_spec_read.h):
 * the parameters, their values (an expression giving a list) and the
 * conditions, each compiled once. */
#include "t1_spec_read.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int param_value_ok(reader *r, const char *at, t1_param *p, t1_value *v, size_t k)
{
    char vt[64];
    t1_value_format(v, 0, vt, sizeof vt);
    switch (p->type) {
    case T1_PARAM_INT:
    case T1_PARAM_UINT:
        if (v->type == T1_BOOL)
            v->type = T1_INT;
        if (v->type == T1_FLOAT && v->f == floor(v->f) && fabs(v->f) < 9e18) {
            v->type = T1_INT;
            v->i = (int64_t)v->f;
        }
        if (v->type != T1_INT)
            return t1s_fail(r, at, "value %zu (%s) is not an integer, as Type %s wants", k, vt,
                        p->type == T1_PARAM_INT ? "int" : "uint");
        if (p->type == T1_PARAM_UINT && v->i < 0)
            return t1s_fail(r, at, "value %zu (%s) is negative; Type is uint", k, vt);
        return 0;
    case T1_PARAM_FLOAT:
        if (v->type == T1_INT || v->type == T1_BOOL) {
            v->f = (double)v->i;
            v->type = T1_FLOAT;
        }
        if (v->type != T1_FLOAT)
            return t1s_fail(r, at, "value %zu (%s) is not a number, as Type float wants", k, vt);
        return 0;
    case T1_PARAM_BOOL:
        if (v->type == T1_INT && (v->i == 0 || v->i == 1))
            v->type = T1_BOOL;
        if (v->type != T1_BOOL)
            return t1s_fail(r, at, "value %zu (%s) is not True or False, as Type bool wants", k, vt);
        return 0;
    case T1_PARAM_STRING:
        if (v->type != T1_STRING)
            return t1s_fail(r, at, "value %zu (%s) is not a string, as Type string wants", k, vt);
        for (size_t i = 0; i < v->len; i++)
            if ((unsigned char)v->s[i] < 0x20 || v->s[i] == '\\' || v->s[i] == '"')
                return t1s_fail(r, at, "value %zu (%s) holds a character a -D define cannot carry",
                            k, vt);
        return 0;
    }
    return 0;
}

/* A define's text: what -D NAME=TEXT carries (bools as 1 and 0, as C
 * reads them; floats as Python prints them). */
static char *define_text(const t1_value *v)
{
    char buf[512];
    if (v->type == T1_BOOL)
        bfmt(buf, sizeof buf, "%d", (int)v->i);
    else
        t1_value_format(v, 1, buf, sizeof buf);
    return strdup(buf);
}

static int read_param(reader *r, json_t *j, size_t k, t1_param *p)
{
    char at[160];
    bfmt(at, sizeof at, "ConfigurationSpace.TuningParameters[%zu]", k);
    if (!json_is_object(j))
        return t1s_fail(r, at, "is %s; the schema wants an object", t1s_json_kind(j));
    int bad = 0;
    json_t *name = t1s_member(r, j, at, "Name", JSON_STRING, 1, &bad);
    json_t *type = bad ? NULL : t1s_member(r, j, at, "Type", JSON_STRING, 1, &bad);
    json_t *values = bad ? NULL : t1s_member(r, j, at, "Values", JSON_STRING, 1, &bad);
    if (bad)
        return -1;
    const char *nm = json_string_value(name);
    size_t nlen = strlen(nm);
    int ident = nlen > 0 && nlen < 128 && !(nm[0] >= '0' && nm[0] <= '9');
    for (size_t i = 0; ident && i < nlen; i++)
        ident = (nm[i] >= 'a' && nm[i] <= 'z') || (nm[i] >= 'A' && nm[i] <= 'Z') ||
                (nm[i] >= '0' && nm[i] <= '9') || nm[i] == '_';
    char at2[200];
    bfmt(at2, sizeof at2, "%s.Name", at);
    if (!ident)
        return t1s_fail(r, at2, "'%s' is not a C identifier, so it cannot be a -D define", nm);
    if (t1_spec_param_index(r->s, nm, nlen) >= 0)
        return t1s_fail(r, at2, "'%s' is a parameter already", nm);
    bfmt(at2, sizeof at2, "%s.Type", at);
    int t = t1s_choice(r, at2, json_string_value(type), "int,uint,float,bool,string");
    if (t < 0)
        return -1;
    p->name = strdup(nm);
    p->type = (t1_param_type)t;
    bfmt(at2, sizeof at2, "%s.Values", at);
    t1_expr *x = t1s_compile_at(r, at2, json_string_value(values), NULL, NULL);
    if (!x)
        return -1;
    t1_arena arena = {0};
    t1_value list;
    char e[T1_EXPR_ERR_MAX];
    int rc = t1_expr_eval(x, NULL, &arena, &list, e, sizeof e);
    t1_expr_free(x);
    if (rc != 0) {
        t1_arena_free(&arena);
        return t1s_fail(r, at2, "%s", e);
    }
    if (list.type != T1_LIST || list.len == 0) {
        t1_arena_free(&arena);
        return t1s_fail(r, at2, "'%s' is not a list of values (write e.g. \"[8, 16, 32]\" or "
                    "\"range(1, 9)\")", json_string_value(values));
    }
    if (list.len > T1_SPEC_VALUES_MAX) {
        t1_arena_free(&arena);
        return t1s_fail(r, at2, "%zu values; a parameter takes at most %u", list.len,
                    T1_SPEC_VALUES_MAX);
    }
    p->values = calloc(list.len, sizeof *p->values);
    p->texts = calloc(list.len, sizeof *p->texts);
    if (!p->values || !p->texts) {
        t1_arena_free(&arena);
        return t1s_fail(r, at2, "out of memory");
    }
    for (size_t i = 0; i < list.len; i++) {
        t1_value v = list.items[i];
        if (param_value_ok(r, at2, p, &v, i) != 0) {
            t1_arena_free(&arena);
            return -1;
        }
        if (v.type == T1_STRING) {
            char *copy = malloc(v.len + 1);
            if (!copy) {
                t1_arena_free(&arena);
                return t1s_fail(r, at2, "out of memory");
            }
            memcpy(copy, v.s, v.len);
            copy[v.len] = '\0';
            v.s = copy;
        }
        p->values[i] = v;
        p->n_values = i + 1;
        p->texts[i] = define_text(&v);
        for (size_t q = 0; q < i; q++)
            if (p->texts[i] && strcmp(p->texts[q], p->texts[i]) == 0) {
                t1_arena_free(&arena);
                return t1s_fail(r, at2, "the value %s comes twice", p->texts[i]);
            }
    }
    t1_arena_free(&arena);
    return 0;
}

int t1s_read_space(reader *r, json_t *root)
{
    int bad = 0;
    json_t *cs = t1s_member(r, root, "", "ConfigurationSpace", JSON_OBJECT, 1, &bad);
    if (bad)
        return -1;
    json_t *tp = t1s_member(r, cs, "ConfigurationSpace", "TuningParameters", JSON_ARRAY, 1, &bad);
    if (bad)
        return -1;
    size_t n = json_array_size(tp);
    if (n == 0)
        return t1s_fail(r, "ConfigurationSpace.TuningParameters", "empty; a space needs a parameter");
    if (n > T1_SPEC_PARAMS_MAX)
        return t1s_fail(r, "ConfigurationSpace.TuningParameters", "%zu parameters; at most %d", n,
                    T1_SPEC_PARAMS_MAX);
    r->s->params = calloc(n, sizeof *r->s->params);
    if (!r->s->params)
        return t1s_fail(r, "ConfigurationSpace", "out of memory");
    for (size_t k = 0; k < n; k++) {
        /* Counted first, so that t1_spec_free frees what a failed read made. */
        r->s->n_params = k + 1;
        if (read_param(r, json_array_get(tp, k), k, &r->s->params[k]) != 0)
            return -1;
    }
    json_t *conds = t1s_member(r, cs, "ConfigurationSpace", "Conditions", JSON_ARRAY, 0, &bad);
    if (bad)
        return -1;
    size_t nc = json_array_size(conds);
    r->s->conditions = calloc(nc ? nc : 1, sizeof *r->s->conditions);
    if (!r->s->conditions)
        return t1s_fail(r, "ConfigurationSpace", "out of memory");
    names_ctx nctx = {r->s, 1};
    for (size_t k = 0; k < nc; k++) {
        char at[160], at2[200];
        bfmt(at, sizeof at, "ConfigurationSpace.Conditions[%zu]", k);
        json_t *c = json_array_get(conds, k);
        if (!json_is_object(c))
            return t1s_fail(r, at, "is %s; the schema wants an object", t1s_json_kind(c));
        json_t *ex = t1s_member(r, c, at, "Expression", JSON_STRING, 1, &bad);
        json_t *ps = bad ? NULL : t1s_member(r, c, at, "Parameters", JSON_ARRAY, 1, &bad);
        if (bad)
            return -1;
        for (size_t i = 0; i < json_array_size(ps); i++) {
            json_t *pn = json_array_get(ps, i);
            bfmt(at2, sizeof at2, "%s.Parameters[%zu]", at, i);
            if (!json_is_string(pn))
                return t1s_fail(r, at2, "is %s; the schema wants a string", t1s_json_kind(pn));
            if (t1_spec_param_index(r->s, json_string_value(pn), strlen(json_string_value(pn))) < 0)
                return t1s_fail(r, at2, "'%s' is not a parameter", json_string_value(pn));
        }
        bfmt(at2, sizeof at2, "%s.Expression", at);
        t1_condition *cd = &r->s->conditions[k];
        cd->text = strdup(json_string_value(ex));
        r->s->n_conditions = k + 1;
        cd->expr = t1s_compile_at(r, at2, cd->text, t1s_resolve_name, &nctx);
        if (!cd->expr)
            return -1;
        /* Checked as soon as its last parameter is bound (tune_space.c):
         * the names it really reads decide that, not its Parameters list. */
        int slots[T1_SPEC_PARAMS_MAX];
        size_t ns = t1_expr_slots(cd->expr, slots, T1_SPEC_PARAMS_MAX);
        for (size_t i = 0; i < ns && i < T1_SPEC_PARAMS_MAX; i++)
            if ((size_t)slots[i] < r->s->n_params && (size_t)slots[i] > cd->deepest)
                cd->deepest = (size_t)slots[i];
    }
    return 0;
}
