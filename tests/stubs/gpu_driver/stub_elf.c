/* stub_elf.c — bounded readers and a writer for GPU binary containers (stub_elf.h). */
#include "stub_elf.h"

#include <stdlib.h>
#include <string.h>

#define EHDR 64
#define SHDR 64

static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t le64(const uint8_t *p) { return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32; }

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static void put64(uint8_t *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

/* Whether [off, off+size) lies inside len. */
static int inside(uint64_t off, uint64_t size, size_t len)
{
    return off <= len && size <= len - off;
}

int stub_elf_open(stub_elf *e, const void *bytes, size_t len)
{
    const uint8_t *b = bytes;
    memset(e, 0, sizeof *e);
    if (!b || len < EHDR || memcmp(b, "\177ELF", 4) != 0 || b[4] != 2 /* ELFCLASS64 */ ||
        b[5] != 1 /* little-endian */)
        return -1;
    e->b = b;
    e->len = len;
    e->osabi = b[7];
    e->abi_version = b[8];
    e->type = le16(b + 16);
    e->machine = le16(b + 18);
    e->flags = le32(b + 48);
    e->shoff = le64(b + 40);
    uint16_t shentsize = le16(b + 58);
    e->shnum = le16(b + 60);
    uint16_t shstrndx = le16(b + 62);
    if (e->shnum && (shentsize != SHDR || !inside(e->shoff, (uint64_t)e->shnum * SHDR, len)))
        return -1;
    stub_elf_section s;
    if (shstrndx && shstrndx < e->shnum && stub_elf_section_at(e, shstrndx, &s) == 0 &&
        s.size > 0 && s.data[s.size - 1] == '\0') {
        e->shstr = s.data;
        e->shstr_len = s.size;
    }
    return 0;
}

int stub_elf_section_at(const stub_elf *e, unsigned i, stub_elf_section *s)
{
    memset(s, 0, sizeof *s);
    s->name = "";
    if (i >= e->shnum)
        return -1;
    const uint8_t *h = e->b + e->shoff + (uint64_t)i * SHDR;
    uint32_t name = le32(h);
    s->type = le32(h + 4);
    uint64_t off = le64(h + 24), size = le64(h + 32);
    s->link = le32(h + 40);
    if (e->shstr && name < e->shstr_len)
        s->name = (const char *)e->shstr + name; /* the table ends in a NUL */
    if (s->type == 8 /* SHT_NOBITS */ || s->type == 0)
        return 0;
    if (!inside(off, size, e->len))
        return -1;
    s->data = e->b + off;
    s->size = (size_t)size;
    return 0;
}

int stub_elf_find(const stub_elf *e, const char *name, stub_elf_section *s)
{
    for (unsigned i = 1; i < e->shnum; i++)
        if (stub_elf_section_at(e, i, s) == 0 && strcmp(s->name, name) == 0)
            return 0;
    return -1;
}

int stub_note_next(const stub_elf_section *s, size_t *off, const char **owner,
                   uint32_t *owner_len, uint32_t *type, const uint8_t **desc, uint32_t *desc_len)
{
    size_t o = *off;
    if (o >= s->size)
        return 0;
    if (s->size - o < 12)
        return -1;
    uint32_t nsz = le32(s->data + o), dsz = le32(s->data + o + 4);
    *type = le32(s->data + o + 8);
    uint64_t name_pad = ((uint64_t)nsz + 3) & ~(uint64_t)3, desc_pad = ((uint64_t)dsz + 3) & ~(uint64_t)3;
    if (!inside(o + 12, name_pad, s->size) || !inside(o + 12 + name_pad, dsz, s->size))
        return -1;
    *owner = (const char *)s->data + o + 12;
    *owner_len = nsz;
    *desc = s->data + o + 12 + name_pad;
    *desc_len = dsz;
    uint64_t next = o + 12 + name_pad + desc_pad;
    *off = next > s->size ? s->size : (size_t)next;
    return 1;
}

int stub_elf_symbols(const stub_elf *e, const stub_elf_section *symtab,
                     int (*fn)(void *ctx, const char *name, unsigned type), void *ctx)
{
    stub_elf_section strtab;
    if (stub_elf_section_at(e, symtab->link, &strtab) != 0 || !strtab.data)
        return -1;
    for (size_t o = 0; o + 24 <= symtab->size; o += 24) {
        uint32_t name = le32(symtab->data + o);
        unsigned type = symtab->data[o + 4] & 15;
        if (name == 0 || name >= strtab.size)
            continue;
        const char *s = (const char *)strtab.data + name;
        if (!memchr(s, '\0', strtab.size - name))
            return -1;
        if (fn(ctx, s, type))
            return 0;
    }
    return 0;
}

uint8_t *stub_elf_write(uint16_t type, uint16_t machine, uint8_t osabi, uint8_t abi_version,
                        uint32_t flags, const stub_elf_out_section *secs, unsigned n,
                        size_t *len)
{
    /* The name table: "", each section's name, ".shstrtab". */
    size_t names = 1 + strlen(".shstrtab") + 1;
    for (unsigned i = 0; i < n; i++)
        names += strlen(secs[i].name) + 1;
    size_t data = 0;
    for (unsigned i = 0; i < n; i++)
        data += (secs[i].size + 7) & ~(size_t)7;
    size_t shoff = EHDR + data + ((names + 7) & ~(size_t)7);
    unsigned shnum = n + 2;
    size_t total = shoff + (size_t)shnum * SHDR;
    uint8_t *b = calloc(1, total);
    if (!b)
        return NULL;
    memcpy(b, "\177ELF", 4);
    b[4] = 2;
    b[5] = 1;
    b[6] = 1;
    b[7] = osabi;
    b[8] = abi_version;
    put16(b + 16, type);
    put16(b + 18, machine);
    put32(b + 20, 1);
    put64(b + 40, shoff);
    put32(b + 48, flags);
    put16(b + 52, EHDR);
    put16(b + 58, SHDR);
    put16(b + 60, (uint16_t)shnum);
    put16(b + 62, (uint16_t)(shnum - 1));
    size_t at = EHDR, name_at = 1;
    uint8_t *strs = b + EHDR + data;
    for (unsigned i = 0; i < n; i++) {
        uint8_t *h = b + shoff + (size_t)(i + 1) * SHDR;
        size_t nl = strlen(secs[i].name);
        memcpy(strs + name_at, secs[i].name, nl + 1);
        put32(h, (uint32_t)name_at);
        put32(h + 4, secs[i].type);
        put64(h + 8, secs[i].flags);
        put64(h + 24, at);
        put64(h + 32, secs[i].size);
        put32(h + 40, secs[i].link);
        put32(h + 44, secs[i].info);
        put64(h + 48, 8);
        put64(h + 56, secs[i].entsize);
        if (secs[i].size)
            memcpy(b + at, secs[i].data, secs[i].size);
        at += (secs[i].size + 7) & ~(size_t)7;
        name_at += nl + 1;
    }
    uint8_t *h = b + shoff + (size_t)(n + 1) * SHDR;
    memcpy(strs + name_at, ".shstrtab", 10);
    put32(h, (uint32_t)name_at);
    put32(h + 4, 3 /* SHT_STRTAB */);
    put64(h + 24, EHDR + data);
    put64(h + 32, names);
    put64(h + 48, 1);
    *len = total;
    return b;
}

int stub_ar_is(const void *b, size_t len)
{
    return b && len >= 8 && memcmp(b, "!<arch>\n", 8) == 0;
}

int stub_ar_member(const void *bytes, size_t len, const char *name, const uint8_t **data,
                   size_t *size)
{
    const uint8_t *b = bytes;
    size_t want = strlen(name);
    for (size_t o = 8; o < len;) {
        if (len - o < 60 || b[o + 58] != '`' || b[o + 59] != '\n')
            return -1;
        char digits[11];
        memcpy(digits, b + o + 48, 10);
        digits[10] = '\0';
        char *end;
        unsigned long long sz = strtoull(digits, &end, 10);
        if (end == digits || !inside(o + 60, sz, len))
            return -1;
        size_t nl = 16;
        while (nl && (b[o + nl - 1] == ' ' || b[o + nl - 1] == '/'))
            nl--;
        if (nl == want && memcmp(b + o, name, nl) == 0) {
            *data = b + o + 60;
            *size = (size_t)sz;
            return 0;
        }
        o += 60 + (size_t)sz + (sz & 1);
    }
    return 1;
}

#define SPIRV_MAGIC 0x07230203u

static uint32_t word(const uint8_t *b, size_t i, int swap)
{
    uint32_t w = le32(b + 4 * i);
    return swap ? __builtin_bswap32(w) : w;
}

int stub_spirv_is(const void *bytes, size_t len)
{
    const uint8_t *b = bytes;
    return b && len >= 20 && (le32(b) == SPIRV_MAGIC || __builtin_bswap32(le32(b)) == SPIRV_MAGIC);
}

int stub_spirv_parse(const void *bytes, size_t len, unsigned *major, unsigned *minor,
                     int (*fn)(void *ctx, const char *name, size_t n), void *ctx)
{
    const uint8_t *b = bytes;
    if (!stub_spirv_is(b, len) || len % 4)
        return -1;
    int swap = le32(b) != SPIRV_MAGIC;
    size_t nwords = len / 4;
    uint32_t version = word(b, 1, swap);
    *major = (version >> 16) & 0xff;
    *minor = (version >> 8) & 0xff;
    for (size_t i = 5; i < nwords;) {
        uint32_t w = word(b, i, swap);
        uint32_t count = w >> 16, op = w & 0xffff;
        if (count == 0 || count > nwords - i)
            return -1;
        /* OpEntryPoint ExecutionModel=Kernel(6) id "name"... */
        if (op == 15 && count >= 4 && word(b, i + 1, swap) == 6) {
            char name[1024];
            size_t n = 0;
            for (size_t k = i + 3; k < i + count && n < sizeof name - 1; k++) {
                uint32_t lit = word(b, k, swap);
                int done = 0;
                for (int c = 0; c < 4 && !done; c++) {
                    char ch = (char)(lit >> (8 * c));
                    if (ch == '\0' || n >= sizeof name - 1)
                        done = 1;
                    else
                        name[n++] = ch;
                }
                if (done)
                    break;
            }
            if (n && fn && fn(ctx, name, n))
                return -1;
        }
        i += count;
    }
    return 0;
}

int stub_llvm_is(const void *bytes, size_t len)
{
    const uint8_t *b = bytes;
    return b && len >= 4 &&
           ((b[0] == 'B' && b[1] == 'C' && b[2] == 0xC0 && b[3] == 0xDE) ||
            le32(b) == 0x0B17C0DEu);
}

int stub_patchtokens_parse(const uint8_t *b, size_t len, stub_patchtokens *h,
                           int (*fn)(void *ctx, const char *name, size_t n), void *ctx)
{
    if (!b || len < 28 || le32(b) != STUB_PATCHTOKENS_MAGIC)
        return -1;
    h->version = le32(b + 4);
    h->device = le32(b + 8);
    h->pointer_size = le32(b + 12);
    h->n_kernels = le32(b + 16);
    h->stepping = le32(b + 20);
    uint64_t o = 28 + (uint64_t)le32(b + 24);
    for (uint32_t k = 0; k < h->n_kernels; k++) {
        if (!inside(o, 40, len))
            return -1;
        const uint8_t *kh = b + o;
        uint64_t name_size = le32(kh + 12), rest = 0;
        for (int f = 0; f < 5; f++) /* patch list and the four heaps */
            rest += le32(kh + 16 + 4 * f);
        if (!inside(o + 40, name_size, len))
            return -1;
        const char *name = (const char *)b + o + 40;
        size_t n = strnlen(name, (size_t)name_size);
        if (fn && n && fn(ctx, name, n))
            return -1;
        o += 40 + name_size + rest;
        if (o > len)
            return -1;
    }
    return 0;
}
