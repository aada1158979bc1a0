/* pocl_binary.c — reading PoCL program binaries (pocl_binary.h).
 *
 * Layout of version 9, little-endian:
 *   "poclbin\0", u64 device id, u32 version, u32 kernel count,
 *   u32 flags, u32 binary type, u32 (1), char build_hash[41],
 *   u64 n, then n bytes: the program.bc file record,
 *   per kernel: u64 record size, u64 files size, u32 arginfo size,
 *     u32 name length, name, ... metadata ..., then the files (the last
 *     `files size` bytes of the record),
 * and a file record is u32 path length, path ("/KERNEL/SPEC/NAME"),
 * u32 content length, content. */
#include "pocl_binary.h"

#include <stdio.h>
#include <string.h>

#define HEADER_SIZE (8 + 8 + 4 + 4 + 12 + 41)

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

static int fault(char *why, size_t cap, const char *what, unsigned k)
{
    if (why && cap)
        snprintf(why, cap, what, k);
    return 1;
}

/* The files of kernel k, the last `files` bytes of its record
 * [at, end): each given to v->file. */
static int walk_files(const uint8_t *bin, size_t at, size_t end, uint32_t k, size_t *nf,
                      const clcpk_pocl_visitor *v, void *ctx, char *why, size_t cap)
{
    while (at < end) {
        if (*nf >= CLCPK_POCL_MAX_FILES || end - at < 4)
            return fault(why, cap, "PoCL binary: kernel %u files do not fit", k);
        uint32_t pl = rd32(bin + at);
        if (pl == 0 || pl > end - at - 4 || end - at - 4 - pl < 4)
            return fault(why, cap, "PoCL binary: kernel %u file path does not fit", k);
        uint32_t cl = rd32(bin + at + 4 + pl);
        if (cl > end - at - 8 - pl)
            return fault(why, cap, "PoCL binary: kernel %u file content does not fit", k);
        clcpk_pocl_file f = {bin + at, 8 + (size_t)pl + cl, (const char *)bin + at + 4, pl};
        (*nf)++;
        int rc = v && v->file ? v->file(ctx, k, &f) : 0;
        if (rc)
            return rc;
        at += f.rec_size;
    }
    return 0;
}

int clcpk_pocl_walk(const uint8_t *bin, size_t size, const clcpk_pocl_visitor *v, void *ctx,
                    char *why, size_t why_cap)
{
    if (size < HEADER_SIZE || memcmp(bin, "poclbin", 8) != 0)
        return fault(why, why_cap, "not a PoCL binary", 0);
    uint32_t version = rd32(bin + 16), nk = rd32(bin + 20);
    if (version != CLCPK_POCL_BINARY_VERSION) {
        if (why && why_cap)
            snprintf(why, why_cap, "PoCL binary format version %u (known: %d)", (unsigned)version,
                     CLCPK_POCL_BINARY_VERSION);
        return 1;
    }
    if (nk == 0 || nk > CLCPK_POCL_MAX_KERNELS)
        return fault(why, why_cap, "PoCL binary with %u kernels", (unsigned)nk);
    size_t off = HEADER_SIZE;
    if (size - off < 8 || rd64(bin + off) > size - off - 8)
        return fault(why, why_cap, "PoCL binary: program.bc record overruns the binary", 0);
    off += 8 + (size_t)rd64(bin + off);
    int rc = v && v->begin ? v->begin(ctx, nk, off) : 0;
    size_t nf = 0;
    for (uint32_t k = 0; !rc && k < nk; k++) {
        if (size - off < 24)
            return fault(why, why_cap, "PoCL binary: kernel %u header cut short", (unsigned)k);
        uint64_t rec = rd64(bin + off), files = rd64(bin + off + 8);
        uint32_t name_len = rd32(bin + off + 20);
        if (rec > size - off || files > rec || rec - files < 24 || name_len > rec - files - 24)
            return fault(why, why_cap, "PoCL binary: kernel %u record sizes do not fit",
                         (unsigned)k);
        clcpk_pocl_kernel kr = {bin + off, (size_t)rec, (size_t)(rec - files),
                                (const char *)bin + off + 24, name_len};
        rc = v && v->kernel ? v->kernel(ctx, k, &kr) : 0;
        if (!rc)
            rc = walk_files(bin, off + kr.meta_size, off + kr.rec_size, k, &nf, v, ctx, why,
                            why_cap);
        off += kr.rec_size;
    }
    if (!rc && off != size) {
        if (why && why_cap)
            snprintf(why, why_cap, "PoCL binary: %zu bytes after the last kernel", size - off);
        return 1;
    }
    return rc;
}

/* "N-N-N" or "N-N-N-...". */
static int is_wg_name(const char *s, size_t len)
{
    size_t i = 0;
    for (int part = 0; part < 3; part++) {
        size_t start = i;
        while (i < len && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == start)
            return 0;
        if (part < 2) {
            if (i >= len || s[i] != '-')
                return 0;
            i++;
        }
    }
    return i == len || s[i] == '-';
}

const char *clcpk_pocl_wg_folder(const clcpk_pocl_file *f, size_t *len)
{
    const char *end = f->path + f->path_len;
    if (f->path_len < 2 || f->path[0] != '/')
        return NULL;
    const char *s = memchr(f->path + 1, '/', f->path_len - 1);
    if (!s)
        return NULL;
    s++;
    const char *e = memchr(s, '/', (size_t)(end - s));
    if (!e || !is_wg_name(s, (size_t)(e - s)))
        return NULL; /* a file directly in the kernel folder, or another name */
    *len = (size_t)(e - s);
    return s;
}

