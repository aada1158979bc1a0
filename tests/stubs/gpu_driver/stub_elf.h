/*
 * stub_elf.h — reading and writing the containers GPU binaries come in,
 * bounded by their length at every step (a binary is untrusted input):
 * 64-bit little-endian ELF (sections, notes, symbols), ar archives (ocloc's
 * fat binaries), SPIR-V modules (entry points) and Intel's patchtokens
 * program (kernel names).
 */
#ifndef CLCSTUB_ELF_H
#define CLCSTUB_ELF_H

#include <stddef.h>
#include <stdint.h>

typedef struct stub_elf {
    const uint8_t *b;
    size_t len;
    uint16_t type, machine;
    uint8_t osabi, abi_version;
    uint32_t flags;
    uint16_t shnum;
    uint64_t shoff;
    const uint8_t *shstr; /* the section name table, or NULL */
    size_t shstr_len;
} stub_elf;

typedef struct stub_elf_section {
    const char *name;     /* NUL-terminated inside the name table; "" when none */
    uint32_t type;
    uint32_t link;
    const uint8_t *data;
    size_t size;
} stub_elf_section;

/* 0 when b is an ELF64 little-endian file whose section table lies inside
 * len; -1 otherwise. */
int stub_elf_open(stub_elf *e, const void *b, size_t len);
/* Section i; -1 when its data is outside the file (SHT_NOBITS has none). */
int stub_elf_section_at(const stub_elf *e, unsigned i, stub_elf_section *s);
/* The first section of that name, or -1. */
int stub_elf_find(const stub_elf *e, const char *name, stub_elf_section *s);

/* Iterates the notes of a SHT_NOTE section: 1 with the next one, 0 at the
 * end, -1 on a malformed note. *off starts at 0. */
int stub_note_next(const stub_elf_section *s, size_t *off, const char **owner,
                   uint32_t *owner_len, uint32_t *type, const uint8_t **desc, uint32_t *desc_len);

/* Calls fn for each symbol name of a SHT_SYMTAB or SHT_DYNSYM section
 * (with the symbol's type, STT_*) until it returns non-zero; -1 when the
 * section or its string table is malformed. */
int stub_elf_symbols(const stub_elf *e, const stub_elf_section *symtab,
                     int (*fn)(void *ctx, const char *name, unsigned type), void *ctx);

/* A section to write. */
typedef struct stub_elf_out_section {
    const char *name;
    uint32_t type;
    uint64_t flags;
    const void *data;
    size_t size;
    uint32_t link, info;
    uint64_t entsize;
} stub_elf_out_section;

/* An ELF64 little-endian file with these sections (after the null one)
 * and a .shstrtab; malloc'd, its length in *len; NULL when out of memory. */
uint8_t *stub_elf_write(uint16_t type, uint16_t machine, uint8_t osabi, uint8_t abi_version,
                        uint32_t flags, const stub_elf_out_section *secs, unsigned n,
                        size_t *len);

/* 1 when b starts like an ar archive. */
int stub_ar_is(const void *b, size_t len);
/* The member called name (trailing '/' and blanks ignored): 0 with its
 * bytes, 1 when there is none, -1 when the archive is malformed. */
int stub_ar_member(const void *b, size_t len, const char *name, const uint8_t **data,
                   size_t *size);

/* 1 when b is a SPIR-V module (either byte order). */
int stub_spirv_is(const void *b, size_t len);
/* Its version (major, minor) and the names of its Kernel entry points
 * through fn; 0, or -1 when malformed. */
int stub_spirv_parse(const void *b, size_t len, unsigned *major, unsigned *minor,
                     int (*fn)(void *ctx, const char *name, size_t n), void *ctx);

/* 1 when b is LLVM bitcode ('BC' 0xC0DE, or the bitcode wrapper). */
int stub_llvm_is(const void *b, size_t len);

/* Intel's patchtokens program header. */
typedef struct stub_patchtokens {
    uint32_t version, device, pointer_size, n_kernels, stepping;
} stub_patchtokens;
#define STUB_PATCHTOKENS_MAGIC 0x494E5443u /* "CTNI" */
/* The header and each kernel name through fn (may be NULL); 0, or -1. */
int stub_patchtokens_parse(const uint8_t *b, size_t len, stub_patchtokens *h,
                           int (*fn)(void *ctx, const char *name, size_t n), void *ctx);

#endif /* CLCSTUB_ELF_H */
