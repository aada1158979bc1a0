/* pocl_binary_canon.c — canonical PoCL binaries (pocl_binary_canon.h).
 * The layout (version 9) is read by loader/common/pocl_binary.c; the header's
 * fields used here: the version at byte 16, the build hash at HASH_AT,
 * and the program.bc record after the header (HEADER_SIZE). */
#include "pocl_binary_canon.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "bounded_fmt.h"
#include "clcpack_write.h"
#include "llvm_bitcode_same.h"
#include "llvm_bitstream.h"
#include "pocl_binary.h"
#include "sha256.h"

#define HEADER_SIZE (8 + 8 + 4 + 4 + 12 + 41)

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void wr32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void wr64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* Canonicalizing reads a binary through loader/common/pocl_binary.h's walk. */
typedef clcpk_pocl_file file_ref;

typedef struct kernel_ref {
    const unsigned char *rec;
    size_t meta_size;          /* bytes before the files */
    const char *name;
    size_t name_len;
    size_t first_file, n_files;
} kernel_ref;

static int same(const char *s, size_t len, const char *z)
{
    return strlen(z) == len && memcmp(s, z, len) == 0;
}

static int cmp_path(const void *a, const void *b)
{
    const file_ref *x = a, *y = b;
    size_t n = x->path_len < y->path_len ? x->path_len : y->path_len;
    int c = memcmp(x->path, y->path, n);
    if (c)
        return c;
    return x->path_len < y->path_len ? -1 : x->path_len > y->path_len;
}

/* Whether file f of kernel k stays: the files that are not work-group
 * functions, the generic function ("0-0-0"), and the forms of the
 * variant's local size wg (pocl_binary.h) in the mask `forms` — of kernel
 * `kernel` alone, or with none named (a whole program) of every kernel.
 * Those are what clc-pack had PoCL compile for this variant
 * (clc/engine/pocl_wg.h), so what else ran before in the same cache folder
 * (another local size, a form not asked for, a sibling kernel's launch)
 * does not change the bytes. */
static int keep(const kernel_ref *k, const file_ref *f, const char *kernel, const uint32_t wg[3],
                unsigned forms)
{
    size_t sl;
    const char *s = clcpk_pocl_wg_folder(f, &sl);
    if (!s || same(s, sl, "0-0-0"))
        return 1;
    if (kernel && !same(k->name, k->name_len, kernel))
        return 0;
    int form = clcpk_pocl_folder_form(s, sl, wg);
    return form >= 0 && (forms & 1u << form);
}

/* With its kernel cache off, PoCL names the program's folder
 * "_UNCACHED_XXXXXX" (random) and writes that name as the binary's build
 * hash, which also names the folder a later process unpacks the binary
 * into. It becomes 40 hex digits of the SHA-256 of the binary with the
 * field zeroed: the same bytes give the same name, other bytes another. */
#define HASH_AT (8 + 8 + 4 + 4 + 12)
#define HASH_SIZE 41
#define UNCACHED "_UNCACHED_"

/* force: rename whatever the name is (pocl_binary_canon_union of two binaries named by
 * their contents). */
static void name_by_content(unsigned char *bin, size_t size, int force)
{
    if (size < HASH_AT + HASH_SIZE ||
        (!force && memcmp(bin + HASH_AT, UNCACHED, sizeof UNCACHED - 1) != 0))
        return;
    memset(bin + HASH_AT, 0, HASH_SIZE);
    uint8_t d[CLCPACK_SHA256_SIZE];
    clcpk_digest_sha256(bin, size, d);
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 20; i++) {
        bin[HASH_AT + 2 * i] = (unsigned char)hex[d[i] >> 4];
        bin[HASH_AT + 2 * i + 1] = (unsigned char)hex[d[i] & 15];
    }
}

/* A file from pocl_binary_canon_more_fn as a file record of the binary's layout. */
static int extra_record(const pocl_binary_canon_file *f, file_ref *ref)
{
    size_t pl = strlen(f->path);
    if (pl == 0 || pl > UINT32_MAX || f->size > UINT32_MAX)
        return -1;
    unsigned char *rec = malloc(8 + pl + f->size);
    if (!rec)
        return -1;
    wr32(rec, (uint32_t)pl);
    memcpy(rec + 4, f->path, pl);
    wr32(rec + 4 + pl, (uint32_t)f->size);
    if (f->size)
        memcpy(rec + 8 + pl, f->data, f->size);
    ref->rec = rec;
    ref->rec_size = 8 + pl + f->size;
    ref->path = (const char *)rec + 4;
    ref->path_len = pl;
    return 0;
}

