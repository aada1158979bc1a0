/*
 * nv_arch_list.h — the --nv-arch list of the pack and retarget commands
 * and of the build worker: the NVIDIA architectures a PTX entry gets
 * cubins for (nv_forms.h), in the value-list syntax (value_list.h).
 */
#ifndef CLC_NV_ARCH_LIST_H
#define CLC_NV_ARCH_LIST_H

#include "nv_forms.h"

/* Parses an --nv-arch list ("75,80,86" or any value-list form, e.g.
 * "75,80-90:5"): sm numbers from 30 to 999, at most NV_FORMS_MAX_ARCHS. Sorted
 * into increasing order. 0, or -1 with err naming the bad item. */
int nv_arch_list_parse(const char *text, nv_forms_archs *out, char err[NV_FORMS_ERR_MAX]);

#endif /* CLC_NV_ARCH_LIST_H */
