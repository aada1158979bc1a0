/*
 * clcpack.h — the one public header of libclcpack.
 *
 * libclcpack reads .clcpack files (packs of ahead-of-time compiled OpenCL
 * program binaries, with the sources and options needed to rebuild them) and
 * turns an entry into a built cl_program without running the driver's JIT.
 * It also holds the writer that clc-pack uses to make packs.
 *
 * Contract for every function below:
 *  - it never prints, never exits, never aborts on bad input;
 *  - it returns a clcpack_status; CLCPACK_OK (0) means success;
 *  - where it takes a `clcpack_error *err`, that may be NULL; when it is not
 *    NULL and the call fails, err->status and err->message say what went
 *    wrong and where (which field, which entry, which offset);
 *  - an open pack (clcpack *) is immutable but for a locked cache of device
 *    fingerprints: every read-only call, clcpack_create_program and
 *    clcpack_create_kernel may run concurrently from any number of threads
 *    on the same handle. A writer (clcpack_writer *) is single-threaded.
 *  - the library keeps no global state.
 *
 * The pack format is described in docs/FORMAT.md.
 */
#ifndef CLCPACK_H
#define CLCPACK_H

#include <stddef.h>
#include <stdint.h>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(CLCPACK_BUILDING) && defined(__GNUC__)
#define CLCPACK_API __attribute__((visibility("default")))
#else
#define CLCPACK_API
#endif

#define CLCPACK_VERSION_MAJOR 0
#define CLCPACK_VERSION_MINOR 1
#define CLCPACK_VERSION_PATCH 0
#define CLCPACK_VERSION_NUMBER \
    (CLCPACK_VERSION_MAJOR * 10000 + CLCPACK_VERSION_MINOR * 100 + CLCPACK_VERSION_PATCH)

/* The run-time version of the library, as CLCPACK_VERSION_NUMBER. */
CLCPACK_API unsigned clcpack_version(void);

/* Status values. The numbers never change once released. */
typedef enum clcpack_status {
    CLCPACK_OK = 0,
    CLCPACK_E_IO = 1,            /* a file could not be opened, read, written or renamed */
    CLCPACK_E_FORMAT = 2,        /* the bytes are not a well-formed pack */
    CLCPACK_E_VERSION = 3,       /* the pack needs a newer reader */
    CLCPACK_E_CHECKSUM = 4,      /* a checksum does not match its bytes */
    CLCPACK_E_LIMIT = 5,         /* a declared size or count is beyond what is plausible */
    CLCPACK_E_NOMEM = 6,         /* an allocation failed */
    CLCPACK_E_INVALID_ARG = 7,   /* the caller passed a bad argument */
    CLCPACK_E_NOT_FOUND = 8,     /* no entry has that key */
    CLCPACK_E_OPENCL = 9,        /* an OpenCL query the library needs failed */
    CLCPACK_E_NO_USABLE_FORM = 10, /* the key exists, but no form of it could be
                                      loaded on this device (see the report) */
    CLCPACK_E_BUILD = 11,        /* the stored source failed to build here */
    CLCPACK_E_CONFLICT = 12,     /* writer: an entry with the same key, device and
                                    form was already added with other bytes */
    CLCPACK_E_BUFFER = 13,       /* a caller buffer is too small (size query) */
    CLCPACK_E_AMBIGUOUS = 14     /* a key's defines are part of more than one
                                    entry's define set (the message names them) */
} clcpack_status;

/* A short, static description of a status value. Never NULL. */
CLCPACK_API const char *clcpack_strerror(clcpack_status s);

#define CLCPACK_MESSAGE_MAX 1024
typedef struct clcpack_error {
    clcpack_status status;
    char message[CLCPACK_MESSAGE_MAX]; /* NUL-terminated, one line */
} clcpack_error;

/* ---------------------------------------------------------------------- */
/* Devices                                                                 */

