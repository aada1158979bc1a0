/*
 * test_miss_reason.c — why a build or link the pack lacks passes through
 * (preload/miss_reason.c, docs/RECORD.md "Replay"): the nearest recorded
 * entry is found and what differs from it is named (a line, a range of
 * lines, the options' words or their order, a header, a link's input), a
 * pack with nothing like it says so, and the reason is cut, never
 * overflowed, at its buffer's size. A pack made in memory; no driver.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "clcpack_write.h"
#include "preload.h"

#define PACK "app.clcpack"

static const char S1[] = "kernel void k1(global int *y)\n"   /* line 1 */
                         "{\n"
                         "    y[0] = 1;\n"                    /* line 3 */
                         "    y[1] = 2;\n"
                         "}\n"
                         "kernel void k2(global int *y) { y[2] = 3; }\n";
static const char S2[] = "kernel void m(global float *z)\n"
                         "{\n"
                         "    z[0] = 0.5f;\n"
                         "}\n";

typedef struct fixture {
    void *data;
    size_t size;
    clcpack *p;
    unsigned char *desc;   /* the recorded link's description */
    size_t desc_size;
    char s1[32], s2[32], link[32]; /* "entry N" of S1's, S2's and the link's entry */
} fixture;

/* "entry N" of the entry named key (the writer orders the entries). */
static void label(const clcpack *p, const char *key, char out[32])
{
    snprintf(out, 32, "entry ?");
    for (size_t i = 0; i < clcpack_entry_count(p); i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        if (clcpack_get_entry(p, i, &e) == CLCPACK_OK && strcmp(e.kernel, key) == 0)
            snprintf(out, 32, "entry %zu", i);
    }
}

static int add(clcpack_writer *w, uint32_t dev, const char *key, const void *text, size_t n,
               const char *options, const char *const *names, size_t n_names)
{
    clcpack_error err;
    uint32_t src = CLCPACK_NONE;
    if (text && clcpack_writer_add_source(w, key, text, n, &src, &err) != CLCPACK_OK)
        return CHECK(0, "add source %s: %s", key, err.message), -1;
    clcpack_entry_spec e = {.struct_size = sizeof e, .kernel = key, .options = options,
                            .device = dev, .source = src, .kind = CLCPACK_KIND_NATIVE,
                            .binary = "bin", .binary_size = 3, .kernel_names = names,
                            .kernel_name_count = n_names};
    if (clcpack_writer_add_entry(w, &e, &err) != CLCPACK_OK)
        return CHECK(0, "add entry %s: %s", key, err.message), -1;
    return 0;
}

static unsigned char *desc_of(const char *const *keys, size_t n, size_t *size)
{
    link_input in[4];
    for (size_t i = 0; i < n; i++)
        in[i] = (link_input){"kernel void f(void) {}\n", 23, "", keys[i], 0, NULL};
    unsigned char *out = NULL;
    return link_desc_encode(in, n, &out, size) == 0 ? out : NULL;
}

/* A pack of two recorded builds, one link, one packed (not recorded)
 * kernel; with_records 0: the packed kernel alone. */
