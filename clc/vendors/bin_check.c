/* bin_check.c — headers of offline binaries (bin_check.h). */
#include "bin_check.h"

#include <stdlib.h>
#include <string.h>

#include "bounded_fmt.h"

#define EM_AMDGPU 224
#define EM_INTELGT 205
#define ET_OPENCL_EXECUTABLE 0xff04
#define ELFOSABI_AMDGPU_HSA 64
#define SPIRV_MAGIC 0x07230203u

static uint16_t le16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t le64(const unsigned char *p) { return le32(p) | (uint64_t)le32(p + 4) << 32; }

void bin_check_names_free(bin_check_names *k)
{
    for (size_t i = 0; i < k->n; i++)
        free(k->names[i]);
    free(k->names);
    k->n = 0;
    k->names = NULL;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds n bytes at s as a name (NUL-free, not empty). 0, or -1. */
static int add_name(bin_check_names *k, const char *s, size_t n)
{
    if (n == 0 || memchr(s, 0, n))
        return -1;
    char **grown = realloc(k->names, (k->n + 1) * sizeof *grown);
    if (!grown)
        return -1;
    k->names = grown;
    if (!(k->names[k->n] = malloc(n + 1)))
        return -1;
    memcpy(k->names[k->n], s, n);
    k->names[k->n++][n] = '\0';
    return 0;
}

static void sort_names(bin_check_names *k)
{
    if (k->n > 1)
        qsort(k->names, k->n, sizeof *k->names, cmp_name);
    size_t out = 0;
    for (size_t i = 0; i < k->n; i++) {
        if (out && strcmp(k->names[out - 1], k->names[i]) == 0) {
            free(k->names[i]);
            continue;
        }
        k->names[out++] = k->names[i];
    }
    k->n = out;
}

/* An ELF64 little-endian file's sections. */
typedef struct elf {
    const unsigned char *b;
    size_t size;
    uint16_t type, machine;
    uint32_t flags;
    uint8_t osabi;
    uint64_t shoff;
    uint16_t shnum, shstrndx;
} elf;

static int elf_open(elf *e, const unsigned char *b, size_t size, char msg[BIN_CHECK_MSG_MAX])
{
    memset(e, 0, sizeof *e);
    if (size < 64 || memcmp(b, "\177ELF", 4) != 0) {
        bfmt(msg, BIN_CHECK_MSG_MAX, "not an ELF file (%zu bytes)", size);
        return -1;
    }
    if (b[4] != 2 || b[5] != 1) {
        bfmt(msg, BIN_CHECK_MSG_MAX, "not a little-endian ELF64 file (class %u, data %u)", b[4], b[5]);
        return -1;
    }
    e->b = b;
    e->size = size;
    e->osabi = b[7];
    e->type = le16(b + 16);
    e->machine = le16(b + 18);
    e->flags = le32(b + 48);
    e->shoff = le64(b + 40);
    e->shnum = le16(b + 60);
    e->shstrndx = le16(b + 62);
    if (le16(b + 58) != 64 || e->shoff > size || (uint64_t)e->shnum * 64 > size - e->shoff ||
        (e->shnum && e->shstrndx >= e->shnum)) {
        bfmt(msg, BIN_CHECK_MSG_MAX, "its section table lies outside the %zu-byte file", size);
        return -1;
    }
    return 0;
}

/* Section i's header fields; its bytes when they lie inside the file. */
static const unsigned char *elf_section(const elf *e, size_t i, uint32_t *name, uint32_t *type,
                                        uint64_t *size, uint32_t *link, uint64_t *entsize)
{
    const unsigned char *h = e->b + e->shoff + i * 64;
    uint64_t off = le64(h + 24), n = le64(h + 32);
    if (name)
        *name = le32(h);
    if (type)
        *type = le32(h + 4);
    if (link)
        *link = le32(h + 40);
    if (entsize)
        *entsize = le64(h + 56);
    *size = n;
    if (off > e->size || n > e->size - off)
        return NULL;
    return e->b + off;
}

/* The section named `want`, or NULL. */
static const unsigned char *elf_find(const elf *e, const char *want, uint64_t *size)
{
    uint64_t strsz;
    if (!e->shnum)
        return NULL;
    const unsigned char *str = elf_section(e, e->shstrndx, NULL, NULL, &strsz, NULL, NULL);
    if (!str)
        return NULL;
    size_t wn = strlen(want);
    for (size_t i = 0; i < e->shnum; i++) {
        uint32_t name;
        uint64_t n;
        const unsigned char *p = elf_section(e, i, &name, NULL, &n, NULL, NULL);
        if (p && name < strsz && strsz - name > wn && memcmp(str + name, want, wn + 1) == 0) {
            *size = n;
            return p;
        }
    }
    return NULL;
}

/* The kernel names of a SPIR-V module: OpEntryPoint with the Kernel
 * execution model. Also its version word and addressing model. */
static int spirv_scan(const unsigned char *b, size_t size, bin_check_names *k, uint32_t *version,
                      uint32_t *addressing, char msg[BIN_CHECK_MSG_MAX])
{
    if (size < 20 || size % 4 || le32(b) != SPIRV_MAGIC) {
        bfmt(msg, BIN_CHECK_MSG_MAX, "not a SPIR-V module (%zu bytes, no magic 0x07230203)", size);
        return -1;
    }
    *version = le32(b + 4);
    *addressing = UINT32_MAX;
    for (size_t at = 20; at < size;) {
        uint32_t word = le32(b + at), count = word >> 16, op = word & 0xffff;
        if (count == 0 || count > (size - at) / 4) {
            bfmt(msg, BIN_CHECK_MSG_MAX, "SPIR-V instruction at byte %zu runs past the module", at);
            return -1;
        }
        if (op == 14 && count >= 3) /* OpMemoryModel addressing memory */
            *addressing = le32(b + at + 4);
        if (op == 15 && count >= 4 && le32(b + at + 4) == 6) { /* OpEntryPoint Kernel */
            const char *name = (const char *)b + at + 12;
            size_t room = (count - 3) * 4;
            size_t n = strnlen(name, room);
            if (n == room || add_name(k, name, n) != 0) {
                bfmt(msg, BIN_CHECK_MSG_MAX, "a SPIR-V entry point at byte %zu has no name", at);
                return -1;
            }
        }
        at += (size_t)count * 4;
    }
    sort_names(k);
    return 0;
}

int bin_check_check_spirv(const unsigned char *bin, size_t size, uint32_t version_word, bin_check_names *k,
                   char msg[BIN_CHECK_MSG_MAX])
{
    memset(k, 0, sizeof *k);
    uint32_t version, addressing;
    if (spirv_scan(bin, size, k, &version, &addressing, msg) != 0) {
        bin_check_names_free(k);
        return -1;
    }
    const char *bad = NULL;
    if (version != version_word)
        bad = "version";
    else if (addressing != 2) /* Physical64 */
        bad = "addressing model (not Physical64)";
    else if (!k->n)
        bad = "kernels (none)";
    if (bad) {
        bfmt(msg, BIN_CHECK_MSG_MAX, "SPIR-V %s: version 0x%08x (0x%08x wanted), addressing %u, %zu kernels",
             bad, version, version_word, addressing, k->n);
        bin_check_names_free(k);
        return -1;
    }
    return 0;
}

/* The GPU core family NEO's program header names for an IP version
 * (igfxfmid.h's GFXCORE_FAMILY), or 0 when not known here. */
static uint32_t intel_core_family(uint32_t ip)
{
    unsigned major = ip >> 22, minor = ip >> 12 & 0x3ff;
    if (major == 9)
        return 12;  /* IGFX_GEN9_CORE */
    if (major == 11)
        return 15;  /* IGFX_GEN11LP_CORE */
    if (major == 12 && minor <= 10)
        return 18;  /* IGFX_GEN12LP_CORE */
    if (major == 12 && minor >= 55 && minor <= 57)
        return 0xc07; /* IGFX_XE_HPG_CORE */
    if (major == 12 && minor >= 60 && minor <= 61)
        return 0xc08; /* IGFX_XE_HPC_CORE */
    return 0;
}

/* NEO's patchtokens program (the device binary section, n bytes at h):
 * a 28-byte program header (magic CTNI, version, core family, pointer
 * size, kernel count, stepping, the size of the program's patch list),
 * that patch list, then each kernel: a 40-byte header (checksum, a 64-bit
 * shader hash, then the sizes of its name, its patch list, its kernel
 * heap, general, dynamic and surface state heaps, and its unpadded size),
 * its name (NUL-padded), and the four heaps and the patch list those sizes
 * give. The kernel names into *k: `kernels` of them, each not empty. */
static int patchtoken_kernels(const unsigned char *h, uint64_t n, uint32_t kernels, bin_check_names *k,
                              char msg[BIN_CHECK_MSG_MAX])
{
    uint64_t at = 28 + (uint64_t)le32(h + 24);
    for (uint32_t i = 0; i < kernels; i++) {
        if (at > n || n - at < 40) {
            bfmt(msg, BIN_CHECK_MSG_MAX, "kernel %u of %u: its header lies past the %llu-byte program",
                 i + 1, kernels, (unsigned long long)n);
            return -1;
        }
        const unsigned char *kh = h + at;
        uint64_t name_size = le32(kh + 12), body = 0;
        for (int f = 0; f < 5; f++) /* patch list, kernel heap, three state heaps */
            body += le32(kh + 16 + 4 * f);
        at += 40;
        if (name_size > n - at || body > n - at - name_size) {
            bfmt(msg, BIN_CHECK_MSG_MAX, "kernel %u of %u runs past the %llu-byte program", i + 1,
                 kernels, (unsigned long long)n);
            return -1;
        }
        size_t len = strnlen((const char *)h + at, (size_t)name_size);
        if (len == 0) {
            bfmt(msg, BIN_CHECK_MSG_MAX, "kernel %u of %u has no name", i + 1, kernels);
            return -1;
        }
        if (add_name(k, (const char *)h + at, len) != 0) {
            bfmt(msg, BIN_CHECK_MSG_MAX, "out of memory");
            return -1;
        }
        at += name_size + body;
    }
    sort_names(k);
    if (k->n != kernels) {
        bfmt(msg, BIN_CHECK_MSG_MAX, "the program header says %u kernels, %zu distinct names follow",
             kernels, k->n);
        return -1;
    }
    return 0;
}

/* Whether two sorted name lists are the same. */
static int same_names(const bin_check_names *a, const bin_check_names *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->names[i], b->names[i]) != 0)
            return 0;
    return 1;
}