static void free_pcb_files(pocl_binary_canon_file *files, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(files[i].path);
        free(files[i].data);
    }
    free(files);
}

/* keep_all: every file stays (pocl_binary_canon_canonicalize_all); more: files to add
 * (pocl_binary_canon_canonicalize_all_more). */
/* A binary of the known layout, parsed: pointers into its bytes. */
typedef struct parsed {
    uint32_t nk;
    size_t head_size; /* header and program.bc record */
    kernel_ref *ks;
    file_ref *fs;
    size_t nf, cap;
} parsed;

static void parsed_free(parsed *p)
{
    free(p->ks);
    free(p->fs);
    memset(p, 0, sizeof *p);
}

/* The walk into a parsed binary (loader/common/pocl_binary.h). */
static int parse_begin(void *ctx, uint32_t nk, size_t head_size)
{
    parsed *p = ctx;
    p->nk = nk;
    p->head_size = head_size;
    p->ks = calloc(nk, sizeof *p->ks);
    return p->ks ? 0 : -1;
}

static int parse_kernel(void *ctx, uint32_t k, const clcpk_pocl_kernel *kernel)
{
    parsed *p = ctx;
    p->ks[k] = (kernel_ref){kernel->rec, kernel->meta_size, kernel->name, kernel->name_len,
                            p->nf, 0};
    return 0;
}

static int parse_file(void *ctx, uint32_t k, const clcpk_pocl_file *file)
{
    parsed *p = ctx;
    if (p->nf == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 16;
        file_ref *grown = realloc(p->fs, cap * sizeof *grown);
        if (!grown)
            return -1;
        p->fs = grown;
        p->cap = cap;
    }
    p->fs[p->nf++] = *file;
    p->ks[k].n_files++;
    return 0;
}

/* 0 with *p, 1 (why) when bin is not a PoCL binary of a known layout, -1
 * when out of memory. */
static int parse(const unsigned char *bin, size_t size, parsed *p, char *why, size_t why_cap)
{
    static const clcpk_pocl_visitor v = {parse_begin, parse_kernel, parse_file};
    memset(p, 0, sizeof *p);
    int rc = clcpk_pocl_walk(bin, size, &v, p, why, why_cap);
    if (rc != 0)
        parsed_free(p);
    return rc;
}

/* The binary's header, then each kernel's record with the files of its
 * list (counts[k] of them), its sizes rewritten: total bytes, malloc'd,
 * *size of them written; NULL when out of memory. */
static unsigned char *assemble(const unsigned char *bin, const parsed *pb, file_ref **lists,
                               const size_t *counts, size_t total, size_t *size)
{
    unsigned char *o = malloc(total ? total : 1);
    if (!o)
        return NULL;
    memcpy(o, bin, pb->head_size);
    size_t w = pb->head_size;
    for (uint32_t k = 0; k < pb->nk; k++) {
        const kernel_ref *kr = &pb->ks[k];
        size_t rec_at = w;
        memcpy(o + w, kr->rec, kr->meta_size);
        w += kr->meta_size;
        uint64_t files = 0;
        for (size_t i = 0; i < counts[k]; i++) {
            memcpy(o + w, lists[k][i].rec, lists[k][i].rec_size);
            w += lists[k][i].rec_size;
            files += lists[k][i].rec_size;
        }
        wr64(o + rec_at, (uint64_t)(kr->meta_size + files));
        wr64(o + rec_at + 8, files);
    }
    *size = w;
    return o;
}

