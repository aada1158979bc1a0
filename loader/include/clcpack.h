/*
 * clcpack.h — libclcpack for applications.
 *
 * libclcpack reads .clcpack files (packs of ahead-of-time compiled OpenCL
 * program binaries, with the sources and options needed to rebuild them) and
 * turns an entry into a built cl_program without running the driver's JIT.
 * This header is what an application needs: open a pack, find a variant or
 * ask for the fastest one, make its program or kernel, close. What a pack
 * holds beyond loading is in clcpack_inspect.h, the writer in
 * clcpack_write.h (docs/API.md, "Three headers"). Every function of this
 * header is in both libraries, libclcpack and the load-only
 * libclcpack_load, but for the parts a load-only build may leave out
 * (loader/README.md, "Optional parts"), whose functions it then lacks.
 *
 * Contract for every function of this header, of clcpack_inspect.h and of
 * clcpack_write.h:
 *  - it never prints, never exits, never aborts on bad input, and reads no
 *    environment variable but those its comment names;
 *  - it returns a clcpack_status, CLCPACK_OK (0) meaning success, unless it
 *    is one of these, which have nothing to report a status for (each says
 *    which it is at its declaration):
 *      a count (clcpack_*_count): 0 for a NULL handle or an unknown index;
 *      a predicate (clcpack_device_binary_compatible, ...): 1 or 0, 0 when
 *        an argument is NULL or unusable;
 *      a static text or number (clcpack_version, clcpack_strerror,
 *        clcpack_path_name): never fails;
 *      a release (clcpack_close, ...): returns nothing, NULL is a no-op;
 *  - where it takes a `clcpack_error *err`, that may be NULL; when it is not
 *    NULL and the call fails, err->status and err->message say what went
 *    wrong and where (which field, which entry, which offset);
 *  - a NULL pointer where the function needs one is CLCPACK_E_INVALID_ARG
 *    (unless its comment says what NULL means); what a failed call leaves
 *    in its outputs is unspecified unless its comment says;
 *  - pointers it returns into an open pack (names, defines) stay valid until
 *    clcpack_close of that pack; memory it returns for the caller to free
 *    is said so, with the function to free it with;
 *  - an open pack (clcpack *) is immutable but for a few locked caches
 *    (device fingerprints, decoded bases, dictionaries, index records read
 *    through a lookup table, each read once and then kept): every function of
 *    this header may run concurrently from any number of threads on the same
 *    handle, and the functions that take no handle are thread-safe;
 *  - the library keeps no global state.
 *
 * Structs that may grow carry `size_t struct_size` first. The caller sets
 * it to sizeof the struct as its header declares it, for input and output
 * alike, best by initialising the whole struct: `clcpack_entry_info e =
 * {.struct_size = sizeof e};` in C; `clcpack_entry_info e{};
 * e.struct_size = sizeof e;` in C++ (designated initialisers are C++20);
 * in code for both, memset(&e, 0, sizeof e) and then struct_size
 * (docs/API.md, "Structs that grow"). The library then reads (input) or
 * writes (output) only the fields that lie within struct_size and that it
 * knows; it never writes past struct_size nor past its own size of the
 * struct, and leaves struct_size as the caller set it. A field the
 * caller's struct has and the library does not know keeps the caller's
 * value (0 when the struct was initialised as above); an input field the
 * caller's struct does not have reads as 0. Fields are only ever added at
 * the end, and only where 0 means "absent". A struct_size smaller than the
 * struct was in version 1.0 is CLCPACK_E_INVALID_ARG (a forgotten
 * struct_size is 0).
 * Structs without struct_size (clcpack_error, clcpack_define, clcpack_key,
 * clcpack_tuning) never change; a new need gets a new struct.
 *
 * The pack format is described in docs/FORMAT.md, the API and its
 * stability promise in docs/API.md.
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

/* ---------------------------------------------------------------------- */
/* Version                                                                 */