int bin_check_check_intel(const unsigned char *bin, size_t size, uint32_t ip, bin_check_names *k,
                   char msg[BIN_CHECK_MSG_MAX])
{
    memset(k, 0, sizeof *k);
    elf e;
    if (elf_open(&e, bin, size, msg) != 0)
        return -1;
    uint64_t n;
    const unsigned char *spv;
    if (e.machine == EM_INTELGT) {
        /* A zebin: kernels are its .text.NAME sections. */
        uint64_t strsz;
        const unsigned char *str =
            e.shnum ? elf_section(&e, e.shstrndx, NULL, NULL, &strsz, NULL, NULL) : NULL;
        for (size_t i = 0; str && i < e.shnum; i++) {
            uint32_t name;
            elf_section(&e, i, &name, NULL, &n, NULL, NULL);
            if (name < strsz) {
                const char *s = (const char *)str + name;
                size_t len = strnlen(s, strsz - name);
                if (len > 6 && len < strsz - name && strncmp(s, ".text.", 6) == 0 &&
                    add_name(k, s + 6, len - 6) != 0) {
                    bin_check_names_free(k);
                    bfmt(msg, BIN_CHECK_MSG_MAX, "out of memory");
                    return -1;
                }
            }
        }
        sort_names(k);
        if (!k->n) {
            bfmt(msg, BIN_CHECK_MSG_MAX, "a zebin with no .text.KERNEL section");
            return -1;
        }
        return 0;
    }
    if (e.type != ET_OPENCL_EXECUTABLE) {
        bfmt(msg, BIN_CHECK_MSG_MAX, "ELF type 0x%x, machine %u: neither NEO's OpenCL ELF (type 0xff04) "
                              "nor a zebin (machine 205)", e.type, e.machine);
        return -1;
    }
    const unsigned char *h = elf_find(&e, "Intel(R) OpenCL Device Binary", &n);
    if (!h || n < 28 || memcmp(h, "CTNI", 4) != 0) {
        bfmt(msg, BIN_CHECK_MSG_MAX, "no device binary section with the program header CTNI");
        return -1;
    }
    uint32_t family = le32(h + 8), ptr = le32(h + 12), kernels = le32(h + 16),
             stepping = le32(h + 20), want = intel_core_family(ip);
    if ((want && family != want) || ptr != 8 || kernels == 0 || stepping != (ip & 0xfff)) {
        bfmt(msg, BIN_CHECK_MSG_MAX, "program header: core family 0x%x (0x%x wanted), %u-byte pointers, "
                              "%u kernels, stepping %u (%u wanted)",
             family, want, ptr, kernels, stepping, ip & 0xfff);
        return -1;
    }
    if (patchtoken_kernels(h, n, kernels, k, msg) != 0) {
        bin_check_names_free(k);
        return -1;
    }
    /* The program's SPIR-V, unless ocloc ran with -exclude_ir: its entry
     * points must be the same kernels. */
    if ((spv = elf_find(&e, "SPIRV Object", &n))) {
        bin_check_names ir;
        uint32_t version, addressing;
        memset(&ir, 0, sizeof ir);
        int rc = spirv_scan(spv, (size_t)n, &ir, &version, &addressing, msg);
        if (rc == 0 && !same_names(&ir, k)) {
            bfmt(msg, BIN_CHECK_MSG_MAX, "the device binary's %zu kernels are not its SPIR-V's %zu", k->n,
                 ir.n);
            rc = -1;
        }
        bin_check_names_free(&ir);
        if (rc != 0) {
            bin_check_names_free(k);
            return -1;
        }
    }
    return 0;
}

