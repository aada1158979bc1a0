/* Cubins for every NVIDIA architecture without a GPU (docs/vendors/NVIDIA.md):
 * `clc-pack retarget` on the PTX-only fixture tests/data/nvidia/ptx_only.clcpack,
 * each cubin's ELF header read back (EM_CUDA, its SM in e_flags), the
 * architectures ptxas refuses a PTX for, and merging the result. Needs
 * ptxas; without one every check here is skipped with a note.
 *
 * `test_retarget --write-fixture OUT` writes the development fixture (the
 * PTX files of tests/data/nvidia/ in a pack made with the writer API);
 * scripts/make_ptx_fixture.sh makes the real one on a GPU host. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "clcpack.h"
#include "clcpack_write.h"
#include "commands.h"
#include "cubin_elf.h"
#include "nv_arch_list.h"
#include "nv_forms.h"
#include "nv_fixture.h"
#include "ptxas_run.h"
#include "test_file.h"

#define ALL_ARCHS "75,80,86,89,90,100,120"

static char data_dir[1024], kernels_dir[1024], tmp[256];
static char ptxas[PTXAS_PATH_MAX];

/* The repository's folders, from the working folder or from the test's own
 * path (build/tests/test_retarget). */
static int find_dirs(const char *argv0)
{
    const char *roots[2] = {".", NULL};
    char from_exe[1024];
    const char *slash = strrchr(argv0, '/');
    if (slash) {
        snprintf(from_exe, sizeof from_exe, "%.*s/../..", (int)(slash - argv0), argv0);
        roots[1] = from_exe;
    }
    for (int i = 0; i < 2 && roots[i]; i++) {
        snprintf(data_dir, sizeof data_dir, "%s/tests/data/nvidia", roots[i]);
        snprintf(kernels_dir, sizeof kernels_dir, "%s/kernels", roots[i]);
        if (access(data_dir, R_OK) == 0)
            return 0;
    }
    return -1;
}

static int run_cmd(int (*cmd)(int, char **), char **argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    return cmd(argc, argv);
}

static unsigned char *read_entry(const clcpack *p, size_t i, size_t *size)
{
    clcpack_error e;
    if (clcpack_read_binary(p, i, NULL, 0, size, &e) != CLCPACK_OK)
        return NULL;
    unsigned char *buf = malloc(*size + 1);
    if (buf && clcpack_read_binary(p, i, buf, *size, size, &e) != CLCPACK_OK) {
        free(buf);
        return NULL;
    }
    if (buf)
        buf[*size] = '\0';
    return buf;
}

/* cuobjdump and nvdisasm, where installed beside ptxas, name the SM of a
 * cubin file too: "code for sm_75", ".target sm_75". */
static void check_with_cuobjdump(const unsigned char *cubin, size_t size, uint32_t arch)
{
    static const char *const tools[] = {"cuobjdump -sass", "nvdisasm"};
    size_t dl = strlen(ptxas);
    if (dl < 5)
        return;
    char path[300];
    snprintf(path, sizeof path, "%s/one.cubin", tmp);
    for (size_t t = 0; t < 2; t++) {
        char tool[PTXAS_PATH_MAX + 16], cmd[2 * PTXAS_PATH_MAX + 400];
        const char *space = strchr(tools[t], ' ');
        size_t nl = space ? (size_t)(space - tools[t]) : strlen(tools[t]);
        snprintf(tool, sizeof tool, "%.*s%.*s", (int)(dl - 5), ptxas, (int)nl, tools[t]);
        if (access(tool, X_OK) != 0)
            continue;
        FILE *f = fopen(path, "wb");
        int written = f && fwrite(cubin, 1, size, f) == size;
        if (f)
            fclose(f);
        if (!written)
            continue;
        snprintf(cmd, sizeof cmd, "'%s'%s '%s' 2>/dev/null | grep -qiE 'sm_?%u([^0-9]|$)'", tool,
                 space ? space : "", path, (unsigned)arch);
        CHECK(system(cmd) == 0, "%s names sm_%u", tools[t], (unsigned)arch);
    }
}

/* Every PTX entry of in has, in out, its portable PTX and a cubin for each
 * of the 7 architectures whose ELF header says that architecture. */
