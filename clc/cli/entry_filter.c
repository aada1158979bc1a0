/* entry_filter.c — a kernel name and -D NAME=VALUE against a pack's entries
 * (entry_filter.h). */
#include "entry_filter.h"

#include <string.h>

#include "bounded_fmt.h"
#include "nearest_name.h"
#include "pack_text.h"

int entry_filter_opt_define(void *args, cli_optctx *c)
{
    entry_filter_defines *d = (entry_filter_defines *)((char *)args + c->opt->off);
    const char *eq = strchr(c->arg, '=');
    if (!eq || eq == c->arg || (size_t)(eq - c->arg) >= sizeof d->names[0])
        return cli_opt_fail(c, 1, "expected NAME=VALUE");
    if (d->n >= ENTRY_FILTER_MAX_DEFINES)
        return cli_opt_fail(c, 0, "more than %d", ENTRY_FILTER_MAX_DEFINES);
    bfmt(d->names[d->n], sizeof d->names[0], "%.*s", (int)(eq - c->arg), c->arg);
    d->defs[d->n].name = d->names[d->n];
    d->defs[d->n].value = eq + 1;
    d->n++;
    return 0;
}

int entry_filter_named(const clcpack_entry_info *e, const char *name)
{
    if (strcmp(e->kernel, name) == 0)
        return 1;
    for (size_t i = 0; i < e->kernel_name_count; i++)
        if (strcmp(e->kernel_names[i], name) == 0)
            return 1;
    return 0;
}

int entry_filter_has_defines(const clcpack_entry_info *e, const entry_filter_defines *d)
{
    for (size_t i = 0; i < d->n; i++) {
        size_t k = 0;
        while (k < e->define_count && strcmp(e->defines[k].name, d->defs[i].name) != 0)
            k++;
        if (k == e->define_count || strcmp(e->defines[k].value, d->defs[i].value) != 0)
            return 0;
    }
    return 1;
}

void entry_filter_kernels_text(const clcpack_entry_info *e, char *buf, size_t cap)
{
    buf[0] = '\0';
    /* A program of one kernel of its own name is named once, not "k (k)". */
    if (e->kernel_name_count == 0 ||
        (e->kernel_name_count == 1 && strcmp(e->kernel_names[0], e->kernel) == 0))
        return;
    char esc[256];
    for (size_t k = 0; k < e->kernel_name_count; k++) {
        size_t len = strlen(buf);
        bfmt(buf + len, cap - len, "%s%s", k ? ", " : " (",
             pack_text_esc(e->kernel_names[k], esc, sizeof esc));
    }
    size_t len = strlen(buf);
    bfmt(buf + len, cap - len, ")");
}

#define HELD_SHOWN 8 /* programs named in the message; then "..." */

/* Appends e's name, and its kernels', to held unless shown[] has it; after
 * HELD_SHOWN names, "...". */
static void add_held(const clcpack_entry_info *e, const char **shown, size_t *n_shown,
                     char *held, size_t cap)
{
    for (size_t i = 0; i < *n_shown && i < HELD_SHOWN; i++)
        if (strcmp(shown[i], e->kernel) == 0)
            return;
    size_t len = strlen(held);
    if (*n_shown >= HELD_SHOWN) {
        if (*n_shown == HELD_SHOWN)
            bfmt(held + len, cap - len, ", ...");
        *n_shown = HELD_SHOWN + 1;
        return;
    }
    shown[(*n_shown)++] = e->kernel;
    char esc[256], kernels[1024];
    entry_filter_kernels_text(e, kernels, sizeof kernels);
    bfmt(held + len, cap - len, "%s%s%s", len ? ", " : "", pack_text_esc(e->kernel, esc, sizeof esc),
         kernels);
}

int entry_filter_pack_has(const clcpack *p, const char *name, char *held, size_t cap,
                          char *hint, size_t hint_cap)
{
    const char *shown[HELD_SHOWN];
    size_t n_shown = 0;
    nearest_name_best near;
    nearest_name_init(&near, name);
    held[0] = '\0';
    hint[0] = '\0';
    for (size_t i = 0; i < clcpack_entry_count(p); i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        if (clcpack_get_entry(p, i, &e) != CLCPACK_OK)
            continue;
        if (entry_filter_named(&e, name))
            return 1;
        add_held(&e, shown, &n_shown, held, cap);
        nearest_name_offer(&near, e.kernel);
        for (size_t k = 0; k < e.kernel_name_count; k++)
            nearest_name_offer(&near, e.kernel_names[k]);
    }
    if (nearest_name_result(&near))
        bfmt(hint, hint_cap, "; did you mean %s?", nearest_name_result(&near));
    return 0;
}
