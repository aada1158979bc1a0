/*
 * clcpack_write.h — libclcpack for tools that make packs: the writer, and
 * the atomic file writer and output-path rules it writes with.
 *
 * clc-pack is built on it; an application that only loads packs includes
 * clcpack.h alone and sees none of this. It includes clcpack_inspect.h
 * (what a pack holds beyond loading; that header includes clcpack.h), so a
 * tool that includes this header alone sees all three, as before 1.3. The
 * general contract written in clcpack.h holds here too (statuses,
 * clcpack_error, struct_size, what never changes); docs/API.md, "Three
 * headers". Only libclcpack has these functions: the load-only library,
 * libclcpack_load, has no writer (loader/README.md). The symbols are
 * exported and versioned like the rest (CLCPACK_1.0) and keep the same
 * stability promise.
 *
 * Threads: a writer (clcpack_writer *) belongs to one thread at a time;
 * every other function here is as thread-safe as its comment says.
 */
#ifndef CLCPACK_WRITE_H
#define CLCPACK_WRITE_H

#include "clcpack_inspect.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------- */
/* Writing                                                                 */

typedef struct clcpack_writer clcpack_writer; /* opaque, one thread at a time */

#define CLCPACK_WRITE_NO_SOURCES 1u /* store no kernel source (binary-only pack) */
/* The cubin for a device's own architecture (the build device's) is
 * compressed like every other binary in a zstd pack (the default codec),
 * and stored as it is in a zlib pack, where inflating it took longer than
 * the driver's load (docs/vendors/NVIDIA.md). CLCPACK_WRITE_COMPRESS_CUBINS
 * compresses it with zlib too; CLCPACK_WRITE_STORE_CUBINS stores it with
 * zstd too, for the last tenth of a millisecond at a cold start, at about
 * twice the size of a multi-architecture pack. Not both. */
#define CLCPACK_WRITE_COMPRESS_CUBINS 2u
/* Keep added binaries in an unlinked temporary file (in $TMPDIR, else
 * /tmp) instead of memory: writing a multi-GB pack then holds about the
 * largest few binaries and the index in memory, not every binary. */
#define CLCPACK_WRITE_SPOOL 4u
#define CLCPACK_WRITE_STORE_CUBINS 8u /* since 1.1; see CLCPACK_WRITE_COMPRESS_CUBINS */

/* A new, empty writer with CLCPACK_WRITE_* flags into *out, freed with
 * clcpack_writer_free. CLCPACK_E_INVALID_ARG for an unknown flag or a NULL
 * out; CLCPACK_E_NOMEM; CLCPACK_E_IO when the spool file cannot be made. */
CLCPACK_API clcpack_status clcpack_writer_new(uint32_t flags, clcpack_writer **out,
                                              clcpack_error *err);
/* Frees a writer and everything it holds. (No status: a release; NULL is a
 * no-op.) */
CLCPACK_API void clcpack_writer_free(clcpack_writer *w);

/* Which codecs a writer uses (docs/FORMAT.md, "How the writer chooses"). */
typedef enum clcpack_compression {
    CLCPACK_COMPRESSION_DEFAULT = 0, /* zstd when the library has it, else zlib */
    CLCPACK_COMPRESSION_ZLIB = 1,    /* zlib and XOR deltas (formats 1 to 3): packs
                                        every reader reads, byte-identical to
                                        those of libclcpack before format 4 */
    CLCPACK_COMPRESSION_ZSTD = 2     /* zstd with trained dictionaries and entries
                                        as prefixes (format 4): about a third of
                                        the zlib size; needs a reader of
                                        version 4 built with zstd */
} clcpack_compression;

/* 1 when this library can write (and read) c, else 0: ZSTD needs a library
 * built with zstd (make ZSTD=1, the default where libzstd is installed).
 * (No status: a predicate.) */
CLCPACK_API int clcpack_compression_available(clcpack_compression c);

/* Sets the codecs the writer uses (CLCPACK_COMPRESSION_DEFAULT until set).
 * CLCPACK_E_INVALID_ARG for a NULL writer or an unknown value;
 * CLCPACK_E_VERSION for ZSTD when the library was built without zstd. */
CLCPACK_API clcpack_status clcpack_writer_set_compression(clcpack_writer *w,
                                                          clcpack_compression c,
                                                          clcpack_error *err);

/* Most encoding threads clcpack_writer_set_threads accepts. */
#define CLCPACK_MAX_WRITE_THREADS 64

/* How many threads write_file and write_memory use to encode the pack
 * (ranking delta bases and compressing blobs): 0 or 1 (the default) encode
 * on the calling thread alone; more are capped at CLCPACK_MAX_WRITE_THREADS.
 * The threads live only inside a write call, which returns once they have
 * all ended, so the writer stays single-threaded for its caller. The bytes
 * written are the same for every thread count. CLCPACK_E_INVALID_ARG when w
 * is NULL. */
