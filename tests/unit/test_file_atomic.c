/*
 * test_file_atomic.c — the library's one writer, clcpack_write_file_atomic,
 * and its output-path rules (clcpack_check_output_path), called directly:
 *
 *  - a new file and a replaced regular file get the bytes; a new file's
 *    mode is 0666 less the umask, a replaced file keeps its mode;
 *  - a symbolic link (to a file, dangling), a FIFO, a folder, a read-only
 *    file, a missing folder and a path below a file are refused with
 *    CLCPACK_E_IO, a message naming the path once, and are left as they
 *    were; no temporary file is left by any call;
 *  - bad arguments (flags, NULL data, empty path) are CLCPACK_E_INVALID_ARG;
 *  - a temporary file of a dead writer ("<path>.tmp.<pid>.XXXXXX") is
 *    removed by the next write, a live writer's is kept.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "clcpack_write.h"

static char dir[] = "/tmp/test_file_atomic.XXXXXX";

static const char *at(const char *name)
{
    static char buf[8][512];
    static int next;
    char *b = buf[next++ % 8];
    snprintf(b, sizeof buf[0], "%s/%s", dir, name);
    return b;
}

static int temps_left(void)
{
    int n = 0;
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL)
        if (strstr(de->d_name, ".tmp."))
            n++;
    if (d)
        closedir(d);
    return n;
}

static int holds(const char *path, const char *text)
{
    char buf[256] = "";
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    return strcmp(buf, text) == 0;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* A write to path must fail with CLCPACK_E_IO and a message holding why
 * and naming path once. */
static void refused(const char *what, const char *path, const char *why)
{
    clcpack_error e;
    clcpack_status st = clcpack_write_file_atomic(path, "new", 3, 0, &e);
    CHECK(st == CLCPACK_E_IO && strstr(e.message, why) && count(e.message, path) == 1,
          "%s: refused (%d): %s", what, (int)st, e.message);
    clcpack_error c;
    CHECK(clcpack_check_output_path(path, &c) == CLCPACK_E_IO && strcmp(c.message, e.message) == 0,
          "%s: the check alone says the same: %s", what, c.message);
}

int main(void)
{
    if (!CHECK(mkdtemp(dir) != NULL, "temporary folder"))
        return check_summary();
    clcpack_error e;

    /* New and replaced files. */
    mode_t old = umask(027);
    CHECK(clcpack_write_file_atomic(at("a"), "one", 3, 0, &e) == CLCPACK_OK, "new file: %s",
          e.message);
    umask(old);
    struct stat st;
    CHECK(holds(at("a"), "one"), "the new file holds the bytes");
    CHECK(stat(at("a"), &st) == 0 && (st.st_mode & 0777) == 0640,
          "a new file under umask 027 is 0640 (%o)", (unsigned)(st.st_mode & 0777));
    chmod(at("a"), 0600);
    CHECK(clcpack_write_file_atomic(at("a"), "two", 3, 0, &e) == CLCPACK_OK, "replace: %s",
          e.message);
    CHECK(holds(at("a"), "two"), "the replaced file holds the new bytes");
    CHECK(stat(at("a"), &st) == 0 && (st.st_mode & 0777) == 0600,
          "a replaced file keeps its mode 0600 (%o)", (unsigned)(st.st_mode & 0777));
    CHECK(clcpack_write_file_atomic(at("empty"), NULL, 0, 0, &e) == CLCPACK_OK &&
              stat(at("empty"), &st) == 0 && st.st_size == 0,
          "an empty file from NULL data: %s", e.message);

    /* What is refused. */
    CHECK(symlink("a", at("link")) == 0, "make a link");
    refused("a link to a file", at("link"), "symbolic link");
    CHECK(holds(at("a"), "two"), "the link's target is unchanged");
    CHECK(symlink("nowhere", at("dangling")) == 0, "make a dangling link");
    refused("a dangling link", at("dangling"), "symbolic link");
    CHECK(lstat(at("dangling"), &st) == 0 && S_ISLNK(st.st_mode) &&
              access(at("nowhere"), F_OK) != 0,
          "the dangling link is still one, nothing made where it points");
    CHECK(mkfifo(at("fifo"), 0600) == 0, "make a FIFO");
    refused("a FIFO", at("fifo"), "is a FIFO");
    CHECK(lstat(at("fifo"), &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO is still a FIFO");
    CHECK(mkdir(at("folder"), 0700) == 0, "make a folder");
    refused("a folder", at("folder"), "is a folder");
    CHECK(clcpack_write_file_atomic(at("ro"), "keep", 4, 0, &e) == CLCPACK_OK, "a file");
    chmod(at("ro"), 0444);
    refused("a read-only file (also for root)", at("ro"), "read-only");
    CHECK(holds(at("ro"), "keep"), "the read-only file is unchanged");
    refused("a missing folder", at("none/x"), "does not exist");
    refused("a path below a file", at("a/x"), "is not a folder");
    CHECK(temps_left() == 0, "no temporary file left (%d)", temps_left());

    /* Bad arguments. */
    CHECK(clcpack_write_file_atomic(at("b"), "x", 1, 1, &e) == CLCPACK_E_INVALID_ARG,
          "flags other than 0: %s", e.message);
    CHECK(clcpack_write_file_atomic(at("b"), NULL, 1, 0, &e) == CLCPACK_E_INVALID_ARG,
          "NULL data with a size: %s", e.message);
    CHECK(clcpack_write_file_atomic("", "x", 1, 0, &e) == CLCPACK_E_INVALID_ARG &&
              clcpack_write_file_atomic(NULL, "x", 1, 0, NULL) == CLCPACK_E_INVALID_ARG,
          "an empty or NULL path");
    CHECK(access(at("b"), F_OK) != 0, "nothing written for bad arguments");

    /* Temporary files: a dead writer's is removed, a live one's kept. */
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    waitpid(child, NULL, 0);
    char dead[600], live[600];
    snprintf(dead, sizeof dead, "%s.tmp.%ld.abcDEF", at("a"), (long)child);
    snprintf(live, sizeof live, "%s.tmp.%ld.abcDEF", at("a"), (long)getppid());
    FILE *f1 = fopen(dead, "w"), *f2 = fopen(live, "w");
    if (f1)
        fclose(f1);
    if (f2)
        fclose(f2);
    CHECK(clcpack_write_file_atomic(at("a"), "three", 5, 0, &e) == CLCPACK_OK, "write: %s",
          e.message);
    CHECK(access(dead, F_OK) != 0, "a dead writer's temporary file is removed");
    CHECK(access(live, F_OK) == 0, "a live writer's temporary file is kept");
    unlink(live);

    char cmd[600];
    snprintf(cmd, sizeof cmd, "chmod -R u+w '%s'; rm -rf '%s'", dir, dir);
    if (system(cmd) != 0)
        printf("note: could not remove %s\n", dir);
    return check_summary();
}
