/*
 * codec.h — the blob codecs of docs/FORMAT.md: zlib streams decoded to an
 * exact declared size, the XOR delta, and zstd frames (format 4). Internal
 * to libclcpack. codec_read.c and codec_zstd.c are all a reader needs
 * (with the CRC-32 of crc32.h); codec_write.c and codec_zstd_write.c add
 * compression.
 */
#ifndef CLCPACK_CODEC_H
#define CLCPACK_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "clcpack.h"

/* Inflates the zlib stream src[0..n) into exactly raw bytes at dst.
 * CLCPACK_OK when the stream decodes to exactly raw bytes and ends exactly
 * at src+n; else CLCPACK_E_FORMAT (or E_NOMEM) with a reason in why. */
clcpack_status clcpk_inflate_exact(const uint8_t *src, size_t n, uint8_t *dst, size_t raw,
                                char *why, size_t why_cap);

/* Which inflater decodes zlib blobs: "libdeflate" when the library was
 * built with it (make LIBDEFLATE=1, the default where it is installed),
 * else "zlib". Both give the same bytes and the same errors. */
const char *clcpk_inflate_method(void);

/* dst[i] ^= base[i] for i < min(n, base_n). Both directions of the delta. */
void clcpk_xor_delta(uint8_t *dst, size_t n, const uint8_t *base, size_t base_n);

/* Whether this library decodes and writes zstd blobs (codecs 3 to 5):
 * built with zstd (make ZSTD=1, the default where it is installed). */
int clcpk_zstd_available(void);

/* How a library without zstd came about and how to get one with it, as
 * its messages say: the build of each system has its own switch
 * (docs/PLATFORMS.md for Windows). */
#ifdef _WIN32
#define CLCPK_NO_ZSTD_HOW "built without zstd (make windows without ZSTD_DIR); rebuild it with make windows ZSTD_DIR=<zstd prefix>"
#else
#define CLCPK_NO_ZSTD_HOW "built without zstd (make ZSTD=0); rebuild it with zstd"
#endif

/* A loaded zstd dictionary (docs/FORMAT.md, "Dictionary record"), shared
 * read-only by any number of threads. */
typedef struct clcpk_zdict clcpk_zdict;

/* Loads n dictionary bytes into *out. `owned` is the malloc'd buffer
 * holding them, which the call takes over whatever it returns, or NULL
 * when the bytes outlive the dictionary (a pack in memory). Raw content
 * (bytes not starting with zstd's dictionary magic number) is kept where
 * it lies and given to each frame as it is: no copy and no tables, so the
 * first load costs no fresh memory beyond the read. A zstd-format dictionary is
 * copied into zstd's own (ZSTD_DDict). CLCPACK_E_FORMAT when zstd refuses
 * them, E_NOMEM, or E_VERSION without zstd; why says which. */
clcpack_status clcpk_zdict_load(const uint8_t *bytes, size_t n, uint8_t *owned,
                                clcpk_zdict **out, char *why, size_t why_cap);
void clcpk_zdict_free(clcpk_zdict *d); /* NULL is a no-op */

/* Whether n bytes are a dictionary in zstd's format: they start with its
 * magic number (docs/FORMAT.md, "Dictionary record": zstd's ZSTD_dct_auto
 * rule); any other bytes are raw content. */
int clcpk_zdict_zstd_format(const uint8_t *bytes, size_t n);

/* Decoding contexts kept for the next decode, shared by the threads of one
 * open pack: zstd's context is 96 KB (ZSTD_sizeof_DCtx, zstd 1.5.4), made
 * and set up again for every link of a chain otherwise; keeping them took
 * a cold chain-of-four read from 0.92 to 0.84 ms (medians of 25 fresh
 * processes on the 2-core VM). NULL from clcpk_zpool_new without zstd or
 * memory: decodes then make their own. */
typedef struct clcpk_zpool clcpk_zpool;
clcpk_zpool *clcpk_zpool_new(void);
void clcpk_zpool_free(clcpk_zpool *pool); /* NULL is a no-op */

/* Decodes the zstd frame src[0..n) into exactly raw bytes at dst, with the
 * dictionary dict or the prefix prefix[0..prefix_n) (at most one of them;
 * both NULL: neither), with a context of pool (may be NULL). CLCPACK_OK
 * when src is exactly one frame that decodes to exactly raw bytes; else
 * E_FORMAT (sizes, not one frame), E_CHECKSUM (corrupt data), E_NOMEM or
 * E_VERSION (no zstd), why saying which. Thread-safe. */
clcpack_status clcpk_unzstd_exact(clcpk_zpool *pool, const uint8_t *src, size_t n, uint8_t *dst,
                                  size_t raw,
                                  const clcpk_zdict *dict, const uint8_t *prefix,
                                  size_t prefix_n, char *why, size_t why_cap);

/* "stored", "zlib", "XOR-delta + zlib", "zstd", "zstd with a dictionary",
 * "zstd with a prefix", or "unknown": what a codec number means. */
const char *clcpk_codec_name(uint32_t codec);

/* Deflates src (level 9) into a malloc'd buffer. CLCPACK_OK or E_NOMEM. */
clcpack_status clcpk_deflate(const uint8_t *src, size_t n, uint8_t **out, size_t *out_n);
/* The same at another zlib level: the writer ranks delta bases with a fast
 * level and compresses only the winner at level 9. */
clcpack_status clcpk_deflate_level(const uint8_t *src, size_t n, int level, uint8_t **out,
                                   size_t *out_n);


/* A zstd compression dictionary at one level (codec_zstd_write.c), shared
 * read-only by the encoding threads. NULL when out of memory or built
 * without zstd. */
typedef struct clcpk_zcdict clcpk_zcdict;
clcpk_zcdict *clcpk_zcdict_new(const uint8_t *dict, size_t n, int level);
void clcpk_zcdict_free(clcpk_zcdict *d); /* NULL is a no-op */

/* One zstd frame of src at `level` into a malloc'd *out, with the
 * dictionary dict or the prefix prefix[0..prefix_n) (at most one; both
 * NULL: neither), using and keeping the compression context *cctx (NULL
 * the first time; one per thread; freed with clcpk_zstd_cctx_free). The
 * frame has the content size and no dictionary ID or checksum.
 * CLCPACK_OK, E_NOMEM, E_LIMIT, or E_VERSION without zstd. */
clcpack_status clcpk_zstd_compress(void **cctx, const uint8_t *src, size_t n, int level,
                                   const clcpk_zcdict *dict, const uint8_t *prefix,
                                   size_t prefix_n, uint8_t **out, size_t *out_n);
void clcpk_zstd_cctx_free(void *cctx); /* NULL is a no-op */

/* Trains a dictionary of at most cap bytes into dict from n samples
 * (concatenated in `samples`, sizes in `sizes`), the one zstd's
 * ZDICT_trainFromBuffer makes, on up to `threads` threads (0 or 1: this
 * one). Its size, or 0 when the trainer gives none (too few or too small
 * samples). */
size_t clcpk_zdict_train(uint8_t *dict, size_t cap, const uint8_t *samples, const size_t *sizes,
                         unsigned n, unsigned threads);

#endif /* CLCPACK_CODEC_H */