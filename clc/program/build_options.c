/* build_options.c — a build job's options, assembled one way
 * (build_options.h). */
#include "build_options.h"

#include <stdlib.h>
#include <string.h>

#include "bounded_fmt.h"

void build_options_init(build_options *b, size_t max)
{
    sb_init(&b->sb);
    b->max = max;
    b->too_long = 0;
}

void build_options_add(build_options *b, const char *opt)
{
    size_t n = strlen(opt), sep = b->sb.len ? 1 : 0;
    if (b->too_long || b->sb.failed)
        return;
    if (b->sb.len + sep + n + 1 > b->max) {
        b->too_long = 1;
        return;
    }
    if (sep)
        sb_put(&b->sb, " ", 1);
    sb_put(&b->sb, opt, n);
}

void build_options_define(build_options *b, const char *name, const char *value)
{
    /* Put whole, so that the bound is checked on the define as one option. */
    strbuf d;
    sb_init(&d);
    sb_printf(&d, "-D%s%s%s", name, value ? "=" : "", value ? value : "");
    sb_put(&d, "", 1);
    if (d.failed)
        b->sb.failed = 1;
    else
        build_options_add(b, (const char *)d.data);
    sb_free(&d);
}

void build_options_wg(build_options *b, const uint32_t wg[3], int n_axes)
{
    static const char *const axis[3] = {"X", "Y", "Z"};
    for (int k = 0; k < n_axes && k < 3; k++) {
        char opt[32];
        bfmt(opt, sizeof opt, "-DWG_%s=%u", axis[k], (unsigned)wg[k]);
        build_options_add(b, opt);
    }
}

int build_options_take(build_options *b, char **out)
{
    *out = NULL;
    sb_put(&b->sb, "", 1);
    if (b->too_long || b->sb.failed) {
        build_options_free(b);
        return -1;
    }
    *out = (char *)b->sb.data;
    sb_init(&b->sb);
    return 0;
}

void build_options_free(build_options *b)
{
    sb_free(&b->sb);
}