static void check_retargeted(const char *in_path, const char *out_path)
{
    clcpack *in = NULL, *out = NULL;
    clcpack_error e;
    if (!CHECK(clcpack_open_file(in_path, &in, &e) == CLCPACK_OK, "open %s: %s", in_path,
               e.message) ||
        !CHECK(clcpack_open_file(out_path, &out, &e) == CLCPACK_OK, "open %s: %s", out_path,
               e.message)) {
        clcpack_close(in);
        return;
    }
    static const uint32_t archs[] = {75, 80, 86, 89, 90, 100, 120};
    size_t n_in = clcpack_entry_count(in), n_ptx = 0;
    for (size_t i = 0; i < n_in; i++) {
        clcpack_entry_info a = {.struct_size = sizeof a};
        if (clcpack_get_entry(in, i, &a) == CLCPACK_OK && a.kind == CLCPACK_KIND_PTX)
            n_ptx++;
    }
    CHECK(n_ptx >= 3, "the fixture holds PTX entries (%zu)", n_ptx);
    CHECK(clcpack_entry_count(out) == n_in + 7 * n_ptx,
          "%zu entries: each PTX entry kept and 7 cubins added (%zu in, %zu PTX)",
          clcpack_entry_count(out), n_in, n_ptx);
    CHECK(clcpack_device_count(out) == clcpack_device_count(in) &&
              clcpack_source_count(out) == clcpack_source_count(in),
          "devices and sources copied");
    size_t cubins = 0, ptx = 0, stored_host = 0, compressed_other = 0;
    for (size_t i = 0; i < clcpack_entry_count(out); i++) {
        clcpack_entry_info o = {.struct_size = sizeof o};
        if (clcpack_get_entry(out, i, &o) != CLCPACK_OK)
            continue;
        size_t size = 0;
        unsigned char *bin = read_entry(out, i, &size);
        if (!CHECK(bin != NULL, "entry %zu decodes", i))
            continue;
        if (o.kind == CLCPACK_KIND_PTX) {
            ptx++;
            CHECK(o.arch == 75 && strstr((char *)bin, "\n.target sm_75, texmode_independent"),
                  "%s: the stored PTX is the portable form, sm_75 (arch %u)", o.kernel,
                  (unsigned)o.arch);
            /* What a driver will JIT-compile: ptxas takes it as it is. */
            unsigned char *cubin = NULL;
            size_t cubin_size = 0;
            char msg[512] = "";
            CHECK(ptxas_compile(ptxas, bin, size, "sm_75", &cubin, &cubin_size, msg,
                                sizeof msg) == 0,
                  "%s: ptxas accepts the portable PTX as it is: %s", o.kernel, msg);
            free(cubin);
        } else if (o.kind == CLCPACK_KIND_CUBIN) {
            cubins++;
            cubin_elf h;
            char why[128];
            int ok = cubin_elf_parse(bin, size, &h, why) == 0;
            CHECK(ok, "%s cubin/sm_%u is ELF: %s", o.kernel, (unsigned)o.arch, ok ? "" : why);
            CHECK(ok && h.machine == CUBIN_EM_CUDA && h.sm == o.arch,
                  "%s cubin/sm_%u: e_machine %u, e_flags 0x%x say sm_%u", o.kernel,
                  (unsigned)o.arch, h.machine, (unsigned)h.flags, (unsigned)h.sm);
            check_with_cuobjdump(bin, size, o.arch);
            if (o.arch == 90)
                stored_host += o.codec == 0;
            else
                compressed_other += o.codec != 0;
        }
        free(bin);
    }
    CHECK(ptx == n_ptx && cubins == 7 * n_ptx, "%zu PTX and %zu cubins", ptx, cubins);
    for (size_t k = 0; k < 7; k++) {
        size_t n = 0;
        for (size_t i = 0; i < clcpack_entry_count(out); i++) {
            clcpack_entry_info o = {.struct_size = sizeof o};
            if (clcpack_get_entry(out, i, &o) == CLCPACK_OK && o.kind == CLCPACK_KIND_CUBIN &&
                o.arch == archs[k])
                n++;
        }
        CHECK(n == n_ptx, "sm_%u: a cubin per PTX entry (%zu)", (unsigned)archs[k], n);
    }
    /* The device's own cubins: compressed like the others in a zstd pack
     * (the default where the library has zstd), stored in a zlib one. */
    size_t want_stored = clcpack_compression_available(CLCPACK_COMPRESSION_ZSTD) ? 0 : n_ptx;
    CHECK(stored_host == want_stored,
          "the device's own sm_90 cubins: %zu stored as they are (%zu expected)", stored_host,
          want_stored);
    CHECK(compressed_other == 6 * n_ptx,
          "the other architectures' cubins are compressed (%zu of %zu)", compressed_other,
          6 * n_ptx);
    clcpack_close(in);
    clcpack_close(out);
}