#define CLCPACK_FP_STR 256
/* What identifies a device and its driver (docs/FORMAT.md, "device record").
 * Strings are NUL-terminated and truncated to CLCPACK_FP_STR-1 bytes. */
typedef struct clcpack_device_info {
    char platform_name[CLCPACK_FP_STR];
    char platform_version[CLCPACK_FP_STR];
    char device_name[CLCPACK_FP_STR];
    char device_version[CLCPACK_FP_STR];
    char driver_version[CLCPACK_FP_STR];
    char opencl_c_version[CLCPACK_FP_STR];
    uint64_t device_type;       /* CL_DEVICE_TYPE_* bits */
    uint32_t vendor_id;         /* CL_DEVICE_VENDOR_ID */
    uint32_t address_bits;      /* CL_DEVICE_ADDRESS_BITS */
    uint32_t has_uuid;          /* 1 when cl_khr_device_uuid gave the two UUIDs */
    uint8_t device_uuid[16];
    uint8_t driver_uuid[16];
    uint32_t nv_cc_major;       /* NVIDIA compute capability; 0.0 when not NVIDIA */
    uint32_t nv_cc_minor;
    /* Since format 4: CL_DEVICE_IP_VERSION_INTEL (a cl_version) and
     * CL_DEVICE_ID_INTEL (the PCI device id) of a device that lists
     * cl_intel_device_attribute_query; 0 otherwise. */
    uint32_t intel_ip_version;
    uint32_t intel_device_id;
} clcpack_device_info;

/* Fills *out with the fingerprint of an OpenCL device. */
CLCPACK_API clcpack_status clcpack_device_query(cl_device_id dev, clcpack_device_info *out,
                                                clcpack_error *err);

/* 1 when two fingerprints are identical in every field, else 0. */
CLCPACK_API int clcpack_device_equal(const clcpack_device_info *a, const clcpack_device_info *b);

/* 1 when a native binary built for device a may be given to device b: every
 * field equal except the device UUID, which names one physical card (two
 * cards of the same model, driver and driver UUID run the same binaries). */
CLCPACK_API int clcpack_device_binary_compatible(const clcpack_device_info *a,
                                                 const clcpack_device_info *b);

/* Writes into buf a one-line description of the first field that differs
 * between the pack's fingerprint and this device's, e.g.
 * "driver version differs: 580.159.04 in pack, 575.57 here". */
CLCPACK_API void clcpack_device_describe_difference(const clcpack_device_info *in_pack,
                                                    const clcpack_device_info *here,
                                                    char *buf, size_t cap);

/* ---------------------------------------------------------------------- */
/* Entries and keys                                                        */

typedef enum clcpack_binary_kind {
    CLCPACK_KIND_NATIVE = 0, /* whatever CL_PROGRAM_BINARIES returned (non-NVIDIA) */
    CLCPACK_KIND_PTX = 1,    /* NVIDIA's CL_PROGRAM_BINARIES: PTX text, no trailing NUL */
    CLCPACK_KIND_CUBIN = 2,  /* ptxas output for sm_<arch> */
    /* Offline targets (format 4, docs/FORMAT.md "Offline targets"): made
     * without the device by its vendor's offline compiler; `target` names
     * the target as that compiler spells it. */
    CLCPACK_KIND_INTEL = 3,  /* ocloc's binary for one Intel GPU; arch: its IP
                                version as a cl_version */
    CLCPACK_KIND_AMDGCN = 4, /* an AMDGPU code object for one gfx target ID */
    CLCPACK_KIND_SPIRV = 5   /* a SPIR-V module (clCreateProgramWithIL) */
} clcpack_binary_kind;

/* The most bytes of an entry's target name (docs/FORMAT.md). */
#define CLCPACK_TARGET_MAX 63

/* The arch number of an offline target (docs/FORMAT.md, "Offline
 * targets"): for CLCPACK_KIND_AMDGCN a gfx target ID ("gfx1030",
 * "gfx90a:sramecc+:xnack-"), for CLCPACK_KIND_SPIRV "SPIR-V_1.2".
 * CLCPACK_E_INVALID_ARG for another kind (an Intel target's arch is its IP
 * version, which only ocloc knows) or a name that does not parse. */
