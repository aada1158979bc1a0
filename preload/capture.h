/*
 * capture.h — writing one capture file of `clc-pack record` (docs/RECORD.md,
 * "Capture files"): a program built from source, for one device, with the
 * binary the application's own build produced. Nothing here prints.
 */
#ifndef CLCPACK_PRELOAD_CAPTURE_H
#define CLCPACK_PRELOAD_CAPTURE_H

#include <stddef.h>

#include "clcpack.h"

typedef struct capture {
    const char *key;              /* "rec:<hex>" */
    const char *source;
    size_t source_size;
    const char *options;          /* exact, "" for none */
    const char *kernel_names;     /* CL_PROGRAM_KERNEL_NAMES, ';'-separated; "" if unknown */
    const clcpack_device_info *device;
    const unsigned char *binary;  /* may be NULL (size 0): not taken */
    size_t binary_size;
} capture;

#define CAPTURE_NAME_MAX 64

/* Writes c into folder dir as file `name` (a temporary name first, then
 * renamed over it); when name is "", a new name "<pid>-<seq>.rec" is made
 * and written into name first. 0, or -1 with errno set. Thread-safe. */
int capture_write(const char *dir, const capture *c, char name[CAPTURE_NAME_MAX]);

/* Leaves an empty "<pid>-<seq>.binary" file in dir: a program was made
 * from a binary the application brought itself. */
int capture_note_binary(const char *dir);

#endif /* CLCPACK_PRELOAD_CAPTURE_H */
