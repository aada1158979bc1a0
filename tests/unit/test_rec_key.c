/*
 * test_rec_key.c — the record/replay content key (preload/rec_key.h,
 * docs/RECORD.md "The key"): SHA-256 against the FIPS 180-4 examples, the
 * options' normalization, and the key's dependence on source, options and
 * the contents (not the paths) of headers from -I folders, and the text
 * PyOpenCL appends that the key leaves out. No driver.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "rec_key.h"
#include "sha256.h"

static void hex_of(const void *data, size_t n, size_t repeat, char out[65])
{
    clcpk_sha256 c;
    unsigned char d[32];
    clcpk_sha256_init(&c);
    for (size_t i = 0; i < repeat; i++)
        clcpk_sha256_update(&c, data, n);
    clcpk_sha256_final(&c, d);
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void test_sha256(void)
{
    char h[65];
    hex_of("", 0, 1, h);
    CHECK(strcmp(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") == 0,
          "sha256(\"\") = %s", h);
    hex_of("abc", 3, 1, h);
    CHECK(strcmp(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0,
          "sha256(abc) = %s", h);
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    hex_of(two, strlen(two), 1, h);
    CHECK(strcmp(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1") == 0,
          "sha256(two blocks) = %s", h);
    /* A million 'a' in pieces of 1000: the buffering across updates. */
    char a[1000];
    memset(a, 'a', sizeof a);
    hex_of(a, sizeof a, 1000, h);
    CHECK(strcmp(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0,
          "sha256(a million a) = %s", h);
}