#define CLCPACK_VERSION_MAJOR 1
#define CLCPACK_VERSION_MINOR 3
#define CLCPACK_VERSION_PATCH 0
#define CLCPACK_VERSION_NUMBER \
    (CLCPACK_VERSION_MAJOR * 10000 + CLCPACK_VERSION_MINOR * 100 + CLCPACK_VERSION_PATCH)

/* The run-time version of the library, as CLCPACK_VERSION_NUMBER (10000 for
 * 1.0.0, 10300 for 1.3.0). An application built against 1.x runs with any
 * 1.y, y >= x: it may compare this with the CLCPACK_VERSION_NUMBER it was
 * compiled with.
 * (No status: a number.) */
CLCPACK_API unsigned clcpack_version(void);

/* ---------------------------------------------------------------------- */
/* Errors                                                                  */

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

/* A short, static description of a status value; "unknown status" for a
 * number this library does not know. Never NULL. (No status: a static text.) */
CLCPACK_API const char *clcpack_strerror(clcpack_status s);

#define CLCPACK_MESSAGE_MAX 1024
/* Filled on failure by every function that takes one (never grows). */
typedef struct clcpack_error {
    clcpack_status status;
    char message[CLCPACK_MESSAGE_MAX]; /* NUL-terminated, one line, no control
                                          characters */
} clcpack_error;

/* Marks "no index" in the structs below (entry, source, device). */
#define CLCPACK_NONE 0xFFFFFFFFu

/* ---------------------------------------------------------------------- */
/* Devices                                                                 */

#define CLCPACK_FP_STR 256
/* What identifies a device and its driver (docs/FORMAT.md, "device record").
 * Strings are NUL-terminated and truncated to CLCPACK_FP_STR-1 bytes.
 * Versioned (struct_size, above): an output of clcpack_device_query and
 * clcpack_get_device, an input of the predicates, clcpack_best_variant and
 * the writer. */
typedef struct clcpack_device_info {
    size_t struct_size;         /* sizeof(clcpack_device_info) */
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
    /* CL_DEVICE_IP_VERSION_INTEL (a cl_version) and CL_DEVICE_ID_INTEL (the
     * PCI device id) of a device that lists cl_intel_device_attribute_query;
     * 0 otherwise (and in packs before format 4). */
    uint32_t intel_ip_version;
    uint32_t intel_device_id;
} clcpack_device_info;

/* Fills *out (out->struct_size set by the caller) with the fingerprint of
 * an OpenCL device, asking the driver (clGetDeviceInfo, clGetPlatformInfo):
 * CLCPACK_E_OPENCL, naming the query, when one of them fails. Thread-safe. */
CLCPACK_API clcpack_status clcpack_device_query(cl_device_id dev, clcpack_device_info *out,
                                                clcpack_error *err);

/* 1 when a native binary built for device a may be given to device b: every
 * field equal except the device UUID, which names one physical card (two
 * cards of the same model, driver and driver UUID run the same binaries);
 * else 0, also when a or b is NULL or its struct_size is too small.
 * Thread-safe. (No status: a predicate.) */
CLCPACK_API int clcpack_device_binary_compatible(const clcpack_device_info *a,
                                                 const clcpack_device_info *b);

/* Writes into buf (cap bytes, cap >= 1) a one-line description of the first
 * field that differs between the pack's fingerprint and this device's, most
 * telling first, e.g. "driver version differs: 580.159.04 in pack, 575.57
 * here", or "device fingerprints are identical"; cut to fit cap, always
 * NUL-terminated. CLCPACK_E_INVALID_ARG (and buf, when it can be written,
 * says so) when an argument is NULL, cap is 0 or a struct_size is too small.
 * Thread-safe. */
CLCPACK_API clcpack_status clcpack_device_describe_difference(const clcpack_device_info *in_pack,
                                                              const clcpack_device_info *here,
                                                              char *buf, size_t cap);

/* ---------------------------------------------------------------------- */
/* Opening and closing                                                     */

typedef struct clcpack clcpack; /* an open pack; opaque */

