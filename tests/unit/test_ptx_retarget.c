/* PTX retargeting without ptxas (clc/vendors/ptx_retarget.h, nv_forms.h):
 * rewriting .target and .version, the portable-form search against a fake
 * probe with known rules, and --nv-arch lists. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nv_arch_list.h"
#include "nv_forms.h"
#include "ptx_retarget.h"

static const char PTX[] =
    "//\n"
    "// .target sm_52 in a comment is not the directive\n"
    "//\n"
    "\n"
    ".version 9.0\n"
    ".target sm_90, texmode_independent\n"
    ".address_size 64\n"
    "\n"
    ".entry k(\n"
    "\t.param .u64 .ptr .global .align 4 k_param_0\n"
    ")\n"
    "{\n"
    "\tret;\n"
    "}\n";

static void test_version(void)
{
    uint32_t v = 0;
    CHECK(ptx_retarget_version(PTX, strlen(PTX), &v) == 0 && v == 90, ".version 9.0 is 90 (got %u)",
          (unsigned)v);
    const char *bad[] = {".target sm_90\n", ".version 9\n.target sm_90\n",
                         ".version 9.10\n.target sm_90\n", ".version x.y\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(ptx_retarget_version(bad[i], strlen(bad[i]), &v) == -1, "no usable version in \"%s\"",
              bad[i]);
    CHECK(ptx_retarget_min_version(75) == 63 && ptx_retarget_min_version(90) == 78 && ptx_retarget_min_version(120) == 87,
          "the first ISA versions of sm_75, sm_90, sm_120");
    CHECK(ptx_retarget_min_version(77) == 0, "an unknown arch has no first version");
}

static void test_retarget(void)
{
    char *out = NULL;
    size_t n = 0;
    CHECK(ptx_retarget(PTX, strlen(PTX), "sm_75", 0, &out, &n) == 0, "retarget to sm_75");
    if (out) {
        CHECK(strstr(out, "\n.target sm_75, texmode_independent\n") != NULL,
              "the target is sm_75 and keeps texmode_independent");
        CHECK(strstr(out, "\n.version 9.0\n") != NULL, "the version stays without one given");
        CHECK(strstr(out, "// .target sm_52 in a comment") != NULL, "comments are untouched");
        CHECK(n == strlen(PTX) && strlen(out) == n, "length: same-length names keep it (%zu)", n);
        char name[PTX_TEXT_ARCH_NAME_MAX];
        uint32_t arch = 0;
        CHECK(ptx_text_target(out, n, name, &arch) == 0 && arch == 75, "ptx_text_target reads sm_75 back");
    }
    free(out);
    out = NULL;
    CHECK(ptx_retarget(PTX, strlen(PTX), "sm_100", 78, &out, &n) == 0, "to sm_100, ISA 7.8");
    if (out) {
        CHECK(strstr(out, "\n.version 7.8\n.target sm_100, texmode_independent\n") != NULL,
              "both directives rewritten");
        CHECK(n == strlen(PTX) + 1, "one byte longer for sm_100 (%zu)", n);
    }
    free(out);
    const char *names[] = {"sm_", "90", "sm_9x0", "sm_90 -O0", "compute_90", "sm_90ab"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        out = NULL;
        CHECK(ptx_retarget(PTX, strlen(PTX), names[i], 0, &out, &n) == -1 && !out,
              "'%s' is refused as an arch name", names[i]);
    }
    const char *no_target = ".version 9.0\n.address_size 64\n";
    CHECK(ptx_retarget(no_target, strlen(no_target), "sm_75", 0, &out, &n) == -1,
          "a PTX without .target is refused");
    const char *suffix = ".version 9.0\n.target sm_90a\n";
    out = NULL;
    CHECK(ptx_retarget(suffix, strlen(suffix), "sm_80", 0, &out, &n) == 0 && out &&
              strcmp(out, ".version 9.0\n.target sm_80\n") == 0,
          "sm_90a is replaced whole");
    free(out);
}

/* A fake ptxas: accepts targets from min_arch and versions from
 * min_version (and never a version below the target's first one);
 * records what it was asked. */
typedef struct fake {
    uint32_t min_arch, min_version;
    int calls, asked_above, fail_at;
} fake;

