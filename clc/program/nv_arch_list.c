/* nv_arch_list.c — the --nv-arch list (nv_arch_list.h). */
#include "nv_arch_list.h"

#include <string.h>

#include "bounded_fmt.h"
#include "value_list.h"

int nv_arch_list_parse(const char *text, nv_forms_archs *out, char err[NV_FORMS_ERR_MAX])
{
    static value_list l; /* large; parsing is single-threaded (options, worker start) */
    char verr[VALUE_LIST_ERR_MAX];
    memset(out, 0, sizeof *out);
    if (value_list_parse_ints(text, &l, verr) != 0) {
        bfmt(err, NV_FORMS_ERR_MAX, "%s", verr);
        return -1;
    }
    if (l.n > NV_FORMS_MAX_ARCHS) {
        bfmt(err, NV_FORMS_ERR_MAX, "more than %d architectures", NV_FORMS_MAX_ARCHS);
        return -1;
    }
    for (size_t i = 0; i < l.n; i++) {
        long v = l.values[i].v[0];
        if (v < 30 || v > 999) {
            bfmt(err, NV_FORMS_ERR_MAX, "'%s': an architecture is an sm number from 30 to 999 "
                                   "(75 for sm_75)", l.tokens[i]);
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
