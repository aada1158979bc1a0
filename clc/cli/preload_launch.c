/* preload_launch.c — running an application with the interposer (preload_launch.h). */
#define _GNU_SOURCE /* dladdr */
#include "preload_launch.h"

#include <CL/cl.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bounded_fmt.h"
#include "rec_capture.h"

#ifndef CLCPACK_LIBDIR
#define CLCPACK_LIBDIR "/usr/local/lib"
#endif

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int absolute(const char *path, char out[PRELOAD_PATH_MAX])
{
    char *r = realpath(path, NULL);
    if (!r)
        return -1;
    int ok = strlen(r) < PRELOAD_PATH_MAX;
    if (ok)
        memcpy(out, r, strlen(r) + 1);
    free(r);
    return ok ? 0 : -1;
}

int preload_find(char out[PRELOAD_PATH_MAX], char *err, size_t cap)
{
    const char *env = getenv("CLCPACK_PRELOAD");
    if (env && *env) {
        if (is_file(env) && absolute(env, out) == 0)
            return 0;
        bfmt(err, cap, "CLCPACK_PRELOAD=%s: not a file", env);
        return -1;
    }
    char exe[PRELOAD_PATH_MAX], cand[PRELOAD_PATH_MAX + 64];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            bfmt(cand, sizeof cand, "%s/%s", exe, PRELOAD_NAME);
            if (is_file(cand) && absolute(cand, out) == 0)
                return 0;
            bfmt(cand, sizeof cand, "%s/../lib/%s", exe, PRELOAD_NAME);
            if (is_file(cand) && absolute(cand, out) == 0)
                return 0;
        }
    }
    bfmt(cand, sizeof cand, "%s/%s", CLCPACK_LIBDIR, PRELOAD_NAME);
    if (is_file(cand) && absolute(cand, out) == 0)
        return 0;
    bfmt(err, cap,
         "cannot find %s (looked beside clc-pack, in ../lib beside it and in %s; "
         "set CLCPACK_PRELOAD to its path)",
         PRELOAD_NAME, CLCPACK_LIBDIR);
    return -1;
}

int preload_prepend(const char *name, const char *lib)
{
    const char *old = getenv(name);
    if (!old || !*old)
        return setenv(name, lib, 1);
    size_t n = strlen(lib) + strlen(old) + 2;
    char *v = malloc(n);
    if (!v)
        return -1;
    snprintf(v, n, "%s:%s", lib, old);
    int rc = setenv(name, v, 1);
    free(v);
    return rc;
}

int preload_check_app(const char *argv0, char *err, size_t cap)
{
    if (!argv0 || !*argv0) {
        bfmt(err, cap, "no application named");
        return 127;
    }
    if (strchr(argv0, '/')) {
        struct stat st;
        if (stat(argv0, &st) != 0) {
            bfmt(err, cap, "cannot run %s: %s", argv0, strerror(errno));
            return 127;
        }
        if (S_ISDIR(st.st_mode) || access(argv0, X_OK) != 0) {
            bfmt(err, cap, "cannot run %s: not an executable file", argv0);
            return 126;
        }
        return 0;
    }
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    int found_other = 0;
    for (const char *p = path; *p;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char cand[PRELOAD_PATH_MAX];
        if (len < sizeof cand - strlen(argv0) - 2) {
            if (len)
                bfmt(cand, sizeof cand, "%.*s/%s", (int)len, p, argv0);
            else
                bfmt(cand, sizeof cand, "%s", argv0);
            struct stat st;
            if (stat(cand, &st) == 0 && !S_ISDIR(st.st_mode)) {
                if (access(cand, X_OK) == 0)
                    return 0;
                found_other = 1;
            }
        }
        p += len;
        if (*p == ':')
            p++;
    }
    bfmt(err, cap, found_other ? "cannot run %s: not executable" : "cannot run %s: not found in PATH",
         argv0);
    return found_other ? 126 : 127;
}

/* The OpenCL loader this process (clc-pack, linked with it) uses: the file
 * that defines clGetPlatformIDs. */
static int real_loader(char out[PRELOAD_PATH_MAX])
{
    Dl_info info;
    if (!dladdr((void *)(size_t)clGetPlatformIDs, &info) || !info.dli_fname ||
        !info.dli_fname[0])
        return -1;
    return absolute(info.dli_fname, out);
}

/* WORK/lib with the forwarding loader under both names an application
 * opens (libOpenCL.so, libOpenCL.so.1), and the two libraries it needs:
 * the interposer and the real loader under PRELOAD_REAL_LOADER, so that
 * it forwards to the real loader, never to itself. 0 with dir, or -1 when
 * the forwarding loader is not installed or the real loader is not found
 * (the application then runs without it). */
