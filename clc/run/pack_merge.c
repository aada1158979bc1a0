/* pack_merge.c — the machinery of `clc-pack merge` (pack_merge.h): open
 * the inputs, choose each entry once (a conflict is named, with both
 * files, and nothing is written), copy everything into one new pack and
 * write it atomically. `merge`, `retarget`, `record -o` and the pack run's
 * --merge call it; none of them calls another command. */
#include "pack_merge.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_files.h"
#include "cli_report.h"
#include "entry_key.h"
#include "pack_blob.h"
#include "clcpack_write.h"
#include "pack_text.h"
#include "pocl_binary_canon.h"

#define LABEL_MAX 640
#define MAX_CONFLICTS_SHOWN 10

typedef struct merge_input {
    const char *path;
    clcpack *p;
    size_t n_devices;
    clcpack_device_info *devices;
    uint32_t *device_map;   /* input device index -> writer index */
    uint32_t *source_map;   /* input source index -> writer index; CLCPACK_NONE until added */
} merge_input;

/* One entry chosen for the output: where it comes from. */
typedef struct merge_pick {
    size_t input, entry;
    clcpack_entry_info info;
    /* The union of the duplicates' tuning lists, one record per filter
     * width (malloc'd). */
    clcpack_tuning *tunings;
    size_t n_tunings;
    /* Recorded PoCL entries of one program joined (join_recorded): the
     * binary to write instead of the entry's, malloc'd, or NULL. */
    unsigned char *joined;
    size_t joined_size;
    size_t n_joins;
} merge_pick;

int pack_merge_cubin_flags(const char *cmd, int compress, int store, uint32_t *flags)
{
    *flags = (compress ? CLCPACK_WRITE_COMPRESS_CUBINS : 0) |
             (store ? CLCPACK_WRITE_STORE_CUBINS : 0);
    if (compress && store)
        return cli_usage_error(cmd, "%s: --compress-cubins and --store-cubins together: give one",
                               cmd);
    return 0;
}

/* Entry or source i's decoded bytes (CRC-checked), malloc'd; NULL after a
 * message. */
static unsigned char *read_blob(const merge_input *in, pack_blob_kind kind, size_t i, size_t *size)
{
    clcpack_error e;
    unsigned char *buf = pack_blob_read(in->p, kind, i, size, &e);
    if (!buf)
        cli_error("%s: %s %zu: %s", in->path, kind == PACK_BLOB_SOURCE ? "source" : "entry", i,
                  e.message);
    return buf;
}

/* 1 when the two blobs' (entries' binaries or sources) decoded bytes are
 * equal, 0 when not, -1 after a read error. */
static int same_blob(pack_blob_kind kind, const merge_input *a, size_t ia, const merge_input *b,
                     size_t ib)
{
    size_t na, nb;
    unsigned char *x = read_blob(a, kind, ia, &na);
    unsigned char *y = x ? read_blob(b, kind, ib, &nb) : NULL;
    int r = -1;
    if (x && y)
        r = na == nb && memcmp(x, y, na) == 0;
    free(x);
    free(y);
    return r;
}

/* Same key, form and device fingerprint: the writer would store them as one. */
static int same_slot(const merge_input *in, const merge_pick *pk, const merge_input *cand_in,
                     const clcpack_entry_info *cand)
{
    const clcpack_entry_info *e = &pk->info;
    return e->kind == cand->kind && e->arch == cand->arch && clcpk_same_key(e, cand) &&
           clcpack_device_equal(&in[pk->input].devices[e->device],
                                &cand_in->devices[cand->device]);
}

/* FNV-1a over the fields same_slot compares (the device by name only: a
 * hash need only agree on equal slots). */
static uint64_t slot_hash(const merge_input *in, const clcpack_entry_info *e)
{
    uint64_t h = 0xcbf29ce484222325ull;
    const char *strs[2] = {e->kernel, in->devices[e->device].device_name};
    for (size_t k = 0; k < 2 + 2 * e->define_count; k++) {
        const char *t = k < 2 ? strs[k] : k % 2 ? e->defines[(k - 2) / 2].value
                                                : e->defines[(k - 2) / 2].name;
        for (const char *c = t; ; c++) {
            h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
            if (!*c)
                break;
        }
    }
    uint32_t nums[5] = {e->wg[0], e->wg[1], e->wg[2], (uint32_t)e->kind, e->arch};
    for (size_t k = 0; k < 5; k++)
        for (int b = 0; b < 4; b++)
            h = (h ^ ((nums[k] >> (8 * b)) & 0xFF)) * 0x100000001b3ull;
    return h;
}

