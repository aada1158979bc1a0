/* --device / --platform selection and default pack names (clc/run/device_select.h):
 * the rules on made-up device lists, then a real enumeration. */
#include <string.h>

#include "check.h"
#include "device_select.h"

static void add(device_select_list *l, unsigned plat, const char *pname, const char *name,
                cl_device_type type)
{
    device_select_device *d = &l->dev[l->n];
    memset(d, 0, sizeof *d);
    d->platform_index = plat;
    d->device_index = (unsigned)l->n;
    d->ordinal = (unsigned)l->n;
    d->type = type;
    snprintf(d->platform_name, sizeof d->platform_name, "%s", pname);
    snprintf(d->name, sizeof d->name, "%s", name);
    if (plat >= l->n_platforms) {
        l->n_platforms = plat + 1;
        snprintf(l->platform_names[plat], sizeof l->platform_names[plat], "%s", pname);
    }
    l->n++;
}

/* Selects spec and expects exactly the ordinals in want (n of them). */
static void expect(const device_select_list *l, const char *spec, const char *plat, const unsigned *want,
                   size_t n)
{
    size_t sel[DEVICE_SELECT_MAX_DEVICES], ns = 99;
    char err[DEVICE_SELECT_ERR_MAX] = "";
    int rc = device_select(l, spec, plat, sel, &ns, err);
    if (!CHECK(rc == 0, "--device %s --platform %s selects (error: %s)", spec ? spec : "(null)",
               plat ? plat : "(any)", err))
        return;
    if (!CHECK(ns == n, "--device %s: %zu devices, got %zu", spec, n, ns))
        return;
    for (size_t i = 0; i < n; i++)
        CHECK(l->dev[sel[i]].ordinal == want[i], "--device %s: #%zu is %u, got %u", spec, i,
              want[i], l->dev[sel[i]].ordinal);
}

static void expect_error(const device_select_list *l, const char *spec, const char *plat, const char *names)
{
    size_t sel[DEVICE_SELECT_MAX_DEVICES], ns = 99;
    char err[DEVICE_SELECT_ERR_MAX] = "";
    int rc = device_select(l, spec, plat, sel, &ns, err);
    CHECK(rc == -1 && ns == 0, "--device %s is refused", spec);
    CHECK(strstr(err, names) != NULL, "error for --device %s names '%s': %s", spec, names, err);
}

static void test_rules(void)
{
    device_select_list l;
    memset(&l, 0, sizeof l);
    add(&l, 0, "Portable Computing Language", "pthread-skylake-avx512", CL_DEVICE_TYPE_CPU);
    add(&l, 1, "NVIDIA CUDA", "NVIDIA GeForce RTX 4090", CL_DEVICE_TYPE_GPU);
    add(&l, 1, "NVIDIA CUDA", "NVIDIA H100 80GB HBM3", CL_DEVICE_TYPE_GPU);
    add(&l, 2, "Intel FPGA", "fpga-emulator", CL_DEVICE_TYPE_ACCELERATOR);

    expect(&l, "default", NULL, (const unsigned[]){1}, 1);
    expect(&l, NULL, NULL, (const unsigned[]){1}, 1);
    expect(&l, "gpu", NULL, (const unsigned[]){1}, 1);
    expect(&l, "GPU", NULL, (const unsigned[]){1}, 1);
    expect(&l, "cpu", NULL, (const unsigned[]){0}, 1);
    expect(&l, "accelerator", NULL, (const unsigned[]){3}, 1);
    expect(&l, "all", NULL, (const unsigned[]){0, 1, 2, 3}, 4);
    expect(&l, "2", NULL, (const unsigned[]){2}, 1);
    expect(&l, "h100", NULL, (const unsigned[]){2}, 1);
    expect(&l, "NVIDIA", NULL, (const unsigned[]){1}, 1); /* the first match */
    expect(&l, "all", "nvidia", (const unsigned[]){1, 2}, 2);
    expect(&l, "default", "portable", (const unsigned[]){0}, 1);
    expect(&l, "2", "NVIDIA", (const unsigned[]){2}, 1); /* numbers keep their meaning */

    expect_error(&l, "gpu", "portable", "no GPU device");
    expect_error(&l, "gpu", "portable", "[0] pthread-skylake-avx512");
    expect_error(&l, "7", NULL, "no device 7");
    expect_error(&l, "99999999999", NULL, "99999999999");
    expect_error(&l, "radeon", NULL, "'radeon'");
    expect_error(&l, "radeon", NULL, "[3] fpga-emulator (accelerator");
    expect_error(&l, "default", "amd", "--platform 'amd'");
    expect_error(&l, "0", "nvidia", "no device 0");

    /* Default without a GPU: the CPU; without either: the first device. */
    device_select_list c;
    memset(&c, 0, sizeof c);
    add(&c, 0, "Intel FPGA", "fpga-emulator", CL_DEVICE_TYPE_ACCELERATOR);
    add(&c, 1, "Portable Computing Language", "pthread-cpu", CL_DEVICE_TYPE_CPU);
    expect(&c, "default", NULL, (const unsigned[]){1}, 1);
    expect_error(&c, "gpu", NULL, "pthread-cpu (CPU");
    device_select_list a;
    memset(&a, 0, sizeof a);
    add(&a, 0, "Intel FPGA", "fpga-emulator", CL_DEVICE_TYPE_ACCELERATOR);
    expect(&a, "default", NULL, (const unsigned[]){0}, 1);

    device_select_list none;
    memset(&none, 0, sizeof none);
    none.n_platforms = 1;
    expect_error(&none, "default", NULL, "found no device");
}

