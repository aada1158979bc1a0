/* cmd_list.c — `clc-pack list PACK [--json]`: what a pack holds. */
#include "commands.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_files.h"
#include "cli_opts.h"
#include "cli_report.h"
#include "clcpack_write.h"
#include "device_select.h"
#include "json_out.h"
#include "pack_text.h"

/* "2048x2048 64.3us/11"; a kernel that takes a value as an argument, timed
 * at several run-time values: "2048x2048 v3 60.4us, v7 95.0us /11". */
static void print_tuning(const clcpack *p, size_t i, char *buf, size_t cap)
{
    size_t n = clcpack_entry_tuning_count(p, i);
    clcpack_tuning t;
    if (n == 0 || clcpack_get_entry_tuning(p, i, 0, &t) != CLCPACK_OK) {
        bfmt(buf, cap, "-");
        return;
    }
    if (n == 1) {
        bfmt(buf, cap, "%ux%u %.1fus/%u", (unsigned)t.width, (unsigned)t.height,
             (double)t.median_ns / 1000.0, (unsigned)t.runs);
        return;
    }
    size_t len = 0;
    bfmt(buf, cap, "%ux%u", (unsigned)t.width, (unsigned)t.height);
    for (size_t k = 0; k < n && clcpack_get_entry_tuning(p, i, k, &t) == CLCPACK_OK; k++) {
        len = strlen(buf);
        bfmt(buf + len, cap - len, "%s v%u %.1fus", k ? "," : "", (unsigned)t.runtime_value,
             (double)t.median_ns / 1000.0);
    }
    len = strlen(buf);
    bfmt(buf + len, cap - len, " /%u", (unsigned)t.runs);
}

/* The pack's SHA-256 as 64 hex digits (what clcpack_open_file_pinned
 * and `embed` pin). */
static void pack_sha256_hex(const clcpack *p, char out[2 * CLCPACK_SHA256_SIZE + 1])
{
    uint8_t d[CLCPACK_SHA256_SIZE];
    out[0] = '\0';
    if (clcpack_pack_sha256(p, d) == CLCPACK_OK)
        for (size_t k = 0; k < sizeof d; k++)
            snprintf(out + 2 * k, 3, "%02x", d[k]);
}

/* How many entries are coded with dictionary d (codec 4, base d). */
static size_t dictionary_users(const clcpack *p, size_t d)
{
    size_t n = 0;
    for (size_t i = 0; i < clcpack_entry_count(p); i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        if (clcpack_get_entry(p, i, &e) == CLCPACK_OK && e.codec == 4 && e.base == d)
            n++;
    }
    return n;
}

static void print_dictionaries(const clcpack *p)
{
    size_t nk = clcpack_dictionary_count(p);
    if (nk)
        printf("dictionaries:\n");
    for (size_t i = 0; i < nk; i++) {
        clcpack_dictionary_info d = {.struct_size = sizeof d};
        if (clcpack_get_dictionary(p, i, &d) != CLCPACK_OK)
            continue;
        char codec[32];
        printf("  d%zu  raw %llu  stored %llu  %s  crc %08x  entries using it: %zu\n", i,
               (unsigned long long)d.raw_size, (unsigned long long)d.stored_size,
               pack_text_codec_name(d.codec, codec, sizeof codec), (unsigned)d.raw_crc32,
               dictionary_users(p, i));
    }
}

/* "copy, fill, scale": the kernels a program entry holds, escaped. */
static void kernel_list(const clcpack_entry_info *e, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < e->kernel_name_count && len + 1 < cap; k++) {
        char name[256];
        bfmt(buf + len, cap - len, "%s%s", k ? ", " : "", pack_text_esc(e->kernel_names[k], name,
                                                                 sizeof name));
        len += strlen(buf + len);
    }
}

/* The kernels of program entries (packs of one's own programs, where an
 * entry is named after its program), too long for a column of the table:
 * a line per run of consecutive entries of one program holding the same
 * kernels, "entries 0-10  multi: copy, fill, scale". */
