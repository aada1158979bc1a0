/*
 * test_manifest.c — the manifest reader, the variant expansion, derive
 * expressions and the program text (includes folded, generated kernels),
 * on the real kernels/ folder and on small manifests written to temporary
 * folders. No OpenCL.
 */
#include "check.h"
#include "kernel_source.h"
#include "kernelgen.h"
#include "manifest.h"
#include "expr.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static manifest_file *manifest; /* large: one, on the heap */

/* ---- temporary kernels folders -------------------------------------- */

static char tmp_dir[64];

static void write_file(const char *name, const char *text, size_t len)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(text, 1, len, f);
        fclose(f);
    }
}

static void clear_dir(void)
{
    DIR *d = opendir(tmp_dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", tmp_dir, e->d_name);
        unlink(path);
    }
    closedir(d);
}

/* Writes manifest.txt (and a.cl, which most manifests name) and loads it. */
static int load_text(const char *text, char err[MANIFEST_ERR_MAX])
{
    clear_dir();
    write_file("a.cl", "__kernel void k(void) {}\n", 25);
    write_file("manifest.txt", text, strlen(text));
    return manifest_load(tmp_dir, manifest, err);
}

#define GOOD_KERNEL                                                                          \
    "kernel K\n"                                                                             \
    "  source a.cl\n"                                                                        \
    "  family conv-grey\n"                                                                   \
    "  grid exact\n"                                                                         \
    "  axis FILTER_WIDTH allowed=1-32 default=3-31:2\n"                                      \
    "  axis WG allowed=8x8,16x16 default=16x16\n"                                            \
    "  args in filter out in_width filter_width\n"                                           \
    "end\n"

/* A manifest that must be refused: err must name the line and say what. */
static void bad(const char *text, int line, const char *needle)
{
    char err[MANIFEST_ERR_MAX] = "";
    int rc = load_text(text, err);
    char where[32];
    snprintf(where, sizeof where, "manifest.txt:%d: ", line);
    CHECK(rc == -1 && strstr(err, where) && strstr(err, needle),
          "refused at line %d with '%s': rc=%d err=%s", line, needle, rc, err);
}