static void test_fixture(void)
{
    char fixture[1100], out[300], again[300];
    snprintf(fixture, sizeof fixture, "%s/ptx_only.clcpack", data_dir);
    snprintf(out, sizeof out, "%s/all.clcpack", tmp);
    snprintf(again, sizeof again, "%s/again.clcpack", tmp);
    char *argv[] = {"retarget", fixture, "--nv-arch", ALL_ARCHS, "-o", out, "-q", NULL};
    CHECK(run_cmd(cmd_retarget, argv) == 0, "clc-pack retarget --nv-arch %s", ALL_ARCHS);
    check_retargeted(fixture, out);

    /* Retargeting the result again changes nothing: the portable PTX stays,
     * and the cubins it holds are kept. */
    char *argv2[] = {"retarget", out, "-o", again, "-q", NULL};
    CHECK(run_cmd(cmd_retarget, argv2) == 0, "retarget of a retargeted pack");
    size_t na = 0, nb = 0;
    unsigned char *a = test_read_file(out, &na), *b = test_read_file(again, &nb);
    CHECK(a && b && na == nb && memcmp(a, b, na) == 0, "the same bytes again (%zu, %zu)", na,
          nb);
    free(a);
    free(b);

    /* Packs from several hosts still merge: this one with an A100's PTX-only
     * pack and with the fixture itself. */
    clcpack_device_info a100 = {.struct_size = sizeof a100};
    nvfx_h200(&a100);
    strcpy(a100.device_name, "NVIDIA A100-SXM4-80GB");
    a100.nv_cc_major = 8;
    char a100_pack[300], merged[300], err[256];
    snprintf(a100_pack, sizeof a100_pack, "%s/a100.clcpack", tmp);
    snprintf(merged, sizeof merged, "%s/merged.clcpack", tmp);
    CHECK(nvfx_write_pack(&a100, data_dir, kernels_dir, nvfx_fixture, 2, a100_pack, err) == 0,
          "an A100 pack: %s", err);
    char *margv[] = {"merge", out, a100_pack, fixture, "-o", merged, "-q", NULL};
    CHECK(run_cmd(cmd_merge, margv) == 0, "merge with an A100 pack and the PTX-only fixture");
    clcpack *m = NULL, *o = NULL, *f = NULL;
    clcpack_error e;
    if (clcpack_open_file(merged, &m, &e) == CLCPACK_OK &&
        clcpack_open_file(out, &o, &e) == CLCPACK_OK &&
        clcpack_open_file(fixture, &f, &e) == CLCPACK_OK) {
        /* The fixture's PTX is sm_90, the retargeted one sm_75: both kept. */
        size_t want = clcpack_entry_count(o) + 2 + clcpack_entry_count(f);
        CHECK(clcpack_device_count(m) == 2, "two devices merged");
        CHECK(clcpack_entry_count(m) == want, "%zu entries merged (want %zu)",
              clcpack_entry_count(m), want);
    } else {
        CHECK(0, "open the merged pack: %s", e.message);
    }
    clcpack_close(m);
    clcpack_close(o);
    clcpack_close(f);
}

/* A PTX that needs sm_90 (it reads %cluster_ctarank): no cubin before
 * sm_90, each refusal a note with ptxas's reason; the portable form is
 * sm_90 itself. */