/* Opens a pack file: checks its header before reading further (a file
 * that is not a pack costs one 128-byte read). A pack with a lookup table
 * (format 5, every pack clc-pack writes with zstd) is opened by reading its
 * directory, devices and dictionary records (a few hundred bytes, whatever
 * the pack's size); each index record is then read and checked (CRC-32 and
 * every offset and size) the first time a call needs it, and the whole
 * index, with the header and index checksum, the first time a call needs
 * every record (clcpack_best_variant, the message for a key the pack does
 * not hold). Another pack has its index read and checked at the open. Only
 * regular files are opened (a FIFO or device is refused without
 * blocking). The file stays open until clcpack_close: a blob is read
 * (pread) when it is decoded, and its bytes checked (CRC-32) each time, so
 * a load reads only its entry's records and blobs. A pack replaced by
 * rename while open is not seen (the handle keeps reading the old file); a
 * file cut short under an open handle makes the loads that read past the
 * cut fail with CLCPACK_E_IO, and bytes rewritten in place fail their
 * CRC-32 (clc-pack and the writer always write by rename).
 * On success *out is a handle the caller closes with clcpack_close; on
 * failure *out is NULL. Errors: CLCPACK_E_IO (open, read), CLCPACK_E_FORMAT,
 * CLCPACK_E_VERSION, CLCPACK_E_CHECKSUM, CLCPACK_E_LIMIT, CLCPACK_E_NOMEM;
 * the calls that read records later may return the same for a damaged
 * record. */
CLCPACK_API clcpack_status clcpack_open_file(const char *path, clcpack **out, clcpack_error *err);

/* Size of a SHA-256 digest in bytes. */
#define CLCPACK_SHA256_SIZE 32

/* As clcpack_open_file, for a pack the application pins: the whole file
 * is read into memory and its SHA-256 compared with sha256 before anything
 * else; a different digest is CLCPACK_E_CHECKSUM with both digests in the
 * message. CRCs catch damage; a pin also catches a pack that someone
 * replaced on purpose (docs/FORMAT.md, "Threat model"). `clc-pack embed
 * --header` and `clc-pack list` give the digest to pin. */
CLCPACK_API clcpack_status clcpack_open_file_pinned(const char *path,
                                                    const uint8_t sha256[CLCPACK_SHA256_SIZE],
                                                    clcpack **out, clcpack_error *err);

/* Opens a pack held in memory (for example embedded in the application
 * with `clc-pack embed`). The bytes are not copied: they must stay valid
 * and unchanged until clcpack_close. Same checks and errors as
 * clcpack_open_file (but CLCPACK_E_IO). */
CLCPACK_API clcpack_status clcpack_open_memory(const void *data, size_t size, clcpack **out,
                                               clcpack_error *err);

/* Opens a pack linked into a Windows module as an RCDATA resource
 * (`clc-pack embed --format rc`, compiled by windres or rc.exe) named name
 * ("#123" for the number 123); module is the HMODULE holding it, NULL for
 * the executable. As clcpack_open_memory, in place: the bytes stay valid
 * while the module is loaded, so close the pack before FreeLibrary. A
 * module without that resource is CLCPACK_E_IO naming it; on a system
 * without resources (Linux) every call is CLCPACK_E_IO saying to embed
 * with --format c or asm and use clcpack_open_memory. Since 1.2. */
CLCPACK_API clcpack_status clcpack_open_resource(void *module, const char *name, clcpack **out,
                                                 clcpack_error *err);

/* Frees the handle, and releases the devices clcpack_create_program kept
 * a reference to (it retains each device it loads for, up to 8, with their
 * fingerprints, so that later loads skip the device queries). Every
 * pointer into the pack dies with it; programs and kernels made from it
 * live on. Not concurrently with another call on the same handle.
 * (No status: a release; NULL is a no-op.) */
CLCPACK_API void clcpack_close(clcpack *p);

/* ---------------------------------------------------------------------- */
/* What a pack holds                                                       */
/*
 * An application needs none of this to load a program, and may use it to
 * list what a pack offers (entries, their defines and timings), check
 * which devices it was built for, or hand a binary or the source to its
 * own code. How the pack is coded (dictionaries, which library wrote it)
 * is the tool's business: clcpack_inspect.h.
 */

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