static void test_bad_manifests(void)
{
    bad("kernel K\n  source a.cl\n  colour red\nend\n", 3, "unknown keyword 'colour'");
    bad("kernel K\n  source a.cl\n  family conv-grey\n  grid exact\n"
        "  axis FILTER_WIDTH allowed=3-x default=3\n  args in filter out in_width\nend\n",
        5, "axis FILTER_WIDTH");
    bad("kernel K\n  source a.cl\n  family conv-grey\n  grid exact\n"
        "  args in filter out in_width colour\nend\n",
        5, "unknown argument role 'colour'");
    bad("kernel K\n  family conv-grey\n  grid exact\n  args in filter out in_width\nend\n", 1,
        "no source line");
    bad("kernel K\n  source missing.cl\nend\n", 2, "cannot open");
    bad("kernel K\n  source ../a.cl\nend\n", 2, "leaves the kernels folder");
    bad("kernel K\n  source /etc/passwd\nend\n", 2, "relative");
    bad(GOOD_KERNEL "\n" GOOD_KERNEL, 10, "declared twice");
    bad("kernel K\n  source a.cl\n  axis FILTER_WIDTH allowed=1-32 default=33\nend\n", 3,
        "default 33 is not among the allowed values");
    bad("kernel K\n  source a.cl\n  axis FILTER_WIDTH allowed=1-100 default=3\nend\n", 3,
        "at most 64");
    bad("kernel K\n  source a.cl\n  axis FILTER_WIDTH allowed=3,5,3 default=3\nend\n", 3,
        "given twice");
    bad("kernel K\n  source a.cl\n  axis FILTER_WIDTH allowed=1-32\nend\n", 3, "default=LIST");
    bad("kernel K\n  source a.cl\n  axis WG optional allowed=8x8 default=\nend\n", 3,
        "cannot be optional");
    bad("kernel K\n  source a.cl\n  axis FILTER_WIDTH allowed=1-3 default=1\n"
        "  axis FILTER_WIDTH allowed=1-3 default=1\nend\n",
        4, "declared twice");
    bad("kernel K\n  source a.cl\n  family conv-grey\n", 1, "has no end");
    bad("kernel K\n  source a.cl\nkernel L\n", 3, "no end before this kernel line");
    bad("end\n", 1, "expected 'kernel NAME'");
    bad("kernel 9K\nend\n", 1, "not a name");
    bad("kernel K\n  source a.cl\n  family conv-colour\nend\n", 3, "unknown family");
    bad("kernel K\n  source a.cl\n  grid sometimes\nend\n", 3, "unknown grid");
    bad("kernel K\n  source a.cl\n  source a.cl\nend\n", 3, "second source line");
    /* block: two axes of a 2-D kernel with grid round */
#define BLOCK_KERNEL(grid, block)                                                          \
    "kernel K\n  source a.cl\n  family conv-grey\n  grid " grid "\n" block                   \
    "  axis OUT_X allowed=1,2 default=2\n  axis OUT_Y allowed=1,2 default=2\n"              \
    "  axis IMAGE_W optional allowed=64 default=\n"                                         \
    "  args in filter out in_width width height\nend\n"
    bad(BLOCK_KERNEL("round", "  block OUT_X OUT_Z\n"), 1, "block OUT_Z is not a non-optional");
    bad(BLOCK_KERNEL("round", "  block OUT_X IMAGE_W\n"), 1, "block IMAGE_W is not");
    bad(BLOCK_KERNEL("round", "  block OUT_X WG\n"), 1, "block WG is not");
    bad(BLOCK_KERNEL("exact", "  block OUT_X OUT_Y\n"), 1, "block needs a 2-D kernel with grid round");
    bad(BLOCK_KERNEL("round", "  block OUT_X\n"), 5, "block takes two axis names");
    bad(BLOCK_KERNEL("round", "  block OUT_X OUT_Y\n  block OUT_X OUT_Y\n"), 6,
        "second block line");
    bad(BLOCK_KERNEL("round", "  block OUT_X 9\n"), 5, "block axis '9' is not a name");
    bad("kernel K\n  source a.cl\n  generator nosuch\nend\n", 3, "unknown generator 'nosuch'");
    bad("kernel K\n  source a.cl\n  axis FILTER_WIDTH allowed=1-3 default=1\n"
        "  derive H = (FILTER_WIDTH - 1 / 2\nend\n",
        4, "'(' is never closed");
    bad("kernel K\n  source a.cl\n  derive H = NOPE + 1\nend\n", 3, "unknown name NOPE");
    bad("kernel K\n  source a.cl\n  derive H = 1 +\nend\n", 3, "derive H");
    bad("kernel K\n  source a.cl\n  derive WG_X = 4\nend\n", 3, "set from the WG axis");
    bad("kernel K\n  source a.cl\n  axis A allowed=1 default=1\n  derive A = 2\nend\n", 4,
        "already an axis");
    bad("kernel K\n  source a.cl\n  family poly\n  grid round\n"
        "  axis WG allowed=8x8 default=8x8\n  args in coeffs out n\nend\n",
        1, "1-D");
    bad("kernel K\n  source a.cl\n  family poly\n  grid round\n  args in coeffs out\nend\n", 1,
        "role n");
    bad("kernel K\n  source a.cl\n  family conv-grey\n  grid exact\n"
        "  args in filter out in out\nend\n",
        5, "listed twice");
    bad("kernel K\n  source a.cl\n  args in filter out in_width filter_width width height "
        "coeffs numcoeffs n in in\nend\n",
        3, "listed twice");
    bad("kernel K\n  source a.cl\n  family conv-rgba\n  grid round\n"
        "  args in filter out in_width\nend\n",
        1, "grid round needs width and height");
    bad("kernel K\n  source a.cl\n  numcoeffs_multiple 0\nend\n", 3, "numcoeffs_multiple");
    bad("kernel K\n  source a.cl\n  axis WG allowed=8x8x2 default=8x8x2\nend\n", 3,
        "1-D or 2-D work-group");
    bad("# nothing\n", 1, "no kernel declared");
    bad("kernel K\n  source a.cl\n  axis FILTER_WIDTH allowed=1-3 default=1 extra\nend\n", 3,
        "unexpected 'extra'");

    /* Limits of the fixed arrays. */
    char text[8192];
    size_t len = (size_t)snprintf(text, sizeof text, "kernel K\n  source a.cl\n");
    for (int i = 0; i < MANIFEST_MAX_AXES + 1; i++)
        len += (size_t)snprintf(text + len, sizeof text - len,
                                "  axis A%d allowed=1 default=1\n", i);
    snprintf(text + len, sizeof text - len, "end\n");
    bad(text, 3 + MANIFEST_MAX_AXES, "too many axes (at most 12)");
    len = (size_t)snprintf(text, sizeof text, "kernel K\n  source a.cl\n");
    for (int i = 0; i < 9; i++)
        len += (size_t)snprintf(text + len, sizeof text - len, "  derive D%d = %d\n", i, i);
    snprintf(text + len, sizeof text - len, "end\n");
    bad(text, 11, "too many derives (at most 8)");
    len = (size_t)snprintf(text, sizeof text, "kernel K\n  source a.cl\n  note ");
    while (len < 1500)
        text[len++] = 'x';
    snprintf(text + len, sizeof text - len, "\nend\n");
    bad(text, 3, "longer than 1023");
    len = (size_t)snprintf(text, sizeof text, "kernel K\n  source a.cl\n  note ");
    while (len < 400)
        text[len++] = 'x';
    snprintf(text + len, sizeof text - len, "\nend\n");
    bad(text, 3, "note longer");

    char *many = malloc(65 * 256 + 64);
    len = 0;
    for (int i = 0; i < 65; i++)
        len += (size_t)sprintf(many + len,
                               "kernel K%d\n source a.cl\n family poly\n grid round\n"
                               " args in coeffs out n\nend\n",
                               i);
    bad(many, 64 * 6 + 1, "too many kernels");
    free(many);

    /* A NUL byte inside the text. */
    clear_dir();
    write_file("a.cl", "x\n", 2);
    static const char with_nul[] = "kernel K\n  source a.cl\0\nend\n";
    write_file("manifest.txt", with_nul, sizeof with_nul - 1);
    char err[MANIFEST_ERR_MAX];
    CHECK(manifest_load(tmp_dir, manifest, err) == -1 && strstr(err, "manifest.txt:2: NUL byte"),
          "NUL byte refused: %s", err);

    clear_dir();
    CHECK(manifest_load(tmp_dir, manifest, err) == -1 && strstr(err, "cannot open '") &&
              strstr(err, "/manifest.txt': ") && !strstr(err, "manifest.txt/"),
          "missing manifest refused: %s", err);
}

