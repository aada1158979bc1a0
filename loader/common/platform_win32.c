/*
 * platform_win32.c — the Win32 side of platform.h (docs/PLATFORMS.md).
 * Paths arrive as UTF-8 and go to the wide calls (CreateFileW, MoveFileExW)
 * as UTF-16; reads and writes at an offset go through OVERLAPPED, so no
 * shared file position is involved; randomness is BCryptGenRandom; an
 * atomic replace is FlushFileBuffers then MoveFileExW with
 * MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH. The whole file is
 * empty elsewhere.
 */
#ifdef _WIN32
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#include <bcrypt.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"

int clcpk_os_is_sep(char c)
{
    return c == '/' || c == '\\';
}

/* GetLastError() as an errno value, for messages that read the same as
 * on POSIX. */
static int last_errno(void)
{
    switch (GetLastError()) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_NAME:
    case ERROR_BAD_PATHNAME:
        return ENOENT;
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION:
    case ERROR_WRITE_PROTECT:
        return EACCES;
    case ERROR_FILE_EXISTS:
    case ERROR_ALREADY_EXISTS:
        return EEXIST;
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL:
        return ENOSPC;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
        return ENOMEM;
    case ERROR_DIRECTORY:
        return ENOTDIR;
    case ERROR_DIR_NOT_EMPTY:
        return ENOTEMPTY;
    default:
        return EIO;
    }
}

/* UTF-8 to UTF-16 (malloc'd); NULL with errno set on a bad or huge path. */
static wchar_t *wide(const char *s)
{
    int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
    if (n <= 0) {
        errno = ENOENT;
        return NULL;
    }
    wchar_t *w = malloc((size_t)n * sizeof *w);
    if (!w) {
        errno = ENOMEM;
        return NULL;
    }
    MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n);
    return w;
}

static char *narrow(const wchar_t *w)
{
    int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
    char *s = n > 0 ? malloc((size_t)n) : NULL;
    if (s)
        WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL);
    return s;
}

static HANDLE H(clcpk_fd fd)
{
    return (HANDLE)fd;
}

/* 100 ns ticks since 1601 to nanoseconds. */
static int64_t filetime_ns(FILETIME t)
{
    return (int64_t)((((uint64_t)t.dwHighDateTime << 32) | t.dwLowDateTime) * 100u);
}

static void fill_attr(DWORD attr, uint64_t size, FILETIME mt, clcpk_stat *st)
{
    st->kind = (attr & FILE_ATTRIBUTE_REPARSE_POINT) ? CLCPK_KIND_LINK
               : (attr & FILE_ATTRIBUTE_DIRECTORY)   ? CLCPK_KIND_DIR
               : (attr & FILE_ATTRIBUTE_DEVICE)      ? CLCPK_KIND_DEVICE
                                                     : CLCPK_KIND_FILE;
    st->mode = (attr & FILE_ATTRIBUTE_READONLY) ? 0444 : 0666;
    /* A read-only folder still takes new files on Windows. */
    st->writable = st->kind == CLCPK_KIND_DIR || !(attr & FILE_ATTRIBUTE_READONLY);
    st->size = size;
    st->mtime_ns = filetime_ns(mt);
}

