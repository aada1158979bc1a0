/*
 * remote_record_target.h — the fuzz target over what a build worker reads
 * from a remote cache server (rcache_record.h, docs/REMOTE_CACHE.md): the
 * input's first byte chooses the record (even) or the action result (odd)
 * decoder for the rest. A record that decodes has its limits kept (key
 * text, forms, kinds, no form twice) and encodes back into a record that
 * decodes to the same fields; an action result that decodes names 64
 * lowercase hex digits and a size in range, and its encoding decodes to
 * the same. Shared by fuzz_remote_record.c and tests/unit/test_fuzz_targets.c.
 */
#ifndef CLC_REMOTE_RECORD_TARGET_H
#define CLC_REMOTE_RECORD_TARGET_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli_fuzz.h"
#include "rcache_record.h"

static inline int rrt_same(const rcache_record *a, const rcache_record *b)
{
    if (a->key_len != b->key_len || memcmp(a->key_text, b->key_text, a->key_len) != 0 ||
        strcmp(a->signature, b->signature) != 0 || strcmp(a->note, b->note) != 0 ||
        a->n_kernel_names != b->n_kernel_names || a->n_forms != b->n_forms)
        return 0;
    for (size_t i = 0; i < a->n_kernel_names; i++)
        if (strcmp(a->kernel_names[i], b->kernel_names[i]) != 0)
            return 0;
    for (size_t i = 0; i < a->n_forms; i++)
        if (a->forms[i].kind != b->forms[i].kind || a->forms[i].arch != b->forms[i].arch ||
            a->forms[i].size != b->forms[i].size ||
            memcmp(a->forms[i].data, b->forms[i].data, a->forms[i].size) != 0)
            return 0;
    return 1;
}

static inline int fuzz_remote_record(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const uint8_t *p = data + 1;
    size_t n = size - 1;
    char err[RCACHE_RECORD_ERR_MAX];
    err[0] = '\0';
    if (data[0] % 2 == 0) {
        rcache_record r;
        if (rcache_record_decode(p, n, &r, err) != 0) {
            cf_require(err[0] != '\0' && memchr(err, 0, sizeof err) != NULL);
            cf_require(r.n_forms == 0 && r.key_text == NULL);
            return 0;
        }
        cf_require(r.key_len <= RCACHE_RECORD_KEY_MAX && strlen(r.key_text) == r.key_len);
        cf_require(r.n_forms >= 1 && r.n_forms <= BUILD_VARIANT_MAX_FORMS);
        for (size_t i = 0; i < r.n_forms; i++) {
            cf_require((unsigned)r.forms[i].kind <= CLCPACK_KIND_CUBIN && r.forms[i].size > 0);
            for (size_t k = 0; k < i; k++)
                cf_require(r.forms[k].kind != r.forms[i].kind ||
                           r.forms[k].arch != r.forms[i].arch);
        }
        strbuf b;
        sb_init(&b);
        rcache_record_encode(&r, &b);
        if (!b.failed) {
            rcache_record back;
            cf_require(rcache_record_decode(b.data, b.len, &back, err) == 0);
            cf_require(rrt_same(&r, &back));
            rcache_record_free(&back);
        }
        sb_free(&b);
        rcache_record_free(&r);
        return 0;
    }
    char hash[RCACHE_KEY_HEX_SIZE + 1];
    hash[RCACHE_KEY_HEX_SIZE] = 'Z';
    uint64_t rsize = 0;
    if (rcache_record_ac_decode(p, n, hash, &rsize, err) != 0) {
        cf_require(err[0] != '\0');
        cf_require(hash[RCACHE_KEY_HEX_SIZE] == 'Z');
        return 0;
    }
    cf_require(hash[RCACHE_KEY_HEX_SIZE] == 'Z' && rcache_key_is_hex_digest(hash, strlen(hash)));
    cf_require(rsize >= 1 && rsize <= RCACHE_RECORD_OBJECT_MAX);
    unsigned char ac[RCACHE_RECORD_AC_MAX];
    size_t len = rcache_record_ac_encode(hash, rsize, ac);
    char back[RCACHE_KEY_HEX_SIZE];
    uint64_t bsize = 0;
    cf_require(rcache_record_ac_decode(ac, len, back, &bsize, err) == 0);
    cf_require(strcmp(back, hash) == 0 && bsize == rsize);
    return 0;
}

#endif /* CLC_REMOTE_RECORD_TARGET_H */