/* Why a duplicate differs, or NULL when it is the same entry. -1 in *failed
 * after a read error. */
static const char *difference(const merge_input *in, const merge_pick *pk, size_t ci, size_t ce,
                              const clcpack_entry_info *c, int *failed)
{
    const merge_input *a = &in[pk->input], *b = &in[ci];
    const clcpack_entry_info *e = &pk->info;
    if (strcmp(e->options, c->options) != 0)
        return "other build options";
    const char *fa = "", *fb = "";
    clcpack_get_entry_family(a->p, pk->entry, &fa);
    clcpack_get_entry_family(b->p, ce, &fb);
    if (strcmp(fa, fb) != 0)
        return "another kernel family";
    if (e->raw_size != c->raw_size || e->raw_crc32 != c->raw_crc32)
        return "other binary bytes";
    int s = same_blob(PACK_BLOB_BINARY, a, pk->entry, b, ce);
    if (s < 0)
        *failed = 1;
    if (s == 0)
        return "other binary bytes";
    if (e->source != CLCPACK_NONE && c->source != CLCPACK_NONE) {
        s = same_blob(PACK_BLOB_SOURCE, a, e->source, b, c->source);
        if (s < 0)
            *failed = 1;
        if (s == 0)
            return "another program source";
    }
    return NULL;
}

/* 1 when timing a should replace b (same run-time value): more runs, then the
 * faster median, then the smaller problem, so that the choice does not
 * depend on the order of the inputs. */
static int better_tuning(const clcpack_tuning *a, const clcpack_tuning *b)
{
    if (a->runs != b->runs)
        return a->runs > b->runs;
    if (a->median_ns != b->median_ns)
        return a->median_ns < b->median_ns;
    if (a->width != b->width)
        return a->width < b->width;
    return a->height < b->height;
}

/* Folds entry j's tuning list into pk's; -1 on a read or memory error. */
static int merge_tunings(merge_input *in, merge_pick *pk, size_t j)
{
    size_t n = clcpack_entry_tuning_count(in->p, j);
    for (size_t k = 0; k < n; k++) {
        clcpack_tuning t;
        if (clcpack_get_entry_tuning(in->p, j, k, &t) != CLCPACK_OK) {
            cli_error("%s: entry %zu: tuning record %zu cannot be read", in->path, j, k);
            return -1;
        }
        size_t m = 0;
        while (m < pk->n_tunings && pk->tunings[m].runtime_value != t.runtime_value)
            m++;
        if (m < pk->n_tunings) {
            if (better_tuning(&t, &pk->tunings[m]))
                pk->tunings[m] = t;
            continue;
        }
        clcpack_tuning *grown = realloc(pk->tunings, (pk->n_tunings + 1) * sizeof *grown);
        if (!grown) {
            cli_error("merge: out of memory");
            return -1;
        }
        pk->tunings = grown;
        pk->tunings[pk->n_tunings++] = t;
    }
    return 0;
}

/* Two records of one program on PoCL differ in the work-group functions
 * their runs' launches compiled (ffmpeg's sobel and convolution filters
 * share a program and launch it differently): entries named by a record's
 * key (docs/RECORD.md), with the same source, whose binaries are PoCL
 * binaries of one program, are joined into one binary holding the
 * functions of both (pocl_binary_canon_union). 1 joined, 0 not, -1 after an error. */
static int join_recorded(merge_input *in, merge_pick *pk, size_t ci, size_t ce,
                         const clcpack_entry_info *c)
{
    const clcpack_entry_info *e = &pk->info;
    if (e->kind != CLCPACK_KIND_NATIVE || c->kind != CLCPACK_KIND_NATIVE ||
        (strncmp(c->kernel, "rec:", 4) != 0 && strncmp(c->kernel, "rec-link:", 9) != 0) ||
        e->source == CLCPACK_NONE || c->source == CLCPACK_NONE)
        return 0;
    int s = same_blob(PACK_BLOB_SOURCE, &in[pk->input], e->source, &in[ci], c->source);
    if (s <= 0)
        return s;
    size_t na = pk->joined_size, nb = 0, nu = 0;
    unsigned char *a = pk->joined ? pk->joined : read_blob(&in[pk->input], PACK_BLOB_BINARY, pk->entry, &na);
    unsigned char *b = a ? read_blob(&in[ci], PACK_BLOB_BINARY, ce, &nb) : NULL, *u = NULL;
    char why[256];
    int rc = a && b ? pocl_binary_canon_union(a, na, b, nb, &u, &nu, why, sizeof why) : -1;
    if (a != pk->joined)
        free(a);
    free(b);
    if (rc < 0) {
        cli_error("merge: out of memory joining two records of %s", c->kernel);
        return -1;
    }
    if (rc > 0)
        return 0;
    free(pk->joined);
    pk->joined = u;
    pk->joined_size = nu;
    return 1;
}