static void test_good_manifest(void)
{
    char err[MANIFEST_ERR_MAX];
    const char *text = "# comment line\r\n"
                       "kernel K   # trailing comment\r\n"
                       "\tsource\ta.cl\r\n"
                       "  family conv-rgba\n"
                       "  grid round\n"
                       "  axis FILTER_WIDTH allowed=1-9:2,15 default=3,5\n"
                       "  axis IMAGE_W optional allowed=64,128 default=\n"
                       "  axis WG allowed=8x8,16x16,32x4 default=8x8,16x16\n"
                       "  derive H = (FILTER_WIDTH - 1) / 2\n"
                       "  derive P = IMAGE_W + 2 * H\n"
                       "  args in out filter in_width width height\n"
                       "  note   a note with  two spaces  \n"
                       "end\n";
    int rc = load_text(text, err);
    if (!CHECK(rc == 0, "good manifest loads: %s", err))
        return;
    const manifest_kernel *k = manifest_find(manifest, "K");
    CHECK(manifest->n_kernels == 1 && k, "one kernel K");
    if (!k)
        return;
    CHECK(strcmp(k->source, "a.cl") == 0 && k->family == MANIFEST_FAMILY_CONV_RGBA &&
              k->grid == MANIFEST_GRID_ROUND && k->dims == 2,
          "source, family, grid, dims");
    const manifest_axis *fw = manifest_axis_find(k, "FILTER_WIDTH");
    CHECK(fw && fw->n_allowed == 6 && fw->allowed[4].v[0] == 9 && fw->allowed[5].v[0] == 15 &&
              fw->n_default == 2,
          "list syntax 1-9:2,15");
    const manifest_axis *iw = manifest_axis_find(k, "IMAGE_W");
    CHECK(iw && iw->optional && iw->n_default == 0, "optional axis without defaults");
    const manifest_axis *wg = manifest_axis_find(k, "WG");
    CHECK(wg && wg->is_wg && wg->n_allowed == 3 && wg->allowed[2].v[0] == 32 &&
              wg->allowed[2].v[1] == 4 && wg->allowed[2].v[2] == 1,
          "work-group list");
    CHECK(k->n_derives == 2 && strcmp(k->derives[1].expr, "IMAGE_W + 2 * H") == 0,
          "derives kept as written: '%s'", k->n_derives == 2 ? k->derives[1].expr : "");
    CHECK(k->n_args == 6 && k->args[0] == MANIFEST_ARG_IN && k->args[1] == MANIFEST_ARG_OUT &&
              k->args[2] == MANIFEST_ARG_FILTER && k->args[5] == MANIFEST_ARG_HEIGHT,
          "argument roles in order");
    CHECK(strcmp(k->note, "a note with  two spaces") == 0, "note: '%s'", k->note);
    CHECK(k->numcoeffs_multiple == 1, "numcoeffs_multiple defaults to 1");
    CHECK(k->block[0][0] == '\0' && k->block[1][0] == '\0', "no block line: no block axes");

    manifest_variant *vs;
    size_t n;
    rc = manifest_expand(k, NULL, &vs, &n, err);
    CHECK(rc == 0 && n == 4, "defaults: 2 widths x 2 work-groups = %zu", n);
    if (rc == 0) {
        CHECK(strcmp(vs[0].options, "-cl-std=CL1.2 -DFILTER_WIDTH=3 -DH=1 -DWG_X=8 -DWG_Y=8") ==
                  0,
              "options without the optional axis: %s", vs[0].options);
        CHECK(!manifest_variant_define(&vs[0], "P"), "a derive using a missing axis is not emitted");
        free(vs);
    }

    /* A block line names the axes whose values are the outputs per item. */
    rc = load_text(BLOCK_KERNEL("round", "  block OUT_X OUT_Y\n"), err);
    if (CHECK(rc == 0, "block kernel loads: %s", err))
        CHECK(strcmp(manifest->kernels[0].block[0], "OUT_X") == 0 &&
                  strcmp(manifest->kernels[0].block[1], "OUT_Y") == 0,
              "block axes OUT_X OUT_Y");

    /* A derive that divides by zero for some value is refused at expansion. */
    rc = load_text("kernel K\n  source a.cl\n  family conv-grey\n  grid exact\n"
                   "  axis FILTER_WIDTH allowed=1-5 default=3\n"
                   "  derive Q = 10 / (FILTER_WIDTH - 3)\n"
                   "  args in filter out in_width\nend\n",
                   err);
    if (CHECK(rc == 0, "loads: %s", err)) {
        rc = manifest_expand(&manifest->kernels[0], NULL, &vs, &n, err);
        CHECK(rc == -1 && strstr(err, "division by zero") && strstr(err, "derive Q"),
              "division by zero at expansion: %s", err);
    }

    /* Options longer than the variant's buffer are refused, not cut. */
    char longtext[4096];
    size_t len = (size_t)snprintf(longtext, sizeof longtext,
                                  "kernel K\n  source a.cl\n  family conv-grey\n  grid exact\n");
    for (int i = 0; i < 7; i++)
        len += (size_t)snprintf(longtext + len, sizeof longtext - len,
                                "  axis AXIS_WITH_A_VERY_LONG_NAME_NUMBER_%d_xxxxxxxxxxxxxxxxxxxxxxxxxx "
                                "allowed=1000000000 default=1000000000\n",
                                i);
    snprintf(longtext + len, sizeof longtext - len, "  args in filter out in_width\nend\n");
    rc = load_text(longtext, err);
    if (CHECK(rc == 0, "long names load: %s", err)) {
        rc = manifest_expand(&manifest->kernels[0], NULL, &vs, &n, err);
        CHECK(rc == -1 && strstr(err, "build options longer"), "over-long options: %s", err);
    }
}

