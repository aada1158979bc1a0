/*
 * rec_capture.h — reading the capture files libclcpack-preload.so writes
 * while `clc-pack record` runs an application (docs/RECORD.md, "Capture
 * files"): one program built from source, for one device. Nothing here
 * prints; a malformed file is an error with a message, never a crash.
 */
#ifndef CLC_REC_CAPTURE_H
#define CLC_REC_CAPTURE_H

#include <stddef.h>

#include "clcpack.h"

#define RC_ERR_MAX 512
/* Bounds on what a capture may declare, checked before any allocation. */
#define RC_MAX_FILE ((size_t)1 << 31)

typedef struct rec_capture {
    char *key;              /* "rec:<hex>" */
    char *source;           /* exact bytes, NUL-terminated copy */
    size_t source_size;
    char *options;          /* exact options */
    char *kernel_names;     /* CL_PROGRAM_KERNEL_NAMES, ';'-separated, may be "" */
    clcpack_device_info device;
    unsigned char *binary;  /* NULL when the build's binary was not taken */
    size_t binary_size;
} rec_capture;

/* Reads and checks (size, CRC-32) the capture file at path. 0, or -1 with
 * err naming the file and what is wrong. Free with rec_capture_free. */
int rec_capture_read(const char *path, rec_capture *c, char *err, size_t cap);
void rec_capture_free(rec_capture *c);

#endif /* CLC_REC_CAPTURE_H */
