/*
 * stub_source.c — what the stub's "compiler" understands of OpenCL C: the
 * kernels a source declares (`__kernel` or `kernel`, attributes, `void`,
 * the name, the parameter list) with their parameter declarations. It does
 * not preprocess: comments and string literals are skipped, but every
 * `#if` branch counts and a kernel whose name is a macro keeps the
 * macro's name.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stub.h"

void stub_kernel_desc_free(stub_kernel_desc *d)
{
    free(d->name);
    for (size_t i = 0; i < d->n_args; i++)
        free(d->arg_decl[i]);
    free(d->arg_decl);
    memset(d, 0, sizeof *d);
}

void stub_kernels_free(stub_kernel_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        stub_kernel_desc_free(&l->k[i]);
    free(l->k);
    l->k = NULL;
    l->n = 0;
}

int stub_kernel_desc_copy(stub_kernel_desc *dst, const stub_kernel_desc *src)
{
    memset(dst, 0, sizeof *dst);
    dst->name = strdup(src->name);
    dst->have_args = src->have_args;
    if (src->n_args) {
        dst->arg_decl = calloc(src->n_args, sizeof *dst->arg_decl);
        if (!dst->arg_decl) {
            stub_kernel_desc_free(dst);
            return -1;
        }
        for (size_t i = 0; i < src->n_args; i++) {
            if (!(dst->arg_decl[i] = strdup(src->arg_decl[i]))) {
                stub_kernel_desc_free(dst);
                return -1;
            }
            dst->n_args++;
        }
    }
    if (!dst->name) {
        stub_kernel_desc_free(dst);
        return -1;
    }
    return 0;
}

int stub_kernels_copy(stub_kernel_list *dst, const stub_kernel_list *src)
{
    dst->k = NULL;
    dst->n = 0;
    if (!src->n)
        return 0;
    if (!(dst->k = calloc(src->n, sizeof *dst->k)))
        return -1;
    for (size_t i = 0; i < src->n; i++) {
        if (stub_kernel_desc_copy(&dst->k[i], &src->k[i]) != 0) {
            stub_kernels_free(dst);
            return -1;
        }
        dst->n++;
    }
    return 0;
}

/* Appends an empty descriptor; NULL when full or out of memory. A name
 * already in the list is not added twice (NULL too, *dup set). */
static stub_kernel_desc *add_desc(stub_kernel_list *l, const char *name, size_t len, int *dup)
{
    *dup = 0;
    for (size_t i = 0; i < l->n; i++)
        if (strlen(l->k[i].name) == len && memcmp(l->k[i].name, name, len) == 0) {
            *dup = 1;
            return NULL;
        }
    if (l->n >= STUB_MAX_KERNELS)
        return NULL;
    stub_kernel_desc *grown = realloc(l->k, (l->n + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    l->k = grown;
    stub_kernel_desc *d = &l->k[l->n];
    memset(d, 0, sizeof *d);
    if (!(d->name = strndup(name, len)))
        return NULL;
    l->n++;
    return d;
}

int stub_kernels_add(stub_kernel_list *l, const char *name, size_t len)
{
    int dup;
    return add_desc(l, name, len, &dup) || dup ? 0 : -1;
}

/* The text with comments, string and character literals blanked, so that
 * token scanning sees code only. */
static char *code_only(const char *text, size_t len)
{
    char *s = malloc(len + 1);
    if (!s)
        return NULL;
    memcpy(s, text, len);
    s[len] = '\0';
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '/' && i + 1 < len && s[i + 1] == '/') {
            while (i < len && s[i] != '\n')
                s[i++] = ' ';
        } else if (s[i] == '/' && i + 1 < len && s[i + 1] == '*') {
            s[i] = s[i + 1] = ' ';
            for (i += 2; i < len && !(s[i] == '*' && i + 1 < len && s[i + 1] == '/'); i++)
                if (s[i] != '\n')
                    s[i] = ' ';
            if (i < len)
                s[i] = ' ';
            if (i + 1 < len)
                s[++i] = ' ';
        } else if (s[i] == '"' || s[i] == '\'') {
            char q = s[i];
            for (s[i++] = ' '; i < len && s[i] != q; i++) {
                if (s[i] == '\\' && i + 1 < len)
                    s[i++] = ' ';
                if (s[i] != '\n')
                    s[i] = ' ';
            }
            if (i < len)
                s[i] = ' ';
        } else if (s[i] == '\0') {
            s[i] = ' '; /* a NUL inside the given length */
        }
    }
    return s;
}

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