unsigned bin_check_amdgpu_mach(unsigned major, unsigned minor, unsigned stepping)
{
    /* EF_AMDGPU_MACH_AMDGCN_GFX* of LLVM's ELF.h. */
    static const struct {
        unsigned id, mach;
    } table[] = {
        {0x600, 0x20}, {0x601, 0x21}, {0x602, 0x3a}, {0x700, 0x22}, {0x701, 0x23},
        {0x702, 0x24}, {0x703, 0x25}, {0x704, 0x26}, {0x705, 0x3b}, {0x801, 0x28},
        {0x802, 0x29}, {0x803, 0x2a}, {0x805, 0x3c}, {0x810, 0x2b}, {0x900, 0x2c},
        {0x902, 0x2d}, {0x904, 0x2e}, {0x906, 0x2f}, {0x908, 0x30}, {0x909, 0x31},
        {0x90a, 0x3f}, {0x90c, 0x32}, {0x940, 0x40}, {0x1010, 0x33}, {0x1011, 0x34},
        {0x1012, 0x35}, {0x1013, 0x42}, {0x1030, 0x36}, {0x1031, 0x37}, {0x1032, 0x38},
        {0x1033, 0x39}, {0x1034, 0x3e}, {0x1035, 0x3d}, {0x1036, 0x45}, {0x1100, 0x41},
        {0x1101, 0x46}, {0x1102, 0x47}, {0x1103, 0x44},
    };
    /* major in decimal digits as hex nibbles: gfx1030 is 0x1030. */
    unsigned id = (major / 10) << 12 | (major % 10) << 8 | minor << 4 | stepping;
    if (major < 10)
        id = major << 8 | minor << 4 | stepping;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].id == id)
            return table[i].mach;
    return 0;
}

