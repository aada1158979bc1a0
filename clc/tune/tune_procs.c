/* tune_procs.c — the tuning loop's worker processes (tune_procs.h). */
#include "tune_procs.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tune_proto.h"

extern char **environ;

int tune_proc_start(tune_proc *p, const char *exe, char *const argv[], int show_output)
{
    int in[2], out[2];
    if (pipe(in) != 0)
        return -1;
    if (pipe(out) != 0) {
        close(in[0]);
        close(in[1]);
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], TUNE_PROTO_REPLY_FD);
    if (!show_output) {
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    }
    posix_spawn_file_actions_addclose(&fa, in[1]);
    posix_spawn_file_actions_addclose(&fa, out[0]);
    pid_t pid;
    int rc = posix_spawn(&pid, exe, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    close(out[1]);
    if (rc != 0) {
        close(in[1]);
        close(out[0]);
        errno = rc;
        return -1;
    }
    fcntl(in[1], F_SETFD, FD_CLOEXEC);
    fcntl(out[0], F_SETFD, FD_CLOEXEC);
    memset(p, 0, sizeof *p);
    p->pid = pid;
    p->to = in[1];
    p->from = out[0];
    return 0;
}

static int wait_for(pid_t pid)
{
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return status;
}

/* Tells p's worker to end; its pid, or 0 when it had none. */
static pid_t let_go(tune_proc *p, int kill_it)
{
    pid_t pid = p->pid > 0 ? p->pid : 0;
    if (pid) {
        if (kill_it)
            kill(pid, SIGKILL);
        close(p->to);
        close(p->from);
    }
    memset(p, 0, sizeof *p);
    p->pid = -1;
    return pid;
}

int tune_proc_close(tune_proc *p, int kill_it)
{
    pid_t pid = let_go(p, kill_it);
    return pid ? wait_for(pid) : 0;
}

void tune_proc_close_later(tune_proc *p, int kill_it, child_exits *e)
{
    pid_t pid = let_go(p, kill_it);
    if (pid && (!e || child_exits_add(e, pid) != 0))
        wait_for(pid);
}