CLCPACK_API clcpack_status clcpack_writer_set_threads(clcpack_writer *w, unsigned n);

/* Since 1.3: a store of the encoder's deterministic results that the
 * caller keeps between writes (clc-pack keeps one on disk beside its
 * variant cache, docs/CACHE.md): the trained dictionaries and each blob's
 * final zstd frame, so that a pack of binaries encoded before is written
 * by copying instead of compressing. Each result is named by a key of
 * CLCPACK_BLOB_KEY_SIZE bytes, the SHA-256 of everything that decides its
 * bytes (the library's encoder version, zstd's version, the codec and
 * level, the raw bytes' and the dictionary's or base's SHA-256), so equal
 * keys mean equal bytes; the pack is byte-identical with or without the
 * store. Only zstd packs use it. The callbacks are called on the thread
 * that calls write_file or write_memory, never at once, and only during
 * that call. `what` names the result for messages ("entry 3: KERNEL ...",
 * "dictionary 1").
 *   get: the bytes stored under key in *data (*size bytes; memory the
 *        caller owns until release), 1; 0 when there are none.
 *   release: gives back what get returned (may be NULL: nothing to do).
 *   put: stores size bytes under key (copies them; failures are the
 *        caller's to note, the write goes on).
 *   refused: what get returned for key failed the library's own check
 *        (a frame that does not decode to the raw bytes, a dictionary of a
 *        size that cannot be); the result is computed again and put. May
 *        be NULL.
 * A NULL cache, or one with get or put NULL, turns the store off. The
 * struct is copied. CLCPACK_E_INVALID_ARG when w is NULL. */
#define CLCPACK_BLOB_KEY_SIZE 32
typedef struct clcpack_blob_cache {
    void *ctx;
    int (*get)(void *ctx, const unsigned char *key, const char *what, const void **data,
               size_t *size);
    void (*release)(void *ctx, const void *data);
    void (*put)(void *ctx, const unsigned char *key, const char *what, const void *data,
                size_t size);
    void (*refused)(void *ctx, const unsigned char *key, const char *what, const char *why);
} clcpack_blob_cache;
CLCPACK_API clcpack_status clcpack_writer_set_blob_cache(clcpack_writer *w,
                                                         const clcpack_blob_cache *cache);

/* Adds a device (an identical one already added is reused); *index gets its
 * index in the device table (index may be NULL). dev->struct_size is set by
 * the caller. CLCPACK_E_INVALID_ARG for a NULL argument, a struct_size too
 * small or has_uuid other than 0 and 1; CLCPACK_E_NOMEM. */
CLCPACK_API clcpack_status clcpack_writer_add_device(clcpack_writer *w,
                                                     const clcpack_device_info *dev,
                                                     uint32_t *index, clcpack_error *err);

/* Adds a program source (the full text handed to clCreateProgramWithSource,
 * includes already folded in). Identical text is stored once. With
 * CLCPACK_WRITE_NO_SOURCES, *index is CLCPACK_NONE (index may be NULL).
 * CLCPACK_E_INVALID_ARG for a NULL w, an empty name or an empty text;
 * CLCPACK_E_LIMIT for a text beyond the format's size limit;
 * CLCPACK_E_NOMEM; CLCPACK_E_IO (spool). */
CLCPACK_API clcpack_status clcpack_writer_add_source(clcpack_writer *w, const char *name,
                                                     const void *text, size_t size,
                                                     uint32_t *index, clcpack_error *err);

/* One entry to add (input, versioned: struct_size). */
typedef struct clcpack_entry_spec {
    size_t struct_size;         /* sizeof(clcpack_entry_spec) */
    const char *kernel;
    const char *family;         /* a group label clcpack_best_variant answers
                                   to (clc-pack: the manifest's family); may
                                   be NULL */
    const char *options;        /* exact build options; may be NULL for "" */
    const clcpack_define *defines;
    size_t define_count;
    uint32_t wg[3];
    uint32_t device;            /* from clcpack_writer_add_device */
    uint32_t source;            /* from clcpack_writer_add_source, or CLCPACK_NONE */
    clcpack_binary_kind kind;
    uint32_t arch;
    const void *binary;
    size_t binary_size;
    /* Since format 3 (a spec whose struct_size ends before these reads them
     * as 0): the kernels a program entry's binary holds (any order; stored
     * sorted, without repeats) and CLCPACK_ENTRY_* flags. */
    const char *const *kernel_names;
    size_t kernel_name_count;
    uint32_t flags;
    /* Since format 4 (read as NULL when struct_size ends before it): the
     * target of a kind 3-5 entry, required for them (it must agree with
     * arch: clcpack_target_arch); NULL or "" for kinds 0-2. */
    const char *target;
} clcpack_entry_spec;