static void print_program_kernels(const clcpack *p)
{
    enum { LIST_CAP = 8192 };
    char *run_list = calloc(2, LIST_CAP), *list = run_list + LIST_CAP; /* the run's kernels, this entry's */
    char run_name[256] = "", name[256];
    if (!run_list) {
        cli_error("out of memory listing the program kernels");
        return;
    }
    size_t ne = clcpack_entry_count(p), first = 0;
    int said = 0;
    for (size_t i = 0; i <= ne; i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        int has = i < ne && clcpack_get_entry(p, i, &e) == CLCPACK_OK && e.kernel_name_count;
        if (has) {
            kernel_list(&e, list, LIST_CAP);
            pack_text_esc(e.kernel, name, sizeof name);
            if (run_list[0] && strcmp(name, run_name) == 0 && strcmp(list, run_list) == 0)
                continue;
        }
        if (run_list[0]) { /* the run before i ends */
            if (!said++)
                printf("program kernels:\n");
            if (i - first > 1)
                printf("  entries %zu-%zu  %s: %s\n", first, i - 1, run_name, run_list);
            else
                printf("  entry %zu  %s: %s\n", first, run_name, run_list);
        }
        run_list[0] = '\0';
        if (has) {
            first = i;
            bfmt(run_name, sizeof run_name, "%s", name);
            bfmt(run_list, LIST_CAP, "%s", list);
        }
    }
    free(run_list);
}

