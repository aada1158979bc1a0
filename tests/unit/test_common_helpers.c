/*
 * test_common_helpers.c — the helpers of loader/common/ that the tool and the
 * library share, each in one copy (docs/ARCHITECTURE.md, "Layers"):
 *
 *  - clcpk_strdup_printf: a formatted string of its own, any length;
 *  - clcpk_wg_text: "64", "16x16", "4x4x4", trailing 1s left out, the
 *    caller's text for no work-group ("" in build labels, "-" in listings),
 *    cut at the buffer's size;
 *  - clcpk_parent_dir: "a/b" of "a/b/c.cl", "." and "/" for the edges;
 *  - clcpk_file_type_name: what a refusal calls each kind of file;
 *  - clcpk_make_dirs: missing parents with one mode, the folder itself with
 *    another (the rebuild cache: 0755 above, 0700 its own), folders already
 *    there left alone, a path below a file refused with errno;
 *  - clcpk_same_defines, clcpk_same_key: keys compared one way;
 *  - the compatibility exports give what the clcpk_* names give.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "clcpack_write.h"
#include "entry_key.h"
#include "file_atomic.h"
#include "make_dirs.h"
#include "path.h"
#include "platform.h"
#include "sha256.h"
#include "text_format.h"

static void test_strdup_printf(void)
{
    char *s = clcpk_strdup_printf("%s-%d", "wg", 16);
    CHECK(s && strcmp(s, "wg-16") == 0, "strdup_printf: 'wg-16', got '%s'", s ? s : "(null)");
    free(s);
    char *long_s = clcpk_strdup_printf("%5000s", "x");
    CHECK(long_s && strlen(long_s) == 5000, "strdup_printf: 5000 characters, not cut");
    free(long_s);
}

static void wg_is(uint32_t x, uint32_t y, uint32_t z, const char *none, const char *want)
{
    const uint32_t wg[3] = {x, y, z};
    char buf[48];
    clcpk_wg_text(wg, none, buf, sizeof buf);
    CHECK(strcmp(buf, want) == 0, "wg_text %u,%u,%u: '%s', got '%s'", x, y, z, want, buf);
}

static void test_wg_text(void)
{
    wg_is(0, 0, 0, "-", "-");
    wg_is(0, 0, 0, "", "");
    wg_is(64, 1, 1, "-", "64");
    wg_is(16, 16, 1, "-", "16x16");
    wg_is(4, 4, 4, "-", "4x4x4");
    wg_is(8, 1, 2, "-", "8x1x2");
    const uint32_t wg[3] = {16, 16, 1};
    char small[4];
    clcpk_wg_text(wg, "-", small, sizeof small);
    CHECK(strcmp(small, "16x") == 0, "wg_text cut at the buffer: '16x', got '%s'", small);
}

static void dir_is(const char *path, const char *want)
{
    char *d = clcpk_parent_dir(path);
    CHECK(d && strcmp(d, want) == 0, "parent_dir '%s': '%s', got '%s'", path, want,
          d ? d : "(null)");
    free(d);
}

static void test_paths(void)
{
    dir_is("a/b/c.cl", "a/b");
    dir_is("c.cl", ".");
    dir_is("/c.cl", "/");
    dir_is("/x/y", "/x");
    CHECK(strcmp(clcpk_file_type_name(CLCPK_KIND_DIR), "a folder") == 0, "a folder");
    CHECK(strcmp(clcpk_file_type_name(CLCPK_KIND_FIFO), "a FIFO") == 0, "a FIFO");
    CHECK(strcmp(clcpk_file_type_name(CLCPK_KIND_DEVICE), "a device") == 0, "a character device");
    CHECK(strcmp(clcpk_file_type_name(CLCPK_KIND_OTHER), "not a regular file") == 0, "another kind");
    CHECK(strcmp(clcpk_file_type_name(CLCPK_KIND_SOCKET), "a socket") == 0, "a socket");
    CHECK(strcmp(clcpk_file_type_name(CLCPK_KIND_LINK), "a symbolic link") == 0, "a symbolic link");
}

static mode_t mode_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? st.st_mode & 0777 : (mode_t)-1;
}

static void test_make_dirs(void)
{
    char root[] = "/tmp/test_common_helpers.XXXXXX", path[512], file[512];
    if (!CHECK(mkdtemp(root) != NULL, "a temporary folder"))
        return;
    mode_t old = umask(0);
    snprintf(path, sizeof path, "%s/a/b/c", root);
    CHECK(clcpk_make_dirs(path, 0755, 0700) == 0, "make_dirs %s", path);
    snprintf(file, sizeof file, "%s/a", root);
    CHECK(mode_of(file) == 0755, "a parent made 0755, got %o", (unsigned)mode_of(file));
    snprintf(file, sizeof file, "%s/a/b", root);
    CHECK(mode_of(file) == 0755, "the next parent made 0755, got %o", (unsigned)mode_of(file));
    CHECK(mode_of(path) == 0700, "the folder itself made 0700, got %o", (unsigned)mode_of(path));
    CHECK(clcpk_make_dirs(path, 0700, 0755) == 0 && mode_of(path) == 0700,
          "a folder already there is left as it is");
    snprintf(file, sizeof file, "%s/f", root);
    FILE *f = fopen(file, "w");
    if (f)
        fclose(f);
    snprintf(path, sizeof path, "%s/f/sub", root);
    errno = 0;
    CHECK(clcpk_make_dirs(path, 0755, 0755) == -1 && errno == ENOTDIR,
          "below a file: -1 with ENOTDIR (errno %d)", errno);
    umask(old);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0, "remove %s", root);
}

static void test_keys(void)
{
    clcpack_define d1[2] = {{"A", "1"}, {"B", "2"}}, d2[2] = {{"A", "1"}, {"B", "3"}};
    clcpack_entry_info a = {.struct_size = sizeof a}, b, c, d, e;
    a.kernel = "k";
    a.defines = d1;
    a.define_count = 2;
    a.wg[0] = 16;
    a.wg[1] = a.wg[2] = 1;
    b = a;
    b.kind = CLCPACK_KIND_PTX; /* the form does not count */
    c = a;
    c.defines = d2;
    d = a;
    d.wg[0] = 8;
    e = a;
    e.kernel = "other";
    CHECK(clcpk_same_defines(&a, &b) && clcpk_same_key(&a, &b), "the same key, another form");
    CHECK(!clcpk_same_defines(&a, &c) && !clcpk_same_key(&a, &c), "another define value");
    c.define_count = 1;
    CHECK(!clcpk_same_defines(&a, &c), "fewer defines");
    CHECK(clcpk_same_defines(&a, &d) && !clcpk_same_key(&a, &d), "another work-group");
    CHECK(clcpk_same_defines(&a, &e) && !clcpk_same_key(&a, &e), "another kernel");
}

