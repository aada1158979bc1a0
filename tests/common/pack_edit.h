/*
 * pack_edit.h — a copy of a pack whose binaries are for another driver, so
 * that no device of this machine matches them: the state of a pack shipped
 * to a user whose driver the build host did not have.
 */
#ifndef CLC_TEST_PACK_EDIT_H
#define CLC_TEST_PACK_EDIT_H

#include <stddef.h>

/* Writes to out the pack at in with every device record's driver version
 * replaced by driver. Sources and entries (kind, arch, options, defines,
 * work-group, kernel names, flags) are copied as they are; tunings are
 * not. 0, or -1 with err. */
int pack_copy_for_driver(const char *in, const char *out, const char *driver, char *err,
                         size_t cap);

#endif