static void list_text(const clcpack *p, const char *path, uint64_t file_size)
{
    size_t nd = clcpack_device_count(p), ns = clcpack_source_count(p),
           ne = clcpack_entry_count(p);
    printf("%s: %llu bytes, %zu device%s, %zu source%s, %zu entr%s\n", path,
           (unsigned long long)file_size, nd, nd == 1 ? "" : "s", ns, ns == 1 ? "" : "s", ne,
           ne == 1 ? "y" : "ies");
    char sha[2 * CLCPACK_SHA256_SIZE + 1];
    pack_sha256_hex(p, sha);
    printf("sha256: %s\n", sha);
    printf("devices:\n");
    for (size_t i = 0; i < nd; i++) {
        clcpack_device_info d = {.struct_size = sizeof d};
        if (clcpack_get_device(p, i, &d) != CLCPACK_OK)
            continue;
        char s[6][4 * CLCPACK_FP_STR];
        printf("  %zu  %s [%s] on %s (%s); %s; driver %s; %s", i,
               pack_text_esc(d.device_name, s[0], sizeof s[0]),
               device_select_type_name((cl_device_type)d.device_type),
               pack_text_esc(d.platform_name, s[1], sizeof s[1]),
               pack_text_esc(d.platform_version, s[2], sizeof s[2]),
               pack_text_esc(d.device_version, s[3], sizeof s[3]),
               pack_text_esc(d.driver_version, s[4], sizeof s[4]),
               pack_text_esc(d.opencl_c_version, s[5], sizeof s[5]));
        if (d.nv_cc_major)
            printf("; compute capability %u.%u", (unsigned)d.nv_cc_major,
                   (unsigned)d.nv_cc_minor);
        if (d.intel_ip_version)
            printf("; IP version %u.%u.%u, device id 0x%x", (unsigned)(d.intel_ip_version >> 22),
                   (unsigned)(d.intel_ip_version >> 12 & 0x3ff),
                   (unsigned)(d.intel_ip_version & 0xfff), (unsigned)d.intel_device_id);
        printf("\n");
    }
    printf("sources:\n");
    for (size_t i = 0; i < ns; i++) {
        clcpack_source_info s = {.struct_size = sizeof s};
        if (clcpack_get_source(p, i, &s) != CLCPACK_OK)
            continue;
        char name[1024];
        printf("  %zu  %s  raw %llu  stored %llu  crc %08x\n", i, pack_text_esc(s.name, name, sizeof name),
               (unsigned long long)s.raw_size, (unsigned long long)s.stored_size,
               (unsigned)s.raw_crc32);
    }
    /* Column widths from the longest kernel name and define list. */
    int wk = 6, wd = 7, wkind = 11;
    for (size_t i = 0; i < ne; i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        char defs[512], kernel[256];
        if (clcpack_get_entry(p, i, &e) != CLCPACK_OK)
            continue;
        pack_text_defines(&e, defs, sizeof defs);
        pack_text_esc(e.kernel, kernel, sizeof kernel);
        if ((int)strlen(kernel) > wk)
            wk = (int)strlen(kernel);
        if ((int)strlen(defs) > wd)
            wd = (int)strlen(defs);
        /* "amdgcn/gfx90a:sramecc+:xnack-" */
        if ((int)strlen(e.target) + 7 > wkind)
            wkind = (int)strlen(e.target) + 7;
    }
    printf("entries:\n");
    printf("  %5s  %-*s  %-*s  %-7s  %3s  %-*s  %9s  %9s  %-9s  %5s  %-8s  %s\n", "index", wk,
           "kernel", wd, "defines", "wg", "dev", wkind, "kind", "raw", "stored", "codec", "base", "crc",
           "tuning");
    for (size_t i = 0; i < ne; i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        if (clcpack_get_entry(p, i, &e) != CLCPACK_OK)
            continue;
        char defs[512], wg[48], kind[32], kind_arch[96], codec[32], base[16], tune[1024];
        char kernel[256];
        pack_text_defines(&e, defs, sizeof defs);
        pack_text_wg(e.wg, wg, sizeof wg);
        pack_text_kind_name(e.kind, kind, sizeof kind);
        if (e.target[0])
            bfmt(kind_arch, sizeof kind_arch, "%s/%s", kind, e.target);
        else if (e.arch)
            bfmt(kind_arch, sizeof kind_arch, "%s/sm_%u", kind, (unsigned)e.arch);
        else
            bfmt(kind_arch, sizeof kind_arch, "%s", kind);
        pack_text_codec_name(e.codec, codec, sizeof codec);
        if (e.base == CLCPACK_NONE)
            bfmt(base, sizeof base, "-");
        else /* codec 4's base is a dictionary: "d0" */
            bfmt(base, sizeof base, "%s%u", e.codec == 4 ? "d" : "", (unsigned)e.base);
        print_tuning(p, i, tune, sizeof tune);
        printf("  %5zu  %-*s  %-*s  %-7s  %3u  %-*s  %9llu  %9llu  %-9s  %5s  %08x  %s\n", i, wk,
               pack_text_esc(e.kernel, kernel, sizeof kernel), wd, defs, wg, (unsigned)e.device, wkind,
               kind_arch,
               (unsigned long long)e.raw_size, (unsigned long long)e.stored_size, codec, base,
               (unsigned)e.raw_crc32, tune);
    }
    print_program_kernels(p);
    print_dictionaries(p);
}

static void hex_bytes(char *buf, const uint8_t *b, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        buf[2 * i] = hex[b[i] >> 4];
        buf[2 * i + 1] = hex[b[i] & 15];
    }
    buf[2 * n] = '\0';
}

static void json_field(const char *name, const char *value, int comma)
{
    printf("%s", comma ? ", " : "");
    json_out_string(stdout, name);
    printf(": ");
    json_out_string(stdout, value);
}