static const char *skip_space(const char *p)
{
    while (*p && isspace((unsigned char)*p))
        p++;
    return p;
}

/* Past a balanced (...) starting at p ('('); NULL when unbalanced. */
static const char *skip_parens(const char *p)
{
    int depth = 0;
    for (; *p; p++) {
        if (*p == '(')
            depth++;
        else if (*p == ')' && --depth == 0)
            return p + 1;
    }
    return NULL;
}

/* Stores the parameter declarations between open and close (exclusive). */
static int store_args(stub_kernel_desc *d, const char *open, const char *close)
{
    d->have_args = 1;
    const char *start = open;
    int depth = 0;
    for (const char *p = open;; p++) {
        if (p < close && (*p == '(' || *p == '[' || *p == '<'))
            depth++;
        else if (p < close && (*p == ')' || *p == ']' || *p == '>'))
            depth--;
        if (p == close || (*p == ',' && depth == 0)) {
            const char *a = start, *b = p;
            while (a < b && isspace((unsigned char)*a))
                a++;
            while (b > a && isspace((unsigned char)b[-1]))
                b--;
            size_t n = (size_t)(b - a);
            /* "(void)" and "()" declare no parameter. */
            if (!(n == 0 && d->n_args == 0 && p == close) &&
                !(n == 4 && memcmp(a, "void", 4) == 0 && d->n_args == 0 && p == close)) {
                if (d->n_args >= STUB_MAX_ARGS)
                    return -1;
                char **grown = realloc(d->arg_decl, (d->n_args + 1) * sizeof *grown);
                if (!grown)
                    return -1;
                d->arg_decl = grown;
                char *decl = malloc(n + 1);
                if (!decl)
                    return -1;
                /* Runs of blanks (newlines too) become one space. */
                size_t o = 0;
                for (const char *c = a; c < b; c++) {
                    if (isspace((unsigned char)*c)) {
                        if (o && decl[o - 1] != ' ')
                            decl[o++] = ' ';
                    } else {
                        decl[o++] = *c;
                    }
                }
                decl[o] = '\0';
                d->arg_decl[d->n_args++] = decl;
            }
            if (p == close)
                return 0;
            start = p + 1;
        }
    }
}

int stub_source_kernels(const char *text, size_t len, stub_kernel_list *out)
{
    out->k = NULL;
    out->n = 0;
    char *s = code_only(text, len);
    if (!s)
        return -1;
    for (const char *p = s; (p = strstr(p, "kernel")) != NULL; p += 6) {
        /* "kernel" or "__kernel" as a whole word. */
        const char *word = p >= s + 2 && p[-1] == '_' && p[-2] == '_' ? p - 2 : p;
        if ((word > s && ident_char(word[-1])) || ident_char(p[6]))
            continue;
        const char *q = skip_space(p + 6);
        /* Attributes and qualifiers before the return type. */
        while (strncmp(q, "__attribute__", 13) == 0 && !ident_char(q[13])) {
            q = skip_space(q + 13);
            if (*q != '(' || !(q = skip_parens(q)))
                break;
            q = skip_space(q);
        }
        if (!q || strncmp(q, "void", 4) != 0 || ident_char(q[4]))
            continue;
        q = skip_space(q + 4);
        const char *name = q;
        while (ident_char(*q))
            q++;
        size_t n = (size_t)(q - name);
        q = skip_space(q);
        if (n == 0 || *q != '(')
            continue;
        const char *close = skip_parens(q);
        if (!close)
            break;
        int dup;
        stub_kernel_desc *d = add_desc(out, name, n, &dup);
        if (!d && !dup) {
            free(s);
            stub_kernels_free(out);
            return -1;
        }
        if (d && store_args(d, q + 1, close - 1) != 0) {
            free(s);
            stub_kernels_free(out);
            return -1;
        }
        p = close - 6;
    }
    free(s);
    return 0;
}

