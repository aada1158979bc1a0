/*
 * pack_format.h — the constants of the pack format (docs/FORMAT.md):
 * header field offsets, codec numbers, record sizes and the limits a reader
 * enforces before it allocates anything. Internal to libclcpack.
 */
#ifndef CLCPACK_PACK_FORMAT_H
#define CLCPACK_PACK_FORMAT_H

#include <stdint.h>

/* "\x89CLCPK\r\n": the high byte and the CR LF show 7-bit or text-mode damage. */
#define PK_MAGIC "\x89" "CLCPK\r\n"
#define PK_MAGIC_SIZE 8

/* The format this library writes, and the newest min_reader_version it reads. */
#define PK_FORMAT_VERSION 1u
#define PK_READER_VERSION 5u
/* Version 2 appends the tuning list to entry records (version-1 readers
 * skip it, so min_reader_version stays 1). */
#define PK_FORMAT_VERSION_TUNING_LIST 2u
#define PK_TUNING_RECORD_SIZE 24u
/* Version 3 appends the kernel names of a program entry and the entry flags
 * after the tuning list (which it then always writes, maybe empty). */
#define PK_FORMAT_VERSION_PROGRAMS 3u
/* Version 4 appends the entry's target after the flags (offline entry
 * kinds 3-5, whose packs need a reader of version 4) and the Intel IP
 * version and device id after nv_cc_minor in device records. */
#define PK_FORMAT_VERSION_TARGETS 4u
#define PK_KIND_MAX 5u
/* Version 4 adds the zstd codecs and the dictionary table; a pack that uses
 * them needs a reader of version 4 (min_reader_version 4). */
#define PK_FORMAT_VERSION_ZSTD 4u

/* Version 5 adds the lookup table (a 128-byte header naming it); readers
 * of versions 1 to 4 skip it, so min_reader_version is not raised. */
#define PK_FORMAT_VERSION_LOOKUP 5u

/* Header, version 1. */
#define PK_HEADER_SIZE 64u
#define PK_OFF_MAGIC 0
#define PK_OFF_FORMAT_VERSION 8
#define PK_OFF_MIN_READER 10
#define PK_OFF_HEADER_SIZE 12
#define PK_OFF_FILE_SIZE 16
#define PK_OFF_INDEX_OFFSET 24
#define PK_OFF_INDEX_SIZE 32
#define PK_OFF_FLAGS 40
#define PK_OFF_CHECKSUM 44
#define PK_OFF_RESERVED 48
#define PK_OFF_WRITER_VERSION 48 /* u32, in the reserved bytes; 0 before it was written */

/* Header, version 5: the lookup table (docs/FORMAT.md, "The lookup table"). */
#define PK_HEADER_SIZE_LOOKUP 128u
#define PK_OFF_LOOKUP_OFFSET 64  /* u64, 0 for none */
#define PK_OFF_LOOKUP_SIZE 72    /* u32 */
#define PK_OFF_LOOKUP_CRC 76     /* u32 */
#define PK_OFF_HEADER_CRC 124    /* u32: bytes [0, 44) and [48, 124) */
#define PK_LOOKUP_DIR_MIN 100u   /* the directory's version-5 fields */
#define PK_LOOKUP_DIR_MAX 4096u  /* a reader reads the directory whole */
#define PK_LOOKUP_ROW 12u        /* u32 offset in the index, u32 length, u32 CRC-32 */
#define PK_LOOKUP_BUCKET 12u     /* u32 first, u32 count, u32 CRC-32 */

#define PK_FLAG_NO_SOURCES 1u

/* Codecs. */
#define PK_CODEC_STORED 0u
#define PK_CODEC_ZLIB 1u
#define PK_CODEC_XOR_ZLIB 2u
#define PK_CODEC_ZSTD 3u        /* format 4: one zstd frame */
#define PK_CODEC_ZSTD_DICT 4u   /* format 4: made with dictionary `base` */
#define PK_CODEC_ZSTD_PREFIX 5u /* format 4: made with entry `base` as prefix */
#define PK_CODEC_MAX PK_CODEC_ZSTD_PREFIX

/* The writer starts every stored entry blob at a multiple of this offset
 * (zero bytes before it), so that in a pack read into malloc'd memory it
 * lies as aligned as malloc would place it. Readers do not require it. */
#define PK_STORED_ALIGN 64u

/* The smallest record of each kind, used to cap counts before allocating. */
#define PK_COUNTS_RECORD_MIN 16u
#define PK_DEVICE_RECORD_MIN 88u
#define PK_SOURCE_RECORD_MIN 40u
#define PK_ENTRY_RECORD_MIN 104u
#define PK_DICT_RECORD_MIN 36u
#define PK_DEFINE_MIN 8u /* two empty str fields */

/* Limits against lying sizes. */
#define PK_MAX_RAW_SIZE (1ull << 30)
/* zlib's largest expansion is about 1032:1; a raw size beyond this bound for
 * its stored size cannot be a real zlib stream. */
#define PK_ZLIB_MAX_RATIO 1032ull
#define PK_ZLIB_MAX_SLACK 1024ull
/* A zstd block takes a 3-byte header and at least one byte and decodes to
 * at most 128 KiB: no frame expands by more than 32768:1. */
#define PK_ZSTD_MAX_RATIO 32768ull
/* Dictionaries (format 4): each at most 1 MiB, all of them at most 64 MiB,
 * so what an open pack keeps loaded is bounded whatever the index says. */
#define PK_MAX_DICT_SIZE ((uint64_t)1 << 20)
#define PK_MAX_DICT_TOTAL ((uint64_t)64 << 20)
/* A reader holds the index in memory and parses it into tables a few
 * times its size: larger ones are refused before they are read. */
#define PK_MAX_INDEX_SIZE ((uint64_t)256 << 20)

/* Delta bases (docs/FORMAT.md, "Checks on blobs"): a base's raw size is at
 * most PK_BASE_MAX_RATIO times its delta's, and the raw sizes along a chain
 * add up to at most CLCPACK_CHAIN_BUDGET times the last entry's. */
#define PK_BASE_MAX_RATIO 2u

#define PK_NVIDIA_VENDOR_ID 0x10DEu
#define PK_INTEL_VENDOR_ID 0x8086u
#define PK_AMD_VENDOR_ID 0x1002u

#endif /* CLCPACK_PACK_FORMAT_H */