/* One -D of a variant (never grows). */
typedef struct clcpack_define {
    const char *name;  /* e.g. "TS" */
    const char *value; /* e.g. "16"; "" for a bare -DNAME */
} clcpack_define;

/* One timing of an entry (clc-pack --tune or --tune-cmd; docs/TUNING.md).
 * It mirrors the pack's 24-byte timing record and never grows.
 * A timing may be for one run-time value: the value of a problem parameter
 * that a kernel takes as an argument (a filter width passed at launch), so
 * that one entry carries one timing per value it was timed at. */
typedef struct clcpack_tuning {
    uint32_t runtime_value;     /* the run-time value the time is for; 0 when
                                   the timing does not say (then, for an entry
                                   with that define compiled in, the
                                   compiled-in value: clcpack_best_variant) */
    uint32_t width, height;     /* problem size as the timing gave it */
    uint32_t runs;              /* timed runs, >= 1 */
    uint64_t median_ns;         /* median kernel time */
} clcpack_tuning;

/* One entry of an open pack: a (program or kernel, define set, work-group,
 * device, form). Pointers point into the pack and stay valid until
 * clcpack_close. Versioned (struct_size). */
typedef struct clcpack_entry_info {
    size_t struct_size;         /* sizeof(clcpack_entry_info) */
    const char *kernel;         /* kernel name, or a program entry's program name */
    const char *options;        /* the exact build options */
    size_t define_count;
    const clcpack_define *defines; /* sorted by name */
    uint32_t wg[3];             /* work-group (local) size; {0,0,0} for none */
    uint32_t device;            /* index into the device table */
    uint32_t source;            /* index into the source table, or CLCPACK_NONE */
    clcpack_binary_kind kind;
    uint32_t arch;              /* sm number (90 for sm_90) for PTX and cubin;
                                   docs/FORMAT.md for kinds 3-5; else 0 */
    uint32_t codec;             /* docs/FORMAT.md, "codecs" */
    uint32_t base;              /* delta base entry or dictionary, or CLCPACK_NONE */
    uint64_t raw_size;          /* bytes of the binary */
    uint64_t stored_size;       /* bytes it takes in the pack */
    uint32_t raw_crc32;
    /* The entry's first timing as format 1 stores it (0 runs: none);
     * clcpack_entry_tuning_count and clcpack_get_entry_tuning give all. */
    uint32_t tune_runs;
    uint32_t tune_width, tune_height;
    uint64_t tune_median_ns;
    /* A program entry: `kernel` is the program's name and these are the
     * kernels its binary holds, sorted; a key names the program or any of
     * them. 0 and NULL for an entry of one kernel. */
    size_t kernel_name_count;
    const char *const *kernel_names;
    uint32_t flags;             /* CLCPACK_ENTRY_* */
    const char *target;         /* the offline target of kinds 3-5 ("tgllp",
                                   "gfx1030", "SPIR-V_1.0"); "" for kinds 0-2 */
} clcpack_entry_info;

/* clcpack_entry_info.flags */
#define CLCPACK_ENTRY_DEFAULT 1u /* a default variant: clcpack_best_variant's
                                    choice when nothing was timed */

/* One stored program text. Versioned (struct_size). */
typedef struct clcpack_source_info {
    size_t struct_size;         /* sizeof(clcpack_source_info) */
    const char *name;           /* e.g. "sgemm.cl" */
    uint64_t raw_size;
    uint64_t stored_size;
    uint32_t raw_crc32;
} clcpack_source_info;

/* How many entries, devices, sources the pack holds. (No status: counts.) */
CLCPACK_API size_t clcpack_entry_count(const clcpack *p);
CLCPACK_API size_t clcpack_device_count(const clcpack *p);
CLCPACK_API size_t clcpack_source_count(const clcpack *p);

