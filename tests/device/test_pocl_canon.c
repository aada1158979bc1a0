/* Canonical PoCL binaries (clc/vendors/pocl_binary_canon.h): made-up binaries of
 * the version-9 layout, damaged ones, and — on PoCL — a real build whose
 * canonical binary must still load and compute the right result. */
#include <stdlib.h>
#include <string.h>

#include "build_variant.h"
#include "manifest_jobs.h"
#include "seed_hook.h"
#include "check.h"
#include "device_select.h"
#include "kernel_run.h"
#include "pocl_binary.h"
#include "pocl_binary_canon.h"
#include "variant_plan.h"
#include "wire.h"
#include "kernelgen.h"

typedef struct fake_file {
    const char *path, *content;
} fake_file;

typedef struct fake_kernel {
    const char *name;
    size_t n;
    fake_file files[6];
} fake_kernel;

static void put_file(strbuf *b, const char *path, const char *content)
{
    wire_put_u32(b, (uint32_t)strlen(path));
    sb_put(b, path, strlen(path));
    wire_put_u32(b, (uint32_t)strlen(content));
    sb_put(b, content, strlen(content));
}

/* A binary laid out as PoCL 3.1 writes it. */
static void make_binary(strbuf *b, uint32_t version, const fake_kernel *ks, size_t nk)
{
    sb_init(b);
    sb_put(b, "poclbin", 8);
    wire_put_u64(b, 0x02ee5be95d307b0cull);
    wire_put_u32(b, version);
    wire_put_u32(b, (uint32_t)nk);
    wire_put_u32(b, 0);
    wire_put_u32(b, 4);
    wire_put_u32(b, 1);
    char hash[41] = "ED/JNENEHDGJGCKIBDHNMKEODIDOINPKNEIAOCML";
    sb_put(b, hash, 41);
    strbuf bc;
    sb_init(&bc);
    put_file(&bc, "/program.bc", "BC-program-bitcode");
    wire_put_u64(b, bc.len);
    sb_put(b, bc.data, bc.len);
    sb_free(&bc);
    for (size_t k = 0; k < nk; k++) {
        strbuf files;
        sb_init(&files);
        for (size_t i = 0; i < ks[k].n; i++)
            put_file(&files, ks[k].files[i].path, ks[k].files[i].content);
        uint32_t name_len = (uint32_t)strlen(ks[k].name);
        /* Metadata after the name: a few made-up bytes of argument info. */
        const char meta[] = "ARGINFO";
        uint64_t rec = 24 + name_len + sizeof meta + files.len;
        wire_put_u64(b, rec);
        wire_put_u64(b, files.len);
        wire_put_u32(b, sizeof meta);
        wire_put_u32(b, name_len);
        sb_put(b, ks[k].name, name_len);
        sb_put(b, meta, sizeof meta);
        sb_put(b, files.data, files.len);
        sb_free(&files);
    }
}

/* The file paths of kernel k in a version-9 binary, joined by spaces. */
static int list_files(const unsigned char *bin, size_t size, size_t k_want, char *out, size_t cap)
{
    if (size < 77)
        return -1;
    wire_reader r;
    wire_reader_init(&r, bin + 77, size - 77);
    uint64_t bc = wire_get_u64(&r);
    if (r.failed || bc > r.left)
        return -1;
    r.p += bc;
    r.left -= bc;
    out[0] = '\0';
    for (size_t k = 0; r.left > 0; k++) {
        const unsigned char *start = r.p;
        uint64_t rec = wire_get_u64(&r), files = wire_get_u64(&r);
        if (r.failed || rec > r.left + 16 || files > rec)
            return -1;
        const unsigned char *f = start + rec - files, *end = start + rec;
        while (f < end) {
            uint32_t pl = (uint32_t)f[0] | (uint32_t)f[1] << 8 | (uint32_t)f[2] << 16 |
                          (uint32_t)f[3] << 24;
            const unsigned char *c = f + 4 + pl;
            uint32_t cl = (uint32_t)c[0] | (uint32_t)c[1] << 8 | (uint32_t)c[2] << 16 |
                          (uint32_t)c[3] << 24;
            if (k == k_want) {
                size_t len = strlen(out);
                snprintf(out + len, cap - len, "%s%.*s", len ? " " : "", (int)pl,
                         (const char *)f + 4);
            }
            f = c + 4 + cl;
        }
        if (f != end)
            return -1;
        r.p = end;
        r.left = (size_t)(bin + size - end);
    }
    return 0;
}

