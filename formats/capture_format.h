/*
 * capture_format.h — the files libclcpack-preload.so writes while
 * `clc-pack record` runs an application, and `clc-pack` reads back
 * (docs/RECORD.md, "Capture files"). This header is the one definition of
 * those formats: the interposer (preload/) encodes with it and the tool
 * (clc/capture/rec_capture.c) decodes with it; both are built with
 * capture_codec.c. Nothing here prints; a malformed file is an error with a
 * message, never a crash. Every function is thread-safe (no shared state).
 */
#ifndef CLCPACK_CAPTURE_FORMAT_H
#define CLCPACK_CAPTURE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "clcpack.h"

/* A capture file ("<pid>-<n>.rec"). */
#define CAPTURE_MAGIC "CLCPREC3"
#define CAPTURE_MAGIC_V2 "CLCPREC2" /* read only: builds, without the kind field */
#define CAPTURE_MAGIC_SIZE 8

typedef enum capture_kind {
    CAPTURE_BUILD = 1, /* clCreateProgramWithSource + clBuildProgram */
    CAPTURE_LINK = 2   /* clCompileProgram of every input + clLinkProgram */
} capture_kind;

/* Key prefixes (docs/RECORD.md, "The key"). */
#define CAPTURE_BUILD_PREFIX "rec:"
#define CAPTURE_LINK_PREFIX "rec-link:"
#define CAPTURE_COMPILE_PREFIX "rec-compile:"
/* The longest key: "rec-compile:" + 64 hex digits + NUL. */
#define CAPTURE_KEY_MAX 80

/* Bounds on what a capture may declare, checked before any allocation. */
#define CAPTURE_MAX_FILE ((size_t)1 << 31)

/* One capture. Written from borrowed pointers (capture_encode); decoded
 * into malloc'd copies (capture_decode, freed by capture_free). */
typedef struct capture {
    capture_kind kind;
    char *key;             /* "rec:<hex>" or "rec-link:<hex>" */
    char *source;          /* a build: exact source; a link: its description */
    size_t source_size;
    char *options;         /* exact build or link options ("" for none) */
    char *kernel_names;    /* CL_PROGRAM_KERNEL_NAMES, ';'-separated, may be "" */
    clcpack_device_info device;
    unsigned char *binary; /* NULL (size 0): not taken */
    size_t binary_size;
} capture;

/* The file's bytes (CRC-32 last) into a malloc'd *out. 0, or -1 when out
 * of memory. */
int capture_encode(const capture *c, unsigned char **out, size_t *size);

/* Checks (CRC-32 first, then every length against the bytes left, then the
 * key's prefix against the kind) and decodes buf[0..size). 0, or -1 with
 * err saying what is wrong (without a file name). */
int capture_decode(const unsigned char *buf, size_t size, capture *c, char *err, size_t cap);
void capture_free(capture *c);

/* ---------------------------------------------------------------------- */
/* The link description: a link's inputs as one byte string, the source of
 * its capture and of its pack entry (docs/RECORD.md, "The link
 * description"). */

#define LINK_DESC_MAGIC "CLCPLNK1"
#define LINK_MAX_INPUTS 4096
#define LINK_MAX_HEADERS 4096

typedef struct link_header {
    const char *name;      /* the include name clCompileProgram was given */
    const char *source;
    size_t source_size;
} link_header;

typedef struct link_input {
    const char *source;    /* exact */
    size_t source_size;
    const char *options;   /* compile options, normalized */
    const char *key;       /* "rec-compile:<hex>" */
    size_t n_headers;
    const link_header *headers;
} link_input;

/* The description of inputs[0..n) into a malloc'd *out. 0, or -1 when out
 * of memory. */
int link_desc_encode(const link_input *inputs, size_t n, unsigned char **out, size_t *size);

/* Calls fn(key, user) for the compile key of every input of the description
 * desc[0..size); stops early when fn returns non-zero. 0, or -1 when the
 * bytes are not a well-formed description. */
int link_desc_each_key(const unsigned char *desc, size_t size,
                       int (*fn)(const char *key, void *user), void *user);

/* ---------------------------------------------------------------------- */
/* Process files ("<pid>.proc"): text lines "NAME VALUE" a process writes
 * at its exit (docs/RECORD.md, "Process files"). */

#define PROC_MAGIC_LINE "clcpack-proc 1"
#define PROC_SUFFIX ".proc"

typedef struct proc_status {
    unsigned long calls;   /* OpenCL calls that reached the interposer */
    int layer;             /* loaded as a layer */
    char loaded[4][512];   /* OpenCL ICD loaders mapped at exit (up to 4) */
    int n_loaded;
} proc_status;

/* The text of a process file into buf (cap bytes); returns its length, or
 * 0 when it does not fit. */
size_t proc_status_format(const proc_status *st, char *buf, size_t cap);

/* Parses a process file's text. 0, or -1 when it is not one. */
int proc_status_parse(const char *text, size_t size, proc_status *out);

#endif /* CLCPACK_CAPTURE_FORMAT_H */