/* Entry, device or source i into *out (out->struct_size set by the caller).
 * CLCPACK_E_NOT_FOUND when i is not below the count; CLCPACK_E_INVALID_ARG
 * for a NULL argument or a struct_size too small; in a file opened through
 * its lookup table, an entry's or source's record is read here the first
 * time: CLCPACK_E_CHECKSUM, CLCPACK_E_FORMAT, CLCPACK_E_IO or
 * CLCPACK_E_NOMEM when it cannot be (clcpack_read_binary says why). These
 * take no clcpack_error: the status says all. */
CLCPACK_API clcpack_status clcpack_get_entry(const clcpack *p, size_t i, clcpack_entry_info *out);
CLCPACK_API clcpack_status clcpack_get_device(const clcpack *p, size_t i, clcpack_device_info *out);
CLCPACK_API clcpack_status clcpack_get_source(const clcpack *p, size_t i, clcpack_source_info *out);

/* The timings of entry `entry`, in increasing runtime_value: a pack written
 * with the tuning list (format 2 and later) gives its records; an older
 * pack with the format-1 fields set gives one record, runtime_value 0 (it
 * does not say).
 * The count is 0 for an unknown entry. clcpack_get_entry_tuning:
 * CLCPACK_E_NOT_FOUND when k is not below the count, CLCPACK_E_INVALID_ARG
 * for a NULL argument. (Count: no status.) */
CLCPACK_API size_t clcpack_entry_tuning_count(const clcpack *p, size_t entry);
CLCPACK_API clcpack_status clcpack_get_entry_tuning(const clcpack *p, size_t entry, size_t k,
                                                    clcpack_tuning *out);

/* Decodes entry i's binary (or source i) into buf, after checking its CRC-32,
 * for an application that hands it to the driver itself (several devices in
 * one clCreateProgramWithBinary, its own build of the source). Two-call size
 * query: with buf NULL (or cap too small) it sets *size to the raw size and
 * returns CLCPACK_OK (or CLCPACK_E_BUFFER). CLCPACK_E_NOT_FOUND for an
 * index not below the count; CLCPACK_E_CHECKSUM, CLCPACK_E_FORMAT or
 * CLCPACK_E_IO when the bytes are damaged or cannot be read. Decoding work
 * is bounded: a delta chain is at most CLCPACK_MAX_DELTA_CHAIN long and
 * decodes at most CLCPACK_CHAIN_BUDGET times the entry's raw size in all
 * (docs/FORMAT.md), plus, once per open pack, the dictionary it is coded
 * with (at most 1 MiB; kept until clcpack_close). The open pack keeps a few
 * recently decoded bases, so reading entries in order decodes each blob
 * about once. A library built without zstd (make ZSTD=0) refuses zstd blobs
 * (codecs 3-5) with CLCPACK_E_VERSION naming the codec. */
#define CLCPACK_MAX_DELTA_CHAIN 8
#define CLCPACK_CHAIN_BUDGET 10
CLCPACK_API clcpack_status clcpack_read_binary(const clcpack *p, size_t entry, void *buf,
                                               size_t cap, size_t *size, clcpack_error *err);
CLCPACK_API clcpack_status clcpack_read_source(const clcpack *p, size_t source, void *buf,
                                               size_t cap, size_t *size, clcpack_error *err);

/* ---------------------------------------------------------------------- */
/* Finding a variant                                                       */

/* What an application asks for (never grows). `kernel` is a kernel name or,
 * for an entry that holds a whole program, the program's name or the name
 * of any kernel it holds. Defines may be given in any order; the key
 * compares the full define set (no more, no fewer; but see clcpack_find).
 * wg is the variant's work-group (local) size; {0,0,0} when the variant has
 * none. */
typedef struct clcpack_key {
    const char *kernel;
    const clcpack_define *defines;
    size_t define_count;
    uint32_t wg[3];
} clcpack_key;