static void test_synthetic(void)
{
    const fake_kernel ks[] = {
        {"Convolve_Def", 4,
         {{"/Convolve_Def/8-8-1-goffs0/Convolve_Def.so", "big-grid"},
          {"/Convolve_Def/8-8-1-goffs0-smallgrid/Convolve_Def.so", "own"},
          {"/Convolve_Def/0-0-0/Convolve_Def.so", "generic"},
          {"/Convolve_Def/16-16-1-goffs0-smallgrid/Convolve_Def.so", "other-wg"}}},
        {"Convolve_Def_Unroll", 2,
         {{"/Convolve_Def_Unroll/8-8-1-goffs0-smallgrid/Convolve_Def_Unroll.so", "sibling"},
          {"/Convolve_Def_Unroll/0-0-0/Convolve_Def_Unroll.so", "generic2"}}},
    };
    strbuf b;
    make_binary(&b, POCL_BINARY_CANON_VERSION, ks, 2);
    const uint32_t wg[3] = {8, 8, 1};
    unsigned char *out = NULL;
    size_t out_size = 0;
    char why[256] = "";
    int rc = pocl_binary_canon_canonicalize(b.data, b.len, "Convolve_Def", wg, &out, &out_size, why, sizeof why);
    if (!CHECK(rc == 0, "a version-9 binary is rewritten: %s", why))
        return;
    CHECK(out_size < b.len, "smaller: %zu < %zu", out_size, b.len);
    CHECK(memcmp(out, b.data, 77 + 8 + 4 + 11 + 4 + 18) == 0, "header and program.bc unchanged");
    char files[1024];
    CHECK(list_files(out, out_size, 0, files, sizeof files) == 0, "the result parses");
    CHECK(strcmp(files, "/Convolve_Def/0-0-0/Convolve_Def.so "
                        "/Convolve_Def/8-8-1-goffs0-smallgrid/Convolve_Def.so "
                        "/Convolve_Def/8-8-1-goffs0/Convolve_Def.so") == 0,
          "own kernel keeps generic + every form of its local size (small and large grid), "
          "sorted: %s",
          files);
    CHECK(list_files(out, out_size, 1, files, sizeof files) == 0 &&
              strcmp(files, "/Convolve_Def_Unroll/0-0-0/Convolve_Def_Unroll.so") == 0,
          "a sibling kernel keeps only its generic function: %s", files);

    /* Canonical is a fixed point, and the input order does not matter. */
    unsigned char *again = NULL;
    size_t again_size = 0;
    CHECK(pocl_binary_canon_canonicalize(out, out_size, "Convolve_Def", wg, &again, &again_size, why,
                           sizeof why) == 0 &&
              again_size == out_size && memcmp(again, out, out_size) == 0,
          "canonicalizing twice changes nothing");
    free(again);
    fake_kernel shuffled[2];
    memcpy(shuffled, ks, sizeof shuffled);
    fake_file t = shuffled[0].files[0];
    shuffled[0].files[0] = shuffled[0].files[2];
    shuffled[0].files[2] = t;
    strbuf b2;
    make_binary(&b2, POCL_BINARY_CANON_VERSION, shuffled, 2);
    CHECK(pocl_binary_canon_canonicalize(b2.data, b2.len, "Convolve_Def", wg, &again, &again_size, why,
                           sizeof why) == 0 &&
              again_size == out_size && memcmp(again, out, out_size) == 0,
          "another file order gives the same bytes");
    free(again);
    sb_free(&b2);

    /* Without its own folder (another naming): keep its local size's folders. */
    const uint32_t wg16[3] = {16, 16, 1};
    CHECK(pocl_binary_canon_canonicalize(b.data, b.len, "Convolve_Def", wg16, &again, &again_size, why,
                           sizeof why) == 0 &&
              list_files(again, again_size, 0, files, sizeof files) == 0 &&
              strstr(files, "16-16-1-goffs0-smallgrid") && !strstr(files, "8-8-1"),
          "wg 16x16 keeps the 16x16 folder: %s", files);
    free(again);
    free(out);

    /* Not understood: left alone. */
    CHECK(pocl_binary_canon_canonicalize((const unsigned char *)"\177ELF....", 8, "k", wg, &out, &out_size, why,
                           sizeof why) == 1 &&
              out == NULL && strstr(why, "not a PoCL binary"),
          "an ELF file is left alone: %s", why);
    strbuf v8;
    make_binary(&v8, 8, ks, 2);
    CHECK(pocl_binary_canon_canonicalize(v8.data, v8.len, "Convolve_Def", wg, &out, &out_size, why,
                           sizeof why) == 1 &&
              strstr(why, "version 8"),
          "another format version is left alone: %s", why);
    sb_free(&v8);
    for (size_t cut = 0; cut < b.len; cut += 13) {
        rc = pocl_binary_canon_canonicalize(b.data, cut, "Convolve_Def", wg, &out, &out_size, why, sizeof why);
        CHECK(rc == 1 && out == NULL, "a binary cut to %zu bytes is left alone", cut);
    }
    /* A file length pointing past its kernel record. */
    strbuf bad;
    make_binary(&bad, POCL_BINARY_CANON_VERSION, ks, 2);
    size_t first_file = 77 + 8 + 37 + 24 + strlen("Convolve_Def") + 8;
    bad.data[first_file + 1] = 0x7f;
    CHECK(pocl_binary_canon_canonicalize(bad.data, bad.len, "Convolve_Def", wg, &out, &out_size, why,
                           sizeof why) == 1 &&
              strstr(why, "does not fit"),
          "a file overrunning its kernel is left alone: %s", why);
    sb_free(&bad);
    sb_free(&b);
}