static int canonicalize(const unsigned char *bin, size_t size, const char *kernel,
                        const uint32_t wg[3], unsigned forms, int keep_all, pocl_binary_canon_more_fn more, void *user,
                        size_t *added, unsigned char **out, size_t *out_size, char *why,
                        size_t why_cap)
{
    *out = NULL;
    *out_size = 0;
    parsed pb;
    int rc = parse(bin, size, &pb, why, why_cap);
    if (rc != 0)
        return rc;
    uint32_t nk = pb.nk;
    size_t head_size = pb.head_size;
    kernel_ref *ks = pb.ks;
    file_ref *fs = pb.fs;
    rc = 1;

    /* Each kernel's files, with those more() adds that the binary lacks. */
    file_ref **lists = calloc(nk, sizeof *lists);
    size_t *counts = calloc(nk, sizeof *counts), total = head_size;
    unsigned char **owned = NULL;
    size_t n_owned = 0;
    if (!lists || !counts) {
        rc = -1;
        goto done;
    }
    for (uint32_t k = 0; k < nk; k++) {
        kernel_ref *kr = &ks[k];
        /* No files: no pointer into fs, which may then be NULL. */
        file_ref *kf = kr->n_files ? fs + kr->first_file : NULL;
        pocl_binary_canon_file *extra = NULL;
        size_t n_extra = 0;
        if (more && more(kr->name, kr->name_len, &extra, &n_extra, user) != 0) {
            rc = -1;
            goto done;
        }
        lists[k] = malloc((kr->n_files + n_extra + 1) * sizeof **lists);
        unsigned char **grown = realloc(owned, (n_owned + n_extra + 1) * sizeof *owned);
        if (grown)
            owned = grown;
        if (!lists[k] || !grown) {
            free_pcb_files(extra, n_extra);
            rc = -1;
            goto done;
        }
        size_t n = 0;
        for (size_t i = 0; i < kr->n_files; i++)
            if (keep_all || keep(kr, &kf[i], kernel, wg, forms))
                lists[k][n++] = kf[i];
        for (size_t e = 0; e < n_extra; e++) {
            size_t pl = strlen(extra[e].path), i = 0;
            while (i < kr->n_files && !(kf[i].path_len == pl && memcmp(kf[i].path, extra[e].path, pl) == 0))
                i++;
            if (i < kr->n_files)
                continue; /* the binary has it */
            if (extra_record(&extra[e], &lists[k][n]) != 0) {
                free_pcb_files(extra, n_extra);
                rc = -1;
                goto done;
            }
            owned[n_owned++] = (unsigned char *)lists[k][n].rec;
            n++;
            if (added)
                (*added)++;
        }
        free_pcb_files(extra, n_extra);
        qsort(lists[k], n, sizeof *lists[k], cmp_path);
        counts[k] = n;
        total += kr->meta_size;
        for (size_t i = 0; i < n; i++)
            total += lists[k][i].rec_size;
    }
    size_t w = 0;
    unsigned char *o = assemble(bin, &pb, lists, counts, total, &w);
    if (!o) {
        rc = -1;
        goto done;
    }
    pocl_binary_canon_scrub_temp_names(o, w);
    name_by_content(o, w, 0);
    *out = o;
    *out_size = w;
    rc = 0;
done:
    for (size_t i = 0; i < n_owned; i++)
        free(owned[i]);
    free(owned);
    for (uint32_t k = 0; lists && k < nk; k++)
        free(lists[k]);
    free(lists);
    free(counts);
    parsed_free(&pb);
    return rc;
}

int pocl_binary_canon_canonicalize(const unsigned char *bin, size_t size, const char *kernel,
                     const uint32_t wg[3], unsigned char **out, size_t *out_size, char *why,
                     size_t why_cap)
{
    return canonicalize(bin, size, kernel, wg, CLCPK_POCL_ALL_FORMS, 0, NULL, NULL, NULL, out,
                        out_size, why, why_cap);
}

int pocl_binary_canon_canonicalize_forms(const unsigned char *bin, size_t size, const char *kernel,
                                         const uint32_t wg[3], unsigned forms, unsigned char **out,
                                         size_t *out_size, char *why, size_t why_cap)
{
    return canonicalize(bin, size, kernel, wg, forms, 0, NULL, NULL, NULL, out, out_size, why,
                        why_cap);
}

int pocl_binary_canon_canonicalize_all(const unsigned char *bin, size_t size, unsigned char **out,
                         size_t *out_size, char *why, size_t why_cap)
{
    static const uint32_t none[3] = {0, 0, 0};
    return canonicalize(bin, size, NULL, none, 0, 1, NULL, NULL, NULL, out, out_size, why,
                        why_cap);
}

