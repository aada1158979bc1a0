/*
 * test_file_lock.c — one process at a time holds PATH.lock
 * (clc/util/file_lock.h), which `clc-pack record -o PACK` takes while it
 * adds to PACK: a second taker is told it is busy or waits; the holder
 * removes the lock file when it lets go, and a waiter that wakes on the
 * removed file takes the new one; processes that each add one to a
 * counter file under the lock, at once, lose none; a lock that cannot be
 * made names its file. No driver.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "file_lock.h"

#define CHILDREN 4
#define ROUNDS 40

static long read_count(const char *path)
{
    FILE *f = fopen(path, "r");
    long n = 0;
    if (f) {
        if (fscanf(f, "%ld", &n) != 1)
            n = -1000000;
        fclose(f);
    }
    return n;
}

/* ROUNDS times: under the lock, the counter read, a pause that a missing
 * lock would lose updates in, the counter plus one written. */
static int count_under_lock(const char *target, const char *counter)
{
    for (int i = 0; i < ROUNDS; i++) {
        file_lock *l = NULL;
        char err[256];
        if (file_lock_take(target, 1, &l, err, sizeof err) != FILE_LOCK_OK)
            return 1;
        long n = read_count(counter);
        usleep(200);
        FILE *f = fopen(counter, "w");
        if (!f || fprintf(f, "%ld\n", n + 1) < 0 || fclose(f) != 0)
            return 1;
        file_lock_release(l);
    }
    return 0;
}

int main(void)
{
    char dir[] = "/tmp/clcpack-file-lock-XXXXXX";
    if (!CHECK(mkdtemp(dir) != NULL, "temporary folder"))
        return check_summary();
    char target[128], lockfile[160], counter[160], err[512];
    snprintf(target, sizeof target, "%s/app.clcpack", dir);
    snprintf(lockfile, sizeof lockfile, "%s.lock", target);
    snprintf(counter, sizeof counter, "%s/count", dir);

    file_lock *a = NULL, *b = NULL;
    CHECK(file_lock_take(target, 0, &a, err, sizeof err) == FILE_LOCK_OK && a, "take: %s", err);
    CHECK(access(lockfile, F_OK) == 0, "the lock file is there while held");
    CHECK(file_lock_take(target, 0, &b, err, sizeof err) == FILE_LOCK_BUSY && !b,
          "a second taker that does not wait: busy");
    file_lock_release(a);
    CHECK(access(lockfile, F_OK) != 0, "the lock file is removed when let go");
    CHECK(file_lock_take(target, 0, &b, err, sizeof err) == FILE_LOCK_OK && b, "taken again: %s",
          err);
    file_lock_release(b);
    file_lock_release(NULL);

    /* Several processes at once, each waiting its turn. */
    pid_t kids[CHILDREN];
    for (int k = 0; k < CHILDREN; k++)
        if ((kids[k] = fork()) == 0)
            _exit(count_under_lock(target, counter));
    int all_ok = 1;
    for (int k = 0; k < CHILDREN; k++) {
        int st = 0;
        if (kids[k] < 0 || waitpid(kids[k], &st, 0) != kids[k] || !WIFEXITED(st) ||
            WEXITSTATUS(st) != 0)
            all_ok = 0;
    }
    CHECK(all_ok, "every process took the lock %d times", ROUNDS);
    long n = read_count(counter);
    CHECK(n == CHILDREN * ROUNDS, "%d processes adding %d each under the lock: %ld, none lost",
          CHILDREN, ROUNDS, n);
    CHECK(access(lockfile, F_OK) != 0, "no lock file left");

    char missing[192];
    snprintf(missing, sizeof missing, "%s/no/such/app.clcpack", dir);
    CHECK(file_lock_take(missing, 1, &a, err, sizeof err) == FILE_LOCK_ERROR && !a &&
              strstr(err, "no/such/app.clcpack.lock"),
          "a lock in a missing folder: an error naming the lock file: %s", err);

    unlink(counter);
    rmdir(dir);
    return check_summary();
}
