/*
 * device_lock.h — one timing at a time on a device, across the build
 * workers of one pack run: with --tune or --tune-cmd on a GPU the variants
 * build in parallel, and each worker holds its device's lock only while it
 * times (docs/TUNING.md, "Measuring the bundled kernels"). The lock is an
 * flock(2) on a file in a folder the run names in CLCPACK_DEVICE_LOCK_DIR
 * (one file per device); without that variable nothing is locked. A
 * worker that dies lets go of it with its descriptors.
 */
#ifndef CLC_DEVICE_LOCK_H
#define CLC_DEVICE_LOCK_H

#define DEVICE_LOCK_ENV "CLCPACK_DEVICE_LOCK_DIR"

/* Waits for the lock of the device named key ("3": its --list-devices
 * number). Returns a descriptor for device_lock_release, or -1 when no
 * lock is asked for or it cannot be had (then nothing waits). */
int device_lock_acquire(const char *key);
void device_lock_release(int fd);

#endif /* CLC_DEVICE_LOCK_H */