/* Finds the entries whose key equals *key, every device and form. Writes up
 * to cap indices (ascending) and sets *count to how many matched (count may
 * be NULL; indices may be NULL when cap is 0).
 * A key may give only the axis defines (TS=16) and leave out the ones
 * derived from them (RTS=4): when no entry has exactly the key's define
 * set, the entries (same kernel and wg) whose define set holds every define
 * of the key, with its value, match, provided they all have one define
 * set; when they have several, CLCPACK_E_AMBIGUOUS names them. Returns
 * CLCPACK_E_NOT_FOUND when none matched. The same holds for
 * clcpack_create_program and clcpack_create_kernel. */
CLCPACK_API clcpack_status clcpack_find(const clcpack *p, const clcpack_key *key, size_t *indices,
                                        size_t cap, size_t *count, clcpack_error *err);

/* ---------------------------------------------------------------------- */
/* Choosing the fastest variant                                            */

/* The variant clcpack_best_variant picked. Pointers point into the pack and
 * stay valid until clcpack_close. Versioned (struct_size). */
typedef struct clcpack_choice {
    size_t struct_size;         /* sizeof(clcpack_choice) */
    uint32_t entry;             /* an entry of the key (any device and form) */
    const char *kernel;
    const clcpack_define *defines; /* the entry's full define set */
    size_t define_count;
    uint32_t wg[3];
    int value_as_argument;      /* 1: the kernel lacks the run-time define and
                                   takes its value as a kernel argument */
    int measured;               /* 1: the fastest timing; 0: the default rule */
    uint32_t tuned_device;      /* pack device the timing is from (measured only) */
    clcpack_tuning timing;      /* the winner's timing (measured only) */
    uint32_t candidates;        /* timed variants compared (measured only) */
    uint32_t runner_up_entry;   /* the second best, or CLCPACK_NONE */
    uint64_t runner_up_ns;      /* its median; 0 when there is none */
    char why[512];              /* one line: what was compared, or which
                                   default rule applied and why */
} clcpack_choice;

/* Picks the variant an application should use on the device `here` (from
 * clcpack_device_query): the fastest entry, on the pack device nearest to
 * `here`, whose defines match the constraints, over the remaining axes
 * (docs/TUNING.md). Candidates are the entries that answer to `name` (a
 * kernel, a program, or a group label the pack's writer gave entries, as
 * clc-pack does with its manifest's families; NULL: every entry) and
 * serve every constraint: the entry has that define with that value
 * (TS=16, or TS=32 and WPT=8; no constraint at all: every variant), or,
 * for the constraint named `runtime_define` (NULL: none), lacks the
 * define because the kernel takes that value as an argument
 * (value_as_argument). The run-time define also says which timings apply:
 * those for its constrained value (0 when it is not constrained or NULL;
 * a timing of runtime_value 0 of an entry with that define compiled in is
 * for the compiled-in value).
 *  - measured: among the candidates timed with that run-time value on the
 *    pack device closest to `here` (binary-compatible first, then the same
 *    device name, then for NVIDIA the same compute capability), at the
 *    problem size most of them were timed at, the smallest median;
 *  - otherwise the default rule: a variant the pack marks as default
 *    (CLCPACK_ENTRY_DEFAULT) with every constraint compiled in, then a
 *    marked one taking the run-time value, then the first candidate in pack
 *    order (compiled in first).
 * out->struct_size is set by the caller; on success *out is the choice,
 * ready for clcpack_choice_key. Its kernel is the name asked for when that
 * names a kernel of a program entry (box_blur of a program blur holding
 * box_blur and sharpen), so that the choice's key creates that kernel with
 * clcpack_create_kernel unchanged; otherwise (a program's name, a group
 * label, NULL) the entry's kernel or program name. CLCPACK_E_NOT_FOUND when nothing serves the
 * constraints; CLCPACK_E_INVALID_ARG for a NULL p, here or out, a
 * constraint without a name, a run-time value that is not a decimal
 * number, or a struct_size too small; CLCPACK_E_NOMEM. */
CLCPACK_API clcpack_status clcpack_best_variant(const clcpack *p, const char *name,
                                                const clcpack_define *constraints,
                                                size_t constraint_count,
                                                const char *runtime_define,
                                                const clcpack_device_info *here,
                                                clcpack_choice *out, clcpack_error *err);