static void test_slug(void)
{
    static const struct {
        const char *name, *want, *what;
    } cases[] = {
        {"pthread-skylake-avx512-Intel(R) Xeon(R) Processor @ 2.50GHz",
         "pthread-skylake-avx512-intel-xeon", "PoCL name"},
        {"cpu-haswell-AMD EPYC 7B12 64-Core Processor", "cpu-haswell-amd-epyc-7b12-64-core",
         "PoCL 5 name"},
        {"Processor(TM)", "device", "only noise"},
        {"NVIDIA GeForce RTX 4090", "nvidia-geforce-rtx-4090", "NVIDIA name"},
        {"  --Weird__Name!!  ", "weird-name", "trimmed, runs collapsed"},
        {"(((", "device", "nothing left"},
    };
    char s[DEVICE_SELECT_SLUG_MAX];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        device_select_slug(cases[i].name, s);
        CHECK(strcmp(s, cases[i].want) == 0, "%s: %s", cases[i].what, s);
    }
    /* Each case above is short; this one is cut to the 40-character limit. */
    device_select_slug("abcdefghij abcdefghij abcdefghij abcdefghij abcdefghij", s);
    CHECK(strlen(s) <= 40, "at most 40 characters: %s", s);
    CHECK(strlen(s) <= 40 && s[strlen(s) - 1] != '-', "cut, no trailing dash: %s", s);
}

static void test_real(void)
{
    static device_select_list l;
    char err[DEVICE_SELECT_ERR_MAX];
    if (device_select_enumerate(&l, err) != 0) {
        CHECK_SKIP("no OpenCL here (%s): the enumeration checks", err);
        return;
    }
    CHECK(l.n >= 1, "at least one device is enumerated");
    for (size_t i = 0; i < l.n; i++) {
        CHECK(l.dev[i].ordinal == i, "ordinals follow the list");
        CHECK(l.dev[i].name[0] != '\0', "device %zu has a name", i);
        const device_select_device *d;
        CHECK(device_select_find_by_index(&l, l.dev[i].platform_index, l.dev[i].device_index, &d, err) == 0 &&
                  d == &l.dev[i],
              "device %zu is found by its indices", i);
    }
    const device_select_device *d;
    CHECK(device_select_find_by_index(&l, 999, 0, &d, err) == -1 && strstr(err, "platform 999"),
          "a missing platform is named: %s", err);
    size_t sel[DEVICE_SELECT_MAX_DEVICES], n;
    CHECK(device_select(&l, "default", NULL, sel, &n, err) == 0 && n == 1, "default selects one");
}

int main(void)
{
    test_rules();
    test_slug();
    test_real();
    return check_summary();
}