/* pick_entries with its hash table. */
static long pick_into(merge_input *in, size_t n_in, merge_pick *picks, size_t *n_picks,
                      size_t *dups, size_t *slots, size_t cap, int keep_first, size_t *kept)
{
    long conflicts = 0;
    int failed = 0;
    *n_picks = 0;
    *dups = 0;
    for (size_t i = 0; i < n_in; i++) {
        size_t ne = clcpack_entry_count(in[i].p);
        for (size_t j = 0; j < ne; j++) {
            clcpack_entry_info c = {.struct_size = sizeof c};
            if (clcpack_get_entry(in[i].p, j, &c) != CLCPACK_OK) {
                cli_error("%s: entry %zu cannot be read", in[i].path, j);
                return -1;
            }
            size_t at = (size_t)slot_hash(&in[i], &c) & (cap - 1);
            while (slots[at] != SIZE_MAX && !same_slot(in, &picks[slots[at]], &in[i], &c))
                at = (at + 1) & (cap - 1);
            size_t k = slots[at] == SIZE_MAX ? *n_picks : slots[at];
            if (k == *n_picks) {
                slots[at] = k;
                merge_pick *pk = &picks[(*n_picks)++];
                pk->input = i;
                pk->entry = j;
                pk->info = c;
                if (merge_tunings(&in[i], pk, j) != 0)
                    return -1;
                continue;
            }
            merge_pick *pk = &picks[k];
            const char *why = difference(in, pk, i, j, &c, &failed);
            if (failed)
                return -1;
            if (why && strcmp(why, "other binary bytes") == 0) {
                int joined = join_recorded(in, pk, i, j, &c);
                if (joined < 0)
                    return -1;
                if (joined) {
                    pk->n_joins++;
                    if (merge_tunings(&in[i], pk, j) != 0)
                        return -1;
                    continue;
                }
            }
            if (why && keep_first) {
                (*kept)++;
                continue;
            }
            if (why) {
                if (conflicts < MAX_CONFLICTS_SHOWN) {
                    char label[LABEL_MAX];
                    pack_text_entry_label(&c, label, sizeof label);
                    if (c.arch)
                        bfmt(label + strlen(label), sizeof label - strlen(label), "/sm_%u",
                             (unsigned)c.arch);
                    char dname[4 * CLCPACK_FP_STR];
                    cli_error("merge: conflicting entry %s for device '%s': %s (entry %zu) "
                              "and %s (entry %zu) hold it with %s",
                              label,
                              pack_text_esc(in[i].devices[c.device].device_name, dname, sizeof dname),
                              in[pk->input].path, pk->entry, in[i].path, j, why);
                }
                conflicts++;
                continue;
            }
            (*dups)++;
            /* The same entry twice: keep the copy that can be rebuilt from
             * source, and the timings of both. */
            if (pk->info.source == CLCPACK_NONE && c.source != CLCPACK_NONE) {
                pk->input = i;
                pk->entry = j;
                pk->info = c;
            }
            if (merge_tunings(&in[i], pk, j) != 0)
                return -1;
        }
    }
    if (conflicts > MAX_CONFLICTS_SHOWN)
        cli_error("merge: ... and %ld more conflicting entries", conflicts - MAX_CONFLICTS_SHOWN);
    return conflicts;
}

/* Chooses the output's entries; returns the number of conflicts (each
 * reported), or -1 after a read error. Picks are found by slot hash (open
 * addressing, SIZE_MAX empty), so that n entries cost about n comparisons
 * rather than n^2/2. */
