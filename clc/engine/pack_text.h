/*
 * pack_text.h — short texts about a pack's records, shared by list, verify
 * and extract: kind and codec names, an entry's one-line label.
 */
#ifndef CLC_PACK_TEXT_H
#define CLC_PACK_TEXT_H

#include <stddef.h>

#include "clcpack_write.h"

/* A string from a pack, made safe to print on a terminal: control bytes
 * (ESC, CR, LF, ...; also the C1 controls U+0080-U+009F and bytes that are
 * not valid UTF-8) become "\x1b" style escapes, a backslash becomes "\\";
 * valid UTF-8 text is kept. Cut at cap (never inside an escape). Every
 * pack-sourced string printed in text mode goes through it (--json has its
 * own escaping). Returns buf. */
const char *pack_text_esc(const char *s, char *buf, size_t cap);

/* "native", "ptx", "cubin" or "kind N". Returns buf. */
const char *pack_text_kind_name(clcpack_binary_kind k, char *buf, size_t cap);
/* "stored", "zlib", "xor-delta", "zstd", "zstd-dict", "zstd-prefix" or
 * "codec N". Returns buf. */
const char *pack_text_codec_name(uint32_t codec, char *buf, size_t cap);
/* --codec NAME: "zlib" or "zstd" into *out. 0, -1 for any other name
 * (msg says so), -2 for zstd in a clc-pack built without it (msg says
 * so); msg gets one line without the "clc-pack: " prefix. */
int pack_text_parse_codec(const char *name, clcpack_compression *out, char *msg, size_t cap);
/* "16x16", "64", or "-" for no work-group. */
void pack_text_wg(const uint32_t wg[3], char *buf, size_t cap);
/* "FILTER_WIDTH=5,HALF_FILTER_SIZE=2" or "-" (escaped with pack_text_esc). */
void pack_text_defines(const clcpack_entry_info *e, char *buf, size_t cap);
/* "Convolve_Def FILTER_WIDTH=5 wg=16x16 native" (kernel, defines, wg, form;
 * escaped with pack_text_esc). */
void pack_text_entry_label(const clcpack_entry_info *e, char *buf, size_t cap);
/* "Convolve_Def FILTER_WIDTH=5 wg=16x16": the key alone (escaped). */
void pack_text_key_label(const clcpack_entry_info *e, char *buf, size_t cap);
/* The key of e; points into e. */
clcpack_key pack_text_key(const clcpack_entry_info *e);

#endif /* CLC_PACK_TEXT_H */
