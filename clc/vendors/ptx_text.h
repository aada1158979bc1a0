/*
 * ptx_text.h — what clc-pack needs to know about NVIDIA's program binaries.
 *
 * NVIDIA's CL_PROGRAM_BINARIES is PTX text with a trailing NUL. The pack
 * stores it without the NUL (CLCPACK_KIND_PTX), with the arch named by its
 * ".target sm_XX" directive, and ptxas turns it into a cubin for that arch.
 * Pure functions over bytes: no I/O, no printing.
 */
#ifndef CLC_PTX_TEXT_H
#define CLC_PTX_TEXT_H

#include <stddef.h>
#include <stdint.h>

#define PTX_TEXT_ARCH_NAME_MAX 16

/* Length of bin without its trailing NUL bytes. */
size_t ptx_text_length(const void *bin, size_t size);

/* 1 when the bytes are PTX text: no NUL before the end of the text, and a
 * ".version" directive before the first entry; else 0. */
int ptx_text_is_text(const void *bin, size_t size);

/* Finds the ".target" directive (outside comments) and its first sm_ name:
 * ".target sm_90a, texmode_independent" gives arch_name "sm_90a" and *arch
 * 90. Returns 0, or -1 when there is no such directive or the name is not
 * sm_<digits>[suffix letter]. */
int ptx_text_target(const void *text, size_t len, char arch_name[PTX_TEXT_ARCH_NAME_MAX], uint32_t *arch);

/* Index of the first statement (outside comments) that starts with `word`
 * followed by white space (".target"); len when there is none. */
size_t ptx_text_find_directive(const void *text, size_t len, const char *word);

/* "sm_86" for compute capability 8.6 (the fallback when the PTX names no
 * target). */
void ptx_text_arch_from_cc(uint32_t major, uint32_t minor, char arch_name[PTX_TEXT_ARCH_NAME_MAX],
                      uint32_t *arch);

#endif /* CLC_PTX_TEXT_H */