static int is_word(const char *tok, size_t n, const char *w)
{
    return strlen(w) == n && memcmp(tok, w, n) == 0;
}

void stub_arg_info(const char *decl, char *name, size_t name_cap, char *type, size_t type_cap,
                   cl_kernel_arg_address_qualifier *aq, cl_kernel_arg_access_qualifier *acc,
                   cl_kernel_arg_type_qualifier *tq)
{
    *aq = CL_KERNEL_ARG_ADDRESS_PRIVATE;
    *acc = CL_KERNEL_ARG_ACCESS_NONE;
    *tq = CL_KERNEL_ARG_TYPE_NONE;
    name[0] = type[0] = '\0';
    /* The name: the last identifier (before any array brackets). */
    const char *end = decl + strlen(decl);
    const char *br = strchr(decl, '[');
    if (br)
        end = br;
    while (end > decl && !ident_char(end[-1]))
        end--;
    const char *nstart = end;
    while (nstart > decl && ident_char(nstart[-1]))
        nstart--;
    snprintf(name, name_cap, "%.*s", (int)(end - nstart), nstart);
    /* The type: the other tokens, qualifiers taken out. */
    size_t t = 0;
    for (const char *p = decl; p < nstart && t + 1 < type_cap;) {
        if (isspace((unsigned char)*p)) {
            p++;
            continue;
        }
        if (*p == '*') {
            if (t && type[t - 1] == ' ')
                t--;
            type[t++] = '*';
            p++;
            continue;
        }
        const char *tok = p;
        while (p < nstart && ident_char(*p))
            p++;
        size_t n = (size_t)(p - tok);
        if (n == 0) {
            p++;
            continue;
        }
        if (is_word(tok, n, "__global") || is_word(tok, n, "global"))
            *aq = CL_KERNEL_ARG_ADDRESS_GLOBAL;
        else if (is_word(tok, n, "__local") || is_word(tok, n, "local"))
            *aq = CL_KERNEL_ARG_ADDRESS_LOCAL;
        else if (is_word(tok, n, "__constant") || is_word(tok, n, "constant"))
            *aq = CL_KERNEL_ARG_ADDRESS_CONSTANT;
        else if (is_word(tok, n, "__private") || is_word(tok, n, "private"))
            *aq = CL_KERNEL_ARG_ADDRESS_PRIVATE;
        else if (is_word(tok, n, "__read_only") || is_word(tok, n, "read_only"))
            *acc = CL_KERNEL_ARG_ACCESS_READ_ONLY;
        else if (is_word(tok, n, "__write_only") || is_word(tok, n, "write_only"))
            *acc = CL_KERNEL_ARG_ACCESS_WRITE_ONLY;
        else if (is_word(tok, n, "__read_write") || is_word(tok, n, "read_write"))
            *acc = CL_KERNEL_ARG_ACCESS_READ_WRITE;
        else if (is_word(tok, n, "const"))
            *tq |= CL_KERNEL_ARG_TYPE_CONST;
        else if (is_word(tok, n, "restrict") || is_word(tok, n, "__restrict"))
            *tq |= CL_KERNEL_ARG_TYPE_RESTRICT;
        else if (is_word(tok, n, "volatile"))
            *tq |= CL_KERNEL_ARG_TYPE_VOLATILE;
        else {
            if (t && type[t - 1] != '*' && t + 1 < type_cap)
                type[t++] = ' ';
            for (size_t i = 0; i < n && t + 1 < type_cap; i++)
                type[t++] = tok[i];
        }
    }
    type[t] = '\0';
    /* A constant-space pointer is const to OpenCL (as drivers report it). */
    if (*aq == CL_KERNEL_ARG_ADDRESS_CONSTANT)
        *tq |= CL_KERNEL_ARG_TYPE_CONST;
}