/* Device i of the pack as a JSON object. */
static void json_device(const clcpack *p, size_t i)
{
    clcpack_device_info d = {.struct_size = sizeof d};
    if (clcpack_get_device(p, i, &d) != CLCPACK_OK)
        return;
    printf("%s\n  {\"index\": %zu", i ? "," : "", i);
    json_field("platform_name", d.platform_name, 1);
    json_field("platform_version", d.platform_version, 1);
    json_field("device_name", d.device_name, 1);
    json_field("device_version", d.device_version, 1);
    json_field("driver_version", d.driver_version, 1);
    json_field("opencl_c_version", d.opencl_c_version, 1);
    json_field("type", device_select_type_name((cl_device_type)d.device_type), 1);
    printf(", \"vendor_id\": %u, \"address_bits\": %u", (unsigned)d.vendor_id,
           (unsigned)d.address_bits);
    if (d.has_uuid) {
        char u1[33], u2[33];
        hex_bytes(u1, d.device_uuid, 16);
        hex_bytes(u2, d.driver_uuid, 16);
        json_field("device_uuid", u1, 1);
        json_field("driver_uuid", u2, 1);
    }
    if (d.nv_cc_major)
        printf(", \"compute_capability\": [%u, %u]", (unsigned)d.nv_cc_major,
               (unsigned)d.nv_cc_minor);
    if (d.intel_ip_version)
        printf(", \"intel_ip_version\": \"%u.%u.%u\", \"intel_device_id\": %u",
               (unsigned)(d.intel_ip_version >> 22),
               (unsigned)(d.intel_ip_version >> 12 & 0x3ff),
               (unsigned)(d.intel_ip_version & 0xfff), (unsigned)d.intel_device_id);
    printf("}");
}

/* Entry i of the pack as a JSON object. */
static void json_entry(const clcpack *p, size_t i)
{
    clcpack_entry_info e = {.struct_size = sizeof e};
    if (clcpack_get_entry(p, i, &e) != CLCPACK_OK)
        return;
    char kind[32], codec[32];
    printf("%s\n  {\"index\": %zu", i ? "," : "", i);
    json_field("kernel", e.kernel, 1);
    const char *family = "";
    clcpack_get_entry_family(p, i, &family);
    json_field("family", family, 1);
    json_field("options", e.options, 1);
    printf(", \"defines\": {");
    for (size_t k = 0; k < e.define_count; k++)
        json_field(e.defines[k].name, e.defines[k].value, k > 0);
    printf("}, \"kernel_names\": [");
    for (size_t k = 0; k < e.kernel_name_count; k++) {
        printf("%s", k ? ", " : "");
        json_out_string(stdout, e.kernel_names[k]);
    }
    printf("], \"default\": %s", (e.flags & CLCPACK_ENTRY_DEFAULT) ? "true" : "false");
    printf(", \"wg\": [%u, %u, %u], \"device\": %u", (unsigned)e.wg[0], (unsigned)e.wg[1],
           (unsigned)e.wg[2], (unsigned)e.device);
    if (e.source == CLCPACK_NONE)
        printf(", \"source\": null");
    else
        printf(", \"source\": %u", (unsigned)e.source);
    json_field("kind", pack_text_kind_name(e.kind, kind, sizeof kind), 1);
    printf(", \"arch\": %u", (unsigned)e.arch);
    json_field("target", e.target, 1);
    json_field("codec", pack_text_codec_name(e.codec, codec, sizeof codec), 1);
    if (e.base == CLCPACK_NONE)
        printf(", \"base\": null");
    else
        printf(", \"base\": %u", (unsigned)e.base);
    printf(", \"raw_size\": %llu, \"stored_size\": %llu, \"crc32\": \"%08x\"",
           (unsigned long long)e.raw_size, (unsigned long long)e.stored_size,
           (unsigned)e.raw_crc32);
    if (e.tune_runs)
        printf(", \"tuning\": {\"width\": %u, \"height\": %u, \"runs\": %u, "
               "\"median_ns\": %llu}",
               (unsigned)e.tune_width, (unsigned)e.tune_height, (unsigned)e.tune_runs,
               (unsigned long long)e.tune_median_ns);
    else
        printf(", \"tuning\": null");
    printf(", \"timings\": [");
    size_t nt = clcpack_entry_tuning_count(p, i);
    for (size_t k = 0; k < nt; k++) {
        clcpack_tuning t;
        if (clcpack_get_entry_tuning(p, i, k, &t) != CLCPACK_OK)
            continue;
        printf("%s{\"runtime_value\": %u, \"width\": %u, \"height\": %u, \"runs\": %u, "
               "\"median_ns\": %llu}",
               k ? ", " : "", (unsigned)t.runtime_value, (unsigned)t.width,
               (unsigned)t.height, (unsigned)t.runs, (unsigned long long)t.median_ns);
    }
    printf("]}");
}