/* Fills *key with the choice's kernel, defines and wg (pointers into the
 * pack), ready for clcpack_create_program, and for clcpack_create_kernel
 * (a choice asked for by a kernel's name names that kernel, see
 * clcpack_best_variant). CLCPACK_E_INVALID_ARG when c or
 * key is NULL or c->struct_size is too small. */
CLCPACK_API clcpack_status clcpack_choice_key(const clcpack_choice *c, clcpack_key *key);

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
 * "target", "spirv", "none" (also for a value this library does not know).
 * (No status: a static text.) */
CLCPACK_API const char *clcpack_path_name(clcpack_path path);

#define CLCPACK_REPORT_MAX 2048
/* How a program was made, or why it could not be. Versioned (struct_size). */
typedef struct clcpack_load_report {
    size_t struct_size;     /* sizeof(clcpack_load_report) */
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
 * else $HOME/.cache/clcpack (those two when absolute). Writes the path and a
 * NUL to buf and its length to *len (len may be NULL; buf may be NULL when
 * cap is 0). CLCPACK_E_NOT_FOUND when none of the variables gives one (the
 * cache is then off); CLCPACK_E_BUFFER when cap is too small (*len then
 * says how many bytes the path has). Reads the environment; creates
 * nothing. Thread-safe as far as getenv is (no thread may set variables
 * meanwhile). */
CLCPACK_API clcpack_status clcpack_cache_folder(char *buf, size_t cap, size_t *len,
                                                clcpack_error *err);

/* Options of a load (input, versioned: struct_size). */
typedef struct clcpack_load_options {
    size_t struct_size;     /* sizeof(clcpack_load_options) */
    uint32_t flags;         /* CLCPACK_LOAD_* */
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
 * entry has the key, CLCPACK_E_AMBIGUOUS, CLCPACK_E_BUILD when the source
 * fails to build here, CLCPACK_E_OPENCL when a device query fails). A form
 * the driver rejects (any error from clCreateProgramWithBinary or
 * clBuildProgram) is a miss: what was created is released and the next form
 * is tried. Bytes reach the driver only after their CRC-32 matched. opts
 * may be NULL (no flags); report may be NULL, else its struct_size is set
 * by the caller and it is filled on success and on failure alike.
 * The lookup is a hash of the key, built at open, and dev's fingerprint is
 * queried on its first load only: the cost over the bare driver calls is
 * then mostly the CRC-32 of the bytes, and for a compressed entry decoding
 * them (cubins are stored uncompressed for this; docs/FORMAT.md).
 * On success *out is a built program the caller releases
 * (clReleaseProgram); on failure it is NULL. Reads CLCPACK_CACHE_DIR,
 * XDG_CACHE_HOME, HOME and CLCPACK_CACHE_MAX_MB (the rebuild cache). */
CLCPACK_API clcpack_status clcpack_create_program(const clcpack *p, const clcpack_key *key,
                                                  cl_context ctx, cl_device_id dev,
                                                  const clcpack_load_options *opts,
                                                  cl_program *out, clcpack_load_report *report,
                                                  clcpack_error *err);

/* The same, and also the key's kernel: clcpack_create_program already makes
 * one to check that the program holds it, and this hands it over instead of
 * releasing it, saving the caller a second clCreateKernel. The key must
 * name a kernel: a program's name is CLCPACK_E_INVALID_ARG, unless the
 * program holds a kernel of that name (sgemm.cl holding sgemm), which is
 * then the kernel made. On success the caller releases *kernel and
 * *program; on failure both are NULL. */
CLCPACK_API clcpack_status clcpack_create_kernel(const clcpack *p, const clcpack_key *key,
                                                 cl_context ctx, cl_device_id dev,
                                                 const clcpack_load_options *opts,
                                                 cl_program *program, cl_kernel *kernel,
                                                 clcpack_load_report *report,
                                                 clcpack_error *err);

#ifdef __cplusplus
}
#endif
#endif /* CLCPACK_H */