/* ---- the real manifest ----------------------------------------------- */

static int expand_sel(const char *kernel, const char *axis, const long *vals, size_t nv,
                      manifest_variant **vs, size_t *n, char err[MANIFEST_ERR_MAX])
{
    const manifest_kernel *k = manifest_find(manifest, kernel);
    if (!k) {
        snprintf(err, MANIFEST_ERR_MAX, "no kernel %s", kernel);
        return -2;
    }
    manifest_selection sel;
    memset(&sel, 0, sizeof sel);
    if (axis) {
        snprintf(sel.names[0], MANIFEST_NAME_MAX, "%s", axis);
        sel.n = 1;
        sel.n_values[0] = nv;
        for (size_t i = 0; i < nv; i++) {
            sel.values[0][i].v[0] = vals[2 * i];
            sel.values[0][i].v[1] = vals[2 * i + 1];
            sel.values[0][i].v[2] = strcmp(axis, "WG") == 0 ? 1 : 0;
        }
    }
    return manifest_expand(k, axis ? &sel : NULL, vs, n, err);
}

/* Expands and returns the count, or -1 (err set). */
static long count_of(const char *kernel, const char *axis, const long *vals, size_t nv,
                     char err[MANIFEST_ERR_MAX])
{
    manifest_variant *vs;
    size_t n;
    if (expand_sel(kernel, axis, vals, nv, &vs, &n, err) != 0)
        return -1;
    free(vs);
    return (long)n;
}