static void test_compat_exports(void)
{
    uint8_t pub[32], own[32];
    char hex[65];
    clcpack_digest_sha256("abc", 3, pub);
    clcpk_digest_sha256("abc", 3, own);
    clcpk_hex(own, 32, hex);
    CHECK(memcmp(pub, own, 32) == 0 &&
              strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0,
          "SHA-256 of 'abc', both names: %s", hex);
    char path[] = "/tmp/test_common_helpers.file.XXXXXX";
    int fd = mkstemp(path);
    if (!CHECK(fd >= 0, "a temporary file"))
        return;
    close(fd);
    clcpack_error err;
    CHECK(clcpk_check_output_path(path, &err) == CLCPACK_OK, "check_output_path %s", path);
    CHECK(clcpk_write_file_atomic(path, "abc", 3, &err) == CLCPACK_OK, "write_file_atomic");
    char got[8] = {0};
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(got, 1, sizeof got, f) : 0;
    if (f)
        fclose(f);
    CHECK(n == 3 && memcmp(got, "abc", 3) == 0, "the file holds the 3 bytes written");
    CHECK(clcpack_write_file_atomic(path, "abc", 3, 1, &err) == CLCPACK_E_INVALID_ARG,
          "the export still refuses flags");
    CHECK(clcpk_check_output_path("/nonexistent-folder-h2/x", &err) == CLCPACK_E_IO &&
              strstr(err.message, "/nonexistent-folder-h2/x"),
          "a missing folder refused, the path named: %s", err.message);
    unlink(path);
}

int main(void)
{
    test_strdup_printf();
    test_wg_text();
    test_paths();
    test_make_dirs();
    test_keys();
    test_compat_exports();
    return check_summary();
}