/* Every form of a program's local size stays, for every kernel, and
 * loader/common/pocl_binary.h tells which forms a binary holds and which first
 * launches therefore compile. */
static void test_forms(void)
{
    const fake_kernel ks[] = {
        {"k", 6,
         {{"/k/8-8-1/k.so", "any"},
          {"/k/8-8-16-goffs0/k.so", "another size sharing the prefix"},
          {"/k/0-0-0/k.so", "generic"},
          {"/k/8-8-1-goffs0/k.so", "large"},
          {"/k/8-8-1-smallgrid/k.so", "offset small"},
          {"/k/8-8-1-goffs0-smallgrid/k.so", "small"}}},
        {"j", 2, {{"/j/8-8-1-goffs0/j.so", "large"}, {"/j/0-0-0/j.so", "generic"}}},
    };
    strbuf b;
    make_binary(&b, POCL_BINARY_CANON_VERSION, ks, 2);
    const uint32_t wg[3] = {8, 8, 1}, none[3] = {0, 0, 0};
    unsigned char *out = NULL;
    size_t out_size = 0;
    char why[256] = "", files[1024];
    CHECK(pocl_binary_canon_canonicalize(b.data, b.len, NULL, wg, &out, &out_size, why,
                                         sizeof why) == 0 &&
              list_files(out, out_size, 0, files, sizeof files) == 0 &&
              strcmp(files, "/k/0-0-0/k.so /k/8-8-1-goffs0-smallgrid/k.so /k/8-8-1-goffs0/k.so "
                            "/k/8-8-1-smallgrid/k.so /k/8-8-1/k.so") == 0,
          "a program keeps the four forms of 8x8 (not 8x8x16's): %s", files);
    CHECK(out && list_files(out, out_size, 1, files, sizeof files) == 0 &&
              strcmp(files, "/j/0-0-0/j.so /j/8-8-1-goffs0/j.so") == 0,
          "and each kernel its own: %s", files);
    unsigned held = 0;
    CHECK(out && clcpk_pocl_forms_held(out, out_size, "k", 1, wg, &held) == 0 &&
              held == CLCPK_POCL_ALL_FORMS,
          "k holds every form (%#x)", held);
    CHECK(out && clcpk_pocl_forms_held(out, out_size, "j", 1, wg, &held) == 0 &&
              held == 1u << CLCPK_POCL_GOFFS0,
          "j holds the large-grid zero-offset form only (%#x)", held);
    CHECK(out && clcpk_pocl_forms_held(out, out_size, NULL, 0, wg, &held) == 0 &&
              held == 1u << CLCPK_POCL_GOFFS0,
          "the program: the forms every kernel holds (%#x)", held);
    CHECK(out && clcpk_pocl_forms_held(out, out_size, "k", 1, none, &held) == 0 && held == 0,
          "no local size: no form (%#x)", held);
    CHECK(out && clcpk_pocl_forms_held(out, out_size, "nokernel", 8, wg, &held) == 1,
          "a kernel the binary lacks is not answered for");
    CHECK(clcpk_pocl_forms_held((const unsigned char *)"\177ELF....", 8, NULL, 0, wg, &held) == 1,
          "an ELF file is not a PoCL binary");
    char text[400];
    clcpk_pocl_forms_missing_text(CLCPK_POCL_ALL_FORMS, "local size 8x8", text, sizeof text);
    CHECK(text[0] == '\0', "every form held: no launch compiles ('%s')", text);
    clcpk_pocl_forms_missing_text(0, "local size 8x8", text, sizeof text);
    CHECK(strstr(text, "every first launch at local size 8x8 compiles"), "none held: %s", text);
    clcpk_pocl_forms_missing_text(1u << CLCPK_POCL_GOFFS0, "local size 8x8", text, sizeof text);
    CHECK(strstr(text, "every grid dimension below 65535 work-items (any global offset), or "
                       "with a global offset and a grid dimension of 65535 work-items or more"),
          "the large-grid zero-offset form alone: the others named: %s", text);
    clcpk_pocl_forms_missing_text(1u << CLCPK_POCL_GOFFS0_SMALLGRID, "local size 8x8", text,
                                  sizeof text);
    CHECK(strstr(text, "a global offset and every grid dimension below 65535") &&
              strstr(text, "a grid dimension of 65535 work-items or more (any global offset)"),
          "what packs before every form were stored hold: %s", text);
    free(out);
    sb_free(&b);
}