int pocl_binary_canon_canonicalize_all_more(const unsigned char *bin, size_t size, pocl_binary_canon_more_fn more,
                              void *user, size_t *added, unsigned char **out, size_t *out_size,
                              char *why, size_t why_cap)
{
    static const uint32_t none[3] = {0, 0, 0};
    if (added)
        *added = 0;
    return canonicalize(bin, size, NULL, none, 0, 1, more, user, added, out, out_size, why,
                        why_cap);
}

int pocl_binary_canon_build_hash(const unsigned char *bin, size_t size, char out[POCL_BINARY_CANON_HASH_MAX])
{
    if (size < HEADER_SIZE || memcmp(bin, "poclbin", 8) != 0 || rd32(bin + 16) != POCL_BINARY_CANON_VERSION)
        return -1;
    const unsigned char *h = bin + HASH_AT;
    size_t n = 0;
    while (n < HASH_SIZE && h[n])
        n++;
    if (n == 0 || n == HASH_SIZE)
        return -1;
    /* PoCL's names: letters and digits, one '/' after the first two
     * ("GL/EKDG..."), or "_UNCACHED_" and six random characters. */
    for (size_t i = 0; i < n; i++)
        if (!isalnum(h[i]) && h[i] != '_' && !(h[i] == '/' && i == 2))
            return -1;
    memcpy(out, h, n);
    out[n] = '\0';
    return 0;
}

/* The files of b's kernel of the same name, as pocl_binary_canon_union adds them. */
typedef struct other {
    const parsed *p;
} other;

static int files_of_other(const char *name, size_t len, pocl_binary_canon_file **files, size_t *n, void *user)
{
    const parsed *p = ((const other *)user)->p;
    *files = NULL;
    *n = 0;
    for (uint32_t k = 0; k < p->nk; k++) {
        const kernel_ref *kr = &p->ks[k];
        if (kr->name_len != len || memcmp(kr->name, name, len) != 0)
            continue;
        pocl_binary_canon_file *f = calloc(kr->n_files ? kr->n_files : 1, sizeof *f);
        if (!f)
            return -1;
        for (size_t i = 0; i < kr->n_files; i++) {
            const file_ref *fr = &p->fs[kr->first_file + i];
            size_t cl = fr->rec_size - 8 - fr->path_len;
            f[i].path = malloc(fr->path_len + 1);
            f[i].data = malloc(cl ? cl : 1);
            if (!f[i].path || !f[i].data) {
                for (size_t j = 0; j <= i; j++) {
                    free(f[j].path);
                    free(f[j].data);
                }
                free(f);
                return -1;
            }
            memcpy(f[i].path, fr->path, fr->path_len);
            f[i].path[fr->path_len] = '\0';
            memcpy(f[i].data, fr->rec + 8 + fr->path_len, cl);
            f[i].size = cl;
        }
        *files = f;
        *n = kr->n_files;
        return 0;
    }
    return 0;
}

/* 40 lowercase hex digits: a name name_by_content gave. */
static int content_named(const unsigned char *bin)
{
    for (int i = 0; i < 40; i++)
        if (!isdigit(bin[HASH_AT + i]) && !(bin[HASH_AT + i] >= 'a' && bin[HASH_AT + i] <= 'f'))
            return 0;
    return bin[HASH_AT + 40] == '\0';
}

/* program.bc of a parsed binary: its file record's path and contents. 0,
 * or -1 when the record is not one file. */
static int program_bc(const unsigned char *bin, const parsed *p, const unsigned char **path,
                      size_t *path_len, const unsigned char **bc, size_t *bc_size)
{
    const unsigned char *rec = bin + HEADER_SIZE + 8;
    size_t size = p->head_size - HEADER_SIZE - 8;
    if (size < 8 || rd32(rec) > size - 8 || rd32(rec + 4 + rd32(rec)) != size - 8 - rd32(rec))
        return -1;
    *path = rec + 4;
    *path_len = rd32(rec);
    *bc = rec + 8 + *path_len;
    *bc_size = size - 8 - *path_len;
    return 0;
}

/* Two program.bc of one program: the same bytes, or bitcode that differs
 * only in the metadata kinds PoCL's LLVM context had registered while the
 * process built other programs before (llvm_bitcode_same.h; one command
 * line of an application builds more programs than another). *keep_b: b's
 * is the one to keep, by a rule that does not depend on the order of a
 * and b (the shorter bytes, then the lower), so that a merge of the same
 * records in any order gives the same pack. 1, 0 (why), -1 out of memory. */