static void test_real_manifest(void)
{
    char err[MANIFEST_ERR_MAX];
    if (!CHECK(manifest_load("kernels", manifest, err) == 0, "kernels/manifest.txt loads: %s", err))
        return;
    static const char *const names[] = {
        "Convolve", "Convolve_Unroll", "Convolve_UnrollIf", "Convolve_Def",
        "Convolve_Def_Unroll", "Convolve_Def_UnrollIf", "Convolve_Def_PragmaUnroll",
        "Convolve_Def_PragmaUnrollN", "reda_naive", "reda_constant", "reda_float4",
        "reda_unrolled", "reda_local", "reda_local_unrolled", "conv_block_grey",
        "conv_block_rgba", "poly_naive", "poly_unroll4", "poly_numcoeffs"};
    CHECK(manifest->n_kernels == sizeof names / sizeof names[0], "%zu kernels",
          manifest->n_kernels);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const manifest_kernel *k = manifest_find(manifest, names[i]);
        CHECK(k != NULL, "kernel %s declared", names[i]);
        CHECK(k && manifest_axis_find(k, "WG"), "kernel %s has a WG axis", names[i]);
    }

    const manifest_kernel *cb = manifest_find(manifest, "conv_block_rgba");
    CHECK(cb && strcmp(cb->block[0], "OUT_X") == 0 && strcmp(cb->block[1], "OUT_Y") == 0 &&
              cb->grid == MANIFEST_GRID_ROUND,
          "conv_block_rgba: block OUT_X OUT_Y, grid round");

    /* Widths as an argument: built once, however many widths are asked. */
    long widths[] = {3, 0, 5, 0, 7, 0};
    CHECK(count_of("Convolve", "FILTER_WIDTH", widths, 3, err) == 1,
          "Convolve is expanded once for 3 widths");
    CHECK(count_of("poly_naive", "NUMCOEFFS", widths, 3, err) == 1,
          "poly_naive is expanded once for 3 counts");
    CHECK(count_of("Convolve_Def", NULL, NULL, 0, err) == 15, "Convolve_Def defaults: 3-31:2");
    CHECK(count_of("Convolve_Def", "FILTER_WIDTH", widths, 3, err) == 3,
          "Convolve_Def at 3 widths");
    CHECK(count_of("reda_local", NULL, NULL, 0, err) == 30, "reda_local: 15 widths x 2 wgs");
    CHECK(count_of("poly_numcoeffs", NULL, NULL, 0, err) == 4, "poly_numcoeffs: 4,8,16,32");
    CHECK(count_of("Convolve_Def_PragmaUnrollN", NULL, NULL, 0, err) == 15,
          "PragmaUnrollN defaults: one factor");
    long factors[] = {1, 0, 2, 0, 4, 0, 8, 0};
    CHECK(count_of("Convolve_Def_PragmaUnrollN", "UNROLL_FACTOR", factors, 4, err) == 60,
          "PragmaUnrollN: 15 widths x 4 factors");

    /* Disallowed values are refused, with the axis, value and kernel. */
    long w33[] = {33, 0};
    CHECK(count_of("Convolve_Def", "FILTER_WIDTH", w33, 1, err) == -1 &&
              strstr(err, "FILTER_WIDTH=33") && strstr(err, "Convolve_Def") &&
              strstr(err, "1-32"),
          "width 33 refused: %s", err);
    long w4[] = {4, 0};
    CHECK(count_of("reda_naive", "FILTER_WIDTH", w4, 1, err) == -1 &&
              strstr(err, "FILTER_WIDTH=4") && strstr(err, "reda_naive") && strstr(err, "1-31:2"),
          "even width refused for Reda's kernels: %s", err);
    long uf3[] = {3, 0};
    CHECK(count_of("Convolve_Def_PragmaUnrollN", "UNROLL_FACTOR", uf3, 1, err) == -1 &&
              strstr(err, "UNROLL_FACTOR=3") && strstr(err, "1,2,4,8"),
          "factor 3 refused: %s", err);
    long iw100[] = {100, 0};
    CHECK(count_of("reda_local", "IMAGE_W", iw100, 1, err) == -1 && strstr(err, "IMAGE_W=100") &&
              strstr(err, "64-4096:64"),
          "IMAGE_W=100 refused: %s", err);
    long nc65[] = {65, 0};
    CHECK(count_of("poly_numcoeffs", "NUMCOEFFS", nc65, 1, err) == -1 &&
              strstr(err, "NUMCOEFFS=65"),
          "NUMCOEFFS=65 refused: %s", err);
    long wg32[] = {32, 32};
    CHECK(count_of("Convolve_Def", "WG", wg32, 1, err) == -1 && strstr(err, "WG=32x32") &&
              strstr(err, "8x8,16x16"),
          "WG=32x32 refused: %s", err);

    /* Work-groups of the other dimensionality are ignored. */
    manifest_variant *vs;
    size_t n;
    long wg2d[] = {16, 16};
    if (CHECK(expand_sel("poly_naive", "WG", wg2d, 1, &vs, &n, err) == 0 && n == 1,
              "poly_naive ignores WG=16x16: %s", err)) {
        CHECK(vs[0].wg[0] == 64 && vs[0].wg[1] == 1 &&
                  strcmp(vs[0].options, "-cl-std=CL1.2 -DWG_X=64") == 0,
              "poly_naive keeps its default 64: %s", vs[0].options);
        free(vs);
    }
    long wg128[] = {128, 1, 8, 8};
    if (CHECK(expand_sel("poly_naive", "WG", wg128, 2, &vs, &n, err) == 0 && n == 1,
              "poly_naive takes WG=128 out of 128,8x8: %s", err)) {
        CHECK(vs[0].wg[0] == 128 && strcmp(vs[0].options, "-cl-std=CL1.2 -DWG_X=128") == 0,
              "options %s", vs[0].options);
        free(vs);
    }
    if (CHECK(expand_sel("Convolve_Def", "WG", wg128, 2, &vs, &n, err) == 0 && n == 15,
              "Convolve_Def takes WG=8x8 out of 128,8x8: %s", err)) {
        CHECK(vs[0].wg[0] == 8 && vs[0].wg[1] == 8 && vs[0].wg[2] == 1, "wg 8x8x1");
        free(vs);
    }

    /* Exact options, defines sorted, WG last. */
    long w5[] = {5, 0};
    if (CHECK(expand_sel("Convolve_Def", "FILTER_WIDTH", w5, 1, &vs, &n, err) == 0 && n == 1,
              "Convolve_Def FILTER_WIDTH=5: %s", err)) {
        CHECK(strcmp(vs[0].options, "-cl-std=CL1.2 -DFILTER_WIDTH=5 -DWG_X=16 -DWG_Y=16") == 0,
              "options: %s", vs[0].options);
        CHECK(vs[0].n_defines == 1 && vs[0].wg[0] == 16 && vs[0].wg[1] == 16,
              "WG is not a define");
        free(vs);
    }
    if (CHECK(expand_sel("reda_local", "FILTER_WIDTH", w5, 1, &vs, &n, err) == 0 && n == 2,
              "reda_local FILTER_WIDTH=5: %s", err)) {
        CHECK(strcmp(vs[0].options, "-cl-std=CL1.2 -DFILTER_WIDTH=5 -DHALF_FILTER_SIZE=2 "
                                    "-DTWICE_HALF_FILTER_SIZE=4 -DWG_X=8 -DWG_Y=8") == 0,
              "options: %s", vs[0].options);
        CHECK(vs[1].wg[0] == 16, "second variant 16x16");
        CHECK(!manifest_variant_define(&vs[0], "INPUT_W"), "no INPUT_W without IMAGE_W");
        free(vs);
    }
    long iw512[] = {512, 0};
    if (CHECK(expand_sel("reda_naive", "IMAGE_W", iw512, 1, &vs, &n, err) == 0 && n == 15,
              "reda_naive IMAGE_W=512: %s", err)) {
        /* FILTER_WIDTH 5 is the second default width. */
        const char *o = vs[1].options;
        CHECK(strcmp(o, "-cl-std=CL1.2 -DFILTER_WIDTH=5 -DHALF_FILTER_SIZE=2 "
                        "-DHALF_FILTER_SIZE_INPUT_W=1032 -DIMAGE_W=512 -DINPUT_W=516 "
                        "-DTWICE_HALF_FILTER_SIZE=4 -DWG_X=16 -DWG_Y=16") == 0,
              "options with IMAGE_W: %s", o);
        CHECK(manifest_variant_define(&vs[1], "INPUT_W") &&
                  strcmp(manifest_variant_define(&vs[1], "INPUT_W"), "516") == 0,
              "manifest_variant_define");
        free(vs);
    }

    /* Stable: the same selection gives the same variants in the same order. */
    manifest_variant *a, *b;
    size_t na, nb;
    const manifest_kernel *k = manifest_find(manifest, "Convolve_Def_PragmaUnrollN");
    manifest_selection sel;
    memset(&sel, 0, sizeof sel);
    strcpy(sel.names[0], "UNROLL_FACTOR");
    sel.n_values[0] = 2;
    sel.values[0][0].v[0] = 8;
    sel.values[0][1].v[0] = 2;
    strcpy(sel.names[1], "WG");
    sel.n_values[1] = 2;
    sel.values[1][0] = (manifest_value){{8, 8, 1}};
    sel.values[1][1] = (manifest_value){{16, 16, 1}};
    sel.n = 2;
    if (k && manifest_expand(k, &sel, &a, &na, err) == 0 && manifest_expand(k, &sel, &b, &nb, err) == 0) {
        int same = na == nb && na == 60;
        for (size_t i = 0; same && i < na; i++)
            same = strcmp(a[i].options, b[i].options) == 0;
        CHECK(same, "expansion is reproducible (%zu variants)", na);
        /* Manifest order: FILTER_WIDTH slowest, then UNROLL_FACTOR in the
         * order asked, then WG. */
        CHECK(na == 60 &&
                  strcmp(a[0].options, "-cl-std=CL1.2 -DFILTER_WIDTH=3 -DUNROLL_FACTOR=8 "
                                       "-DWG_X=8 -DWG_Y=8") == 0 &&
                  a[1].wg[0] == 16 && strcmp(manifest_variant_define(&a[2], "UNROLL_FACTOR"), "2") == 0 &&
                  strcmp(manifest_variant_define(&a[4], "FILTER_WIDTH"), "5") == 0,
              "variant order: %s", na ? a[0].options : "");
        free(a);
        free(b);
    } else {
        CHECK(0, "expand PragmaUnrollN: %s", err);
    }
}