CLCPACK_API clcpack_status clcpack_target_arch(clcpack_binary_kind kind, const char *target,
                                               uint32_t *arch);

typedef struct clcpack_define {
    const char *name;  /* e.g. "FILTER_WIDTH" */
    const char *value; /* e.g. "5"; "" for a bare -DNAME */
} clcpack_define;

/* What an application asks for. `kernel` is a kernel name or, for an entry
 * that holds a whole program, the program's name or the name of any kernel
 * it holds. Defines may be given in any order; the key compares the full
 * define set (no more, no fewer). wg is the variant's work-group (local)
 * size; {0,0,0} when the variant has none. */
typedef struct clcpack_key {
    const char *kernel;
    const clcpack_define *defines;
    size_t define_count;
    uint32_t wg[3];
} clcpack_key;

#define CLCPACK_NONE 0xFFFFFFFFu

/* One entry of an open pack. Pointers point into the pack's memory and stay
 * valid until clcpack_close. */
typedef struct clcpack_entry_info {
    const char *kernel;
    const char *family;         /* kernel family from the manifest ("" if none) */
    const char *options;        /* the exact build options */
    size_t define_count;
    const clcpack_define *defines; /* sorted by name */
    uint32_t wg[3];
    uint32_t device;            /* index into the device table */
    uint32_t source;            /* index into the source table, or CLCPACK_NONE */
    clcpack_binary_kind kind;
    uint32_t arch;              /* sm number (90 for sm_90) for PTX and cubin; else 0 */
    uint32_t codec;             /* docs/FORMAT.md, "codecs" */
    uint32_t base;              /* delta base entry, or CLCPACK_NONE */
    uint64_t raw_size;
    uint64_t stored_size;
    uint32_t raw_crc32;
    /* Tuning result: 0 runs means not measured. */
    uint32_t tune_runs;
    uint32_t tune_width, tune_height;
    uint64_t tune_median_ns;
    /* A program entry (format 3): `kernel` is the program's name and these
     * are the kernels its binary holds, sorted; a key names the program or
     * any of them. 0 and NULL for an entry of one kernel. */
    size_t kernel_name_count;
    const char *const *kernel_names;
    uint32_t flags;             /* CLCPACK_ENTRY_* */
    const char *target;         /* format 4: the offline target ("tgllp",
                                   "gfx1030", "SPIR-V_1.0"); "" for kinds 0-2 */
} clcpack_entry_info;

/* clcpack_entry_info.flags, clcpack_entry_spec.flags */
#define CLCPACK_ENTRY_DEFAULT 1u /* a default variant: clcpack_best_variant's
                                    choice when nothing was timed */

typedef struct clcpack_source_info {
    const char *name;           /* e.g. "amd_convolve.cl" */
    uint64_t raw_size;
    uint64_t stored_size;
    uint32_t raw_crc32;
} clcpack_source_info;

/* A dictionary of a format-4 pack (docs/FORMAT.md, "Dictionary record"):
 * what many of its blobs share, which zstd codes them against. An entry or
 * source of codec 4 names its dictionary (entry: `base`). */
typedef struct clcpack_dictionary_info {
    uint32_t codec;             /* 0 stored, 3 zstd */
    uint64_t raw_size;
    uint64_t stored_size;
    uint32_t raw_crc32;
} clcpack_dictionary_info;

/* One timing of an entry (clc-pack --tune; docs/TUNING.md). A kernel with
 * FILTER_WIDTH compiled in has one, at that width; a kernel that takes the
 * filter width as an argument may have one per width it was timed at. */
typedef struct clcpack_tuning {
    uint32_t filter_width;      /* the filter width the time is for; 0 when
                                   the pack does not say (v1 field only, and
                                   the entry has no FILTER_WIDTH define) */
    uint32_t width, height;     /* problem size (poly: width*height inputs) */
    uint32_t runs;              /* timed runs, >= 1 */
    uint64_t median_ns;         /* median kernel time (event profiling) */
} clcpack_tuning;

