/* The pack command's options (clc/run/pack_args.h) and the variants they select
 * from the real manifest (clc/program/variant_plan.h). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pack_args.h"
#include "variant_plan.h"
#include "kernelgen.h"

static pack_args args;
static manifest_file manifest;

/* Parses a NULL-terminated option list (argv[0] added). */
static int parse(char err[PACK_ARGS_ERR_MAX], ...)
{
    static char *argv[64];
    va_list ap;
    va_start(ap, err);
    int argc = 0;
    argv[argc++] = (char *)"clc-pack";
    const char *a;
    while ((a = va_arg(ap, const char *)) != NULL && argc < 63)
        argv[argc++] = (char *)a;
    va_end(ap);
    argv[argc] = NULL;
    err[0] = '\0';
    return pack_args_parse(argc, argv, &args, err);
}

#define PARSE(err, ...) parse(err, __VA_ARGS__, (const char *)NULL)

static void expect_usage_error(const char *names, int rc, const char *err)
{
    CHECK(rc == -1, "refused (wanted an error naming '%s')", names);
    CHECK(strstr(err, names) != NULL, "error names '%s': %s", names, err);
}

static void test_options(void)
{
    char err[PACK_ARGS_ERR_MAX];
    CHECK(PARSE(err, "--widths", "3,5,7,...,31", "--device", "gpu") == 0, "README command: %s",
          err);
    CHECK(args.req.n_axes == 1 && strcmp(args.req.axes[0].name, "FILTER_WIDTH") == 0 &&
              args.req.axes[0].values.n == 15,
          "--widths is the FILTER_WIDTH axis with 15 values");
    CHECK(strcmp(args.device, "gpu") == 0, "--device gpu");
    CHECK(args.jobs >= 1, "-j defaults to the cores: %ld", args.jobs);
    CHECK(strcmp(args.kernels_dir, "kernels") == 0 && args.output == NULL, "defaults");

    CHECK(PARSE(err, "--kernel", "a", "--kernel", "b", "--wg", "8x8,16x16", "-D", "NUMCOEFFS=8,16",
                "-DUNROLL_FACTOR=2-8:2", "-o", "x.clcpack", "-j", "3", "-k", "-q", "--no-sources",
                "--ptxas", "/p", "--platform", "pocl", "--kernels", "kk") == 0,
          "every option: %s", err);
    CHECK(args.req.n_kernels == 2 && strcmp(args.req.kernels[1], "b") == 0, "two --kernel");
    CHECK(args.req.n_axes == 3, "three axes: %zu", args.req.n_axes);
    CHECK(strcmp(args.req.axes[1].name, "NUMCOEFFS") == 0 && args.req.axes[1].values.n == 2,
          "-D NUMCOEFFS=8,16");
    CHECK(strcmp(args.req.axes[2].option, "-D UNROLL_FACTOR") == 0 &&
              args.req.axes[2].values.n == 4,
          "-DUNROLL_FACTOR=2-8:2 (glued)");
    CHECK(args.jobs == 3 && args.keep_going && args.verbosity == -1 && args.no_sources,
          "-j 3 -k -q --no-sources");
    CHECK(strcmp(args.output, "x.clcpack") == 0 && strcmp(args.ptxas, "/p") == 0 &&
              strcmp(args.platform, "pocl") == 0 && strcmp(args.kernels_dir, "kk") == 0,
          "-o --ptxas --platform --kernels");
    CHECK(PARSE(err, "-v", "-v") == 0 && args.verbosity == 2, "-v -v");
    CHECK(PARSE(err, "--list-devices") == 0 && args.list_devices, "--list-devices");
    CHECK(PARSE(err, "--help") == 0 && args.help, "--help");
    CHECK(PARSE(err, "-D", "WG=64") == 0 && args.req.axes[0].values.values[0].v[1] == 1,
          "-D WG= is a work-group list");

    expect_usage_error("'3,,5'", PARSE(err, "--widths", "3,,5"), err);
    expect_usage_error("after '3'", PARSE(err, "--widths", "3,,5"), err);
    expect_usage_error("'30'", PARSE(err, "--widths", "3,5,...,30"), err);
    expect_usage_error("'x'", PARSE(err, "--widths", "x"), err);
    expect_usage_error("'8y8'", PARSE(err, "--wg", "8y8"), err);
    expect_usage_error("empty", PARSE(err, "--widths", ""), err);
    expect_usage_error("-j 0", PARSE(err, "-j", "0"), err);
    expect_usage_error("-j x", PARSE(err, "-j", "x"), err);
    expect_usage_error("-j 99999", PARSE(err, "-j", "99999"), err);
    expect_usage_error("--bogus", PARSE(err, "--bogus"), err);
    expect_usage_error("-Z", PARSE(err, "-Z"), err);
    expect_usage_error("--widths needs a value", PARSE(err, "--widths"), err);
    expect_usage_error("-o needs a value", PARSE(err, "-o"), err);
    CHECK(PARSE(err, "stray.cl") == 0 && args.direct && args.direct_spec.n_programs == 1 &&
              strcmp(args.direct_spec.programs[0].file, "stray.cl") == 0,
          "a file argument is a source to pack: %s", err);
    CHECK(PARSE(err, "-D", "TS=16,32", "-D", "USE_X", "--derive", "R=TS/2", "--where", "TS > 8",
                "--wg", "TS,R", "--variant", "TS=8", "--check-cmd", "true {binary}", "--kernel",
                "k", "--default", "TS=32", "a.cl", "b.cl", "--program", "p=x.h,y.cl", "-I", "inc",
                "--options", "-cl-fast-relaxed-math", "--wg-defines") == 0,
          "every direct option: %s", err);
    const direct_jobs_spec *d = &args.direct_spec;
    const direct_axes *all = &d->all;
    CHECK(d->n_programs == 3 && all->n_defines == 2 && all->n_derives == 1 &&
              all->n_wheres == 1 && all->n_variants == 1 && d->n_includes == 1 &&
              all->n_kernels == 1 && all->n_defaults == 1 && d->wg_defines &&
              strcmp(all->wg, "TS,R") == 0 && strcmp(d->options, "-cl-fast-relaxed-math") == 0 &&
              strcmp(all->check_cmd, "true {binary}") == 0,
          "direct options before the programs are every program's");
    CHECK(d->programs[2].program && strcmp(d->programs[2].program, "p=x.h,y.cl") == 0 &&
              direct_axes_empty(&d->programs[0].own) && direct_axes_empty(&d->programs[2].own),
          "-I, --options and --wg-defines after a program are no axes of its own");
    /* Options after a program are its own (docs/CLI.md, "Several programs"). */
    CHECK(PARSE(err, "-D", "T=1", "fir.cl", "-D", "TAPS=8,16", "--where", "TAPS>8", "scan.cl",
                "--wg", "64,128", "--check-cmd", "./t {binary}", "--kernel", "scan", "--program",
                "p=a.cl", "-D", "T=2") == 0,
          "axes after each program: %s", err);
    const direct_program *pr = d->programs;
    CHECK(d->n_programs == 3 && all->n_defines == 1 && !all->wg && !all->check_cmd,
          "every program's axes: -D T=1 alone");
    CHECK(pr[0].own.n_defines == 1 && strcmp(pr[0].own.defines[0], "TAPS=8,16") == 0 &&
              pr[0].own.n_wheres == 1 && !pr[0].own.wg,
          "fir.cl's own: -D TAPS=8,16 --where");
    CHECK(pr[1].own.n_defines == 0 && strcmp(pr[1].own.wg, "64,128") == 0 &&
              strcmp(pr[1].own.check_cmd, "./t {binary}") == 0 && pr[1].own.n_kernels == 1,
          "scan.cl's own: --wg, --check-cmd, --kernel");
    CHECK(pr[2].own.n_defines == 1 && strcmp(pr[2].own.defines[0], "T=2") == 0,
          "--program's own: -D T=2");
    expect_usage_error("scan.cl: --wg '1-64'", PARSE(err, "fir.cl", "scan.cl", "--wg", "1-64"), err);
    expect_usage_error("scan.cl: --wg is given twice",
                       PARSE(err, "--wg", "8", "scan.cl", "--wg", "16", "--wg", "32"), err);
    CHECK(PARSE(err, "--wg", "8", "scan.cl", "--wg", "16") == 0,
          "--wg for every program and for one: %s", err);
    expect_usage_error("program p: --check-cmd: ",
                       PARSE(err, "--program", "p=a.cl", "--check-cmd", "x {bogus}"), err);
    expect_usage_error("a.cl: -D T=1..4: a range", PARSE(err, "a.cl", "-D", "T=1..4"), err);
    CHECK(PARSE(err, "a.cl", "--options=-cl-opt-disable") == 0 && args.direct_spec.options &&
              strcmp(args.direct_spec.options, "-cl-opt-disable") == 0,
          "--options=STRING");
    expect_usage_error("--derive", PARSE(err, "--derive", "R=1"), err);
    expect_usage_error("-I", PARSE(err, "-I", "inc"), err);
    expect_usage_error("--widths", PARSE(err, "a.cl", "--widths", "3"), err);
    expect_usage_error("--wg is given twice", PARSE(err, "a.cl", "--wg", "8", "--wg", "16"), err);
    expect_usage_error("NAME=LIST", PARSE(err, "-D", "NUMCOEFFS"), err);
    expect_usage_error("NAME=LIST", PARSE(err, "-D", "=5"), err);
    expect_usage_error("not a macro name", PARSE(err, "-D", "9X=5"), err);
    expect_usage_error("already given by --widths",
                       PARSE(err, "--widths", "3", "-D", "FILTER_WIDTH=5"), err);
    expect_usage_error("already given by -D NUMCOEFFS",
                       PARSE(err, "-D", "NUMCOEFFS=4", "-D", "NUMCOEFFS=8"), err);
    expect_usage_error("--device", PARSE(err, "--device", ""), err);

    CHECK(PARSE(err, "--device", "gpu") == 0 && args.nv_archs.n == 7 &&
              args.nv_archs.arch[0] == 75 && args.nv_archs.arch[6] == 120,
          "--nv-arch defaults to 75,80,86,89,90,100,120");
    CHECK(PARSE(err, "--nv-arch", "90,80") == 0 && args.nv_archs.n == 2 &&
              args.nv_archs.arch[0] == 80 && args.nv_archs.arch[1] == 90,
          "--nv-arch 90,80: %s", err);
    expect_usage_error("--nv-arch 7.5", PARSE(err, "--nv-arch", "7.5"), err);
    expect_usage_error("'20'", PARSE(err, "--nv-arch", "20,75"), err);
}