static int make(fixture *f, int with_records)
{
    memset(f, 0, sizeof *f);
    clcpack_writer *w = NULL;
    clcpack_error err;
    clcpack_device_info d = {.struct_size = sizeof d};
    snprintf(d.platform_name, sizeof d.platform_name, "Stub");
    snprintf(d.device_name, sizeof d.device_name, "stub-cpu");
    snprintf(d.device_version, sizeof d.device_version, "OpenCL 3.0");
    d.device_type = CL_DEVICE_TYPE_CPU;
    uint32_t dev;
    if (clcpack_writer_new(0, &w, &err) != CLCPACK_OK ||
        clcpack_writer_add_device(w, &d, &dev, &err) != CLCPACK_OK)
        return CHECK(0, "writer: %s", err.message), -1;
    static const char *const n1[] = {"k1", "k2"};
    static const char *const n2[] = {"m", "m2", "m3", "m4"};
    static const char *const keys[] = {"rec-compile:1", "rec-compile:2"};
    f->desc = desc_of(keys, 2, &f->desc_size);
    int rc = add(w, dev, "packed_kernel", S1, sizeof S1 - 1, "-DX=1 -cl-mad-enable", NULL, 0);
    if (with_records && rc == 0)
        rc = add(w, dev, "rec:0001", S1, sizeof S1 - 1, "-DX=1 -cl-mad-enable -I /opt/inc", n1,
                 2) ||
             add(w, dev, "rec:0002", S2, sizeof S2 - 1, "", n2, 4) ||
             add(w, dev, "rec-link:0003", f->desc, f->desc_size, "", n1, 1);
    if (rc == 0 && (clcpack_writer_write_memory(w, &f->data, &f->size, &err) != CLCPACK_OK ||
                    clcpack_open_memory(f->data, f->size, &f->p, &err) != CLCPACK_OK))
        rc = CHECK(0, "pack: %s", err.message) ? 0 : -1;
    clcpack_writer_free(w);
    if (rc == 0) {
        label(f->p, "rec:0001", f->s1);
        label(f->p, "rec:0002", f->s2);
        label(f->p, "rec-link:0003", f->link);
    }
    /* The texts read back whole (what miss_reason.c compares). */
    char text[sizeof S1];
    size_t n = 0;
    for (size_t s = 0; rc == 0 && s < clcpack_source_count(f->p); s++)
        CHECK(clcpack_read_source(f->p, (uint32_t)s, text, sizeof text, &n, &err) ==
                      CLCPACK_OK || n > sizeof text,
              "source %zu reads back: %s", s, err.message);
    return rc;
}

static void done(fixture *f)
{
    clcpack_close(f->p);
    clcpack_free(f->data);
    free(f->desc);
}

/* The reason for a build of text (S1 edited by replacing `from` with `to`,
 * or text itself when from is NULL) with normalized options. */
static void build_reason(const fixture *f, const char *text, const char *from, const char *to,
                         const char *norm, char *why, size_t cap)
{
    char src[1024];
    snprintf(src, sizeof src, "%s", text);
    if (from) {
        char *at = strstr(src, from);
        if (at) {
            char rest[1024];
            snprintf(rest, sizeof rest, "%s", at + strlen(from));
            snprintf(at, sizeof src - (size_t)(at - src), "%s%s", to, rest);
        }
    }
    miss_reason_build(f->p, PACK, src, strlen(src), norm, why, cap);
}

/* why holds want, in which "@" stands for the "entry N" label given. */
static void expect_at(const char *why, const char *want, const char *entry, const char *what)
{
    char w[512];
    const char *at = strchr(want, '@');
    if (at)
        snprintf(w, sizeof w, "%.*s%s%s", (int)(at - want), want, entry, at + 1);
    else
        snprintf(w, sizeof w, "%s", want);
    CHECK(strstr(why, w) != NULL, "%s: '%s' lacks '%s'", what, why, w);
}

static void expect(const char *why, const char *want, const char *what)
{
    expect_at(why, want, "", what);
}