/* ---------------------------------------------------------------------- */
/* Reading                                                                 */

typedef struct clcpack clcpack; /* opaque */

/* Opens a pack file: checks its header before reading further (a file
 * that is not a pack costs one 64-byte read), then reads the index alone
 * and checks the header and index checksum and every offset and size in
 * it. Only regular files are opened (a FIFO or device is refused without
 * blocking). The file stays open until clcpack_close: a blob is read
 * (pread) when it is decoded, and its bytes checked (CRC-32) each time, so
 * opening costs reads and memory in proportion to the index, whatever the
 * pack's size, and a load reads only its entry's blobs. A pack replaced by
 * rename while open is not seen (the handle keeps reading the old file); a
 * file cut short under an open handle makes the loads that read past the
 * cut fail with CLCPACK_E_IO, and bytes rewritten in place fail their
 * CRC-32 (clc-pack and clcpack_writer_write_file always write by rename). */
CLCPACK_API clcpack_status clcpack_open_file(const char *path, clcpack **out, clcpack_error *err);

/* Size of a SHA-256 digest in bytes. */
#define CLCPACK_SHA256_SIZE 32

/* As clcpack_open_file, for a pack the application pins: the whole file
 * is read into memory and its SHA-256 compared with sha256 before anything
 * else; a different digest is CLCPACK_E_CHECKSUM with both digests in the
 * message. CRCs catch damage; a pin also catches a pack that someone
 * replaced on purpose (docs/FORMAT.md, "Threat model"). */
CLCPACK_API clcpack_status clcpack_open_file_pinned(const char *path,
                                                    const uint8_t sha256[CLCPACK_SHA256_SIZE],
                                                    clcpack **out, clcpack_error *err);

/* SHA-256 (FIPS 180-4) of size bytes at data (data may be NULL when size
 * is 0) into out. Thread-safe. */
CLCPACK_API void clcpack_digest_sha256(const void *data, size_t size,
                                       uint8_t out[CLCPACK_SHA256_SIZE]);

/* SHA-256 of the whole open pack's bytes, as clcpack_open_file_pinned
 * compares it. CLCPACK_E_INVALID_ARG when p or out is NULL. */
CLCPACK_API clcpack_status clcpack_pack_sha256(const clcpack *p,
                                               uint8_t out[CLCPACK_SHA256_SIZE]);

/* Opens a pack held in memory (for example embedded in the application).
 * The bytes are not copied: they must stay valid and unchanged until
 * clcpack_close. Same checks as clcpack_open_file. */
CLCPACK_API clcpack_status clcpack_open_memory(const void *data, size_t size, clcpack **out,
                                               clcpack_error *err);

/* Frees the handle, and releases the devices clcpack_create_program kept
 * a reference to (it retains each device it loads for, up to 8, with their
 * fingerprints, so that later loads skip the device queries). NULL is a
 * no-op. */
CLCPACK_API void clcpack_close(clcpack *p);

/* The CLCPACK_VERSION_NUMBER of the library that wrote the pack (header
 * bytes 48-51, docs/FORMAT.md); 0 for a pack written before it was kept. */
CLCPACK_API uint32_t clcpack_writer_version(const clcpack *p);

CLCPACK_API size_t clcpack_device_count(const clcpack *p);
CLCPACK_API clcpack_status clcpack_get_device(const clcpack *p, size_t i, clcpack_device_info *out);
CLCPACK_API size_t clcpack_source_count(const clcpack *p);
CLCPACK_API clcpack_status clcpack_get_source(const clcpack *p, size_t i, clcpack_source_info *out);
CLCPACK_API size_t clcpack_entry_count(const clcpack *p);
CLCPACK_API clcpack_status clcpack_get_entry(const clcpack *p, size_t i, clcpack_entry_info *out);
/* Dictionaries (format 4; 0 in older packs). */
CLCPACK_API size_t clcpack_dictionary_count(const clcpack *p);
CLCPACK_API clcpack_status clcpack_get_dictionary(const clcpack *p, size_t i,
                                                  clcpack_dictionary_info *out);

