/*
 * preload_launch.h — running an application with libclcpack-preload.so
 * (docs/RECORD.md): where the library is, and the environment that loads it.
 */
#ifndef CLC_PRELOAD_LAUNCH_H
#define CLC_PRELOAD_LAUNCH_H

#include <stddef.h>

#define PRELOAD_NAME "libclcpack-preload.so"
#define PRELOAD_PATH_MAX 4096

/* The interposer's absolute path: $CLCPACK_PRELOAD, else beside the
 * clc-pack executable (the build folder), else ../lib beside it, else the
 * LIBDIR it was installed to. 0, or -1 with err saying where it looked. */
int preload_find(char out[PRELOAD_PATH_MAX], char *err, size_t cap);

/* Puts lib first in LD_PRELOAD (keeping what was there). 0 or -1. */
int preload_setenv(const char *lib);

/* Finds the interposer, and runs argv (argv[0] looked up in $PATH) with it
 * and the environment variable `mode`=`value` (CLCPACK_RECORD or
 * CLCPACK_PACK; the other one removed), CLCPACK_LOG=1 when log.
 * Returns the child's exit status (128+N for signal N), or -1 with err
 * when it could not be started. */
int preload_run(char **argv, const char *mode, const char *value, int log, char *err,
                size_t cap);

#endif /* CLC_PRELOAD_LAUNCH_H */
