/*
 * cubin_elf.h — what the tests read of a cubin: its ELF header, enough to
 * say which machine and which SM it was assembled for.
 *
 * A cubin is a little-endian ELF64 file with e_machine EM_CUDA (190). Its
 * SM number is in e_flags: bits 8-15 when EI_ABIVERSION is 8 or more
 * (ptxas of CUDA 12.8 and later; sm_90 gives e_flags 0x6005a04), bits 0-7
 * before that (sm_90 gave 0x5a055a).
 */
#ifndef CLC_TEST_CUBIN_ELF_H
#define CLC_TEST_CUBIN_ELF_H

#include <stddef.h>
#include <stdint.h>

#define CUBIN_EM_CUDA 190

typedef struct cubin_elf {
    uint16_t machine;       /* e_machine */
    uint8_t osabi;          /* EI_OSABI */
    uint8_t abi_version;    /* EI_ABIVERSION */
    uint32_t flags;         /* e_flags */
    uint32_t sm;            /* the SM number read from e_flags (90 for sm_90) */
} cubin_elf;

/* Reads the header of size bytes at data. 0, or -1 with why (at least 128
 * bytes) saying what is wrong: too short, not ELF, not 64-bit
 * little-endian. */
int cubin_elf_parse(const void *data, size_t size, cubin_elf *out, char *why);

#endif
