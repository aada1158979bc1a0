/*
 * pocl_note.h — what a load's report says of a PoCL native binary: which
 * first launches of the key will still compile a work-group function
 * (docs/vendors/POCL.md, "No JIT"). PoCL compiles one per local size,
 * offset class and grid class at the first launch that needs it, unless the
 * binary holds it; clc-pack stores every form of a variant's local size,
 * and the report says so, or names the launches a binary lacks them for
 * (an older pack, a variant with no local size). Internal to libclcpack.
 */
#ifndef CLCPACK_POCL_NOTE_H
#define CLCPACK_POCL_NOTE_H

#include <stddef.h>
#include <stdint.h>

#include "clcpack.h"

#define CLCPK_POCL_NOTE_MAX 400

/* The report's item for entry e whose bytes are bin[0..size), into buf
 * ("" when they are not a PoCL binary of the known layout). Reads the
 * binary's file list only; always NUL-terminated (cap > 0). */
#ifdef CLCPK_NO_POCL_NOTE
/* A load-only library built without the note (make LOAD_POCL_NOTE=0,
 * loader/README.md): pocl_note.c and the PoCL binary reader it uses are
 * left out, and a report says nothing of work-group functions. */
static inline void clcpk_pocl_note(const clcpack_entry_info *e, const uint8_t *bin, size_t size,
                                   char *buf, size_t cap)
{
    (void)e, (void)bin, (void)size;
    if (cap)
        buf[0] = '\0';
}
#else
void clcpk_pocl_note(const clcpack_entry_info *e, const uint8_t *bin, size_t size, char *buf,
                     size_t cap);
#endif

#endif /* CLCPACK_POCL_NOTE_H */