/* ---- expressions -------------------------------------------------------- */

static int lookup_xy(void *ctx, const char *name, size_t len, int64_t *value)
{
    (void)ctx;
    if (len == 1 && name[0] == 'X') {
        *value = 7;
        return 1;
    }
    if (len == 1 && name[0] == 'Y')
        return 0; /* known, no value */
    return -1;
}

static void test_expressions(void)
{
    static const struct {
        const char *expr;
        int64_t value;
    } good[] = {
        {"(X - 1) / 2", 3}, {"2 + 3 * 4", 14}, {"2 * (3 + 4)", 14}, {"-4 % 3", -1},
        {"X - -X", 14},     {"  42  ", 42},    {"10 - 2 - 3", 5},   {"100 / 10 / 5", 2},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        int64_t v = -999;
        char err[256] = "";
        int rc = expr_eval(good[i].expr, EXPR_EVALUATE, lookup_xy, NULL, &v, err, sizeof err);
        CHECK(rc == 0 && v == good[i].value, "'%s' = %lld (got %lld, rc %d %s)", good[i].expr,
              (long long)good[i].value, (long long)v, rc, err);
    }
    int64_t v;
    char err[256];
    CHECK(expr_eval("X + Y", EXPR_EVALUATE, lookup_xy, NULL, &v, err, sizeof err) == 1,
          "a name without a value gives 1");
    CHECK(expr_eval("X + Y", EXPR_CHECK, lookup_xy, NULL, &v, err, sizeof err) == 0,
          "checking only: known names are fine");
    static const char *const bad_exprs[] = {"", "2 +", "2 3", "(2", "2)", "Z", "1 / 0",
                                            "X % (X - 7)", "4294967296 * 4294967296",
                                            "99999999999999999999", "2 $ 3"};
    for (size_t i = 0; i < sizeof bad_exprs / sizeof bad_exprs[0]; i++) {
        err[0] = '\0';
        int rc = expr_eval(bad_exprs[i], EXPR_EVALUATE, lookup_xy, NULL, &v, err, sizeof err);
        CHECK(rc == -1 && err[0], "'%s' refused: %s", bad_exprs[i], err);
    }
}

/* ---- program text --------------------------------------------------------- */

