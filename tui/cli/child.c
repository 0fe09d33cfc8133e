/* child: a helper program (nvidia-smi, rocm-smi) run with one deadline.
 *
 * The child leads a process group of its own, so that whatever it starts
 * can be found again. Reading its output and reaping it share one deadline;
 * at the deadline, on too much output, when mlviz is interrupted, or once
 * the child has exited while something it started still holds the output
 * or runs, the whole group is killed with SIGKILL and the child reaped. A
 * child stuck in the kernel (SIGKILL acts only when its system call
 * returns) is given up on after a short grace, so mlviz itself never
 * waits without a bound. On Linux mlviz is the group's subreaper, so the
 * members it kills are reaped here, not left as zombies. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* How often the loop looks at the child between reads; how long the pipe
 * may stay open after the child exited; how long a killed child may take
 * to be reaped. */
enum { SLICE_MS = 20, AFTER_EXIT_MS = 300, REAP_GRACE_MS = 1000 };

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    interrupted = sig;
}

static const int caught[] = {SIGINT, SIGTERM, SIGHUP};
enum { N_CAUGHT = sizeof caught / sizeof caught[0] };

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* In the child: a group of its own, the pipe as stdout, /dev/null as stdin
 * and stderr, then the program. Only async-signal-safe calls. */
static void exec_child(const char *const *argv, int out_fd)
{
    setpgid(0, 0);
    dup2(out_fd, STDOUT_FILENO);
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDERR_FILENO);
    }
    execvp(argv[0], (char *const *)argv);
    _exit(127);
}

/* What the loop tracks. */
struct watch {
    pid_t pid;
    int fd; /* -1 once closed */
    bool exited;
    int status;
    long long exit_ms;
};

static void try_reap(struct watch *w)
{
    if (w->exited)
        return;
    pid_t r = waitpid(w->pid, &w->status, WNOHANG);
    if (r == w->pid) {
        w->exited = true;
        w->exit_ms = now_ms();
    }
}

/* Reads until the child has exited and the pipe is closed, or something
 * ends the wait (set in res->end). */
static void watch_child(struct watch *w, long long deadline, size_t max_bytes,
                        struct cli_child *res)
{
    while (!(w->exited && w->fd < 0)) {
        long long now = now_ms(), left = deadline - now;
        if (interrupted) {
            res->end = CHILD_INTERRUPTED;
            return;
        }
        if (left <= 0) {
            res->end = CHILD_TIMED_OUT;
            return;
        }
        if (w->exited && now - w->exit_ms >= AFTER_EXIT_MS) {
            res->leftovers = true; /* something the child started holds the pipe */
            return;
        }
        int slice = left < SLICE_MS ? (int)left : SLICE_MS;
        struct pollfd p = {w->fd, POLLIN, 0};
        int r = poll(&p, w->fd >= 0 ? 1 : 0, slice);
        if (r > 0) {
            ssize_t got = read(w->fd, res->out + res->len, max_bytes - res->len);
            if (got > 0)
                res->len += (size_t)got;
            else if (got == 0 || errno != EINTR) {
                close(w->fd);
                w->fd = -1;
            }
            if (res->len == max_bytes) {
                res->end = CHILD_TOO_MUCH;
                return;
            }
        }
        try_reap(w);
    }
}

/* Kills the group (there may be nothing left in it) and reaps the child
 * within REAP_GRACE_MS. */
static void end_group(struct watch *w, struct cli_child *res)
{
    if (kill(-w->pid, SIGKILL) == 0 && w->exited)
        res->leftovers = true;
    if (!w->exited)
        kill(w->pid, SIGKILL); /* in case the group was never made */
    long long until = now_ms() + REAP_GRACE_MS;
    while (!w->exited && now_ms() < until) {
        try_reap(w);
        if (!w->exited)
            poll(NULL, 0, 5);
    }
    res->unreaped = !w->exited;
    /* The killed members that were reparented to mlviz (a subreaper):
     * reaped too, so not even a zombie is left. */
    while (now_ms() < until) {
        pid_t r = waitpid(-w->pid, NULL, WNOHANG);
        if (r < 0 && errno != EINTR)
            break; /* none left in the group */
        if (r == 0)
            poll(NULL, 0, 5);
    }
}

bool cli_run_child(const char *const *argv, int timeout_ms, size_t max_bytes, struct cli_child *res)
{
    memset(res, 0, sizeof *res);
    res->exit_status = -1;
    res->out = malloc(max_bytes + 1);
    int fds[2];
    if (!res->out || pipe(fds) != 0) {
        free(res->out);
        res->out = NULL;
        res->end = CHILD_NOT_RUN;
        return false;
    }
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
#ifdef __linux__
    /* What the child starts and leaves behind comes back to mlviz to reap. */
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
#endif
    struct sigaction act, old[N_CAUGHT];
    memset(&act, 0, sizeof act);
    act.sa_handler = on_signal;
    sigemptyset(&act.sa_mask);
    interrupted = 0;
    for (int i = 0; i < N_CAUGHT; i++)
        sigaction(caught[i], &act, &old[i]);
    struct watch w = {fork(), fds[0], false, 0, 0};
    if (w.pid == 0) {
        for (int i = 0; i < N_CAUGHT; i++)
            sigaction(caught[i], &old[i], NULL);
        close(fds[0]);
        exec_child(argv, fds[1]);
    }
    close(fds[1]);
    if (w.pid < 0) {
        close(fds[0]);
        res->end = CHILD_NOT_RUN;
    } else {
        setpgid(w.pid, w.pid); /* also here: the group exists before any kill */
        watch_child(&w, now_ms() + timeout_ms, max_bytes, res);
        if (w.fd >= 0)
            close(w.fd);
        end_group(&w, res);
        if (w.exited && WIFEXITED(w.status))
            res->exit_status = WEXITSTATUS(w.status);
        else if (w.exited && WIFSIGNALED(w.status))
            res->signal = WTERMSIG(w.status);
        if (res->end == CHILD_DONE && res->exit_status == 127)
            res->end = CHILD_NOT_RUN;
    }
    res->out[res->len] = '\0';
    for (int i = 0; i < N_CAUGHT; i++)
        sigaction(caught[i], &old[i], NULL);
    if (interrupted)
        raise(interrupted); /* the group is gone: end as the signal asked */
    return res->end == CHILD_DONE && res->exit_status == 0;
}