/* On PoCL: the binary build_variant_build takes is canonical and still runs right. */
static void test_real(void)
{
    static device_select_list devs;
    char err[DEVICE_SELECT_ERR_MAX];
    size_t sel[DEVICE_SELECT_MAX_DEVICES], n;
    if (device_select_enumerate(&devs, err) != 0 || device_select(&devs, "default", NULL, sel, &n, err) != 0 ||
        !strstr(devs.dev[sel[0]].platform_name, "Portable Computing Language")) {
        CHECK_SKIP("the default device is not PoCL: the real check");
        return;
    }
    static manifest_file m;
    const char *dir = getenv("CLC_KERNELS_DIR");
    char merr[MANIFEST_ERR_MAX];
    if (!CHECK(manifest_load(dir && *dir ? dir : "kernels", &m, merr) == 0, "manifest: %s", merr))
        return;
    variant_plan_request req;
    memset(&req, 0, sizeof req);
    req.n_kernels = 1;
    req.kernels[0] = "Convolve_Def";
    req.n_axes = 2;
    snprintf(req.axes[0].name, sizeof req.axes[0].name, "FILTER_WIDTH");
    value_list_parse_ints("7", &req.axes[0].values, merr);
    snprintf(req.axes[1].name, sizeof req.axes[1].name, "WG");
    value_list_parse_wgs("8x8", &req.axes[1].values, merr);
    variant_plan plan;
    char perr[VARIANT_PLAN_ERR_MAX];
    if (!CHECK(variant_plan_make(&m, &req, &plan, perr) == 0 && plan.n == 1, "plan: %s", perr))
        return;
    build_variant_target t;
    char terr[256];
    if (!CHECK(build_variant_target_open(devs.dev[sel[0]].device, NULL, &t, terr, sizeof terr) == 0, "%s",
               terr))
        return;
    build_variant_options o;
    build_variant_default_options(&o);
    build_variant_result r;
    build_job_list jobs = {0};
    if (!CHECK(manifest_jobs_make(&m, &plan, &jobs, merr) == 0 && jobs.n == 1, "jobs: %s", merr))
        return;
    check_hook hook;
    seed_hook_init(&hook, &m);
    build_variant_build(&t, &jobs.jobs[0], &o, &hook, &r);
    build_job_list_free(&jobs);
    if (CHECK(r.status == BUILD_VARIANT_OK && r.n_forms == 1, "Convolve_Def FILTER_WIDTH=7 builds: %s",
              r.message ? r.message : "")) {
        char files[2048];
        CHECK(list_files(r.forms[0].data, r.forms[0].size, 0, files, sizeof files) == 0,
              "the binary parses");
        CHECK(strstr(files, "/Convolve_Def/0-0-0/") &&
                  strstr(files, "/Convolve_Def/8-8-1-goffs0-smallgrid/"),
              "it holds the generic and the 8x8 work-group functions: %s", files);
        unsigned char *again = NULL;
        size_t again_size = 0;
        char why[256];
        CHECK(pocl_binary_canon_canonicalize(r.forms[0].data, r.forms[0].size, "Convolve_Def",
                               plan.variants[0].wg, &again, &again_size, why, sizeof why) == 0 &&
                  again_size == r.forms[0].size &&
                  memcmp(again, r.forms[0].data, again_size) == 0,
              "it is already canonical");
        free(again);

        const unsigned char *bins[1] = {r.forms[0].data};
        size_t sizes[1] = {r.forms[0].size};
        cl_int st, bst;
        cl_program p = clCreateProgramWithBinary(t.ctx, 1, &t.device, sizes, bins, &bst, &st);
        CHECK(p && st == CL_SUCCESS && bst == CL_SUCCESS, "PoCL accepts it (%d/%d)", (int)st,
              (int)bst);
        if (p) {
            CHECK(clBuildProgram(p, 1, &t.device, plan.variants[0].options, NULL, NULL) ==
                      CL_SUCCESS,
                  "and builds it");
            kernel_run_problem pr;
            kernel_run_default_problem(&plan.variants[0], 99, &pr);
            kernel_run_result res;
            char kerr[KERNEL_RUN_ERR_MAX];
            int c = kernel_run_check(t.ctx, t.queue, p, &plan.variants[0], &pr, o.tol, &res, kerr);
            CHECK(c == 0, "the loaded canonical binary computes the reference (%d, %g): %s", c,
                  res.max_rel_err, c < 0 ? kerr : "");
            clReleaseProgram(p);
        }
    }
    build_variant_result_free(&r);
    build_variant_target_close(&t);
    variant_plan_free(&plan);
}

