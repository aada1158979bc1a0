/* pocl_note.c — the load report on PoCL's work-group functions (pocl_note.h). */
#include "pocl_note.h"

#include <stdio.h>
#include <string.h>

#include "pocl_binary.h"
#include "text_format.h"

void clcpk_pocl_note(const clcpack_entry_info *e, const uint8_t *bin, size_t size, char *buf,
                     size_t cap)
{
    buf[0] = '\0';
    /* A program entry's key may name any of its kernels: each must hold
     * the forms. A one-kernel entry's binary holds its siblings' generic
     * functions only. */
    const char *kernel = e->kernel_name_count ? NULL : e->kernel;
    unsigned held = 0;
    if (clcpk_pocl_forms_held(bin, size, kernel, kernel ? strlen(kernel) : 0, e->wg, &held) != 0)
        return;
    char wg[64], local[80], missing[CLCPK_POCL_NOTE_MAX];
    clcpk_wg_text(e->wg, "", wg, sizeof wg);
    snprintf(local, sizeof local, "local size %s", wg);
    if (!e->wg[0])
        snprintf(buf, cap,
                 "PoCL work-group functions: the generic one only (the key fixes no local "
                 "size): the first launch at each local size compiles one, a NULL local size "
                 "too (at the size PoCL picks)");
    else if (held == CLCPK_POCL_ALL_FORMS)
        snprintf(buf, cap,
                 "PoCL work-group functions: every grid and offset at %s (a launch at "
                 "another local size compiles one)",
                 local);
    else {
        clcpk_pocl_forms_missing_text(held, local, missing, sizeof missing);
        snprintf(buf, cap, "PoCL work-group functions: %s", missing);
    }
}