static void test_builds(const fixture *f)
{
    char why[WHY_MAX];
    const char *opts = "-DX=1 -cl-mad-enable";
    build_reason(f, S1, "y[0] = 1", "y[0] = 7", opts, why, sizeof why);
    expect_at(why, PACK " has no entry for this build; the nearest is @ (kernels k1, k2): "
                   "the source differs from the recorded one in line 3", f->s1, "one line changed");
    CHECK(strstr(why, "options") == NULL, "same options: not named: %s", why);
    build_reason(f, S1, "1;\n    y[1] = 2", "5;\n    y[1] = 6", opts, why, sizeof why);
    expect(why, "in lines 3-4", "two lines changed");
    build_reason(f, S1, "    y[1] = 2;\n", "", opts, why, sizeof why);
    expect(why, "the source differs from the recorded one in line 4", "a line removed");
    build_reason(f, S1, "}\nkernel void k2", "}\n\nkernel void k2", opts, why, sizeof why);
    expect(why, "in line 6", "a line added");

    build_reason(f, S1, NULL, NULL, "-DX=2 -cl-mad-enable", why, sizeof why);
    expect_at(why, "@ (kernels k1, k2): the options differ: -DX=1 recorded, -DX=2 here", f->s1,
              "one option changed");
    CHECK(strstr(why, "source") == NULL, "same source: not named: %s", why);
    build_reason(f, S1, NULL, NULL, "-cl-mad-enable", why, sizeof why);
    expect(why, "the options differ: -DX=1 recorded, (none) here", "an option dropped");
    build_reason(f, S1, NULL, NULL, "-cl-mad-enable -DX=1", why, sizeof why);
    expect(why, "the options are in another order: -DX=1 -cl-mad-enable recorded, "
                "-cl-mad-enable -DX=1 here", "options reordered");
    build_reason(f, S1, NULL, NULL, "-DQ=\"a b\" -DX=1 -cl-mad-enable", why, sizeof why);
    expect(why, "the options differ: (none) recorded, -DQ=\"a b\" here", "a quoted word");
    build_reason(f, S1, "y[0] = 1", "y[0] = 7", "-DX=2", why, sizeof why);
    expect(why, "in line 3; the options differ: -DX=1 -cl-mad-enable recorded, -DX=2 here",
           "source and options");
    build_reason(f, S1, NULL, NULL, opts, why, sizeof why);
    expect(why, "its source and options are this build's, so a header from its -I folders "
                "differs", "a header");

    /* The nearest is chosen by text: an edit of S2 names S2's entry. */
    build_reason(f, S2, "0.5f", "0.25f", "", why, sizeof why);
    expect_at(why, "the nearest is @ (kernels m, m2, m3, ...): the source differs from the "
                   "recorded one in line 3", f->s2, "the other program");
    build_reason(f, "kernel void other(void) {}", NULL, NULL, "", why, sizeof why);
    expect(why, PACK " has no entry for this build: none of its 2 recorded program builds "
                "resembles it", "nothing like it");

    /* Cut at the buffer's size, terminated. */
    char small[24];
    memset(small, 'x', sizeof small);
    build_reason(f, S1, "y[0] = 1", "y[0] = 7", opts, small, sizeof small);
    CHECK(memchr(small, '\0', sizeof small) != NULL && strncmp(small, PACK " has", 15) == 0,
          "a short buffer: cut and terminated: %.24s", small);
}

static void test_links(const fixture *f)
{
    char why[WHY_MAX];
    miss_reason_link(f->p, PACK, f->desc, f->desc_size, "-cl-nv-verbose", why, sizeof why);
    expect_at(why, PACK " has no entry for this link; the nearest is @ (kernels k1): the "
                   "options differ: (none) recorded, -cl-nv-verbose here", f->link, "link options");
    static const char *const other[] = {"rec-compile:1", "rec-compile:9"};
    size_t n = 0;
    unsigned char *d = desc_of(other, 2, &n);
    miss_reason_link(f->p, PACK, d, n, "", why, sizeof why);
    expect(why, "input 2 of 2 differs from the recorded link's", "another second input");
    free(d);
    static const char *const more[] = {"rec-compile:1", "rec-compile:2", "rec-compile:3"};
    d = desc_of(more, 3, &n);
    miss_reason_link(f->p, PACK, d, n, "", why, sizeof why);
    expect(why, "it links 3 inputs, the recorded link 2", "one input more");
    free(d);
    static const char *const none[] = {"rec-compile:7", "rec-compile:8"};
    d = desc_of(none, 2, &n);
    miss_reason_link(f->p, PACK, d, n, "", why, sizeof why);
    expect(why, "none of its 1 recorded links resembles it", "no input shared");
    free(d);
    miss_reason_link(f->p, PACK, (const unsigned char *)"junk", 4, "", why, sizeof why);
    expect(why, PACK " has no entry for this link", "a description that is not one");
}

int main(void)
{
    fixture f;
    if (make(&f, 1) == 0) {
        test_builds(&f);
        test_links(&f);
    }
    done(&f);
    if (make(&f, 0) == 0) {
        char why[WHY_MAX];
        miss_reason_build(f.p, PACK, S1, sizeof S1 - 1, "", why, sizeof why);
        expect(why, PACK " has no entry for this build: it holds no recorded program builds",
               "a pack without records");
    }
    done(&f);
    return check_summary();
}