/* Decodes entry i's binary (or source i) into buf, after checking its CRC-32.
 * Two-call size query: with buf NULL (or cap too small) it sets *size to the
 * raw size and returns CLCPACK_OK (or CLCPACK_E_BUFFER). Decoding work is
 * bounded: a delta chain is at most CLCPACK_MAX_DELTA_CHAIN long and
 * decodes at most CLCPACK_CHAIN_BUDGET times the entry's raw size in all
 * (docs/FORMAT.md), plus, once per open pack, the dictionary it is coded
 * with (at most 1 MiB; kept until clcpack_close). The open pack keeps a few
 * recently decoded bases (thread-safe), so reading entries in order
 * (verify, merge) decodes each blob about once. A library built without
 * zstd (make ZSTD=0) refuses zstd blobs (codecs 3-5) with
 * CLCPACK_E_VERSION naming the codec. */
#define CLCPACK_MAX_DELTA_CHAIN 8
#define CLCPACK_CHAIN_BUDGET 10
CLCPACK_API clcpack_status clcpack_read_binary(const clcpack *p, size_t entry, void *buf,
                                               size_t cap, size_t *size, clcpack_error *err);
CLCPACK_API clcpack_status clcpack_read_source(const clcpack *p, size_t source, void *buf,
                                               size_t cap, size_t *size, clcpack_error *err);

/* Finds the entries whose key equals *key, every device and form. Writes up
 * to cap indices (ascending) and sets *count to how many matched.
 * A key may give only the axis defines (FILTER_WIDTH=5) and leave out the
 * ones derived from them (HALF_FILTER_SIZE=2): when no entry has exactly
 * the key's define set, the entries (same kernel and wg) whose define set
 * holds every define of the key, with its value, match, provided they all
 * have one define set; when they have several, CLCPACK_E_AMBIGUOUS names
 * them. Returns CLCPACK_E_NOT_FOUND when none matched. The same holds for
 * clcpack_create_program and clcpack_create_kernel. */
CLCPACK_API clcpack_status clcpack_find(const clcpack *p, const clcpack_key *key, size_t *indices,
                                        size_t cap, size_t *count, clcpack_error *err);

/* Timings of entry `entry`, in increasing filter_width. A pack written
 * with the tuning list (format version 2) gives its records; an older pack
 * with the v1 tuning fields set gives one record whose filter_width is the
 * entry's FILTER_WIDTH define (0 without one). 0 for an unknown entry. */
CLCPACK_API size_t clcpack_entry_tuning_count(const clcpack *p, size_t entry);
CLCPACK_API clcpack_status clcpack_get_entry_tuning(const clcpack *p, size_t entry, size_t k,
                                                    clcpack_tuning *out);

/* ---------------------------------------------------------------------- */
/* Choosing the fastest variant                                            */

/* The variant clcpack_best_variant picked. Pointers point into the pack and
 * stay valid until clcpack_close. */
typedef struct clcpack_choice {
    uint32_t entry;             /* an entry of the key (any device and form) */
    const char *kernel;
    const clcpack_define *defines; /* the entry's full define set */
    size_t define_count;
    uint32_t wg[3];
    int width_argument;         /* 1: the kernel takes the constrained run-time
                                   value as an argument (it lacks that define) */
    int measured;               /* 1: the fastest timing; 0: the default rule */
    uint32_t tuned_device;      /* device the timing is from (measured only) */
    clcpack_tuning timing;      /* the winner's timing (measured only) */
    uint32_t candidates;        /* timed variants compared (measured only) */
    uint32_t runner_up_entry;   /* the second best, or CLCPACK_NONE */
    uint64_t runner_up_ns;      /* its median; 0 when there is none */
    char why[512];              /* one line: what was compared, or which
                                   default rule applied and why */
} clcpack_choice;