static void test_normalize(void)
{
    static const struct {
        const char *options, *norm, *dirs;
    } cases[] = {
        {NULL, "", ""},
        {"", "", ""},
        {"  -cl-mad-enable\t", "-cl-mad-enable", ""},
        {"-I /x/y -DFOO=1  -Ipath -cl-mad-enable", "-DFOO=1 -cl-mad-enable", "/x/y|path|"},
        {"-I \"/a b/c\" -DX", "-DX", "/a b/c|"},
        {"-DPATH=\"-I q\" -I", "-DPATH=\"-I q\"", "|"},
        {"-cl-std=CL1.2 -Werror", "-cl-std=CL1.2 -Werror", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *norm = NULL, **dirs = NULL, joined[256] = "";
        size_t n = 0;
        if (!CHECK(rk_normalize(cases[i].options, &norm, &dirs, &n) == 0, "normalize %zu", i))
            continue;
        for (size_t k = 0; k < n; k++) {
            strncat(joined, dirs[k], sizeof joined - strlen(joined) - 2);
            strcat(joined, "|");
        }
        CHECK(strcmp(norm, cases[i].norm) == 0, "'%s' -> '%s' (want '%s')",
              cases[i].options ? cases[i].options : "(null)", norm, cases[i].norm);
        CHECK(strcmp(joined, cases[i].dirs) == 0, "'%s': dirs '%s' (want '%s')",
              cases[i].options ? cases[i].options : "(null)", joined, cases[i].dirs);
        free(norm);
        rk_free_dirs(dirs, n);
    }
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void key_of(const char *src, const char *options, char out[RK_KEY_MAX])
{
    if (rk_key(src, strlen(src), options, out) != 0)
        strcpy(out, "(error)");
}

static void test_key(void)
{
    char dir[] = "/tmp/clcpack-rec-key-XXXXXX";
    if (!CHECK(mkdtemp(dir) != NULL, "temporary folder"))
        return;
    char a[128], b[128], ha[160], hb[160], nested[160], opt_a[160], opt_b[160];
    snprintf(a, sizeof a, "%s/a", dir);
    snprintf(b, sizeof b, "%s/b", dir);
    mkdir(a, 0700);
    mkdir(b, 0700);
    snprintf(ha, sizeof ha, "%s/v.h", a);
    snprintf(hb, sizeof hb, "%s/v.h", b);
    put(ha, "#include \"w.h\"\n#define V 3\n");
    put(hb, "#include \"w.h\"\n#define V 3\n");
    snprintf(nested, sizeof nested, "%s/w.h", a);
    put(nested, "#define W 1\n");
    snprintf(nested, sizeof nested, "%s/w.h", b);
    put(nested, "#define W 1\n");
    snprintf(opt_a, sizeof opt_a, "-I %s -DB=1", a);
    snprintf(opt_b, sizeof opt_b, "-I%s -DB=1", b);

    const char *src = "  #  include <v.h>\nkernel void k(global int *y) { y[0] = V + W + B; }\n";
    char k1[RK_KEY_MAX], k2[RK_KEY_MAX], k3[RK_KEY_MAX];
    key_of(src, opt_a, k1);
    key_of(src, opt_b, k2);
    CHECK(strncmp(k1, "rec:", 4) == 0 && strlen(k1) == 4 + 64, "key form: %s", k1);
    CHECK(strcmp(k1, k2) == 0, "same headers in other folders: same key");

    put(nested, "#define W 2\n"); /* b/w.h, included by b/v.h */
    key_of(src, opt_b, k3);
    CHECK(strcmp(k1, k3) != 0, "a changed nested header: another key");
    put(nested, "#define W 1\n");
    key_of(src, opt_b, k3);
    CHECK(strcmp(k1, k3) == 0, "header restored: the key again");

    char edited[256];
    snprintf(edited, sizeof edited, "%s", src);
    edited[strlen(edited) - 4] = ':'; /* was ';' */
    key_of(edited, opt_a, k3);
    CHECK(strcmp(k1, k3) != 0, "one source byte changed: another key");
    snprintf(opt_b, sizeof opt_b, "-I %s -DB=2", a);
    key_of(src, opt_b, k3);
    CHECK(strcmp(k1, k3) != 0, "other options: another key");
    key_of(src, "-DB=1", k3);
    CHECK(strcmp(k1, k3) != 0, "without the -I folder (header not found): another key");

    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0, "cleanup");
}

/* PyOpenCL's cache-defeating declaration (rk_canonical_size): recognised
 * only in exactly its form, at the end, with a name nothing else uses. */
static void test_canonical(void)
{
    static const char prog[] = "kernel void k(global int *y) { y[0] = 1; }\n";
    static const char hex[] = "0123456789abcdef0123456789abcdef";
    static const struct {
        const char *tail;   /* after prog */
        int stripped;
    } cases[] = {
        {"\n\n__constant int pyopencl_defeat_cache_%s = 0;", 1},
        {"\n\n__constant int pyopencl_defeat_cache_%s = 0;\n", 0},  /* more after it */
        {" \n__constant int pyopencl_defeat_cache_%s = 0;", 0},       /* not two newlines */
        {"\n\n__constant int pyopencl_defeat_cache_%s = 1;", 0},     /* another value */
        {"\n\n__constant long pyopencl_defeat_cache_%s = 0;", 0},    /* another type */
        {"\n\nconstant int pyopencl_defeat_cache_%s = 0;", 0},       /* another spelling */
        {"\n\n__constant int pyopencl_defeat_cache_%.31s = 0;", 0},  /* 31 digits */
        {"\n\n__constant int pyopencl_defeat_cache_%sa = 0;", 0},    /* 33 */
        {"\n\n__constant int other_name_%s = 0;", 0},
        {"", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char src[512], tail[256];
        snprintf(tail, sizeof tail, cases[i].tail, hex);
        snprintf(src, sizeof src, "%s%s", prog, tail);
        size_t n = strlen(src), want = cases[i].stripped ? strlen(prog) : n;
        CHECK(rk_canonical_size(src, n) == want, "case %zu: %zu of %zu bytes, wanted %zu", i,
              rk_canonical_size(src, n), n, want);
    }
    CHECK(rk_canonical_size("", 0) == 0 && rk_canonical_size(NULL, 0) == 0, "empty source");
    /* Upper-case digits: not what uuid4().hex writes. */
    char src[512];
    snprintf(src, sizeof src, "%s\n\n__constant int pyopencl_defeat_cache_%s = 0;", prog,
             "0123456789ABCDEF0123456789abcdef");
    CHECK(rk_canonical_size(src, strlen(src)) == strlen(src), "upper-case hex: kept");
    /* The name used elsewhere in the program: the line may matter, kept. */
    snprintf(src, sizeof src,
             "#define USE pyopencl_defeat_cache_%s\n%s\n\n__constant int pyopencl_defeat_cache_%s = 0;",
             hex, prog, hex);
    CHECK(rk_canonical_size(src, strlen(src)) == strlen(src), "a name the program uses: kept");

    /* The key: the program with the line (any name) is the program without it. */
    char with[512], other[512], k0[RK_KEY_MAX], k1[RK_KEY_MAX], k2[RK_KEY_MAX];
    snprintf(with, sizeof with, "%s\n\n__constant int pyopencl_defeat_cache_%s = 0;", prog, hex);
    snprintf(other, sizeof other, "%s\n\n__constant int pyopencl_defeat_cache_%s = 0;", prog,
             "ffffffffffffffffffffffffffffffff");
    key_of(prog, "-DX=1", k0);
    key_of(with, "-DX=1", k1);
    key_of(other, "-DX=1", k2);
    CHECK(strcmp(k0, k1) == 0 && strcmp(k1, k2) == 0, "one key with and without the line: %s %s %s",
          k0, k1, k2);
}

int main(void)
{
    test_sha256();
    test_normalize();
    test_key();
    test_canonical();
    return check_summary();
}