static void test_refused(void)
{
    size_t n = 0;
    char path[1100];
    snprintf(path, sizeof path, "%s/needs_sm90.ptx", data_dir);
    unsigned char *ptx = test_read_file(path, &n);
    if (!CHECK(ptx != NULL, "read %s", path))
        return;
    nv_forms_archs archs;
    char err[NV_FORMS_ERR_MAX];
    nv_arch_list_parse(ALL_ARCHS, &archs, err);
    nv_forms_result r;
    int rc = nv_forms_make(ptxas, ptx, n, &archs, 90, NULL, 4, &r);
    CHECK(rc == 0, "nv_forms_make on a PTX that needs sm_90");
    CHECK(r.n_cubins == 3 && r.cubins[0].arch == 90 && r.cubins[1].arch == 100 &&
              r.cubins[2].arch == 120,
          "cubins for sm_90, sm_100, sm_120 only (%zu)", r.n_cubins);
    CHECK(r.n_refused == 4, "4 architectures refused (%zu)", r.n_refused);
    CHECK(r.notes && strstr(r.notes, "no cubin for sm_75: ") &&
              strstr(r.notes, "no cubin for sm_89: ") && strstr(r.notes, "cluster_ctarank") &&
              !strstr(r.notes, "/clc-pack-ptxas-"),
          "the notes give ptxas's reason, without its temporary path: %s",
          r.notes ? r.notes : "(none)");
    CHECK(r.refused[0].arch == 75 && r.refused[3].arch == 89 &&
              strstr(r.refused[0].reason, "program.ptx, line ") == r.refused[0].reason &&
              !strstr(r.refused[0].reason, "ptxas fatal"),
          "one reason per architecture, ptxas's first message: %s", r.refused[0].reason);
    CHECK(r.ptx && r.ptx_arch == 90, "the portable form stays sm_90 (%u)", (unsigned)r.ptx_arch);
    for (size_t i = 0; i < r.n_cubins; i++) {
        cubin_elf h;
        char why[128];
        CHECK(cubin_elf_parse(r.cubins[i].data, r.cubins[i].size, &h, why) == 0 &&
                  h.sm == r.cubins[i].arch,
              "cubin %zu is for sm_%u", i, (unsigned)r.cubins[i].arch);
    }
    nv_forms_result_free(&r);

    nv_forms_archs skip = {2, {90, 120}};
    CHECK(nv_forms_make(ptxas, ptx, n, &archs, 90, &skip, 1, &r) == 0 && r.n_cubins == 1 &&
              r.cubins[0].arch == 100,
          "architectures already held are not made again");
    nv_forms_result_free(&r);

    /* Through the CLI: the pack is written, and the PTX entry keeps its
     * tuning record. */
    nvfx_entry one = {"scale", "", "needs_sm90.ptx", NULL, {NULL}, {NULL}, 0, {64, 1, 1},
                      123456};
    char in[300], out[300];
    snprintf(in, sizeof in, "%s/sm90.clcpack", tmp);
    snprintf(out, sizeof out, "%s/sm90-all.clcpack", tmp);
    CHECK(nvfx_write_pack(NULL, data_dir, kernels_dir, &one, 1, in, err) == 0, "write: %s", err);
    char *argv[] = {"retarget", in, "-o", out, "-q", NULL};
    CHECK(run_cmd(cmd_retarget, argv) == 0, "retarget succeeds with architectures refused");
    clcpack *p = NULL;
    clcpack_error e;
    if (CHECK(clcpack_open_file(out, &p, &e) == CLCPACK_OK, "open %s", out)) {
        CHECK(clcpack_entry_count(p) == 4, "PTX and 3 cubins (%zu)", clcpack_entry_count(p));
        size_t tuned = 0;
        for (size_t i = 0; i < clcpack_entry_count(p); i++) {
            clcpack_entry_info o = {.struct_size = sizeof o};
            clcpack_tuning t;
            if (clcpack_get_entry(p, i, &o) == CLCPACK_OK && clcpack_entry_tuning_count(p, i) &&
                clcpack_get_entry_tuning(p, i, 0, &t) == CLCPACK_OK) {
                tuned++;
                CHECK(o.kind == CLCPACK_KIND_PTX && t.median_ns == 123456 && t.runs == 11,
                      "the tuning stays on the PTX entry (kind %d, %llu ns)", (int)o.kind,
                      (unsigned long long)t.median_ns);
            }
        }
        CHECK(tuned == 1, "one tuned entry (%zu)", tuned);
    }
    clcpack_close(p);
    free(ptx);
}

int main(int argc, char **argv)
{
    if (find_dirs(argv[0]) != 0) {
        printf("tests/data/nvidia not found from here or from %s\n", argv[0]);
        CHECK(0, "test data found");
        return check_summary();
    }
    if (argc == 3 && strcmp(argv[1], "--write-fixture") == 0) {
        char err[256];
        if (nvfx_write_pack(NULL, data_dir, kernels_dir, nvfx_fixture, nvfx_fixture_count,
                            argv[2], err) != 0) {
            fprintf(stderr, "test_retarget: %s\n", err);
            return 1;
        }
        return 0;
    }
    if (ptxas_find(NULL, ptxas) != 0) {
        CHECK_SKIP("%s: the retarget checks", ptxas);
        return check_summary();
    }
    snprintf(tmp, sizeof tmp, "%s/clc-retarget-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmp)) {
        CHECK(0, "mkdtemp");
        return check_summary();
    }
    test_fixture();
    test_refused();
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0)
        printf("note: %s not removed\n", tmp);
    return check_summary();
}
