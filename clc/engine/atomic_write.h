/*
 * atomic_write.h — writing a whole file so that readers see the old file or
 * the new one, never a partial one: a temporary file beside the target,
 * fsync, rename over it, fsync the folder. (Packs are written the same way
 * by clcpack_writer_write_file; this is for what extract writes.)
 */
#ifndef CLC_ATOMIC_WRITE_H
#define CLC_ATOMIC_WRITE_H

#include <stddef.h>

/* Returns 0, or -1 with err (naming the path and the failing step); the
 * temporary file is removed on failure. */
int atomic_write_file(const char *path, const void *data, size_t size, char *err, size_t cap);

#endif /* CLC_ATOMIC_WRITE_H */