static long pick_entries(merge_input *in, size_t n_in, merge_pick *picks, size_t *n_picks,
                         size_t *dups, int keep_first, size_t *kept)
{
    size_t total = 0;
    for (size_t i = 0; i < n_in; i++)
        total += clcpack_entry_count(in[i].p);
    size_t cap = 64;
    while (cap < 2 * total)
        cap *= 2;
    size_t *slots = malloc(cap * sizeof *slots);
    if (!slots) {
        cli_error("merge: out of memory for %zu entries", total);
        return -1;
    }
    for (size_t k = 0; k < cap; k++)
        slots[k] = SIZE_MAX;
    long r = pick_into(in, n_in, picks, n_picks, dups, slots, cap, keep_first, kept);
    free(slots);
    return r;
}

static int open_inputs(merge_input *in, const merge_args *x, size_t *total_entries,
                       int *any_source)
{
    *total_entries = 0;
    *any_source = 0;
    for (size_t i = 0; i < x->n_inputs; i++) {
        in[i].path = x->inputs[i];
        in[i].p = cli_open_pack(in[i].path);
        if (!in[i].p)
            return -1;
        size_t nd = clcpack_device_count(in[i].p), ns = clcpack_source_count(in[i].p);
        in[i].n_devices = nd;
        in[i].devices = calloc(nd ? nd : 1, sizeof *in[i].devices);
        in[i].device_map = calloc(nd ? nd : 1, sizeof *in[i].device_map);
        in[i].source_map = malloc((ns ? ns : 1) * sizeof *in[i].source_map);
        if (!in[i].devices || !in[i].device_map || !in[i].source_map) {
            cli_error("%s: out of memory", in[i].path);
            return -1;
        }
        for (size_t d = 0; d < nd; d++)
            in[i].devices[d].struct_size = sizeof in[i].devices[d];
        for (size_t d = 0; d < nd; d++)
            if (clcpack_get_device(in[i].p, d, &in[i].devices[d]) != CLCPACK_OK) {
                cli_error("%s: device %zu cannot be read", in[i].path, d);
                return -1;
            }
        for (size_t s = 0; s < ns; s++)
            in[i].source_map[s] = CLCPACK_NONE;
        if (ns)
            *any_source = 1;
        *total_entries += clcpack_entry_count(in[i].p);
    }
    return 0;
}

/* The writer's index of the input's source s, adding its text on first use. */
static int map_source(clcpack_writer *w, merge_input *in, uint32_t s, uint32_t *out)
{
    if (in->source_map[s] == CLCPACK_NONE) {
        clcpack_source_info si = {.struct_size = sizeof si};
        size_t size;
        clcpack_error e;
        if (clcpack_get_source(in->p, s, &si) != CLCPACK_OK) {
            cli_error("%s: source %u cannot be read", in->path, (unsigned)s);
            return -1;
        }
        unsigned char *text = read_blob(in, PACK_BLOB_SOURCE, s, &size);
        if (!text)
            return -1;
        clcpack_status st = clcpack_writer_add_source(w, si.name, text, size,
                                                      &in->source_map[s], &e);
        free(text);
        if (st != CLCPACK_OK) {
            char name[1024];
            cli_error("%s: source %s: %s", in->path, pack_text_esc(si.name, name, sizeof name),
                      e.message);
            return -1;
        }
    }
    *out = in->source_map[s];
    return 0;
}

static int add_pick(clcpack_writer *w, merge_input *in, const merge_pick *pk,
                    const merge_hook *hook)
{
    merge_input *src = &in[pk->input];
    const clcpack_entry_info *c = &pk->info;
    clcpack_entry_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.struct_size = sizeof spec;
    spec.kernel = c->kernel;
    spec.family = "";
    clcpack_get_entry_family(src->p, pk->entry, &spec.family);
    spec.options = c->options;
    spec.defines = c->defines;
    spec.define_count = c->define_count;
    memcpy(spec.wg, c->wg, sizeof spec.wg);
    spec.device = src->device_map[c->device];
    spec.source = CLCPACK_NONE;
    if (c->source != CLCPACK_NONE && map_source(w, src, c->source, &spec.source) != 0)
        return -1;
    spec.kind = c->kind;
    spec.arch = c->arch;
    size_t size = pk->joined_size;
    unsigned char *bin = pk->joined ? pk->joined : read_blob(src, PACK_BLOB_BINARY, pk->entry, &size);
    if (!bin)
        return -1;
    spec.binary = bin;
    spec.binary_size = size;
    spec.kernel_names = c->kernel_names;
    spec.kernel_name_count = c->kernel_name_count;
    spec.flags = c->flags;
    spec.target = c->target;
    if (hook && hook->entry(hook->ctx, src->path, src->p, pk->entry, w, &spec) != 0) {
        if (bin != pk->joined)
            free(bin);
        return -1;
    }
    clcpack_error e;
    clcpack_status st = clcpack_writer_add_entry(w, &spec, &e);
    for (size_t k = 0; st == CLCPACK_OK && k < pk->n_tunings; k++)
        st = clcpack_writer_add_tuning(w, &spec, &pk->tunings[k], &e);
    if (bin != pk->joined)
        free(bin);
    if (st != CLCPACK_OK) {
        cli_error("%s: entry %zu: %s", src->path, pk->entry, e.message);
        return -1;
    }
    return 0;
}