static void list_json(const clcpack *p, const char *path, uint64_t file_size)
{
    size_t nd = clcpack_device_count(p), ns = clcpack_source_count(p),
           ne = clcpack_entry_count(p);
    printf("{\"file\": ");
    json_out_string(stdout, path);
    char sha[2 * CLCPACK_SHA256_SIZE + 1];
    pack_sha256_hex(p, sha);
    printf(", \"size\": %llu, \"sha256\": \"%s\",\n \"devices\": [", (unsigned long long)file_size,
           sha);
    for (size_t i = 0; i < nd; i++)
        json_device(p, i);
    printf("\n ],\n \"sources\": [");
    for (size_t i = 0; i < ns; i++) {
        clcpack_source_info s = {.struct_size = sizeof s};
        if (clcpack_get_source(p, i, &s) != CLCPACK_OK)
            continue;
        printf("%s\n  {\"index\": %zu", i ? "," : "", i);
        json_field("name", s.name, 1);
        printf(", \"raw_size\": %llu, \"stored_size\": %llu, \"crc32\": \"%08x\"}",
               (unsigned long long)s.raw_size, (unsigned long long)s.stored_size,
               (unsigned)s.raw_crc32);
    }
    printf("\n ],\n \"entries\": [");
    for (size_t i = 0; i < ne; i++)
        json_entry(p, i);
    printf("\n ],\n \"dictionaries\": [");
    for (size_t i = 0; i < clcpack_dictionary_count(p); i++) {
        clcpack_dictionary_info d = {.struct_size = sizeof d};
        if (clcpack_get_dictionary(p, i, &d) != CLCPACK_OK)
            continue;
        char codec[32];
        printf("%s\n  {\"index\": %zu", i ? "," : "", i);
        json_field("codec", pack_text_codec_name(d.codec, codec, sizeof codec), 1);
        printf(", \"raw_size\": %llu, \"stored_size\": %llu, \"crc32\": \"%08x\", \"entries\": %zu}",
               (unsigned long long)d.raw_size, (unsigned long long)d.stored_size,
               (unsigned)d.raw_crc32, dictionary_users(p, i));
    }
    printf("\n ]\n}\n");
}

typedef struct list_args {
    int json;
} list_args;

static const cli_opt list_opts[] = {
    OPT_FLAG("json", 0, list_args, json, "one JSON document instead of tables"),
    OPT_HELP,
};

const cli_optspec list_optspec = {"list", list_opts, sizeof list_opts / sizeof list_opts[0], 0, 17};

int cmd_list(int argc, char **argv)
{
    list_args la = {0};
    int operand;
    int rc = cli_opts_run(&list_optspec, usage_list, argc, argv, &la, &operand);
    if (rc != CLI_OPTS_GO)
        return rc;
    if (operand != argc - 1)
        return cli_usage_error("list", "list: expected one pack file, got %d arguments",
                               argc - operand);
    const char *path = argv[operand];
    clcpack *p = cli_open_pack(path);
    if (!p)
        return EXIT_FAILURE_STATUS;
    struct stat st;
    uint64_t size = stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
    if (la.json)
        list_json(p, path, size);
    else
        list_text(p, path, size);
    clcpack_close(p);
    fflush(stdout);
    return EXIT_OK_STATUS;
}