static int fake_probe(void *vctx, const char *text, size_t len, const char *arch_name)
{
    fake *f = vctx;
    f->calls++;
    if (f->fail_at && f->calls == f->fail_at)
        return -1;
    char name[PTX_TEXT_ARCH_NAME_MAX];
    uint32_t arch = 0, v = 0;
    if (ptx_text_target(text, len, name, &arch) != 0 || ptx_retarget_version(text, len, &v) != 0 ||
        strcmp(name, arch_name) != 0)
        return -1;
    if (arch > 90)
        f->asked_above++;
    uint32_t first = ptx_retarget_min_version(arch);
    return arch >= f->min_arch && v >= f->min_version && (!first || v >= first);
}

static void test_portable(void)
{
    struct {
        uint32_t min_arch, min_version, want_arch, want_version;
    } cases[] = {
        {0, 0, 50, 40},    /* anything goes: the oldest target at its first version */
        {75, 0, 75, 63},   /* ptxas of CUDA 13: sm_75 is its oldest */
        {80, 70, 80, 70},  /* the code needs sm_80 */
        {75, 78, 75, 78},  /* the code needs ISA 7.8 */
        {90, 85, 90, 85},  /* an sm_90 feature of ISA 8.5 */
        {91, 0, 90, 90},   /* nothing lower: the text as it is */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fake f = {cases[i].min_arch, cases[i].min_version, 0, 0, 0};
        char *out = NULL;
        size_t n = 0;
        uint32_t arch = 0, v = 0;
        int tries = 0;
        int rc = ptx_retarget_portable(PTX, strlen(PTX), fake_probe, &f, &out, &n, &arch, &v, &tries);
        CHECK(rc == 0 && arch == cases[i].want_arch && v == cases[i].want_version,
              "case %zu: sm_%u ISA %u (want sm_%u ISA %u)", i, (unsigned)arch, (unsigned)v,
              (unsigned)cases[i].want_arch, (unsigned)cases[i].want_version);
        CHECK(tries == f.calls && tries <= PTX_RETARGET_PORTABLE_MAX_TRIES,
              "case %zu: %d probes, counted, within the bound", i, tries);
        CHECK(f.asked_above == 0, "case %zu: no target above the text's own is tried", i);
        if (out && rc == 0) {
            char name[PTX_TEXT_ARCH_NAME_MAX];
            uint32_t a2 = 0, v2 = 0;
            CHECK(ptx_text_target(out, n, name, &a2) == 0 && a2 == arch &&
                      ptx_retarget_version(out, n, &v2) == 0 && v2 == v &&
                      strstr(out, "texmode_independent") != NULL,
                  "case %zu: the text says what was found", i);
            if (cases[i].min_arch > 90)
                CHECK(strcmp(out, PTX) == 0, "nothing lower: the text unchanged");
        }
        free(out);
    }
    fake f = {0, 0, 0, 0, 2};
    char *out = NULL;
    size_t n;
    uint32_t arch, v;
    int tries;
    CHECK(ptx_retarget_portable(PTX, strlen(PTX), fake_probe, &f, &out, &n, &arch, &v, &tries) == -1 &&
              !out,
          "a probe failure stops the search");
    const char *bad = ".target sm_90\n";
    CHECK(ptx_retarget_portable(bad, strlen(bad), fake_probe, &f, &out, &n, &arch, &v, &tries) == -1,
          "a PTX without .version has no portable form");
}

static void test_arch_lists(void)
{
    nv_forms_archs a;
    char err[NV_FORMS_ERR_MAX];
    CHECK(nv_arch_list_parse(NV_FORMS_DEFAULT_ARCHS, &a, err) == 0 && a.n == 7 && a.arch[0] == 75 &&
              a.arch[6] == 120,
          "the default list: 7 archs from sm_75 to sm_120");
    CHECK(nv_arch_list_parse("120,75,90", &a, err) == 0 && a.n == 3 && a.arch[0] == 75 &&
              a.arch[1] == 90 && a.arch[2] == 120,
          "a list is sorted");
    char buf[64];
    nv_forms_format_archs(&a, buf, sizeof buf);
    CHECK(strcmp(buf, "75,90,120") == 0, "formatted for the worker: %s", buf);
    struct {
        const char *text, *says;
    } bad[] = {{"29", "'29'"},        {"1000", "'1000'"}, {"75,75", "75"},
               {"75,,80", "empty"},   {"sm_75", "sm_75"}, {"30-50", "more than 16"},
               {"", "empty"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        CHECK(nv_arch_list_parse(bad[i].text, &a, err) == -1 && strstr(err, bad[i].says),
              "\"%s\" refused naming %s: %s", bad[i].text, bad[i].says, err);
    }
}

int main(void)
{
    test_version();
    test_retarget();
    test_portable();
    test_arch_lists();
    return check_summary();
}
