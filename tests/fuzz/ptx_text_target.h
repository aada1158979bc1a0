/*
 * ptx_text_target.h — the fuzz target over what clc-pack reads of PTX
 * (ptx_text.h): the input as an NVIDIA program binary. Its text length
 * never exceeds its size and drops only NUL bytes; when it is PTX text,
 * its target is looked for in the text and in the whole input; a target
 * found is "sm_" and digits (and a letter) and its number matches the
 * name; the first two bytes, as a compute capability, name an arch the
 * same way. Shared by fuzz_ptx_text.c and tests/test_fuzz_cli.c.
 */
#ifndef CLC_PTX_TEXT_TARGET_H
#define CLC_PTX_TEXT_TARGET_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli_fuzz.h"
#include "ptx_text.h"

static inline void ptt_check_arch(const char name[PTX_ARCH_NAME_MAX], uint32_t arch)
{
    cf_require(memchr(name, 0, PTX_ARCH_NAME_MAX) != NULL);
    cf_require(strncmp(name, "sm_", 3) == 0 && name[3] >= '0' && name[3] <= '9');
    cf_require(strtoul(name + 3, NULL, 10) == arch);
}

static inline void ptt_target(const uint8_t *text, size_t len)
{
    char name[PTX_ARCH_NAME_MAX + 1];
    name[PTX_ARCH_NAME_MAX] = 'Z';
    uint32_t arch = 0;
    if (ptx_target(text, len, name, &arch) == 0)
        ptt_check_arch(name, arch);
    cf_require(name[PTX_ARCH_NAME_MAX] == 'Z');
}

static inline int fuzz_ptx_text(const uint8_t *data, size_t size)
{
    size_t len = ptx_text_length(data, size);
    cf_require(len <= size);
    for (size_t i = len; i < size; i++)
        cf_require(data[i] == 0);
    cf_require(len == 0 || data[len - 1] != 0);
    int is_text = ptx_is_text(data, size);
    cf_require(is_text == 0 || is_text == 1);
    if (is_text)
        cf_require(memchr(data, 0, len) == NULL);
    ptt_target(data, len);
    ptt_target(data, size);
    if (size >= 2) {
        char name[PTX_ARCH_NAME_MAX];
        uint32_t arch = 0;
        ptx_arch_from_cc(data[0], data[1] % 10, name, &arch);
        cf_require(memchr(name, 0, PTX_ARCH_NAME_MAX) != NULL);
        if (data[0] < 100)
            ptt_check_arch(name, arch);
    }
    return 0;
}

#endif /* CLC_PTX_TEXT_TARGET_H */