int clcpk_os_open_read(const char *path, clcpk_fd *fd)
{
    *fd = CLCPK_NO_FD;
    wchar_t *w = wide(path);
    if (!w)
        return errno;
    /* Others may read, replace or delete the file meanwhile, as on POSIX
     * (the rebuild cache replaces files other processes read). */
    HANDLE h = CreateFileW(w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                           NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    int e = h == INVALID_HANDLE_VALUE ? last_errno() : 0;
    /* A folder is refused as "access denied" here (POSIX opens it and
     * fstat says what it is): said as what it is, EISDIR. */
    if (e == EACCES) {
        DWORD attr = GetFileAttributesW(w);
        if (attr != INVALID_FILE_ATTRIBUTES && (attr & FILE_ATTRIBUTE_DIRECTORY))
            e = EISDIR;
    }
    free(w);
    if (!e)
        *fd = (clcpk_fd)h;
    return e;
}

int clcpk_os_fstat(clcpk_fd fd, clcpk_stat *st)
{
    BY_HANDLE_FILE_INFORMATION fi;
    if (GetFileType(H(fd)) != FILE_TYPE_DISK) {
        memset(st, 0, sizeof *st);
        st->kind = CLCPK_KIND_DEVICE;
        return 0;
    }
    if (!GetFileInformationByHandle(H(fd), &fi))
        return last_errno();
    fill_attr(fi.dwFileAttributes, ((uint64_t)fi.nFileSizeHigh << 32) | fi.nFileSizeLow,
              fi.ftLastWriteTime, st);
    return 0;
}

static OVERLAPPED at_offset(uint64_t at)
{
    OVERLAPPED ov;
    memset(&ov, 0, sizeof ov);
    ov.Offset = (DWORD)at;
    ov.OffsetHigh = (DWORD)(at >> 32);
    return ov;
}

/* Chunks of 1 GiB: ReadFile and WriteFile take a DWORD. */
#define IO_CHUNK ((DWORD)1 << 30)

int clcpk_os_pread(clcpk_fd fd, void *buf, size_t n, uint64_t at, size_t *got)
{
    OVERLAPPED ov = at_offset(at);
    DWORD k = 0;
    *got = 0;
    if (!ReadFile(H(fd), buf, n > IO_CHUNK ? IO_CHUNK : (DWORD)n, &k, &ov))
        return GetLastError() == ERROR_HANDLE_EOF ? 0 : last_errno();
    *got = k;
    return 0;
}

int clcpk_os_read(clcpk_fd fd, void *buf, size_t n, size_t *got)
{
    DWORD k = 0;
    *got = 0;
    if (!ReadFile(H(fd), buf, n > IO_CHUNK ? IO_CHUNK : (DWORD)n, &k, NULL))
        return GetLastError() == ERROR_BROKEN_PIPE ? 0 : last_errno();
    *got = k;
    return 0;
}

int clcpk_os_close(clcpk_fd fd)
{
    return CloseHandle(H(fd)) ? 0 : last_errno();
}

static int path_stat(const char *path, clcpk_stat *st)
{
    wchar_t *w = wide(path);
    if (!w)
        return errno;
    WIN32_FILE_ATTRIBUTE_DATA a;
    int e = GetFileAttributesExW(w, GetFileExInfoStandard, &a) ? 0 : last_errno();
    free(w);
    if (!e)
        fill_attr(a.dwFileAttributes, ((uint64_t)a.nFileSizeHigh << 32) | a.nFileSizeLow,
                  a.ftLastWriteTime, st);
    return e;
}

int clcpk_os_lstat(const char *path, clcpk_stat *st)
{
    return path_stat(path, st);
}

int clcpk_os_stat(const char *path, clcpk_stat *st)
{
    int e = path_stat(path, st);
    /* A reparse point followed: what it names. */
    if (!e && st->kind == CLCPK_KIND_LINK)
        st->kind = CLCPK_KIND_FILE;
    return e;
}

int clcpk_os_create_excl(const char *path, int keep_mode, unsigned mode, clcpk_fd *fd)
{
    *fd = CLCPK_NO_FD;
    wchar_t *w = wide(path);
    if (!w)
        return errno;
    DWORD attr = keep_mode && !(mode & 0222) ? FILE_ATTRIBUTE_READONLY : FILE_ATTRIBUTE_NORMAL;
    HANDLE h = CreateFileW(w, GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_DELETE, NULL,
                           CREATE_NEW, attr, NULL);
    int e = h == INVALID_HANDLE_VALUE ? last_errno() : 0;
    free(w);
    if (!e)
        *fd = (clcpk_fd)h;
    return e;
}

int clcpk_os_write(clcpk_fd fd, const void *buf, size_t n)
{
    const uint8_t *p = buf;
    while (n) {
        DWORD k = 0;
        if (!WriteFile(H(fd), p, n > IO_CHUNK ? IO_CHUNK : (DWORD)n, &k, NULL))
            return last_errno();
        if (k == 0)
            return EIO;
        p += k;
        n -= k;
    }
    return 0;
}

/* WriteFile with an offset moves a synchronous handle's position: it is
 * put back, so that write() after pwrite() still appends where it was. */
int clcpk_os_pwrite(clcpk_fd fd, const void *buf, size_t n, uint64_t at)
{
    LARGE_INTEGER zero = {0}, pos;
    if (!SetFilePointerEx(H(fd), zero, &pos, FILE_CURRENT))
        return last_errno();
    const uint8_t *p = buf;
    int e = 0;
    while (n && !e) {
        OVERLAPPED ov = at_offset(at);
        DWORD k = 0;
        if (!WriteFile(H(fd), p, n > IO_CHUNK ? IO_CHUNK : (DWORD)n, &k, &ov))
            e = last_errno();
        else if (k == 0)
            e = EIO;
        p += k;
        at += k;
        n -= k;
    }
    if (!SetFilePointerEx(H(fd), pos, NULL, FILE_BEGIN) && !e)
        e = last_errno();
    return e;
}

int clcpk_os_sync(clcpk_fd fd)
{
    return FlushFileBuffers(H(fd)) ? 0 : last_errno();
}

/* How long a replace waits for others to let go of the target. */
#define REPLACE_TRIES 40

/* MOVEFILE_WRITE_THROUGH returns once the rename is on disk: the old file
 * or the new one survives a crash, and no folder needs flushing. Unlike
 * rename(), it is refused (access denied, sharing violation) while another
 * process has the target open without FILE_SHARE_DELETE or is replacing it
 * too: such a refusal is brief, so it is retried, about a second in all. */
int clcpk_os_replace(const char *from, const char *to)
{
    wchar_t *wf = wide(from), *wt = wide(to);
    int e = !wf || !wt ? errno : EIO;
    for (int i = 0; wf && wt && i < REPLACE_TRIES; i++) {
        if (MoveFileExW(wf, wt, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) {
            e = 0;
            break;
        }
        DWORD why = GetLastError();
        e = last_errno();
        if (why != ERROR_ACCESS_DENIED && why != ERROR_SHARING_VIOLATION)
            break;
        Sleep(i < 10 ? 1 : 40);
    }
    free(wf);
    free(wt);
    return e;
}

int clcpk_os_sync_dir(const char *dir)
{
    (void)dir;
    return 0;
}

int clcpk_os_unlink(const char *path)
{
    wchar_t *w = wide(path);
    if (!w)
        return errno;
    int e = DeleteFileW(w) ? 0 : last_errno();
    free(w);
    return e;
}

int clcpk_os_mkdir(const char *path, unsigned mode)
{
    (void)mode; /* a user's profile folder is private already */
    wchar_t *w = wide(path);
    if (!w)
        return errno;
    int e = CreateDirectoryW(w, NULL) ? 0 : last_errno();
    free(w);
    return e;
}

int clcpk_os_touch(const char *path)
{
    wchar_t *w = wide(path);
    if (!w)
        return errno;
    HANDLE h = CreateFileW(w, FILE_WRITE_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                           NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    free(w);
    if (h == INVALID_HANDLE_VALUE)
        return last_errno();
    FILETIME now;
    GetSystemTimeAsFileTime(&now);
    int e = SetFileTime(h, NULL, NULL, &now) ? 0 : last_errno();
    CloseHandle(h);
    return e;
}

int clcpk_os_scratch_file(clcpk_fd *fd, char *path, size_t cap)
{
    wchar_t dir[MAX_PATH + 1], name[MAX_PATH + 16];
    *fd = CLCPK_NO_FD;
    snprintf(path, cap, "%s", "%TEMP%\\clcpack-spool");
    if (!GetTempPathW(MAX_PATH + 1, dir) || !GetTempFileNameW(dir, L"clc", 0, name))
        return last_errno();
    char *n8 = narrow(name);
    if (n8) {
        snprintf(path, cap, "%s", n8);
        free(n8);
    }
    /* Deleted when closed, or when the process ends however it ends. */
    HANDLE h = CreateFileW(name, GENERIC_READ | GENERIC_WRITE, FILE_SHARE_DELETE, NULL,
                           CREATE_ALWAYS, FILE_ATTRIBUTE_TEMPORARY | FILE_FLAG_DELETE_ON_CLOSE, NULL);
    if (h == INVALID_HANDLE_VALUE) {
        int e = last_errno();
        DeleteFileW(name);
        return e;
    }
    *fd = (clcpk_fd)h;
    return 0;
}

int clcpk_os_list_dir(const char *dir, clcpk_dir_fn fn, void *ctx)
{
    size_t n = strlen(dir);
    char *pattern = malloc(n + 3);
    if (!pattern)
        return ENOMEM;
    snprintf(pattern, n + 3, "%s\\*", dir);
    wchar_t *w = wide(pattern);
    free(pattern);
    if (!w)
        return errno;
    WIN32_FIND_DATAW fd;
    HANDLE h = FindFirstFileW(w, &fd);
    free(w);
    if (h == INVALID_HANDLE_VALUE)
        return GetLastError() == ERROR_FILE_NOT_FOUND ? 0 : last_errno();
    do {
        if (wcscmp(fd.cFileName, L".") == 0 || wcscmp(fd.cFileName, L"..") == 0)
            continue;
        char *name = narrow(fd.cFileName);
        if (!name)
            continue;
        clcpk_stat st;
        fill_attr(fd.dwFileAttributes, ((uint64_t)fd.nFileSizeHigh << 32) | fd.nFileSizeLow,
                  fd.ftLastWriteTime, &st);
        int stop = fn(ctx, name, &st);
        free(name);
        if (stop)
            break;
    } while (FindNextFileW(h, &fd));
    FindClose(h);
    return 0;
}

unsigned long clcpk_os_pid(void)
{
    return (unsigned long)GetCurrentProcessId();
}

/* OpenProcess fails with ERROR_INVALID_PARAMETER for an id no process has;
 * access denied means one does. A process that has exited but whose handle
 * someone still holds has an exit code other than STILL_ACTIVE. */
int clcpk_os_pid_gone(unsigned long pid)
{
    HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, (DWORD)pid);
    if (!h)
        return GetLastError() == ERROR_INVALID_PARAMETER;
    DWORD code = 0;
    int gone = GetExitCodeProcess(h, &code) && code != STILL_ACTIVE;
    CloseHandle(h);
    return gone;
}

int clcpk_os_random(void *buf, size_t n)
{
    return BCryptGenRandom(NULL, buf, (ULONG)n, BCRYPT_USE_SYSTEM_PREFERRED_RNG) == 0 ? 0 : -1;
}

uint64_t clcpk_os_now_ns(void)
{
    FILETIME t;
    GetSystemTimeAsFileTime(&t);
    return (uint64_t)filetime_ns(t);
}

/* _wgetenv, not getenv: the latter gives the ANSI code page's bytes. */
char *clcpk_os_getenv(const char *name)
{
    wchar_t *w = wide(name);
    if (!w)
        return NULL;
    const wchar_t *v = _wgetenv(w);
    free(w);
    return v && *v ? narrow(v) : NULL;
}

const char clcpk_os_cache_vars[] = "LOCALAPPDATA";

char *clcpk_os_cache_root(void)
{
    char *base = clcpk_os_getenv("LOCALAPPDATA");
    if (!base)
        return NULL;
    size_t n = strlen(base) + sizeof "\\clcpack";
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s\\clcpack", base);
    free(base);
    return s;
}

/* VirtualAlloc's pages read as zeros and are committed when touched. */
void *clcpk_os_pages_alloc(size_t n)
{
    return VirtualAlloc(NULL, n, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
}

void clcpk_os_pages_free(void *p, size_t n)
{
    (void)n;
    VirtualFree(p, 0, MEM_RELEASE);
}

/* OpenCL.dll as loaded by the application: the ICD loader exports what it
 * knows, so a 1.2 loader simply lacks the 2.1 names. */
void *clcpk_os_cl_symbol(const char *name)
{
    HMODULE m = GetModuleHandleW(L"OpenCL.dll");
    if (!m)
        return NULL;
    FARPROC f = GetProcAddress(m, name);
    void *p;
    memcpy(&p, &f, sizeof p);
    return p;
}

/* FindResourceW takes "#123" for a number itself. A loaded resource is
 * never freed (FreeResource does nothing since 32-bit Windows): it lives
 * as long as the module. */
int clcpk_os_resource(void *module, const char *name, const void **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    wchar_t *w = wide(name);
    if (!w)
        return errno;
    HRSRC r = FindResourceW((HMODULE)module, w, MAKEINTRESOURCEW(10) /* RT_RCDATA */);
    free(w);
    if (!r)
        return GetLastError() == ERROR_RESOURCE_DATA_NOT_FOUND ||
                       GetLastError() == ERROR_RESOURCE_TYPE_NOT_FOUND ||
                       GetLastError() == ERROR_RESOURCE_NAME_NOT_FOUND
                   ? ENOENT
                   : last_errno();
    HGLOBAL g = LoadResource((HMODULE)module, r);
    const void *p = g ? LockResource(g) : NULL;
    if (!p)
        return last_errno();
    *data = p;
    *size = SizeofResource((HMODULE)module, r);
    return 0;
}

void *clcpk_os_signals_block(void)
{
    return NULL;
}

void clcpk_os_signals_restore(void *saved)
{
    (void)saved;
}

const char *clcpk_os_strerror(int errnum, char *buf, size_t cap)
{
    if (strerror_s(buf, cap, errnum) != 0)
        snprintf(buf, cap, "error %d", errnum);
    return buf;
}

/* Windows on Arm would ask IsProcessorFeaturePresent; the x86-64 build
 * has no use for the Arm path. */
int clcpk_os_cpu_has_arm_crc32(void)
{
    return 0;
}
#else
/* ISO C wants a translation unit to declare something. */
typedef int clcpk_platform_win32_unused;
#endif