/* Picks the variant an application should use on the device `here` (from
 * clcpack_device_query), docs/TUNING.md. Candidates are the entries that
 * answer to `name` (a kernel, a program or a family name; NULL: every
 * entry) and serve every constraint: the entry has that define with that
 * value (FILTER_WIDTH=7, or TS=32 and WPT=8), or, for the constraint named
 * `runtime_define` (NULL: none), lacks the define because the kernel takes
 * that value as a run-time argument.
 *  - measured: among the candidates timed (clc-pack --tune) with the
 *    run-time value asked for (0 without one) on the pack device closest to
 *    `here` (binary-compatible first, then the same device name, then for
 *    NVIDIA the same compute capability), at the problem size most of them
 *    were timed at, the smallest median;
 *  - otherwise the default rule: a variant the pack marks as default
 *    (CLCPACK_ENTRY_DEFAULT) with every constraint compiled in, then a
 *    marked one taking the run-time value, then the first candidate in pack
 *    order (compiled in first).
 * CLCPACK_E_NOT_FOUND when nothing serves the constraints. */
CLCPACK_API clcpack_status clcpack_best_entry(const clcpack *p, const char *name,
                                              const clcpack_define *constraints,
                                              size_t constraint_count,
                                              const char *runtime_define,
                                              const clcpack_device_info *here,
                                              clcpack_choice *out, clcpack_error *err);

/* The filter-width form: clcpack_best_entry(p, family, {FILTER_WIDTH=fw},
 * "FILTER_WIDTH", ...), or with no constraint when filter_width is 0. */
CLCPACK_API clcpack_status clcpack_best_variant(const clcpack *p, const char *family,
                                                uint32_t filter_width,
                                                const clcpack_device_info *here,
                                                clcpack_choice *out, clcpack_error *err);

/* Fills *key with the choice's kernel, defines and wg (pointers into the
 * pack), ready for clcpack_create_program. */
CLCPACK_API void clcpack_choice_key(const clcpack_choice *c, clcpack_key *key);

/* ---------------------------------------------------------------------- */
/* Creating programs                                                       */

typedef enum clcpack_path {
    CLCPACK_PATH_NONE = 0,
    CLCPACK_PATH_NATIVE = 1,  /* native binary, fingerprint identical */
    CLCPACK_PATH_CUBIN = 2,   /* cubin for this compute capability */
    CLCPACK_PATH_PTX = 3,     /* PTX, JIT-compiled by the driver */
    CLCPACK_PATH_SOURCE = 4,  /* rebuilt from the stored source */
    CLCPACK_PATH_CACHE = 5,   /* a binary an earlier source rebuild left in the
                                 rebuild cache (docs/CACHE.md) */
    CLCPACK_PATH_TARGET = 6,  /* an offline binary for this device's target
                                 (Intel IP version, AMD gfx target) */
    CLCPACK_PATH_SPIRV = 7    /* SPIR-V, through clCreateProgramWithIL */
} clcpack_path;

/* Static name of a path: "native", "cubin", "ptx", "source", "cache",
 * "target", "spirv", "none". */
CLCPACK_API const char *clcpack_path_name(clcpack_path path);

#define CLCPACK_REPORT_MAX 2048
typedef struct clcpack_load_report {
    clcpack_path path;      /* how the program was made */
    uint32_t entry;         /* entry used (CLCPACK_NONE for none) */
    uint32_t attempts;      /* how many forms were handed to the driver */
    char why[CLCPACK_REPORT_MAX]; /* each form considered, in order, and why it
                                     was used or passed over; '; '-separated */
} clcpack_load_report;