/* Joining two records of one program (pocl_binary_canon_union), and the build hash
 * PoCL's cache off writes named by content. */
static void test_union(void)
{
    const fake_kernel a_ks[] = {{"k", 2,
                                 {{"/k/0-0-0/k.so", "generic"},
                                  {"/k/16-1-1-goffs0-smallgrid/k.so", "wg16"}}}};
    const fake_kernel b_ks[] = {{"k", 2,
                                 {{"/k/32-1-1-goffs0-smallgrid/k.so", "wg32"},
                                  {"/k/0-0-0/k.so", "generic"}}}};
    const fake_kernel c_ks[] = {{"other", 1, {{"/other/0-0-0/other.so", "generic"}}}};
    strbuf a, b, c;
    make_binary(&a, POCL_BINARY_CANON_VERSION, a_ks, 1);
    make_binary(&b, POCL_BINARY_CANON_VERSION, b_ks, 1);
    make_binary(&c, POCL_BINARY_CANON_VERSION, c_ks, 1);
    unsigned char *out = NULL;
    size_t out_size = 0;
    char why[256] = "", files[1024];
    int rc = pocl_binary_canon_union(a.data, a.len, b.data, b.len, &out, &out_size, why, sizeof why);
    CHECK(rc == 0, "two binaries of one program join: %s", why);
    CHECK(rc == 0 && list_files(out, out_size, 0, files, sizeof files) == 0 &&
              strcmp(files, "/k/0-0-0/k.so /k/16-1-1-goffs0-smallgrid/k.so "
                            "/k/32-1-1-goffs0-smallgrid/k.so") == 0,
          "the union holds the functions of both, once each, sorted: %s", rc == 0 ? files : "");
    free(out);
    out = NULL;
    rc = pocl_binary_canon_union(a.data, a.len, c.data, c.len, &out, &out_size, why, sizeof why);
    CHECK(rc == 1 && !out, "binaries of two programs are refused: %s", why);
    /* A random "_UNCACHED_" build hash becomes a digest of the bytes. */
    memcpy(a.data + 36, "_UNCACHED_Ab3XyZ", 16);
    memcpy(b.data + 36, "_UNCACHED_Qq9RrT", 16);
    unsigned char *ca = NULL, *cb = NULL;
    size_t na = 0, nb = 0;
    CHECK(pocl_binary_canon_canonicalize_all(a.data, a.len, &ca, &na, why, sizeof why) == 0 &&
              pocl_binary_canon_canonicalize_all(b.data, b.len, &cb, &nb, why, sizeof why) == 0,
          "binaries with PoCL's cache off canonicalize");
    CHECK(ca && memcmp(ca + 36, "_UNCACHED_", 10) != 0 && ca[36 + 40] == 0,
          "the random build hash is renamed (40 hex digits)");
    CHECK(ca && cb && memcmp(ca + 36, cb + 36, 40) != 0,
          "other contents: other names (a later process unpacks into that folder)");
    unsigned char *ca2 = NULL;
    size_t na2 = 0;
    memcpy(a.data + 36, "_UNCACHED_zzzzzz", 16);
    CHECK(pocl_binary_canon_canonicalize_all(a.data, a.len, &ca2, &na2, why, sizeof why) == 0 && ca &&
              na2 == na && memcmp(ca, ca2, na) == 0,
          "the same contents with another random name: the same bytes");
    rc = ca && cb ? pocl_binary_canon_union(ca, na, cb, nb, &out, &out_size, why, sizeof why) : -1;
    CHECK(rc == 0 && memcmp(out + 36, ca + 36, 40) != 0 && memcmp(out + 36, cb + 36, 40) != 0,
          "records named by content join, the union renamed by its own content: %s", why);
    free(out);
    free(ca);
    free(cb);
    free(ca2);
    sb_free(&a);
    sb_free(&b);
    sb_free(&c);
}

int main(void)
{
    source_gen_install(&kernelgen_generator); /* the bundled manifest's generators */
    test_synthetic();
    test_union();
    test_forms();
    test_real();
    return check_summary();
}
