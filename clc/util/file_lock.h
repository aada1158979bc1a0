/*
 * file_lock.h — one process at a time updates a file: an exclusive lock
 * (flock) on a lock file beside it, PATH.lock, which its holder removes
 * when it lets go, so none is left behind. `clc-pack record -o PACK` holds
 * it while it reads PACK and writes the pack that replaces it, so that two
 * records into one pack each add to what the other wrote. Advisory: only
 * those who take the lock wait for it. Nothing here prints.
 */
#ifndef CLC_FILE_LOCK_H
#define CLC_FILE_LOCK_H

#include <stddef.h>

typedef struct file_lock file_lock;

enum { FILE_LOCK_OK = 0, FILE_LOCK_ERROR = -1, FILE_LOCK_BUSY = 1 };

/* Takes the lock of path: waits while another holds it when wait is
 * nonzero, else returns FILE_LOCK_BUSY at once. FILE_LOCK_OK with *out
 * (release it with file_lock_release), or FILE_LOCK_ERROR with a message
 * naming the lock file in err[0..cap). */
int file_lock_take(const char *path, int wait, file_lock **out, char *err, size_t cap);

/* Removes the lock file and lets go of the lock. NULL is a no-op. */
void file_lock_release(file_lock *l);

#endif /* CLC_FILE_LOCK_H */
