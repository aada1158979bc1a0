/* The one builder of build options (clc/program/build_options.h): the
 * text the manifest's and the direct mode's variants are built with, and
 * its bound. */
#include <stdlib.h>
#include <string.h>

#include "build_options.h"
#include "check.h"

/* The text of b, taken, compared with want (NULL: the take must fail). */
static void expect(build_options *b, const char *want, const char *what)
{
    char *got = NULL;
    int rc = build_options_take(b, &got);
    if (!want)
        CHECK(rc == -1 && !got, "%s: refused (got %s)", what, got ? got : "NULL");
    else
        CHECK(rc == 0 && got && strcmp(got, want) == 0, "%s: '%s' (got '%s')", what, want,
              got ? got : "NULL");
    free(got);
}

static void test_texts(void)
{
    build_options b;
    build_options_init(&b, 512);
    expect(&b, "", "nothing added");

    /* The manifest's form: the standard, -DNAME=VALUE (even empty), WG_X/WG_Y. */
    build_options_init(&b, 512);
    build_options_add(&b, "-cl-std=CL1.2");
    build_options_define(&b, "FILTER_WIDTH", "5");
    build_options_define(&b, "E", "");
    const uint32_t wg[3] = {16, 8, 0};
    build_options_wg(&b, wg, 2);
    expect(&b, "-cl-std=CL1.2 -DFILTER_WIDTH=5 -DE= -DWG_X=16 -DWG_Y=8", "manifest form");

    /* The direct mode's: a bare define, three axes, the user's options last. */
    build_options_init(&b, 512);
    build_options_define(&b, "BARE", NULL);
    build_options_define(&b, "TS", "16");
    const uint32_t wg3[3] = {4, 2, 1};
    build_options_wg(&b, wg3, 3);
    build_options_add(&b, "-cl-fast-relaxed-math -w");
    expect(&b, "-DBARE -DTS=16 -DWG_X=4 -DWG_Y=2 -DWG_Z=1 -cl-fast-relaxed-math -w",
           "direct form");

    build_options_init(&b, 512);
    build_options_wg(&b, wg3, 0);
    expect(&b, "", "no axis");
}

/* The bound counts the NUL: max - 1 characters fit, max do not, and after
 * the first add past it nothing more is taken, however short. */
static void test_bound(void)
{
    build_options b;
    build_options_init(&b, 9);
    build_options_add(&b, "-DA=1");
    build_options_add(&b, "-w");
    expect(&b, "-DA=1 -w", "8 characters in 9");

    build_options_init(&b, 9);
    build_options_add(&b, "-DA=1");
    build_options_add(&b, "-ww");
    CHECK(b.too_long == 1, "9 characters in 9 are too long");
    build_options_add(&b, "");
    expect(&b, NULL, "too long");
    CHECK(b.too_long == 1, "too_long stays set after the take");

    build_options_init(&b, 8);
    build_options_define(&b, "LONGER", "1");
    CHECK(b.too_long == 1, "a define past the bound");
    build_options_free(&b);
}

int main(void)
{
    test_texts();
    test_bound();
    return check_summary();
}