static int write_merged(merge_input *in, size_t n_in, const merge_pick *picks, size_t n_picks,
                        int any_source, const merge_args *x)
{
    const char *output = x->output;
    clcpack_writer *w = NULL;
    clcpack_error e;
    /* Binary-only inputs stay binary-only: only their entries lack a source. */
    /* Spooled: merging multi-GB packs holds their binaries in a temporary
     * file, not in memory. */
    uint32_t flags = (any_source ? 0 : CLCPACK_WRITE_NO_SOURCES) |
                     (x->compress_cubins ? CLCPACK_WRITE_COMPRESS_CUBINS : 0) |
                     (x->store_cubins ? CLCPACK_WRITE_STORE_CUBINS : 0) | CLCPACK_WRITE_SPOOL;
    if (clcpack_writer_new(flags, &w, &e) != CLCPACK_OK ||
        clcpack_writer_set_compression(w, x->codec, &e) != CLCPACK_OK) {
        clcpack_writer_free(w);
        cli_error("merge: %s", e.message);
        return -1;
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    clcpack_writer_set_threads(w, x->threads         ? x->threads
                                  : cpus > CLCPACK_MAX_WRITE_THREADS ? CLCPACK_MAX_WRITE_THREADS
                                  : cpus > 0                         ? (unsigned)cpus
                                                                     : 1);
    int rc = -1;
    for (size_t i = 0; i < n_in; i++)
        for (size_t d = 0; d < in[i].n_devices; d++)
            if (clcpack_writer_add_device(w, &in[i].devices[d], &in[i].device_map[d], &e) !=
                CLCPACK_OK) {
                cli_error("%s: device %zu: %s", in[i].path, d, e.message);
                goto out;
            }
    for (size_t k = 0; k < n_picks; k++)
        if (add_pick(w, in, &picks[k], x->hook) != 0)
            goto out;
    if (clcpack_writer_write_file(w, output, &e) != CLCPACK_OK) {
        cli_error("%s", e.message);
        goto out;
    }
    rc = 0;
out:
    clcpack_writer_free(w);
    return rc;
}

int pack_merge_run(const merge_args *x, merge_stats *stats)
{
    int status = EXIT_FAILURE_STATUS;
    merge_input *in = calloc(x->n_inputs, sizeof *in);
    merge_pick *picks = NULL;
    if (!in) {
        cli_error("merge: out of memory");
        return EXIT_FAILURE_STATUS;
    }
    size_t total = 0, n_picks = 0, dups = 0;
    int any_source = 0;
    if (open_inputs(in, x, &total, &any_source) != 0)
        goto out;
    picks = calloc(total ? total : 1, sizeof *picks);
    if (!picks) {
        cli_error("merge: out of memory for %zu entries", total);
        goto out;
    }
    size_t kept = 0;
    long conflicts = pick_entries(in, x->n_inputs, picks, &n_picks, &dups, x->keep_first, &kept);
    if (conflicts < 0)
        goto out;
    if (conflicts > 0) {
        cli_error("merge: %ld conflicting entr%s; %s not written", conflicts,
                  conflicts == 1 ? "y" : "ies", x->output);
        goto out;
    }
    if (write_merged(in, x->n_inputs, picks, n_picks, any_source, x) != 0)
        goto out;
    stats->entries = n_picks;
    stats->dups = dups;
    stats->kept = kept;
    stats->joined = 0;
    for (size_t k = 0; k < n_picks; k++)
        stats->joined += picks[k].n_joins;
    status = EXIT_OK_STATUS;
out:
    for (size_t i = 0; i < x->n_inputs; i++) {
        clcpack_close(in[i].p);
        free(in[i].devices);
        free(in[i].device_map);
        free(in[i].source_map);
    }
    free(in);
    for (size_t k = 0; picks && k < n_picks; k++) {
        free(picks[k].tunings);
        free(picks[k].joined);
    }
    free(picks);
    return status;
}
