/* device_lock.c — the device's timing lock (device_lock.h). */
#include "device_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

int device_lock_acquire(const char *key)
{
    const char *dir = getenv(DEVICE_LOCK_ENV);
    if (!dir || !*dir)
        return -1;
    char path[4200];
    snprintf(path, sizeof path, "%s/device-%s.lock", dir, key);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    while (flock(fd, LOCK_EX) != 0)
        if (errno != EINTR) {
            close(fd);
            return -1;
        }
    return fd;
}

void device_lock_release(int fd)
{
    if (fd >= 0)
        close(fd); /* closing drops the flock */
}