/* "W-H-D" of wg into buf (y and z of 0 read as 1); its length. */
static size_t wg_name(const uint32_t wg[3], char *buf, size_t cap)
{
    int n = snprintf(buf, cap, "%u-%u-%u", (unsigned)wg[0], (unsigned)(wg[1] ? wg[1] : 1),
                     (unsigned)(wg[2] ? wg[2] : 1));
    return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

const char *clcpk_pocl_form_suffix(clcpk_pocl_form f)
{
    static const char *const suffix[CLCPK_POCL_N_FORMS] = {"-goffs0-smallgrid", "-smallgrid",
                                                           "-goffs0", ""};
    return f >= 0 && f < CLCPK_POCL_N_FORMS ? suffix[f] : "";
}

/* The form of folder s[n..len), what follows a local size's "W-H-D". */
static int form_of_suffix(const char *s, size_t len)
{
    for (int form = 0; form < CLCPK_POCL_N_FORMS; form++) {
        const char *suffix = clcpk_pocl_form_suffix((clcpk_pocl_form)form);
        if (strlen(suffix) == len && memcmp(s, suffix, len) == 0)
            return form;
    }
    return -1;
}

int clcpk_pocl_folder_form(const char *s, size_t len, const uint32_t wg[3])
{
    char name[40];
    size_t n = wg[0] ? wg_name(wg, name, sizeof name) : 0;
    if (!n || len < n || memcmp(s, name, n) != 0)
        return -1;
    return form_of_suffix(s + n, len - n);
}

typedef struct held_walk {
    const char *kernel;
    size_t kernel_len;
    const uint32_t *wg;
    uint32_t k;     /* the kernel being read */
    int counts;     /* whether its files count */
    unsigned held;  /* of the kernel being read */
    unsigned all;   /* of every counted kernel so far */
    int any;        /* a kernel counted */
} held_walk;

/* The kernel before k is done: its forms join the others'. */
static void close_kernel(held_walk *h)
{
    if (h->counts) {
        h->all = h->any ? h->all & h->held : h->held;
        h->any = 1;
    }
}

static int held_kernel(void *ctx, uint32_t k, const clcpk_pocl_kernel *kr)
{
    held_walk *h = ctx;
    if (k > 0)
        close_kernel(h);
    h->k = k;
    h->held = 0;
    h->counts = !h->kernel ||
                (kr->name_len == h->kernel_len && memcmp(kr->name, h->kernel, h->kernel_len) == 0);
    return 0;
}

static int held_file(void *ctx, uint32_t k, const clcpk_pocl_file *f)
{
    held_walk *h = ctx;
    size_t len;
    const char *s = h->counts ? clcpk_pocl_wg_folder(f, &len) : NULL;
    int form = s ? clcpk_pocl_folder_form(s, len, h->wg) : -1;
    (void)k;
    if (form >= 0)
        h->held |= 1u << form;
    return 0;
}

int clcpk_pocl_forms_held(const uint8_t *bin, size_t size, const char *kernel, size_t kernel_len,
                          const uint32_t wg[3], unsigned *held)
{
    held_walk h;
    memset(&h, 0, sizeof h);
    h.kernel = kernel;
    h.kernel_len = kernel_len;
    h.wg = wg;
    static const clcpk_pocl_visitor v = {NULL, held_kernel, held_file};
    if (clcpk_pocl_walk(bin, size, &v, &h, NULL, 0) != 0)
        return 1;
    close_kernel(&h);
    if (!h.any)
        return 1;
    *held = h.all;
    return 0;
}

/* The launches of one grid class (small or large) whose forms are
 * missing, as a phrase; "" when both are held. */
static const char *grid_phrase(unsigned missing, clcpk_pocl_form goffs0, clcpk_pocl_form offset,
                               int small)
{
    unsigned a = missing & (1u << goffs0), b = missing & (1u << offset);
    if (!a && !b)
        return "";
    if (small)
        return a && b ? "every grid dimension below 65535 work-items (any global offset)"
               : a    ? "no global offset and every grid dimension below 65535 work-items"
                      : "a global offset and every grid dimension below 65535 work-items";
    return a && b ? "a grid dimension of 65535 work-items or more (any global offset)"
           : a    ? "no global offset and a grid dimension of 65535 work-items or more"
                  : "a global offset and a grid dimension of 65535 work-items or more";
}

void clcpk_pocl_forms_missing_text(unsigned held, const char *wg, char *buf, size_t cap)
{
    unsigned missing = CLCPK_POCL_ALL_FORMS & ~held;
    if (cap == 0)
        return;
    buf[0] = '\0';
    if (!missing)
        return;
    if (missing == CLCPK_POCL_ALL_FORMS) {
        snprintf(buf, cap, "every first launch at %s compiles its work-group function", wg);
        return;
    }
    const char *small = grid_phrase(missing, CLCPK_POCL_GOFFS0_SMALLGRID, CLCPK_POCL_SMALLGRID, 1);
    const char *large = grid_phrase(missing, CLCPK_POCL_GOFFS0, CLCPK_POCL_ANY, 0);
    int both = small[0] && large[0];
    snprintf(buf, cap, "a first launch at %s with %s%s%s%s compiles its work-group function", wg,
             small, both ? ", or with " : "", large, both ? "," : "");
}