static size_t count_of_text(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

static char *source_of(const char *kernel, const char *axis, long value, const char *axis2,
                       long value2, char name[MANIFEST_PATH_MAX], char err[MANIFEST_ERR_MAX])
{
    const manifest_kernel *k = manifest_find(manifest, kernel);
    if (!k) {
        snprintf(err, MANIFEST_ERR_MAX, "no kernel %s", kernel);
        return NULL;
    }
    manifest_selection sel;
    memset(&sel, 0, sizeof sel);
    if (axis) {
        snprintf(sel.names[sel.n], MANIFEST_NAME_MAX, "%s", axis);
        sel.n_values[sel.n] = 1;
        sel.values[sel.n++][0].v[0] = value;
    }
    if (axis2) {
        snprintf(sel.names[sel.n], MANIFEST_NAME_MAX, "%s", axis2);
        sel.n_values[sel.n] = 1;
        sel.values[sel.n++][0].v[0] = value2;
    }
    manifest_variant *vs;
    size_t n;
    if (manifest_expand(k, &sel, &vs, &n, err) != 0)
        return NULL;
    char *text = NULL;
    size_t len;
    if (kernel_source_program_source(manifest, &vs[0], &text, &len, name, err) == 0 && strlen(text) != len) {
        snprintf(err, MANIFEST_ERR_MAX, "length %zu does not match the text", len);
        free(text);
        text = NULL;
    }
    free(vs);
    return text;
}

static void test_program_text(void)
{
    char err[MANIFEST_ERR_MAX], name[MANIFEST_PATH_MAX];
    if (!CHECK(manifest_load("kernels", manifest, err) == 0, "kernels/manifest.txt loads: %s", err))
        return;

    /* A file without includes is stored as it is. */
    char *text = source_of("Convolve_Def", "FILTER_WIDTH", 5, NULL, 0, name, err);
    if (CHECK(text, "Convolve_Def source: %s", err)) {
        FILE *f = fopen("kernels/amd_convolve.cl", "rb");
        char *file = calloc(1, 1 << 20);
        size_t n = f && file ? fread(file, 1, (1 << 20) - 1, f) : 0;
        if (f)
            fclose(f);
        CHECK(n > 0 && strcmp(text, file) == 0 && strcmp(name, "amd_convolve.cl") == 0,
              "amd_convolve.cl verbatim, named %s", name);
        free(file);
        free(text);
    }

    /* Includes folded, nested and guarded, with #line directives. */
    text = source_of("reda_local", "FILTER_WIDTH", 5, NULL, 0, name, err);
    if (CHECK(text, "reda_local source: %s", err)) {
        CHECK(!strstr(text, "#include") && strstr(text, "static void reda_load_tile") &&
                  strstr(text, "#define BORDER_CENTRE") &&
                  strstr(text, "#line 1 \"reda_tile.h\"") &&
                  strstr(text, "#line 1 \"border.h\""),
              "reda_local.cl with reda_tile.h and border.h folded in");
        free(text);
    }

    /* Generated: literal offsets with IMAGE_W, as in the study's listing. */
    text = source_of("reda_unrolled", "FILTER_WIDTH", 5, "IMAGE_W", 1024, name, err);
    if (CHECK(text, "reda_unrolled source: %s", err)) {
        CHECK(strcmp(name, "reda_unrolled.cl.in[FILTER_WIDTH=5,IMAGE_W=1024]") == 0, "name %s",
              name);
        CHECK(count_of_text(text, "sum += input[my") == 25 &&
                  strstr(text, "sum += input[my - 2058] * filter[0];") &&
                  strstr(text, "sum += input[my - 2] * filter[10];") &&
                  strstr(text, "sum += input[my] * filter[12];") &&
                  strstr(text, "sum += input[my + 2058] * filter[24];") &&
                  strstr(text, "#if FILTER_WIDTH != 5 || IMAGE_W != 1024") &&
                  !strstr(text, UNROLLED_BODY_MARKER),
              "25 terms at literal offsets, a guard, no marker left");
        free(text);
    }
    /* Without IMAGE_W: a row pointer per filter row. */
    text = source_of("reda_unrolled", "FILTER_WIDTH", 31, NULL, 0, name, err);
    if (CHECK(text, "reda_unrolled 31 source: %s", err)) {
        CHECK(strcmp(name, "reda_unrolled.cl.in[FILTER_WIDTH=31]") == 0, "name %s", name);
        CHECK(count_of_text(text, "sum += row[") == 961 &&
                  count_of_text(text, "row = input + my") == 31 &&
                  strstr(text, "row = input + my - 15 * pitch;") &&
                  strstr(text, "row = input + my - pitch;") &&
                  strstr(text, "sum += row[-15] * filter[0];") &&
                  strstr(text, "sum += row[15] * filter[960];"),
              "961 terms, 31 row pointers");
        free(text);
    }
    text = source_of("reda_local_unrolled", "FILTER_WIDTH", 1, NULL, 0, name, err);
    if (CHECK(text, "reda_local_unrolled 1 source: %s", err)) {
        CHECK(count_of_text(text, "sum += row[") == 1 &&
                  strstr(text, "row = tile + my;") && strstr(text, "sum += row[0] * filter[0];"),
              "FILTER_WIDTH 1: one term over the tile");
        free(text);
    }
}

/* Include and generator errors, in a temporary kernels folder. */
static void source_error(const char *what, const char *files[][2], size_t n_files,
                         const char *generator, const char *needle)
{
    clear_dir();
    for (size_t i = 0; i < n_files; i++)
        write_file(files[i][0], files[i][1], strlen(files[i][1]));
    char link_path[128];
    snprintf(link_path, sizeof link_path, "%s/link.h", tmp_dir);
    if (symlink("/etc/passwd", link_path) != 0)
        CHECK(0, "symlink %s", link_path);
    char text[1024];
    snprintf(text, sizeof text,
             "kernel K\n  source a.cl\n%s%s%s  family conv-rgba\n  grid round\n"
             "  axis FILTER_WIDTH allowed=1-9 default=3\n"
             "  args in filter out in_width width height\nend\n",
             generator ? "  generator " : "", generator ? generator : "",
             generator ? "\n" : "");
    write_file("manifest.txt", text, strlen(text));
    char err[MANIFEST_ERR_MAX];
    if (!CHECK(manifest_load(tmp_dir, manifest, err) == 0, "%s: manifest loads: %s", what, err))
        return;
    manifest_variant *vs;
    size_t n;
    if (!CHECK(manifest_expand(&manifest->kernels[0], NULL, &vs, &n, err) == 0, "expand: %s", err))
        return;
    char *out = NULL;
    size_t len;
    char name[MANIFEST_PATH_MAX];
    int rc = kernel_source_program_source(manifest, &vs[0], &out, &len, name, err);
    CHECK(rc == -1 && out == NULL && strstr(err, needle), "%s refused: %s", what, err);
    free(vs);
}

/* a.cl folds to want. */
static void source_kept(const char *what, const char *a_cl, const char *want)
{
    char err[MANIFEST_ERR_MAX] = "";
    int rc = load_text("kernel K\n  source a.cl\n  family conv-rgba\n  grid round\n"
                       "  axis FILTER_WIDTH allowed=1-9 default=3\n"
                       "  args in filter out in_width width height\nend\n",
                       err);
    write_file("a.cl", a_cl, strlen(a_cl));
    manifest_variant *vs;
    size_t n;
    if (!CHECK(rc == 0 && manifest_expand(&manifest->kernels[0], NULL, &vs, &n, err) == 0,
               "%s: loads: %s", what, err))
        return;
    char *out = NULL;
    size_t len;
    char name[MANIFEST_PATH_MAX];
    rc = kernel_source_program_source(manifest, &vs[0], &out, &len, name, err);
    CHECK(rc == 0 && out && strcmp(out, want) == 0, "%s: kept as it is: %s", what,
          out ? out : err);
    free(out);
    free(vs);
}

static void test_source_errors(void)
{
    const char *loop[][2] = {{"a.cl", "#include \"b.h\"\n"}, {"b.h", "#include \"a.cl\"\n"}};
    source_error("include loop", loop, 2, NULL, "include loop");
    const char *self[][2] = {{"a.cl", "  #  include \"a.cl\"\n"}};
    source_error("self include", self, 1, NULL, "include loop");
    const char *outside[][2] = {{"a.cl", "#include \"../../etc/passwd\"\n"}};
    source_error("include outside", outside, 1, NULL, "outside the kernels folder");
    const char *absolute[][2] = {{"a.cl", "#include \"/etc/passwd\"\n"}};
    source_error("absolute include", absolute, 1, NULL, "outside the kernels folder");
    const char *link[][2] = {{"a.cl", "#include \"link.h\"\n"}};
    source_error("symbolic link outside", link, 1, NULL,
                 "a.cl:1: link.h -> /etc/passwd: outside the kernels folder");
    /* Found nowhere: kept as it is, for the compiler to judge. */
    const char *angle[][2] = {{"a.cl", "x\n#include <stdio.h>\n"}};
    source_kept("angle include", angle[0][1], "x\n#include <stdio.h>\n");
    const char *missing[][2] = {{"a.cl", "#ifndef __OPENCL_VERSION__\n#include \"nothere.h\"\n#endif\n"}};
    source_kept("missing include", missing[0][1], missing[0][1]);
    const char *no_marker[][2] = {{"a.cl", "__kernel void k(void) {}\n"}};
    source_error("template without marker", no_marker, 1, "reda_unrolled", "no line holding");
    const char *two_markers[][2] = {
        {"a.cl", "  " UNROLLED_BODY_MARKER "\n\t" UNROLLED_BODY_MARKER "  \n"}};
    source_error("template with two markers", two_markers, 1, "reda_local_unrolled",
                 "more than one");
    const char *even[][2] = {{"a.cl", UNROLLED_BODY_MARKER "\n"}};
    /* The manifest's default width is 3; an even width is asked for here. */
    clear_dir();
    write_file("a.cl", even[0][1], strlen(even[0][1]));
    manifest_variant v;
    memset(&v, 0, sizeof v);
    v.n_defines = 1;
    strcpy(v.define_names[0], "FILTER_WIDTH");
    strcpy(v.define_values[0], "4");
    char *out;
    size_t len;
    char label[MANIFEST_PATH_MAX], err[256];
    CHECK(kernelgen_generate("reda_unrolled", "a.cl", even[0][1], strlen(even[0][1]), &v, &out, &len,
                      label, err, sizeof err) == -1 &&
              strstr(err, "odd FILTER_WIDTH") && strstr(err, "got 4"),
          "even width refused by the generator: %s", err);
    CHECK(kernelgen_generate("nosuch", "a.cl", "x", 1, &v, &out, &len, label, err, sizeof err) == -1 &&
              strstr(err, "unknown generator"),
          "unknown generator: %s", err);
    CHECK(kernelgen_known("reda_unrolled") && kernelgen_known("reda_local_unrolled") && !kernelgen_known("x"),
          "kernelgen_known");
}

int main(void)
{
    source_gen_install(&kernelgen_generator); /* the bundled manifest's generators */
    manifest = malloc(sizeof *manifest);
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/test_manifest.XXXXXX");
    if (!manifest || !mkdtemp(tmp_dir)) {
        printf("cannot make a temporary folder\n");
        return 1;
    }
    test_bad_manifests();
    test_good_manifest();
    test_expressions();
    test_real_manifest();
    test_program_text();
    test_source_errors();
    clear_dir();
    rmdir(tmp_dir);
    free(manifest);
    return check_summary();
}
