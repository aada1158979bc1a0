/*
 * rec_capture.h — reading the files libclcpack-preload.so writes while
 * `clc-pack record` runs an application (docs/RECORD.md, "Capture files"):
 * a capture (one program build or link, for one device) and a process file.
 * The formats are defined in formats/capture_format.h; this reads them from
 * disk. Nothing here prints; a malformed file is an error with a message,
 * never a crash.
 */
#ifndef CLC_REC_CAPTURE_H
#define CLC_REC_CAPTURE_H

#include <stddef.h>

#include "capture_format.h"

#define REC_CAPTURE_ERR_MAX 512

/* Reads and checks the capture file at path (capture_decode). 0, or -1
 * with err naming the file and what is wrong. Free with capture_free. */
int rec_capture_read(const char *path, capture *c, char *err, size_t cap);

/* Reads the process file at path. 0, or -1 when it cannot be read or is
 * not one. */
int rec_capture_proc_read(const char *path, proc_status *st);

#endif /* CLC_REC_CAPTURE_H */
