/*
 * ptx_text_target.h — the fuzz target over what clc-pack reads of PTX
 * (ptx_text.h): the input as an NVIDIA program binary. Its text length
 * never exceeds its size and drops only NUL bytes; when it is PTX text,
 * its target is looked for in the text and in the whole input; a target
 * found is "sm_" and digits (and a letter) and its number matches the
 * name; the first two bytes, as a compute capability, name an arch the
 * same way. Retargeting (ptx_retarget.h): the text retargeted to sm_52
 * (and to the lowest ISA version of sm_52) must name that target and
 * version afterwards; ptx_retarget_portable, with a probe that accepts targets and
 * versions from thresholds taken from the input's first bytes (and fails
 * after a number of calls the third byte chooses), stays within its
 * number of probes and gives a form whose directives say what it returns.
 * Shared by fuzz_ptx_text.c and tests/unit/test_fuzz_targets.c.
 */
#ifndef CLC_PTX_TEXT_TARGET_H
#define CLC_PTX_TEXT_TARGET_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli_fuzz.h"
#include "ptx_retarget.h"
#include "ptx_text.h"

static inline void ptt_check_arch(const char name[PTX_TEXT_ARCH_NAME_MAX], uint32_t arch)
{
    cf_require(memchr(name, 0, PTX_TEXT_ARCH_NAME_MAX) != NULL);
    cf_require(strncmp(name, "sm_", 3) == 0 && name[3] >= '0' && name[3] <= '9');
    cf_require(strtoul(name + 3, NULL, 10) == arch);
}

static inline void ptt_target(const uint8_t *text, size_t len)
{
    char name[PTX_TEXT_ARCH_NAME_MAX + 1];
    name[PTX_TEXT_ARCH_NAME_MAX] = 'Z';
    uint32_t arch = 0;
    if (ptx_text_target(text, len, name, &arch) == 0)
        ptt_check_arch(name, arch);
    cf_require(name[PTX_TEXT_ARCH_NAME_MAX] == 'Z');
}

typedef struct ptt_probe {
    uint32_t min_arch, min_version;
    int calls, fail_at;
} ptt_probe;

static inline int ptt_accept(void *ctx, const char *text, size_t len, const char *arch_name)
{
    ptt_probe *p = ctx;
    if (++p->calls == p->fail_at)
        return -1;
    uint32_t arch = 0, version = 0;
    char name[PTX_TEXT_ARCH_NAME_MAX];
    cf_require(text[len] == '\0');
    cf_require(ptx_text_target(text, len, name, &arch) == 0 && strcmp(name, arch_name) == 0);
    cf_require(ptx_retarget_version(text, len, &version) == 0);
    return arch >= p->min_arch && version >= p->min_version;
}

static inline void ptt_retarget(const uint8_t *data, size_t size, size_t len)
{
    uint32_t version = 0, v2 = 0, arch = 0;
    char name[PTX_TEXT_ARCH_NAME_MAX];
    int has_version = ptx_retarget_version(data, len, &version) == 0;
    char *out = NULL;
    size_t out_len = 0;
    uint32_t want = ptx_retarget_min_version(52);
    for (int with_version = 0; with_version < 2; with_version++) {
        if (ptx_retarget(data, len, "sm_52", with_version ? want : 0, &out, &out_len) != 0)
            continue;
        /* Only the target is replaced without a version: none is needed;
         * a version directive ptx_retarget_version cannot read may be replaced. */
        cf_require(out[out_len] == '\0');
        cf_require(ptx_text_target(out, out_len, name, &arch) == 0 && arch == 52);
        cf_require(strcmp(name, "sm_52") == 0);
        if (has_version || with_version) {
            cf_require(ptx_retarget_version(out, out_len, &v2) == 0);
            cf_require(v2 == (with_version ? want : version));
        }
        free(out);
    }
    ptt_probe probe = {size ? 20 + data[0] % 80 : 0, size > 1 ? data[1] % 90 : 0, 0,
                       size > 2 ? data[2] % 40 : 0};
    int tries = -1;
    uint32_t got_version = 0;
    if (ptx_retarget_portable(data, len, ptt_accept, &probe, &out, &out_len, &arch, &got_version,
                     &tries) == 0) {
        cf_require(tries >= 0 && tries <= PTX_RETARGET_PORTABLE_MAX_TRIES && tries == probe.calls);
        cf_require(out[out_len] == '\0');
        cf_require(ptx_text_target(out, out_len, name, &v2) == 0 && v2 == arch);
        cf_require(ptx_retarget_version(out, out_len, &v2) == 0 && v2 == got_version);
        free(out);
    }
    cf_require(probe.calls <= PTX_RETARGET_PORTABLE_MAX_TRIES);
}

static inline int fuzz_ptx_text(const uint8_t *data, size_t size)
{
    size_t len = ptx_text_length(data, size);
    cf_require(len <= size);
    for (size_t i = len; i < size; i++)
        cf_require(data[i] == 0);
    cf_require(len == 0 || data[len - 1] != 0);
    int is_text = ptx_text_is_text(data, size);
    cf_require(is_text == 0 || is_text == 1);
    if (is_text)
        cf_require(memchr(data, 0, len) == NULL);
    ptt_target(data, len);
    ptt_target(data, size);
    ptt_retarget(data, size, len);
    if (size >= 2) {
        char name[PTX_TEXT_ARCH_NAME_MAX];
        uint32_t arch = 0;
        ptx_text_arch_from_cc(data[0], data[1] % 10, name, &arch);
        cf_require(memchr(name, 0, PTX_TEXT_ARCH_NAME_MAX) != NULL);
        if (data[0] < 100)
            ptt_check_arch(name, arch);
    }
    return 0;
}

#endif /* CLC_PTX_TEXT_TARGET_H */