/* The NAME.kd symbols of a code object. */
static int amdgpu_kernels(const elf *e, bin_check_names *k)
{
    for (size_t i = 0; i < e->shnum; i++) {
        uint32_t type, link;
        uint64_t n, entsize, strsz;
        const unsigned char *sym = elf_section(e, i, NULL, &type, &n, &link, &entsize);
        if (!sym || type != 2 /* SHT_SYMTAB */ || entsize != 24 || link >= e->shnum)
            continue;
        const unsigned char *str = elf_section(e, link, NULL, NULL, &strsz, NULL, NULL);
        for (uint64_t at = 0; str && at + 24 <= n; at += 24) {
            uint32_t name = le32(sym + at);
            if (name >= strsz)
                continue;
            const char *s = (const char *)str + name;
            size_t len = strnlen(s, strsz - name);
            if (len > 3 && len < strsz - name && strcmp(s + len - 3, ".kd") == 0 &&
                add_name(k, s, len - 3) != 0)
                return -1;
        }
    }
    sort_names(k);
    return 0;
}

int bin_check_check_amdgcn(const unsigned char *bin, size_t size, uint32_t arch, bin_check_names *k,
                    char msg[BIN_CHECK_MSG_MAX])
{
    memset(k, 0, sizeof *k);
    elf e;
    if (elf_open(&e, bin, size, msg) != 0)
        return -1;
    unsigned major = arch >> 16 & 0xff, minor = arch >> 8 & 0xff, stepping = arch & 0xff;
    unsigned sramecc = arch >> 26 & 3, xnack = arch >> 28 & 3;
    unsigned mach = bin_check_amdgpu_mach(major, minor, stepping);
    if (e.machine != EM_AMDGPU || e.osabi != ELFOSABI_AMDGPU_HSA) {
        bfmt(msg, BIN_CHECK_MSG_MAX, "ELF machine %u, OS ABI %u: not an AMDGPU HSA code object (224, 64)",
             e.machine, e.osabi);
        return -1;
    }
    if (!mach || (e.flags & 0xff) != mach) {
        bfmt(msg, BIN_CHECK_MSG_MAX, "e_flags 0x%x name machine 0x%x, the target's is 0x%x", e.flags,
             e.flags & 0xff, mach);
        return -1;
    }
    /* Code object v4 feature fields: 0 unsupported, 1 any, 2 off, 3 on;
     * an entry's unspecified feature is "any" (or unsupported). */
    unsigned fx = e.flags >> 8 & 3, fs = e.flags >> 10 & 3;
    int xnack_ok = xnack ? fx == xnack + 1 : fx <= 1;
    int sramecc_ok = sramecc ? fs == sramecc + 1 : fs <= 1;
    if (!xnack_ok || !sramecc_ok) {
        bfmt(msg, BIN_CHECK_MSG_MAX, "e_flags 0x%x: xnack %u, sramecc %u do not match the target ID",
             e.flags, fx, fs);
        return -1;
    }
    if (amdgpu_kernels(&e, k) != 0 || !k->n) {
        bin_check_names_free(k);
        bfmt(msg, BIN_CHECK_MSG_MAX, "no kernel descriptor symbol (NAME.kd) in the code object");
        return -1;
    }
    return 0;
}