/* Plans from a fresh parse; returns the variant_plan_make status. */
static int plan_of(variant_plan *p, char err[VARIANT_PLAN_ERR_MAX], int parse_rc)
{
    memset(p, 0, sizeof *p);
    if (!CHECK(parse_rc == 0, "the options parse"))
        return -2;
    return variant_plan_make(&manifest, &args.req, p, err);
}

static size_t count_kernel(const variant_plan *p, const char *name)
{
    size_t n = 0;
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->variants[i].kernel->name, name) == 0)
            n++;
    return n;
}

static void test_plans(void)
{
    char perr[PACK_ARGS_ERR_MAX], err[VARIANT_PLAN_ERR_MAX];
    variant_plan p;

    /* The default pack: every kernel with its defaults. */
    CHECK(plan_of(&p, err, PARSE(perr, "-q")) == 0, "default plan: %s", err);
    size_t expect = 0;
    for (size_t k = 0; k < manifest.n_kernels; k++) {
        size_t per = 1;
        for (size_t a = 0; a < manifest.kernels[k].n_axes; a++)
            if (!manifest.kernels[k].axes[a].optional)
                per *= manifest.kernels[k].axes[a].n_default;
        expect += per;
    }
    CHECK(p.n == expect, "default plan has the manifest's %zu variants, got %zu", expect, p.n);
    CHECK(p.notes == NULL, "no note for the defaults");
    variant_plan_free(&p);

    /* The README's command: every kernel skips nothing (all odd widths). */
    CHECK(plan_of(&p, err, PARSE(perr, "--widths", "3,5,7,...,31")) == 0, "odd widths: %s",
          err);
    CHECK(count_kernel(&p, "Convolve_Def") == 15 && count_kernel(&p, "reda_naive") == 15,
          "15 widths for the width kernels");
    CHECK(count_kernel(&p, "Convolve") == 1, "a kernel without the axis is built once");
    CHECK(p.notes == NULL, "no skip note: %s", p.notes ? p.notes : "");
    variant_plan_free(&p);

    /* An even width: Reda's odd-only kernels skip it, with one note. */
    CHECK(plan_of(&p, err, PARSE(perr, "--widths", "4,5")) == 0, "widths 4,5: %s", err);
    CHECK(count_kernel(&p, "Convolve_Def") == 2, "AMD kernels take 4 and 5");
    CHECK(count_kernel(&p, "reda_naive") == 1, "Reda kernels take only 5");
    CHECK(p.notes && strstr(p.notes, "FILTER_WIDTH") && strstr(p.notes, "4 by reda_naive"),
          "the note names the value and kernels: %s", p.notes ? p.notes : "(none)");
    CHECK(p.notes && !strchr(strchr(p.notes, '\n') + 1, '\n'), "one note line");
    variant_plan_free(&p);

    /* Only 4: the Reda kernels are not built at all. */
    CHECK(plan_of(&p, err, PARSE(perr, "--widths", "4")) == 0, "width 4: %s", err);
    CHECK(count_kernel(&p, "reda_local") == 0 && count_kernel(&p, "Convolve_Def") == 1,
          "reda_local skipped, Convolve_Def built");
    CHECK(p.notes && strstr(p.notes, "reda_local is not built"), "a note says so: %s",
          p.notes ? p.notes : "");
    variant_plan_free(&p);

    CHECK(plan_of(&p, err, PARSE(perr, "--widths", "3-40:3")) == -1 &&
              strstr(err, "FILTER_WIDTH=33 (from '3-40:3')") && strstr(err, "no selected kernel"),
          "a width no kernel allows names the value and its item: %s", err);
    CHECK(plan_of(&p, err, PARSE(perr, "--kernel", "reda_naive", "--widths", "3,4")) == -1 &&
              strstr(err, "FILTER_WIDTH=4") && strstr(err, "reda_naive") &&
              strstr(err, "1-31:2"),
          "a named kernel refusing a width is an error: %s", err);
    CHECK(plan_of(&p, err, PARSE(perr, "--kernel", "nosuch")) == -1 && strstr(err, "nosuch") &&
              strstr(err, "Convolve_Def"),
          "an unknown kernel lists the kernels: %s", err);
    CHECK(plan_of(&p, err, PARSE(perr, "-D", "FOO=1")) == -1 && strstr(err, "-D FOO"),
          "an axis no kernel has: %s", err);
    CHECK(plan_of(&p, err, PARSE(perr, "--kernel", "poly_naive", "--widths", "5")) == -1 &&
              strstr(err, "FILTER_WIDTH"),
          "--widths for a kernel without widths: %s", err);

    /* Work-groups go to the kernels of their dimension. */
    CHECK(plan_of(&p, err, PARSE(perr, "--wg", "8x8", "--kernel", "Convolve_Def", "--kernel",
                                 "poly_naive", "--widths", "5")) == 0,
          "2-D wg with a 1-D kernel: %s", err);
    CHECK(p.n == 2 && p.variants[0].wg[0] == 8 && p.variants[1].wg[0] == 64,
          "Convolve_Def gets 8x8, poly_naive keeps its default 64");
    variant_plan_free(&p);
    CHECK(plan_of(&p, err, PARSE(perr, "--wg", "64", "--kernel", "Convolve_Def")) == -1 &&
              strstr(err, "1-D"),
          "a 1-D wg with only 2-D kernels: %s", err);
    CHECK(plan_of(&p, err, PARSE(perr, "--wg", "32x32", "--kernel", "Convolve_Def")) == -1 &&
              strstr(err, "32x32"),
          "a wg the kernel does not allow: %s", err);

    /* Another axis, and an optional one. */
    CHECK(plan_of(&p, err, PARSE(perr, "--kernel", "poly_numcoeffs", "-D", "NUMCOEFFS=8,16",
                                 "--wg", "64,128")) == 0,
          "NUMCOEFFS x WG: %s", err);
    CHECK(p.n == 4, "2 x 2 variants, got %zu", p.n);
    variant_plan_free(&p);
    CHECK(plan_of(&p, err, PARSE(perr, "--kernel", "reda_naive", "--widths", "5", "-D",
                                 "IMAGE_W=512", "--wg", "16x16")) == 0,
          "IMAGE_W: %s", err);
    CHECK(p.n == 1 && manifest_variant_define(&p.variants[0], "IMAGE_W") &&
              manifest_variant_define(&p.variants[0], "INPUT_W"),
          "IMAGE_W and its derives are defined");
    char label[256];
    if (p.n == 1) {
        variant_plan_label(&p.variants[0], label, sizeof label);
        CHECK(strcmp(label, "reda_naive FILTER_WIDTH=5 IMAGE_W=512 wg=16x16") == 0,
              "label: %s", label);
    }
    variant_plan_free(&p);
}

int main(void)
{
    source_gen_install(&kernelgen_generator); /* the bundled manifest's generators */
    const char *dir = getenv("CLC_KERNELS_DIR");
    char err[MANIFEST_ERR_MAX];
    test_options();
    if (CHECK(manifest_load(dir && *dir ? dir : "kernels", &manifest, err) == 0, "manifest: %s", err))
        test_plans();
    return check_summary();
}
