/* record.c — writing the record's files (preload.h; formats in
 * formats/capture_format.h, docs/RECORD.md "Capture files").
 *
 * A program's binary is taken right after its build, while the application
 * is in full swing: taken at its exit instead, the query would run PoCL's
 * compiler (it compiles missing work-group functions for the binary) after
 * parts of LLVM were destroyed, and some applications never release their
 * programs. PoCL returns the bytes of a program's first CL_PROGRAM_BINARIES
 * query at every later one, so the work-group functions the application's
 * launches compile afterwards are added by `clc-pack record` from the
 * private kernel cache it gives the application (docs/RECORD.md). */
#include "preload.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fd_io.h"

static unsigned long seq;

/* Writes data as dir/name, or as a new "<pid>-<seq>.<suffix>" when name is
 * NULL or "": a temporary name first, then renamed. 0, or -1 with errno set. */
static int write_named(const char *dir, const char *suffix, const void *data, size_t n,
                       const char *name)
{
    char tmp[4096], final[4096], fresh[CAPTURE_NAME_MAX];
    unsigned long k = __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED);
    long pid = (long)getpid();
    if (!name || !name[0])
        snprintf(fresh, sizeof fresh, "%ld-%lu.%s", pid, k, suffix);
    if (snprintf(tmp, sizeof tmp, "%s/.%ld-%lu.tmp", dir, pid, k) >= (int)sizeof tmp ||
        snprintf(final, sizeof final, "%s/%s", dir, name && name[0] ? name : fresh) >=
            (int)sizeof final) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    if (clcpk_fd_write_all(fd, data, n) != 0) {
        int e = errno;
        close(fd);
        unlink(tmp);
        errno = e ? e : EIO;
        return -1;
    }
    if (close(fd) != 0 || rename(tmp, final) != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
        return -1;
    }
    return 0;
}

void record_note_binary(void)
{
    if (interposer_cfg.record_dir)
        write_named(interposer_cfg.record_dir, "binary", "", 0, NULL);
}

/* The kernels the program holds (the pack's entry names them). */
static void kernel_names(cl_program p, char *buf, size_t cap)
{
    size_t n = 0;
    if (DRV(clGetProgramInfo, p)(p, CL_PROGRAM_KERNEL_NAMES, 0, NULL, &n) != CL_SUCCESS ||
        n > cap || DRV(clGetProgramInfo, p)(p, CL_PROGRAM_KERNEL_NAMES, cap, buf, NULL) != CL_SUCCESS)
        buf[0] = '\0';
    buf[cap - 1] = '\0';
}

void record_capture(cl_program p, capture_kind kind, cl_uint n, const cl_device_id *devs,
                 const char *source, size_t size, const char *options, const char *key)
{
    if (!interposer_cfg.record_dir)
        return;
    /* A build's text as its key took it: without what a tool appended that
     * changes nothing (rk_canonical_size). A link's description is exact. */
    if (kind == CAPTURE_BUILD)
        size = rk_canonical_size(source, size);
    cl_device_id all[MAX_DEVICES];
    cl_uint n_all = 0;
    if (interposer_program_devices(p, 0, NULL, all, &n_all) != 0) {
        interposer_say("program %p: not captured: cannot list its devices", (void *)p);
        return;
    }
    size_t sizes[MAX_DEVICES] = {0};
    unsigned char *bins[MAX_DEVICES] = {0};
    int ok = DRV(clGetProgramInfo, p)(p, CL_PROGRAM_BINARY_SIZES, n_all * sizeof(size_t), sizes,
                                      NULL) == CL_SUCCESS;
    for (cl_uint i = 0; ok && i < n_all; i++)
        if (sizes[i] && !(bins[i] = malloc(sizes[i])))
            ok = 0;
    if (ok)
        ok = DRV(clGetProgramInfo, p)(p, CL_PROGRAM_BINARIES, n_all * sizeof(unsigned char *),
                                      bins, NULL) == CL_SUCCESS;
    char names[4096];
    kernel_names(p, names, sizeof names);
    int written = 0;
    char why[256] = "";
    for (cl_uint i = 0; i < n; i++) {
        capture c = {.kind = kind, .key = (char *)key, .source = (char *)source,
                     .source_size = size, .options = (char *)(options ? options : ""),
                     .kernel_names = names};
        c.device.struct_size = sizeof c.device;
        if (clcpack_device_query(devs[i], &c.device, NULL) != CLCPACK_OK) {
            interposer_why(why, sizeof why, "; cannot fingerprint device %u", (unsigned)i);
            continue;
        }
        cl_uint j = 0;
        while (j < n_all && all[j] != devs[i])
            j++;
        if (ok && j < n_all) {
            c.binary = bins[j];
            c.binary_size = sizes[j];
        }
        unsigned char *file = NULL;
        size_t file_size = 0;
        if (capture_encode(&c, &file, &file_size) == 0 &&
            write_named(interposer_cfg.record_dir, "rec", file, file_size, NULL) == 0)
            written++;
        else
            interposer_why(why, sizeof why, "; cannot write a capture file in %s", interposer_cfg.record_dir);
        free(file);
    }
    for (cl_uint i = 0; i < n_all; i++)
        free(bins[i]);
    if (why[0] || !ok)
        interposer_say("%s %p: %d of %u capture%s written%s%s", kind == CAPTURE_LINK ? "link" : "program",
               (void *)p, written, (unsigned)n, n == 1 ? "" : "s", ok ? "" : "; no binary", why);
}

/* ---------------------------------------------------------------------- */
/* The process file                                                        */

static int note_loader(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    proc_status *st = arg;
    const char *path = info->dlpi_name;
    const char *base = path ? strrchr(path, '/') : NULL;
    base = base ? base + 1 : path;
    if (base && strncmp(base, "libOpenCL", 9) == 0 && st->n_loaded < 4)
        snprintf(st->loaded[st->n_loaded++], sizeof st->loaded[0], "%.500s", path);
    return 0;
}

__attribute__((destructor)) static void write_process_file(void)
{
    const char *dir = getenv("CLCPACK_STATUS");
    if (!dir || !*dir)
        return;
    proc_status st = {.calls = interposer_calls(), .layer = interposer_layer_active()};
    dl_iterate_phdr(note_loader, &st);
    char text[4096], name[64];
    size_t n = proc_status_format(&st, text, sizeof text);
    snprintf(name, sizeof name, "%ld%s", (long)getpid(), PROC_SUFFIX);
    if (n)
        write_named(dir, "proc", text, n, name);
}
