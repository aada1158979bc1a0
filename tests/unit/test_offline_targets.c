/*
 * test_offline_targets.c — format 4's offline targets without a driver:
 * the pure matching rules (gfx target IDs, SPIR-V versions, IL lists,
 * target/arch agreement), the header checks on synthetic binaries, the
 * build options an offline compiler is given, and a writer/reader round
 * trip of Intel, AMD and SPIR-V entries (kind, arch, target, versions).
 */
#include <stdlib.h>
#include <string.h>

#include "bin_check.h"
#include "check.h"
#include "clcpack_write.h"
#include "offline_opts.h"
#include "target_match.h"

static void test_gfx(void)
{
    pk_gfx g, d;
    char name[64];
    CHECK(clcpk_gfx_parse("gfx90a", 0, &g) == 0 && g.major == 9 && g.minor == 0 &&
              g.stepping == 10 && g.xnack == PK_FEAT_ANY && g.sramecc == PK_FEAT_ANY,
          "gfx90a parses to 9.0.10, no features");
    CHECK(clcpk_gfx_parse("gfx1030", 0, &g) == 0 && g.major == 10 && g.minor == 3 &&
              g.stepping == 0,
          "gfx1030 parses to 10.3.0");
    CHECK(clcpk_gfx_arch(&g) == 0x000a0300u, "gfx1030's arch is 0x000a0300, got 0x%x",
          clcpk_gfx_arch(&g));
    CHECK(clcpk_gfx_parse("gfx90a:xnack-:sramecc+", 0, &g) == 0 && g.xnack == PK_FEAT_OFF &&
              g.sramecc == PK_FEAT_ON,
          "features in any order");
    clcpk_gfx_name(&g, name, sizeof name);
    CHECK(strcmp(name, "gfx90a:sramecc+:xnack-") == 0, "canonical spelling: %s", name);
    clcpk_gfx_from_arch(clcpk_gfx_arch(&g), &d);
    CHECK(memcmp(&d, &g, sizeof d) == 0, "arch encodes the whole target ID");
    const char *bad[] = {"gfx", "gfx9", "gfx10300", "gfxg0a", "gfx90a:", "gfx90a:xnack",
                         "gfx90a:xnack+:xnack-", "gfx90a:foo+", "amd90a", "gfx090a"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(clcpk_gfx_parse(bad[i], 0, &g) != 0, "'%s' is refused", bad[i]);
    CHECK(clcpk_gfx_parse("gfx1030:foo+", 1, &g) == 0, "a device name may carry other features");

    /* Matching: the name, then each feature the entry sets. */
    pk_gfx e_any, e_off, dev_off, dev_on, dev_plain, other;
    clcpk_gfx_parse("gfx90a", 0, &e_any);
    clcpk_gfx_parse("gfx90a:xnack-", 0, &e_off);
    clcpk_gfx_parse("gfx90a:sramecc+:xnack-", 1, &dev_off);
    clcpk_gfx_parse("gfx90a:sramecc+:xnack+", 1, &dev_on);
    clcpk_gfx_parse("gfx90a", 1, &dev_plain);
    clcpk_gfx_parse("gfx908", 1, &other);
    CHECK(clcpk_gfx_fits(&e_any, &dev_off) && clcpk_gfx_fits(&e_any, &dev_on),
          "an entry without features fits either setting");
    CHECK(clcpk_gfx_fits(&e_off, &dev_off), "xnack- fits a device with xnack-");
    CHECK(!clcpk_gfx_fits(&e_off, &dev_on), "xnack- does not fit a device with xnack+");
    CHECK(!clcpk_gfx_fits(&e_off, &dev_plain),
          "xnack- does not fit a device whose name says nothing of it");
    CHECK(!clcpk_gfx_fits(&e_any, &other), "gfx90a does not fit gfx908");
}

static void test_spirv_versions(void)
{
    uint32_t w;
    CHECK(clcpk_spirv_parse("SPIR-V_1.0", &w) == 0 && w == 0x00010000u, "SPIR-V_1.0");
    CHECK(clcpk_spirv_parse("SPIR-V_1.5", &w) == 0 && w == 0x00010500u, "SPIR-V_1.5");
    CHECK(clcpk_spirv_parse("SPIR-V 1.2", &w) == 0 && w == 0x00010200u, "SPIR-V 1.2");
    CHECK(clcpk_spirv_parse("SPIR-V_1", &w) != 0 && clcpk_spirv_parse("SPIRV_1.0", &w) != 0 &&
              clcpk_spirv_parse("SPIR-V_1.0x", &w) != 0,
          "bad versions are refused");
    CHECK(clcpk_il_takes("SPIR-V_1.0 SPIR-V_1.1 SPIR-V_1.2", 0x00010000u),
          "a device of 1.0-1.2 takes a 1.0 module");
    CHECK(clcpk_il_takes("SPIR-V_1.2", 0x00010000u), "a 1.2 device takes a 1.0 module");
    CHECK(!clcpk_il_takes("SPIR-V_1.0", 0x00010200u), "a 1.0 device does not take 1.2");
    CHECK(!clcpk_il_takes("", 0x00010000u) && !clcpk_il_takes("SPIR_1.2", 0x00010000u),
          "no IL, or only SPIR, takes no module");
    CHECK(clcpk_il_takes("  SPIR-V_1.0  ", 0x00010000u), "blanks around the list");
    char v[32];
    clcpk_version_text(12u << 22 | 55u << 12 | 8u, v, sizeof v);
    CHECK(strcmp(v, "12.55.8") == 0, "IP version text: %s", v);
}

static void test_target_rules(void)
{
    CHECK(clcpk_target_problem(CLCPACK_KIND_NATIVE, 0, "") == NULL, "native, no target");
    CHECK(clcpk_target_problem(CLCPACK_KIND_CUBIN, 90, "sm_90") != NULL,
          "a cubin with a target is refused");
    CHECK(clcpk_target_problem(CLCPACK_KIND_INTEL, 12u << 22, "tgllp") == NULL, "intel tgllp");
    CHECK(clcpk_target_problem(CLCPACK_KIND_INTEL, 12u << 22, "") != NULL,
          "an offline entry without a target");
    CHECK(clcpk_target_problem(CLCPACK_KIND_AMDGCN, 0x000a0300u, "gfx1030") == NULL, "gfx1030");
    CHECK(clcpk_target_problem(CLCPACK_KIND_AMDGCN, 0x000a0300u, "gfx1031") != NULL,
          "an AMD arch that is not its target's");
    CHECK(clcpk_target_problem(CLCPACK_KIND_AMDGCN, 0, "gfx90a:xnack-:sramecc+") != NULL,
          "a target ID not in its canonical spelling");
    CHECK(clcpk_target_problem(CLCPACK_KIND_SPIRV, 0x00010000u, "SPIR-V_1.0") == NULL, "SPIR-V");
    CHECK(clcpk_target_problem(CLCPACK_KIND_SPIRV, 0x00010100u, "SPIR-V_1.0") != NULL,
          "a SPIR-V arch that is not its version");
    uint32_t arch;
    CHECK(clcpack_target_arch(CLCPACK_KIND_AMDGCN, "gfx90a:xnack-", &arch) == CLCPACK_OK &&
              arch == (1u << 28 | 9u << 16 | 10u),
          "clcpack_target_arch(gfx90a:xnack-) = 0x%x", arch);
    CHECK(clcpack_target_arch(CLCPACK_KIND_INTEL, "tgllp", &arch) == CLCPACK_E_INVALID_ARG,
          "an Intel name has no arch without ocloc");
}

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static void test_spirv_header(void)
{
    /* Header, OpCapability Kernel, OpMemoryModel Physical64 OpenCL,
     * OpEntryPoint Kernel %1 "k" and "a". */
    unsigned char m[4 * 16];
    uint32_t w[] = {0x07230203u, 0x00010000u, 0, 10, 0,
                    2u << 16 | 17, 6,
                    3u << 16 | 14, 2, 2,
                    4u << 16 | 15, 6, 1, 'k',
                    4u << 16 | 15, 6};
    for (size_t i = 0; i < 16; i++)
        put32(m + 4 * i, w[i]);
    unsigned char full[4 * 18];
    memcpy(full, m, sizeof m);
    put32(full + 64, 2);
    put32(full + 68, 'a');
    bin_check_names k;
    char msg[BIN_CHECK_MSG_MAX];
    CHECK(bin_check_check_spirv(full, sizeof full, 0x00010000u, &k, msg) == 0 && k.n == 2 &&
              strcmp(k.names[0], "a") == 0 && strcmp(k.names[1], "k") == 0,
          "a SPIR-V module's kernels are read, sorted: %s", msg);
    bin_check_names_free(&k);
    CHECK(bin_check_check_spirv(full, sizeof full, 0x00010200u, &k, msg) != 0 && strstr(msg, "version"),
          "another version is refused: %s", msg);
    put32(full, 0x07230204u);
    CHECK(bin_check_check_spirv(full, sizeof full, 0x00010000u, &k, msg) != 0 && strstr(msg, "magic"),
          "a bad magic is refused: %s", msg);
    put32(full, 0x07230203u);
    put32(full + 40, 200u << 16 | 15); /* an instruction running past the end */
    CHECK(bin_check_check_spirv(full, sizeof full, 0x00010000u, &k, msg) != 0,
          "an instruction past the end is refused: %s", msg);
    CHECK(bin_check_check_spirv(full, 7, 0x00010000u, &k, msg) != 0, "7 bytes are refused");
}

static void test_elf_headers(void)
{
    unsigned char e[64];
    memset(e, 0, sizeof e);
    memcpy(e, "\177ELF", 4);
    e[4] = 2;
    e[5] = 1;
    e[7] = 64;           /* AMDGPU HSA */
    e[18] = 224;         /* EM_AMDGPU */
    put32(e + 48, 0x36); /* gfx1030 */
    e[58] = 64;          /* section header size */
    bin_check_names k;
    char msg[BIN_CHECK_MSG_MAX];
    uint32_t gfx90a = 9u << 16 | 10u, gfx1030 = 10u << 16 | 3u << 8;
    CHECK(bin_check_check_amdgcn(e, sizeof e, gfx90a, &k, msg) != 0 && strstr(msg, "0x3f"),
          "a gfx1030 code object is refused for gfx90a: %s", msg);
    CHECK(bin_check_check_amdgcn(e, sizeof e, gfx1030, &k, msg) != 0 && strstr(msg, "kd"),
          "the right machine, but no kernel symbol: %s", msg);
    e[18] = 62; /* x86-64 */
    CHECK(bin_check_check_amdgcn(e, sizeof e, gfx1030, &k, msg) != 0 && strstr(msg, "224"),
          "another machine is refused: %s", msg);
    put32(e + 48, 0x53f); /* gfx90a, xnack any, sramecc any */
    e[18] = 224;
    CHECK(bin_check_check_amdgcn(e, sizeof e, 2u << 28 | gfx90a, &k, msg) != 0 && strstr(msg, "xnack"),
          "xnack any is refused for gfx90a:xnack+: %s", msg);
    e[5] = 2;
    CHECK(bin_check_check_amdgcn(e, sizeof e, gfx90a, &k, msg) != 0, "big-endian is refused: %s", msg);
    e[5] = 1;
    e[16] = 0x04;
    e[17] = 0xff;
    e[18] = 0;
    CHECK(bin_check_check_intel(e, sizeof e, 12u << 22, &k, msg) != 0 && strstr(msg, "CTNI"),
          "an OpenCL ELF without its device binary section is refused: %s", msg);
    CHECK(bin_check_check_intel(e, 10, 12u << 22, &k, msg) != 0, "10 bytes are refused");
    CHECK(bin_check_amdgpu_mach(9, 0, 10) == 0x3f && bin_check_amdgpu_mach(10, 3, 0) == 0x36 &&
              bin_check_amdgpu_mach(11, 0, 0) == 0x41 && bin_check_amdgpu_mach(9, 9, 9) == 0,
          "EF_AMDGPU_MACH of gfx90a, gfx1030, gfx1100");
}

/* A NEO OpenCL ELF (type 0xff04) of sections: the names, the device
 * binary dev[0..dn), and, when spv is not NULL, a "SPIRV Object" of sn
 * bytes. Its length into *len (out holds 1024 bytes). */
static void cl_elf(unsigned char *out, size_t *len, const unsigned char *dev, size_t dn,
                   const unsigned char *spv, size_t sn)
{
    static const char names[] = "\0.shstrtab\0Intel(R) OpenCL Device Binary\0SPIRV Object";
    size_t shnum = spv ? 4 : 3, at = 64;
    memset(out, 0, 1024);
    memcpy(out, "\177ELF", 4);
    out[4] = 2;
    out[5] = 1;
    out[16] = 0x04;
    out[17] = 0xff;
    out[58] = 64;
    out[60] = (unsigned char)shnum;
    out[62] = 1;
    size_t off[4] = {0}, size[4] = {0}, name[4] = {0, 1, 11, 41};
    const unsigned char *data[4] = {NULL, (const unsigned char *)names, dev, spv};
    size[1] = sizeof names;
    size[2] = dn;
    size[3] = sn;
    for (size_t i = 1; i < shnum; i++) {
        off[i] = at;
        memcpy(out + at, data[i], size[i]);
        at += (size[i] + 7) & ~(size_t)7;
    }
    put32(out + 40, (uint32_t)at); /* e_shoff */
    for (size_t i = 0; i < shnum; i++) {
        unsigned char *h = out + at + 64 * i;
        put32(h, (uint32_t)name[i]);
        put32(h + 4, i == 2 ? 0xff000005u : i == 3 ? 0xff000009u : i ? 3 : 0);
        put32(h + 24, (uint32_t)off[i]);
        put32(h + 32, (uint32_t)size[i]);
    }
    *len = at + 64 * shnum;
}

/* A patchtokens program of tgllp (Gen12LP, stepping 0) holding kernels
 * named by names[0..n), each with a 16-byte kernel heap. */
static size_t patchtokens(unsigned char *out, const char *const *names, uint32_t n)
{
    memset(out, 0, 512);
    memcpy(out, "CTNI", 4);
    put32(out + 4, 1081);
    put32(out + 8, 18);
    put32(out + 12, 8);
    put32(out + 16, n);
    put32(out + 24, 8); /* an 8-byte program patch list */
    size_t at = 36;
    for (uint32_t i = 0; i < n; i++) {
        put32(out + at + 12, 8); /* the name, NUL-padded to 8 */
        put32(out + at + 20, 16); /* kernel heap */
        memcpy(out + at + 40, names[i], strlen(names[i]));
        at += 40 + 8 + 16;
    }
    return at;
}

static void test_patchtokens(void)
{
    static const char *const two[] = {"twice", "plus"}, *const other[] = {"twice", "minus"};
    unsigned char dev[512], elf[1024], spv[4 * 18];
    size_t dn = patchtokens(dev, two, 2), n;
    /* The SPIR-V module of test_spirv_header, entry points "k" and "a". */
    uint32_t w[] = {0x07230203u, 0x00010000u, 0, 10, 0, 2u << 16 | 17, 6, 3u << 16 | 14, 2, 2,
                    4u << 16 | 15, 6, 1, 'k', 4u << 16 | 15, 6, 2, 'a'};
    for (size_t i = 0; i < 18; i++)
        put32(spv + 4 * i, w[i]);
    bin_check_names k;
    char msg[BIN_CHECK_MSG_MAX];
    cl_elf(elf, &n, dev, dn, NULL, 0);
    CHECK(bin_check_check_intel(elf, n, 12u << 22, &k, msg) == 0 && k.n == 2 &&
              strcmp(k.names[0], "plus") == 0 && strcmp(k.names[1], "twice") == 0,
          "without SPIR-V (-exclude_ir), the kernels from the patchtokens headers: %s", msg);
    bin_check_names_free(&k);
    cl_elf(elf, &n, dev, dn, spv, sizeof spv);
    CHECK(bin_check_check_intel(elf, n, 12u << 22, &k, msg) != 0 && strstr(msg, "not its SPIR-V"),
          "a SPIR-V section of other kernels is refused: %s", msg);
    put32(dev + 16, 3);
    cl_elf(elf, &n, dev, dn, NULL, 0);
    CHECK(bin_check_check_intel(elf, n, 12u << 22, &k, msg) != 0 && strstr(msg, "kernel 3 of 3"),
          "a header counting more kernels than there are is refused: %s", msg);
    put32(dev + 16, 2);
    put32(dev + 36 + 20, 4000); /* the first kernel's heap runs past the program */
    cl_elf(elf, &n, dev, dn, NULL, 0);
    CHECK(bin_check_check_intel(elf, n, 12u << 22, &k, msg) != 0 && strstr(msg, "runs past"),
          "a kernel running past the program is refused: %s", msg);
    dn = patchtokens(dev, (const char *const[]){"twice", "twice"}, 2);
    cl_elf(elf, &n, dev, dn, NULL, 0);
    CHECK(bin_check_check_intel(elf, n, 12u << 22, &k, msg) != 0 && strstr(msg, "distinct"),
          "two kernels of one name are refused: %s", msg);
    dn = patchtokens(dev, other, 2);
    put32(dev + 20, 1);
    cl_elf(elf, &n, dev, dn, NULL, 0);
    CHECK(bin_check_check_intel(elf, n, 12u << 22, &k, msg) != 0 && strstr(msg, "stepping 1"),
          "another stepping is refused: %s", msg);
}

static void test_options(void)
{
    offline_opts_args a;
    char msg[256];
    CHECK(offline_opts_split("-DFILTER_WIDTH=3 -D WG_X=16 -cl-std=CL1.2 -I 'a b' -cl-fast-relaxed-math", &a,
                   msg, sizeof msg) == 0 &&
              a.n == 7 && strcmp(a.arg[2], "WG_X=16") == 0 && strcmp(a.arg[6], "-cl-fast-relaxed-math") == 0 &&
              strcmp(a.arg[5], "a b") == 0 && a.fast_math,
          "OpenCL build options split: %s", msg);
    offline_opts_free(&a);
    CHECK(offline_opts_split("-DX=1 -o /tmp/x", &a, msg, sizeof msg) != 0 && strstr(msg, "'-o'"),
          "a compiler option is refused: %s", msg);
    CHECK(offline_opts_split("-D", &a, msg, sizeof msg) != 0, "-D without a value is refused");
    CHECK(offline_opts_split("", &a, msg, sizeof msg) == 0 && a.n == 0, "no options");
    offline_opts_free(&a);
}

static void test_round_trip(void)
{
    clcpack_writer *w;
    clcpack_error err;
    CHECK(clcpack_writer_new(0, &w, &err) == CLCPACK_OK, "writer: %s", err.message);
    clcpack_device_info intel = {.struct_size = sizeof intel}, amd = {.struct_size = sizeof amd};
    strcpy(intel.platform_name, "clc-pack offline");
    strcpy(intel.device_name, "Intel GPU");
    intel.vendor_id = 0x8086;
    strcpy(amd.platform_name, "clc-pack offline");
    strcpy(amd.device_name, "AMD GPU");
    amd.vendor_id = 0x1002;
    amd.intel_ip_version = 0; /* no fields appended */
    uint32_t di, da;
    clcpack_writer_add_device(w, &intel, &di, &err);
    clcpack_writer_add_device(w, &amd, &da, &err);
    static const unsigned char bin[64] = {1, 2, 3};
    clcpack_entry_spec s;
    memset(&s, 0, sizeof s);
    s.struct_size = sizeof s;
    s.kernel = "k";
    s.source = CLCPACK_NONE;
    s.binary = bin;
    s.binary_size = sizeof bin;
    s.device = di;
    s.kind = CLCPACK_KIND_INTEL;
    s.arch = 12u << 22;
    s.target = "tgllp";
    CHECK(clcpack_writer_add_entry(w, &s, &err) == CLCPACK_OK, "intel entry: %s", err.message);
    s.arch = 12u << 22 | 55u << 12 | 8u;
    s.target = "acm-g10";
    CHECK(clcpack_writer_add_entry(w, &s, &err) == CLCPACK_OK, "second intel entry: %s",
          err.message);
    s.device = da;
    s.kind = CLCPACK_KIND_AMDGCN;
    s.arch = 0x000a0300u;
    s.target = "gfx1031";
    CHECK(clcpack_writer_add_entry(w, &s, &err) == CLCPACK_E_INVALID_ARG,
          "an AMD target that is not its arch is refused");
    s.target = "gfx1030";
    CHECK(clcpack_writer_add_entry(w, &s, &err) == CLCPACK_OK, "amd entry: %s", err.message);
    s.kind = CLCPACK_KIND_SPIRV;
    s.arch = 0x00010000u;
    s.target = "SPIR-V_1.0";
    CHECK(clcpack_writer_add_entry(w, &s, &err) == CLCPACK_OK, "spirv entry: %s", err.message);
    s.kind = CLCPACK_KIND_CUBIN;
    s.arch = 90;
    s.target = "sm_90";
    CHECK(clcpack_writer_add_entry(w, &s, &err) == CLCPACK_E_INVALID_ARG,
          "a cubin with a target is refused");
    void *data;
    size_t size;
    CHECK(clcpack_writer_write_memory(w, &data, &size, &err) == CLCPACK_OK, "write: %s",
          err.message);
    clcpack_writer_free(w);
    const unsigned char *h = data;
    /* Format 5 for the lookup table of a zstd pack (format 4 where the
     * library writes zlib); a version-4 reader's either way, for the kinds. */
#ifdef CLCPK_HAVE_ZSTD
    const unsigned want_format = 5;
#else
    const unsigned want_format = 4;
#endif
    CHECK(h[8] == want_format && h[9] == 0 && h[10] == 4 && h[11] == 0,
          "format_version %u, min_reader_version 4 (got %u, %u)", want_format, h[8], h[10]);
    clcpack *p;
    CHECK(clcpack_open_memory(data, size, &p, &err) == CLCPACK_OK, "read: %s", err.message);
    const char *want[] = {"gfx1030", "SPIR-V_1.0", "tgllp", "acm-g10"};
    size_t found = 0;
    for (size_t i = 0; i < clcpack_entry_count(p); i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        clcpack_get_entry(p, i, &e);
        for (size_t k = 0; k < 4; k++)
            found += strcmp(e.target, want[k]) == 0;
    }
    CHECK(clcpack_entry_count(p) == 4 && found == 4, "every target read back (%zu of 4)", found);
    clcpack_close(p);
    /* A version-3 reader's view: refused, not misread. */
    unsigned char *copy = malloc(size);
    memcpy(copy, data, size);
    clcpack_free(data);
    copy[10] = 6;
    copy[8] = 6;
    CHECK(clcpack_open_memory(copy, size, &p, &err) == CLCPACK_E_VERSION,
          "a pack needing reader 6 is refused");
    free(copy);
}

int main(void)
{
    test_gfx();
    test_spirv_versions();
    test_target_rules();
    test_spirv_header();
    test_elf_headers();
    test_patchtokens();
    test_options();
    test_round_trip();
    return check_summary();
}