/* Flags for clcpack_load_options.flags */
#define CLCPACK_LOAD_NO_SOURCE 1u   /* never rebuild from source */
#define CLCPACK_LOAD_NO_BINARY 2u   /* skip binaries, rebuild from source */
#define CLCPACK_LOAD_NO_NATIVE 4u   /* skip native binaries */
#define CLCPACK_LOAD_NO_CUBIN 8u    /* skip cubins (e.g. to measure the PTX path) */
#define CLCPACK_LOAD_NO_PTX 16u     /* skip PTX */
/* Rebuild cache (docs/CACHE.md): keep a binary rebuilt from source in a
 * cache folder and load it from there next time, checked like a pack entry.
 * Also on when the environment variable CLCPACK_CACHE_DIR names a folder.
 * The folder: $CLCPACK_CACHE_DIR, else $XDG_CACHE_HOME/clcpack, else
 * $HOME/.cache/clcpack. */
#define CLCPACK_LOAD_CACHE 32u
#define CLCPACK_LOAD_NO_CACHE 64u   /* no rebuild cache, whatever the environment says */
#define CLCPACK_LOAD_NO_TARGET 128u /* skip Intel and AMD offline binaries */
#define CLCPACK_LOAD_NO_SPIRV 256u  /* skip SPIR-V */

/* The rebuild cache's folder as a load with CLCPACK_LOAD_CACHE finds it
 * (docs/CACHE.md): $CLCPACK_CACHE_DIR as given, else $XDG_CACHE_HOME/clcpack,
 * else $HOME/.cache/clcpack (those two when absolute). Writes the path and a NUL to
 * buf and its length to *len (len may be NULL). CLCPACK_E_NOT_FOUND when
 * none of the variables gives one (the cache is then off);
 * CLCPACK_E_BUFFER when cap is too small (*len then says how many bytes
 * the path has). Reads the environment; creates nothing. */
CLCPACK_API clcpack_status clcpack_cache_folder(char *buf, size_t cap, size_t *len,
                                                clcpack_error *err);

typedef struct clcpack_load_options {
    size_t struct_size;     /* sizeof(clcpack_load_options) */
    uint32_t flags;
} clcpack_load_options;

/* Makes a built cl_program for key on (ctx, dev), trying in order:
 *  1. a native binary whose device fingerprint matches dev's
 *     (clcpack_device_binary_compatible);
 *  2. for NVIDIA: a cubin for exactly dev's compute capability, then PTX;
 *     for an Intel GPU the offline binary of its IP version, for an AMD
 *     GPU one of its gfx target (docs/FORMAT.md, "Offline targets");
 *  3. with the rebuild cache on, a binary an earlier load left there;
 *  4. SPIR-V, where the device takes it (CL_DEVICE_IL_VERSION);
 *  5. the stored source, built with the stored options;
 * and failing with CLCPACK_E_NO_USABLE_FORM (or CLCPACK_E_NOT_FOUND when no
 * entry has the key). A form the driver rejects (any error from
 * clCreateProgramWithBinary or clBuildProgram) is a miss: what was created is
 * released and the next form is tried. Bytes reach the driver only after
 * their CRC-32 matched. opts may be NULL; report may be NULL.
 * The lookup is a hash of the key, built at open, and dev's fingerprint is
 * queried on its first load only: the cost over the bare driver calls is
 * then mostly the CRC-32 of the bytes, and for a compressed entry decoding
 * them (cubins are stored uncompressed for this; docs/FORMAT.md).
 * On success *out is a built program the caller releases. */
CLCPACK_API clcpack_status clcpack_create_program(const clcpack *p, const clcpack_key *key,
                                                  cl_context ctx, cl_device_id dev,
                                                  const clcpack_load_options *opts,
                                                  cl_program *out, clcpack_load_report *report,
                                                  clcpack_error *err);

/* The same, and also the key's kernel: clcpack_create_program already makes
 * one to check that the program holds it, and this hands it over instead of
 * releasing it, saving the caller a second clCreateKernel. On success the
 * caller releases *kernel and *program; on failure both are NULL. */
