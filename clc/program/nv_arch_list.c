/* nv_arch_list.c — the --nv-arch list (nv_arch_list.h). */
#include "nv_arch_list.h"

#include <stdlib.h>
#include <string.h>

#include "bounded_fmt.h"
#include "value_list.h"

/* l's architectures, checked, into out in increasing order. */
static int take(const value_list *l, nv_forms_archs *out, char err[NV_FORMS_ERR_MAX])
{
    if (l->n > NV_FORMS_MAX_ARCHS) {
        bfmt(err, NV_FORMS_ERR_MAX, "more than %d architectures", NV_FORMS_MAX_ARCHS);
        return -1;
    }
    for (size_t i = 0; i < l->n; i++) {
        long v = l->values[i].v[0];
        if (v < 30 || v > 999) {
            bfmt(err, NV_FORMS_ERR_MAX, "'%s': an architecture is an sm number from 30 to 999 "
                                   "(75 for sm_75)", l->tokens[i]);
            return -1;
        }
        /* Insertion into increasing order (value_list_parse_ints refused duplicates). */
        size_t k = out->n++;
        while (k > 0 && out->arch[k - 1] > (uint32_t)v) {
            out->arch[k] = out->arch[k - 1];
            k--;
        }
        out->arch[k] = (uint32_t)v;
    }
    return 0;
}

int nv_arch_list_parse(const char *text, nv_forms_archs *out, char err[NV_FORMS_ERR_MAX])
{
    value_list *l = malloc(sizeof *l); /* large: on the heap */
    char verr[VALUE_LIST_ERR_MAX];
    memset(out, 0, sizeof *out);
    int rc = -1;
    if (!l)
        bfmt(err, NV_FORMS_ERR_MAX, "out of memory");
    else if (value_list_parse_ints(text, l, verr) != 0)
        bfmt(err, NV_FORMS_ERR_MAX, "%s", verr);
    else
        rc = take(l, out, err);
    free(l);
    return rc;
}