/* Copies the entry. Adding the same (key, device, kind, arch) twice with the
 * same bytes is a no-op; with other bytes it is CLCPACK_E_CONFLICT.
 * CLCPACK_E_INVALID_ARG names the field of spec that is wrong. */
CLCPACK_API clcpack_status clcpack_writer_add_entry(clcpack_writer *w,
                                                    const clcpack_entry_spec *spec,
                                                    clcpack_error *err);

/* Records a timing of an added entry (found by spec's key fields, device,
 * kind and arch; CLCPACK_E_NOT_FOUND when none was added) in the format-1
 * fields alone, which do not record a run-time value (docs/TUNING.md). */
CLCPACK_API clcpack_status clcpack_writer_set_tuning(clcpack_writer *w,
                                                     const clcpack_entry_spec *spec,
                                                     uint32_t width, uint32_t height,
                                                     uint32_t runs, uint64_t median_ns,
                                                     clcpack_error *err);

/* Adds a timing to an added entry's tuning list (a record for the same
 * runtime_value is replaced). Also sets the entry's format-1 tuning fields
 * to the list's lowest runtime_value, for readers that know only those.
 * CLCPACK_E_INVALID_ARG when t->runs is 0; CLCPACK_E_NOT_FOUND as above. */
CLCPACK_API clcpack_status clcpack_writer_add_tuning(clcpack_writer *w,
                                                     const clcpack_entry_spec *spec,
                                                     const clcpack_tuning *t,
                                                     clcpack_error *err);

/* Encodes the pack. The same inputs, added in any order, give the same bytes.
 * write_file writes it with clcpack_write_file_atomic (below): the
 * output-path rules apply, and path holds the old pack or the new one, never
 * a partial one. write_memory sets *data to a malloc'd buffer the caller
 * frees with clcpack_free, and *size to its size. */
CLCPACK_API clcpack_status clcpack_writer_write_file(clcpack_writer *w, const char *path,
                                                     clcpack_error *err);
CLCPACK_API clcpack_status clcpack_writer_write_memory(clcpack_writer *w, void **data,
                                                       size_t *size, clcpack_error *err);
/* Frees what clcpack_writer_write_memory returned (the library's own
 * allocator, whatever the application's is). (No status: a release; NULL
 * is a no-op.) */
CLCPACK_API void clcpack_free(void *data);

/* ---------------------------------------------------------------------- */
/* Writing files                                                           */

/* The output-path rules, the same for every file the library or clc-pack
 * writes (docs/ROBUSTNESS.md, "Output paths"). path may name:
 *  - nothing yet: a new regular file is created, if its folder exists and
 *    is writable;
 *  - a regular file the caller may write (it has a write bit and access(2)
 *    with the effective ids allows writing): it is replaced.
 * Everything else is refused with CLCPACK_E_IO and a message naming path
 * and what is there: a symbolic link (even a dangling one; nothing is ever
 * written through a link), a folder, a device, a FIFO, a socket, a
 * read-only file (also for root), a missing or unwritable folder. An empty
 * or NULL path is CLCPACK_E_INVALID_ARG. Writes nothing; a caller checks
 * before long work whose result would then have nowhere to go. Thread-safe. */
CLCPACK_API clcpack_status clcpack_check_output_path(const char *path, clcpack_error *err);

/* Writes size bytes of data to path atomically: readers and a crash see
 * the old file or the new one, never a partial one.
 *  - path must pass clcpack_check_output_path (checked first, and again
 *    just before the rename);
 *  - the bytes go to a new temporary file beside path named
 *    "<path>.tmp.<pid>.<6 random characters>", created with O_EXCL;
 *    temporary files of that form left by writers that were killed (no
 *    process with that pid) are removed first;
 *  - its mode is 0666 less the umask, as for any new file, or, when path
 *    is replaced, the permission bits path had;
 *  - it is fsync'ed, renamed over path, and the folder is fsync'ed;
 *  - on every failure the temporary file is removed and path is untouched
 *    (err says which step failed, naming the path once).
 * flags must be 0 (reserved). data may be NULL when size is 0. Thread-safe
 * for different paths; two writers of one path leave one of the two files. */
CLCPACK_API clcpack_status clcpack_write_file_atomic(const char *path, const void *data,
                                                     size_t size, uint32_t flags,
                                                     clcpack_error *err);

#ifdef __cplusplus
}
#endif
#endif /* CLCPACK_WRITE_H */