CLCPACK_API clcpack_status clcpack_create_kernel(const clcpack *p, const clcpack_key *key,
                                                 cl_context ctx, cl_device_id dev,
                                                 const clcpack_load_options *opts,
                                                 cl_program *program, cl_kernel *kernel,
                                                 clcpack_load_report *report,
                                                 clcpack_error *err);

/* ---------------------------------------------------------------------- */
/* Writing                                                                 */

typedef struct clcpack_writer clcpack_writer; /* opaque, single-threaded */

#define CLCPACK_WRITE_NO_SOURCES 1u /* store no kernel source (binary-only pack) */
/* Compress cubins like the other binaries. By default they are stored as
 * they are: a cubin loads in tens of microseconds, and decoding it would
 * cost more than that (docs/vendors/NVIDIA.md); compressed they are about 6x smaller. */
#define CLCPACK_WRITE_COMPRESS_CUBINS 2u
/* Keep added binaries in an unlinked temporary file (in $TMPDIR, else
 * /tmp) instead of memory: writing a multi-GB pack then holds about the
 * largest few binaries and the index in memory, not every binary. */
#define CLCPACK_WRITE_SPOOL 4u

CLCPACK_API clcpack_status clcpack_writer_new(uint32_t flags, clcpack_writer **out,
                                              clcpack_error *err);
CLCPACK_API void clcpack_writer_free(clcpack_writer *w); /* NULL is a no-op */

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
 * built with zstd (make ZSTD=1, the default where libzstd is installed). */
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

/* Adds a device (an identical one already added is reused); *index gets its
 * index in the device table. */
CLCPACK_API clcpack_status clcpack_writer_add_device(clcpack_writer *w,
                                                     const clcpack_device_info *dev,
                                                     uint32_t *index, clcpack_error *err);

/* Adds a program source (the full text handed to clCreateProgramWithSource,
 * includes already folded in). Identical text is stored once. With
 * CLCPACK_WRITE_NO_SOURCES, *index is CLCPACK_NONE. */
CLCPACK_API clcpack_status clcpack_writer_add_source(clcpack_writer *w, const char *name,
                                                     const void *text, size_t size,
                                                     uint32_t *index, clcpack_error *err);

typedef struct clcpack_entry_spec {
    size_t struct_size;         /* sizeof(clcpack_entry_spec) */
    const char *kernel;
    const char *family;         /* may be NULL */
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
 * same bytes is a no-op; with other bytes it is CLCPACK_E_CONFLICT. */
CLCPACK_API clcpack_status clcpack_writer_add_entry(clcpack_writer *w,
                                                    const clcpack_entry_spec *spec,
                                                    clcpack_error *err);

/* Records a tuning measurement for an added entry (same key fields as spec). */
CLCPACK_API clcpack_status clcpack_writer_set_tuning(clcpack_writer *w,
                                                     const clcpack_entry_spec *spec,
                                                     uint32_t width, uint32_t height,
                                                     uint32_t runs, uint64_t median_ns,
                                                     clcpack_error *err);

/* Adds a timing to an added entry's tuning list (a record for the same
 * filter width is replaced). Also sets the entry's v1 tuning fields to the
 * list's lowest filter width, for readers that know only those. */
CLCPACK_API clcpack_status clcpack_writer_add_tuning(clcpack_writer *w,
                                                     const clcpack_entry_spec *spec,
                                                     const clcpack_tuning *t,
                                                     clcpack_error *err);

/* Encodes the pack. The same inputs, added in any order, give the same bytes.
 * write_file writes it with clcpack_write_file_atomic (below): the
 * output-path rules apply, and path holds the old pack or the new one, never
 * a partial one. write_memory returns a malloc'd buffer to free with
 * clcpack_free. */
CLCPACK_API clcpack_status clcpack_writer_write_file(clcpack_writer *w, const char *path,
                                                     clcpack_error *err);
CLCPACK_API clcpack_status clcpack_writer_write_memory(clcpack_writer *w, void **data,
                                                       size_t *size, clcpack_error *err);
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
 * before long work whose result would then have nowhere to go. */
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
#endif /* CLCPACK_H */
