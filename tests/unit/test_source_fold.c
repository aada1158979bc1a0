/* Folding a program's includes (clc/program/source_fold.h), over a
 * temporary source tree. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "source_fold.h"

static char top[PATH_MAX];

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!CHECK(f != NULL, "write %s", path))
        return;
    fputs(text, f);
    fclose(f);
}

/* The tree, under the current folder. */
static void make_tree(void)
{
    mkdir("src", 0755);
    mkdir("inc", 0755);
    mkdir("inc1", 0755);
    mkdir("inc2", 0755);
    mkdir("src/sub", 0755);
    put("src/x.h", "int X_SRC;\n");
    put("inc/x.h", "int X_INC;\n");
    put("inc1/y.h", "int Y1;\n");
    put("inc2/y.h", "int Y2;\n");
    put("src/a.cl", "#include \"x.h\"\n");
    put("src/b.cl", "#include \"y.h\"\n");
    put("src/c.cl", "#include <x.h>\n");
    put("src/dead.cl", "#ifndef __OPENCL_VERSION__\n#include <stdio.h>\n#endif\nint D;\n");
    put("src/p.h", "#pragma once\nint P;\n");
    put("src/once.cl", "#include \"p.h\"\n#include \"p.h\"\nint END;\n");
    put("src/g.h", "#ifndef G_H\n#define G_H\nint G;\n#endif\n");
    put("src/guard.cl", "#include \"g.h\"\n#include \"g.h\"\n");
    put("src/a1.h", "#include \"a2.h\"\n");
    put("src/a2.h", "int A2;\n#include \"a1.h\"\n");
    put("src/loop.cl", "#include \"a1.h\"\n");
    put("src/m.cl", "A\n#include \"m.h\"\nC\n");
    put("src/m.h", "H1\nH2\n");
    put("src/sub/s.h", "#include \"t.h\"\n");
    put("src/sub/t.h", "int T_SUB;\n");
    put("src/nest.cl", "#include \"sub/s.h\"\nint N;\n");
    put("src/comments.cl", "#  include \"m.h\" // the header\n"
                           "  # include \"m.h\" /* a comment */\n"
                           "/* #include \"none.h\"\n"
                           "#include \"none2.h\" */\n"
                           "#include \"m.h\" /* opens\n"
                           "#include \"none3.h\" closes */\n"
                           "LAST\n");
    put("src/crlf.cl", "#include \"m.h\"\r\nZ\r\n");
    put("src/q\"x.h", "int Q;\n");
    put("src/quote.cl", "#include <q\"x.h>\n");
    put("src/fifo.cl", "#include \"f.h\"\n");
    put("src/dir.cl", "#include \"sub\"\n");
    put("src/out.cl", "#include \"out.h\"\n");
    put("src/in.cl", "#include \"in.h\"\n");
    CHECK(mkfifo("src/f.h", 0644) == 0 || errno == EEXIST, "mkfifo");
    CHECK(symlink("/etc/passwd", "src/out.h") == 0 || errno == EEXIST, "symlink out");
    CHECK(symlink("../inc/x.h", "src/in.h") == 0 || errno == EEXIST, "symlink in");
    put("src/nul.cl", "");
    FILE *f = fopen("src/nul.cl", "wb");
    if (f) {
        fwrite("a\0b\n", 1, 4, f);
        fclose(f);
    }
    /* A chain deeper than the bound: d0.h includes d1.h ... */
    for (int i = 0; i < SOURCE_FOLD_DEPTH_MAX + 4; i++) {
        char name[64], text[64];
        snprintf(name, sizeof name, "src/d%d.h", i);
        snprintf(text, sizeof text, "#include \"d%d.h\"\n", i + 1);
        put(name, text);
    }
    put("src/deep.cl", "#include \"d0.h\"\n");
    /* Sparse, over the size bound without using the disk. */
    int fd = open("src/big.cl", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (CHECK(fd >= 0, "big file")) {
        CHECK(ftruncate(fd, SOURCE_FOLD_FILE_MAX + 1) == 0, "ftruncate");
        close(fd);
    }
}

static const char *const default_dirs[] = {"inc"};
static const char *const default_roots[] = {"src", "inc", "inc1", "inc2"};

/* Folds sources (NULL-terminated) with -I dirs; returns rc, result in *r. */
static int fold(const char *const *sources, const char *const *dirs, size_t n_dirs, source_fold_result *r,
                char err[SOURCE_FOLD_ERR_MAX])
{
    size_t n = 0;
    while (sources[n])
        n++;
    source_fold_options o = {.sources = sources, .n_sources = n, .include_dirs = dirs,
                    .n_include_dirs = n_dirs, .roots = default_roots, .n_roots = 4,
                    .roots_what = "the source folders"};
    return source_fold(&o, r, err, SOURCE_FOLD_ERR_MAX);
}

static int fold1(const char *source, source_fold_result *r, char err[SOURCE_FOLD_ERR_MAX])
{
    const char *s[] = {source, NULL};
    return fold(s, default_dirs, 1, r, err);
}

static size_t count(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

static void expect_error(const char *source, const char *needle)
{
    source_fold_result r;
    char err[SOURCE_FOLD_ERR_MAX] = "";
    int rc = fold1(source, &r, err);
    CHECK(rc == -1 && r.text == NULL && r.n_files == 0 && strstr(err, needle),
          "%s refused with '%s': rc %d, %s", source, needle, rc, err);
    source_fold_result_free(&r);
}

static void test_resolution(void)
{
    source_fold_result r;
    char err[SOURCE_FOLD_ERR_MAX] = "";
    /* Beside the includer first, then -I. */
    if (CHECK(fold1("src/a.cl", &r, err) == 0, "a.cl folds: %s", err)) {
        CHECK(strstr(r.text, "X_SRC") && !strstr(r.text, "X_INC") &&
                  strstr(r.text, "#line 1 \"src/x.h\""),
              "\"x.h\" found beside src/a.cl before -I inc: %s", r.text);
        CHECK(r.n_files == 2 && strcmp(r.files[0], "src/a.cl") == 0 &&
                  strcmp(r.files[1], "src/x.h") == 0 && r.n_missing == 0,
              "files read: a.cl, x.h");
    }
    source_fold_result_free(&r);
    /* -I order. */
    const char *b[] = {"src/b.cl", NULL};
    const char *const order21[] = {"inc2", "inc1"};
    const char *const order12[] = {"inc1/", "inc2"};
    if (CHECK(fold(b, order21, 2, &r, err) == 0, "b.cl folds: %s", err))
        CHECK(strstr(r.text, "Y2") && !strstr(r.text, "Y1") &&
                  strstr(r.text, "#line 1 \"inc2/y.h\""),
              "-I inc2 -I inc1: inc2/y.h: %s", r.text);
    source_fold_result_free(&r);
    if (CHECK(fold(b, order12, 2, &r, err) == 0, "b.cl folds: %s", err))
        CHECK(strstr(r.text, "Y1") && !strstr(r.text, "Y2") &&
                  strstr(r.text, "#line 1 \"inc1/y.h\""),
              "-I inc1/ -I inc2: inc1/y.h (trailing slash dropped): %s", r.text);
    source_fold_result_free(&r);
    /* <x.h> only through -I, never beside the includer. */
    if (CHECK(fold1("src/c.cl", &r, err) == 0, "c.cl folds: %s", err))
        CHECK(strstr(r.text, "X_INC") && !strstr(r.text, "X_SRC"), "<x.h> from -I: %s", r.text);
    source_fold_result_free(&r);
    /* Relative to the includer's folder at every level. */
    if (CHECK(fold1("src/nest.cl", &r, err) == 0, "nest.cl folds: %s", err))
        CHECK(strstr(r.text, "T_SUB") && strstr(r.text, "#line 1 \"src/sub/t.h\"") &&
                  strstr(r.text, "#line 2 \"src/sub/s.h\"") && r.n_files == 3,
              "sub/s.h finds t.h beside itself: %s", r.text);
    source_fold_result_free(&r);
    /* A leading ./ is not shown. */
    if (CHECK(fold1("./src/a.cl", &r, err) == 0, "./src/a.cl folds: %s", err))
        CHECK(strcmp(r.files[0], "src/a.cl") == 0 && strstr(r.text, "\"src/x.h\""),
              "./src/a.cl shown as src/a.cl: %s", r.files[0]);
    source_fold_result_free(&r);
}

static void test_missing(void)
{
    source_fold_result r;
    char err[SOURCE_FOLD_ERR_MAX] = "";
    if (CHECK(fold1("src/dead.cl", &r, err) == 0, "dead.cl folds: %s", err)) {
        CHECK(strcmp(r.text,
                     "#ifndef __OPENCL_VERSION__\n#include <stdio.h>\n#endif\nint D;\n") == 0,
              "an include found nowhere is kept as it is: %s", r.text);
        CHECK(r.n_missing == 1 && strcmp(r.missing[0].file, "src/dead.cl") == 0 &&
                  r.missing[0].line == 2 && strcmp(r.missing[0].name, "stdio.h") == 0 &&
                  r.missing[0].angled == 1,
              "and listed as missing (%zu)", r.n_missing);
    }
    source_fold_result_free(&r);
}

static void test_once_and_guards(void)
{
    source_fold_result r;
    char err[SOURCE_FOLD_ERR_MAX] = "";
    if (CHECK(fold1("src/once.cl", &r, err) == 0, "once.cl folds: %s", err)) {
        CHECK(count(r.text, "int P;") == 1 && !strstr(r.text, "#pragma once"),
              "#pragma once: folded once: %s", r.text);
        /* Lines stay right: the skipped include leaves an empty line. */
        CHECK(strstr(r.text, "#line 2 \"src/once.cl\"\n\nint END;\n"),
              "line numbers after a skipped include: %s", r.text);
    }
    source_fold_result_free(&r);
    if (CHECK(fold1("src/guard.cl", &r, err) == 0, "guard.cl folds: %s", err))
        CHECK(count(r.text, "#define G_H") == 2 && r.n_files == 2,
              "a guarded header is folded each time (%zu files)", r.n_files);
    source_fold_result_free(&r);
}

static void test_lines(void)
{
    source_fold_result r;
    char err[SOURCE_FOLD_ERR_MAX] = "";
    const char *m[] = {"src/m.cl", NULL};
    source_fold_options o = {.sources = m, .n_sources = 1, .roots = default_roots, .n_roots = 1,
                    .line_at_start = 1};
    if (CHECK(source_fold(&o, &r, err, sizeof err) == 0, "m.cl folds: %s", err))
        CHECK(strcmp(r.text, "#line 1 \"src/m.cl\"\nA\n#line 1 \"src/m.h\"\nH1\nH2\n"
                             "#line 3 \"src/m.cl\"\nC\n") == 0 &&
                  r.len == strlen(r.text),
              "#line directives: %s", r.text);
    source_fold_result_free(&r);
    /* Without line_at_start a file with no includes is kept byte for byte. */
    const char *g[] = {"src/x.h", NULL};
    o.sources = g;
    o.line_at_start = 0;
    if (CHECK(source_fold(&o, &r, err, sizeof err) == 0, "x.h folds: %s", err))
        CHECK(strcmp(r.text, "int X_SRC;\n") == 0, "verbatim: %s", r.text);
    source_fold_result_free(&r);
    /* Several sources: one program, each later one starts with #line. */
    const char *two[] = {"src/x.h", "src/m.cl", NULL};
    if (CHECK(fold(two, NULL, 0, &r, err) == 0, "two sources fold: %s", err)) {
        CHECK(strcmp(r.text, "int X_SRC;\n#line 1 \"src/m.cl\"\nA\n#line 1 \"src/m.h\"\nH1\nH2\n"
                             "#line 3 \"src/m.cl\"\nC\n") == 0,
              "two sources: %s", r.text);
        CHECK(r.n_files == 3 && strcmp(r.files[0], "src/x.h") == 0 &&
                  strcmp(r.files[1], "src/m.cl") == 0 && strcmp(r.files[2], "src/m.h") == 0,
              "files in the order read");
    }
    source_fold_result_free(&r);
    /* Comments: after the name, around the directive, an include in a comment. */
    if (CHECK(fold1("src/comments.cl", &r, err) == 0, "comments.cl folds: %s", err)) {
        CHECK(count(r.text, "H1") == 3 && !strstr(r.text, "none.h\"\n#line") &&
                  strstr(r.text, "/* #include \"none.h\"\n#include \"none2.h\" */\n") &&
                  strstr(r.text, "#line 6 \"src/comments.cl\" /*\n#include \"none3.h\" closes */\nLAST\n") &&
                  r.n_missing == 0,
              "includes with comments: %s", r.text);
    }
    source_fold_result_free(&r);
}

static void test_odd_text(void)
{
    source_fold_result r;
    char err[SOURCE_FOLD_ERR_MAX] = "";
    if (CHECK(fold1("src/crlf.cl", &r, err) == 0, "crlf.cl folds: %s", err))
        CHECK(strcmp(r.text, "#line 1 \"src/m.h\"\nH1\nH2\n#line 2 \"src/crlf.cl\"\nZ\r\n") == 0,
              "CRLF lines: %s", r.text);
    source_fold_result_free(&r);
    const char *q[] = {"src/quote.cl", NULL};
    const char *const src_dir[] = {"src"};
    if (CHECK(fold(q, src_dir, 1, &r, err) == 0, "quote.cl folds: %s", err))
        CHECK(strstr(r.text, "#line 1 \"src/q\\\"x.h\"\nint Q;\n"),
              "a quote in a file name is escaped in #line: %s", r.text);
    source_fold_result_free(&r);
}

static void test_refusals(void)
{
    expect_error("src/loop.cl", "include loop: src/loop.cl -> src/a1.h -> src/a2.h -> src/a1.h");
    expect_error("src/fifo.cl", "src/fifo.cl:1: src/f.h: not a regular file (a FIFO)");
    expect_error("src/f.h", "src/f.h: not a regular file (a FIFO)");
    expect_error("src/dir.cl", "src/sub: not a regular file (a folder)");
    expect_error("src/out.cl", "src/out.h -> /etc/passwd: outside the source folders");
    expect_error("src/deep.cl", "nested more than 32 deep");
    expect_error("src/big.cl", "src/big.cl: larger than 16 MiB");
    expect_error("src/nul.cl", "src/nul.cl: holds a NUL byte");
    expect_error("src/nothere.cl", "src/nothere.cl: cannot open");
    expect_error("/etc/hostname", "/etc/hostname: outside the source folders");
    /* A link inside the roots is fine, shown under its own name. */
    source_fold_result r;
    char err[SOURCE_FOLD_ERR_MAX] = "";
    if (CHECK(fold1("src/in.cl", &r, err) == 0, "in.cl folds: %s", err))
        CHECK(strstr(r.text, "X_INC") && strstr(r.text, "#line 1 \"src/in.h\""),
              "a link inside the roots: %s", r.text);
    source_fold_result_free(&r);
    /* No roots: nothing is inside. */
    const char *a[] = {"src/a.cl"};
    source_fold_options o = {.sources = a, .n_sources = 1};
    CHECK(source_fold(&o, &r, err, sizeof err) == -1 && strstr(err, "outside the allowed folders"),
          "no roots: %s", err);
    source_fold_result_free(&r);
}

/* Two copies of the tree at different places fold to the same bytes, with
 * no absolute path in them; base_dir gives the same as changing folder. */
static void test_determinism(void)
{
    char a[PATH_MAX + 16], b[PATH_MAX + 32];
    snprintf(a, sizeof a, "%s/one", top);
    snprintf(b, sizeof b, "%s/two/deeper", top);
    mkdir(a, 0755);
    snprintf(b, sizeof b, "%s/two", top);
    mkdir(b, 0755);
    snprintf(b, sizeof b, "%s/two/deeper", top);
    mkdir(b, 0755);
    const char *srcs[] = {"src/nest.cl", "src/m.cl", "src/c.cl", NULL};
    char *texts[2] = {NULL, NULL};
    for (int i = 0; i < 2; i++) {
        if (!CHECK(chdir(i ? b : a) == 0, "chdir"))
            return;
        mkdir("src", 0755);
        mkdir("src/sub", 0755);
        mkdir("inc", 0755);
        put("src/sub/s.h", "#include \"t.h\"\n");
        put("src/sub/t.h", "int T_SUB;\n");
        put("src/nest.cl", "#include \"sub/s.h\"\nint N;\n");
        put("src/m.cl", "A\n#include \"m.h\"\nC\n");
        put("src/m.h", "H1\nH2\n");
        put("src/c.cl", "#include <x.h>\n");
        put("inc/x.h", "int X_INC;\n");
        source_fold_result r;
        char err[SOURCE_FOLD_ERR_MAX] = "";
        if (CHECK(fold(srcs, default_dirs, 1, &r, err) == 0, "copy %d folds: %s", i, err)) {
            texts[i] = r.text;
            r.text = NULL;
        }
        source_fold_result_free(&r);
    }
    CHECK(texts[0] && texts[1] && strcmp(texts[0], texts[1]) == 0 && !strstr(texts[0], top),
          "the same bytes from both copies, no absolute path");
    /* From elsewhere, with base_dir. */
    CHECK(chdir("/") == 0, "chdir /");
    const char *const roots[] = {"src", "inc"};
    source_fold_options o = {.base_dir = a, .sources = srcs, .n_sources = 3,
                    .include_dirs = default_dirs, .n_include_dirs = 1, .roots = roots,
                    .n_roots = 2};
    source_fold_result r;
    char err[SOURCE_FOLD_ERR_MAX] = "";
    if (CHECK(source_fold(&o, &r, err, sizeof err) == 0, "base_dir folds: %s", err))
        CHECK(texts[0] && strcmp(r.text, texts[0]) == 0 && strcmp(r.files[0], "src/nest.cl") == 0,
              "base_dir gives the same bytes and names");
    source_fold_result_free(&r);
    free(texts[0]);
    free(texts[1]);
    CHECK(chdir(top) == 0, "chdir back");
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "test_source_fold: hung (a FIFO read?)\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    _exit(1);
}

static void remove_tree(const char *path)
{
    char cmd[PATH_MAX + 32];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", path);
}

int main(void)
{
    signal(SIGALRM, on_alarm);
    alarm(20);
    char tmpl[] = "/tmp/test_source_fold.XXXXXX";
    if (!mkdtemp(tmpl) || chdir(tmpl) != 0 || !getcwd(top, sizeof top)) {
        CHECK(0, "temporary folder");
        return check_summary();
    }
    make_tree();
    test_resolution();
    test_missing();
    test_once_and_guards();
    test_lines();
    test_refusals();
    test_odd_text();
    test_determinism();
    CHECK(chdir("/") == 0, "leave");
    remove_tree(tmpl);
    return check_summary();
}