static int make_shim(const char *lib, const char *work, char dir[PRELOAD_PATH_MAX])
{
    char shim[PRELOAD_PATH_MAX + 64], real[PRELOAD_PATH_MAX], libdir[PRELOAD_PATH_MAX];
    bfmt(libdir, sizeof libdir, "%s", lib);
    char *slash = strrchr(libdir, '/');
    if (!slash || !work)
        return -1;
    *slash = '\0';
    bfmt(shim, sizeof shim, "%s/%s/%s", libdir, PRELOAD_SHIM_DIR, PRELOAD_SHIM_NAME);
    char shim_abs[PRELOAD_PATH_MAX];
    if (!is_file(shim) || absolute(shim, shim_abs) != 0 || real_loader(real) != 0 ||
        strcmp(real, shim_abs) == 0)
        return -1;
    bfmt(dir, PRELOAD_PATH_MAX, "%s/lib", work);
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return -1;
    const char *links[][2] = {{"libOpenCL.so.1", shim_abs},
                              {"libOpenCL.so", shim_abs},
                              {PRELOAD_NAME, lib},
                              {PRELOAD_REAL_LOADER, real}};
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
        char at[PRELOAD_PATH_MAX + 64];
        bfmt(at, sizeof at, "%s/%s", dir, links[i][0]);
        unlink(at);
        if (symlink(links[i][1], at) != 0)
            return -1;
    }
    return 0;
}

int preload_run(char **argv, const preload_opts *o, char *err, size_t cap)
{
    char lib[PRELOAD_PATH_MAX], shim_dir[PRELOAD_PATH_MAX];
    if (preload_find(lib, err, cap) != 0)
        return -1;
    int shim = make_shim(lib, o->work_dir, shim_dir) == 0;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        bfmt(err, cap, "cannot start %s: fork: %s", argv[0], strerror(errno));
        return -1;
    }
    if (pid == 0) {
        unsetenv(strcmp(o->mode, "CLCPACK_RECORD") == 0 ? "CLCPACK_PACK" : "CLCPACK_RECORD");
        int bad = setenv(o->mode, o->value, 1) != 0 || preload_prepend("LD_PRELOAD", lib) != 0 ||
                  preload_prepend("OPENCL_LAYERS", lib) != 0 ||
                  (shim && preload_prepend("LD_LIBRARY_PATH", shim_dir) != 0) ||
                  (o->log && setenv("CLCPACK_LOG", "1", 1) != 0);
        if (o->status_dir)
            bad |= setenv("CLCPACK_STATUS", o->status_dir, 1) != 0;
        else
            unsetenv("CLCPACK_STATUS");
        for (size_t i = 0; o->env && o->env[i]; i++)
            bad |= putenv((char *)o->env[i]) != 0;
        if (bad)
            _exit(126);
        execvp(argv[0], argv);
        fprintf(stderr, "clc-pack: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(errno == ENOENT ? 127 : 126);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) {
            bfmt(err, cap, "waiting for %s: %s", argv[0], strerror(errno));
            return -1;
        }
    }
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

unsigned long preload_no_call_reason(const char *dir, const char *shim_dir, const char *app,
                                     char *msg, size_t cap)
{
    size_t procs = 0;
    unsigned long calls = 0;
    int reached = 0; /* OpenCL started through a layer or the forwarding loader */
    char loaded[512] = "";
    size_t shim_len = shim_dir ? strlen(shim_dir) : 0;
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name), sl = strlen(PROC_SUFFIX);
        if (len <= sl || strcmp(de->d_name + len - sl, PROC_SUFFIX) != 0)
            continue;
        char path[PRELOAD_PATH_MAX + 256];
        bfmt(path, sizeof path, "%s/%s", dir, de->d_name);
        proc_status st;
        if (rec_capture_proc_read(path, &st) != 0)
            continue;
        procs++;
        calls += st.calls;
        reached |= st.layer;
        for (int i = 0; i < st.n_loaded; i++) {
            if (shim_len && strncmp(st.loaded[i], shim_dir, shim_len) == 0)
                reached = 1;
            else if (!loaded[0])
                bfmt(loaded, sizeof loaded, "%s", st.loaded[i]);
        }
    }
    if (d)
        closedir(d);
    if (calls)
        return calls;
    if (!procs)
        bfmt(msg, cap,
             "no process of %s loaded %s: LD_PRELOAD is ignored by statically linked and "
             "set-user-ID programs, and a process that ends without exit() (killed, crashed, "
             "_exit) leaves no trace",
             app, PRELOAD_NAME);
    else if (reached)
        bfmt(msg, cap,
             "%s started OpenCL (through a layer or the forwarding loader) but created no "
             "program in its %zu process%s",
             app, procs, procs == 1 ? "" : "es");
    else if (loaded[0])
        bfmt(msg, cap,
             "%s loaded the OpenCL loader %s, but no OpenCL call reached %s: it opens a "
             "loader by a path that LD_LIBRARY_PATH does not decide, and that loader takes no "
             "layers (OPENCL_LAYERS); point its own setting at the forwarding loader "
             "%s/%s beside %s (OpenCV: OPENCV_OPENCL_RUNTIME; docs/RECORD.md)",
             app, loaded, PRELOAD_NAME, PRELOAD_SHIM_DIR, PRELOAD_SHIM_NAME, PRELOAD_NAME);
    else
        bfmt(msg, cap,
             "%s made no OpenCL call: none of its %zu process%s loaded an OpenCL loader", app,
             procs, procs == 1 ? "" : "es");
    return 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (flag == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

void preload_remove_tree(const char *dir)
{
    nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}