static int same_program_bc(const unsigned char *a, const parsed *pa, const unsigned char *b,
                           const parsed *pb, int *keep_b, char *why, size_t why_cap)
{
    *keep_b = 0;
    if (pa->head_size == pb->head_size &&
        memcmp(a + HEADER_SIZE, b + HEADER_SIZE, pa->head_size - HEADER_SIZE) == 0)
        return 1;
    const unsigned char *path_a, *path_b, *bc_a, *bc_b;
    size_t pl_a, pl_b, na, nb;
    if (program_bc(a, pa, &path_a, &pl_a, &bc_a, &na) != 0 ||
        program_bc(b, pb, &path_b, &pl_b, &bc_b, &nb) != 0 || pl_a != pl_b ||
        memcmp(path_a, path_b, pl_a) != 0) {
        bfmt(why, why_cap, "not binaries of one program (program.bc records differ)");
        return 0;
    }
    int rc = llvm_bitcode_same_same_but_kinds(bc_a, na, bc_b, nb, why, why_cap);
    if (rc == 1)
        *keep_b = nb < na || (nb == na && memcmp(bc_b, bc_a, na) < 0);
    return rc;
}

int pocl_binary_canon_union(const unsigned char *a, size_t a_size, const unsigned char *b, size_t b_size,
              unsigned char **out, size_t *out_size, char *why, size_t why_cap)
{
    *out = NULL;
    *out_size = 0;
    parsed pa, pb;
    int rc = parse(a, a_size, &pa, why, why_cap);
    if (rc != 0)
        return rc;
    rc = parse(b, b_size, &pb, why, why_cap);
    if (rc != 0) {
        parsed_free(&pa);
        return rc;
    }
    /* One program: the same header (but for the build hash, when both are
     * names by content), program.bc (by meaning) and kernel metadata, in
     * order. */
    int same_hash = memcmp(a + HASH_AT, b + HASH_AT, HASH_SIZE) == 0, keep_b = 0;
    int same = pa.nk == pb.nk && memcmp(a, b, HASH_AT) == 0 &&
               (same_hash || (content_named(a) && content_named(b)));
    for (uint32_t k = 0; same && k < pa.nk; k++)
        same = pa.ks[k].meta_size == pb.ks[k].meta_size &&
               memcmp(pa.ks[k].rec + 16, pb.ks[k].rec + 16, pa.ks[k].meta_size - 16) == 0;
    if (!same)
        bfmt(why, why_cap, "not binaries of one program (header or kernels differ)");
    else
        same = same_program_bc(a, &pa, b, &pb, &keep_b, why, why_cap);
    if (same == 1) {
        static const uint32_t none[3] = {0, 0, 0};
        other o = {keep_b ? &pa : &pb};
        rc = canonicalize(keep_b ? b : a, keep_b ? b_size : a_size, NULL, none, 0, 1,
                          files_of_other, &o, NULL, out, out_size, why, why_cap);
        if (rc == 0 && !same_hash)
            name_by_content(*out, *out_size, 1);
    } else {
        rc = same < 0 ? -1 : 1;
    }
    parsed_free(&pa);
    parsed_free(&pb);
    return rc;
}

int pocl_binary_canon_bitcode_parses(const unsigned char *bin, size_t size, char *why,
                                     size_t why_cap)
{
    if (size < HEADER_SIZE || memcmp(bin, "poclbin", 8) != 0 ||
        rd32(bin + 16) != POCL_BINARY_CANON_VERSION)
        return 1; /* not the layout known here: nothing to say */
    parsed p;
    int rc = parse(bin, size, &p, why, why_cap);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    const unsigned char *path, *bc;
    size_t path_len, bc_size;
    if (program_bc(bin, &p, &path, &path_len, &bc, &bc_size) != 0) {
        parsed_free(&p);
        bfmt(why, why_cap, "its program.bc record is not one file");
        return 0;
    }
    llvm_bitstream_stream s;
    rc = llvm_bitstream_parse(bc, bc_size, &s, why, why_cap);
    if (rc == 0)
        llvm_bitstream_stream_free(&s);
    parsed_free(&p);
    return rc < 0 ? -1 : rc == 0;
}
