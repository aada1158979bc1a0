/*
 * preload_launch.h — running an application with libclcpack-preload.so
 * (docs/RECORD.md, "Every way an application reaches OpenCL"): where the
 * library is, the environment that loads it (LD_PRELOAD, OPENCL_LAYERS,
 * and a forwarding libOpenCL.so first on LD_LIBRARY_PATH), and what its
 * processes left in their process files.
 */
#ifndef CLC_PRELOAD_LAUNCH_H
#define CLC_PRELOAD_LAUNCH_H

#include <stddef.h>

#define PRELOAD_NAME "libclcpack-preload.so"
/* The forwarding loader, in a folder of this name beside the interposer. */
#define PRELOAD_SHIM_DIR "clcpack-opencl"
#define PRELOAD_SHIM_NAME "libOpenCL.so.1"
/* The name the forwarding loader needs the real loader under. */
#define PRELOAD_REAL_LOADER "libclcpack-real-opencl.so.1"
#define PRELOAD_PATH_MAX 4096

/* The interposer's absolute path: $CLCPACK_PRELOAD, else beside the
 * clc-pack executable (the build folder), else ../lib beside it, else the
 * LIBDIR it was installed to. 0, or -1 with err saying where it looked. */
int preload_find(char out[PRELOAD_PATH_MAX], char *err, size_t cap);

/* Puts lib first in the ':'-separated list variable `name` (LD_PRELOAD,
 * OPENCL_LAYERS, LD_LIBRARY_PATH), keeping what was there. 0 or -1. */
int preload_prepend(const char *name, const char *lib);

/* Whether argv0 can be started as execvp would look it up: 0, or 127 (not
 * found) or 126 (found, not executable) with err saying so. */
int preload_check_app(const char *argv0, char *err, size_t cap);

typedef struct preload_opts {
    const char *mode;        /* "CLCPACK_RECORD" or "CLCPACK_PACK" (the other is removed) */
    const char *value;       /* its value */
    int log;                 /* CLCPACK_LOG=1 */
    const char *status_dir;  /* CLCPACK_STATUS (process files), or NULL */
    const char *work_dir;    /* an existing private folder: the forwarding
                                loader's links go into WORK/lib */
    const char *const *env;  /* more NAME=VALUE, NULL-terminated, or NULL */
} preload_opts;

/* Finds the interposer, and runs argv (argv[0] looked up in $PATH) with it
 * loaded every way it can be (LD_PRELOAD, OPENCL_LAYERS, the forwarding
 * loader when it is installed and the real loader is found). Returns the
 * child's exit status (128+N for signal N), or -1 with err when it could
 * not be started. */
int preload_run(char **argv, const preload_opts *o, char *err, size_t cap);

/* What the process files in dir say, for a run that saw no OpenCL call:
 * one sentence naming the likely cause into msg. shim_dir: the folder of
 * the forwarding loader's links (WORK/lib), or NULL. Returns the OpenCL
 * calls the processes saw in all (0: msg is set). */
unsigned long preload_no_call_reason(const char *dir, const char *shim_dir, const char *app,
                                     char *msg, size_t cap);

/* Removes dir and everything under it (the launcher's own temporary
 * folders). */
void preload_remove_tree(const char *dir);

#endif /* CLC_PRELOAD_LAUNCH_H */
