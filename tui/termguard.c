/* termguard: the terminal outside curses (see termguard.h). Everything a
 * signal handler touches is precomputed and static; the handlers use only
 * async-signal-safe calls (write, tcsetattr, lseek, read, alarm, signal,
 * sigprocmask, raise, _exit). */
#include "termguard.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <curses.h>
#include <term.h>

#include "luahost.h"

/* Seconds the frame loop gets to leave by itself after a quit request
 * before a handler puts the terminal back and ends the process. */
enum { QUIT_DEADLINE_S = 2, READ_FAILURES_GONE = 3, RESTORE_MAX = 512 };

/* Stop every mouse-reporting mode ncurses may have switched on (X10 and
 * button-event tracking, any-event tracking, SGR coordinates). */
static const char mouse_off[] = "\033[?1000l\033[?1002l\033[?1003l\033[?1006l";

static char restore_seq[RESTORE_MAX];
static size_t restore_len;
static volatile sig_atomic_t tty_fd = -1;
static struct termios saved_modes;
static bool have_modes;

/* What the crash signals did before (a sanitizer's report, say): a crash
 * is handed back to it once the terminal is restored. */
static struct sigaction crash_before[NSIG];
static volatile sig_atomic_t crash_saved[NSIG];

static volatile sig_atomic_t quit_sig;
static volatile sig_atomic_t deadline_armed;
static volatile sig_atomic_t capture_fd = -1;
static volatile sig_atomic_t stdout_fd = -1;

/* Appends a terminfo string, without its padding ("$<5>"). */
static void add_cap(const char *name)
{
    const char *s = tigetstr(name);
    if (!s || s == (const char *)-1)
        return;
    while (*s && restore_len + 1 < sizeof restore_seq) {
        if (s[0] == '$' && s[1] == '<' && strchr(s, '>')) {
            s = strchr(s, '>') + 1;
            continue;
        }
        restore_seq[restore_len++] = *s++;
    }
}

bool termguard_probe(int fd, char *err, size_t err_len)
{
    static const char hint[] = "the interactive view needs a terminal with cursor addressing; "
                               "try the headless commands (see 'mlviz --help')";
    const char *name = getenv("TERM");
    int errret = 0;
    if (!name || !name[0]) {
        snprintf(err, err_len, "TERM is not set: %s", hint);
        return false;
    }
    if (setupterm(NULL, fd, &errret) != OK) {
        if (errret == -1)
            snprintf(err, err_len, "no terminfo database for TERM '%s': %s", name, hint);
        else
            snprintf(err, err_len, "TERM '%s' is not a terminal mlviz knows: %s", name, hint);
        return false;
    }
    const char *cup = tigetstr("cup");
    bool ok = cup && cup != (const char *)-1;
    if (!ok) {
        snprintf(err, err_len, "TERM '%s' cannot move the cursor: %s", name, hint);
    } else {
        restore_len = 0;
        const char *kmous = tigetstr("kmous");
        if (kmous && kmous != (const char *)-1) {
            memcpy(restore_seq, mouse_off, sizeof mouse_off - 1);
            restore_len = sizeof mouse_off - 1;
        }
        add_cap("sgr0");
        add_cap("rmkx");
        add_cap("cnorm");
        add_cap("rmcup");
        have_modes = tcgetattr(STDIN_FILENO, &saved_modes) == 0;
    }
    del_curterm(cur_term);
    return ok;
}

/* Copies what `mlviz play` captured of stdout to the real stdout. */
static void copy_capture(void)
{
    int from = capture_fd, to = stdout_fd;
    if (from < 0 || to < 0 || lseek(from, 0, SEEK_SET) < 0)
        return;
    char buf[4096];
    ssize_t n;
    while ((n = read(from, buf, sizeof buf)) > 0)
        if (write(to, buf, (size_t)n) != n)
            break;
}

/* Delivers sig now (even inside its own handler); exits 128 + sig if the
 * process survives it. */
static void raise_unblocked(int sig)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    _exit(128 + sig);
}

/* From a handler: put the terminal back and die of sig (0: exit 0). A
 * fault (not a signal sent by kill or raise) goes to the handler it
 * replaced when there was one. */
static void die_restored(int sig, bool fault)
{
    int fd = tty_fd;
    if (fd >= 0) {
        size_t off = 0;
        while (off < restore_len) {
            ssize_t n = write(fd, restore_seq + off, restore_len - off);
            if (n <= 0)
                break;
            off += (size_t)n;
        }
        tty_fd = -1;
    }
    if (have_modes)
        tcsetattr(STDIN_FILENO, TCSANOW, &saved_modes);
    copy_capture();
    if (sig == 0)
        _exit(0);
    if (fault && sig > 0 && sig < NSIG && crash_saved[sig])
        sigaction(sig, &crash_before[sig], NULL);
    else
        signal(sig, SIG_DFL);
    raise_unblocked(sig);
}

static void on_crash(int sig, siginfo_t *info, void *context)
{
    (void)context;
    die_restored(sig, info && info->si_code > 0);
}

static void on_quit(int sig)
{
    if (sig == SIGALRM && deadline_armed) {
        die_restored(quit_sig, false); /* the loop did not leave in time */
        return;
    }
    if (quit_sig) {
        die_restored(quit_sig, false); /* asked twice */
        return;
    }
    quit_sig = sig;
    luahost_interrupt();
    deadline_armed = 1;
    alarm(QUIT_DEADLINE_S);
}

void termguard_install_signals(void)
{
    static const int crash[] = {SIGSEGV, SIGABRT, SIGFPE, SIGBUS, SIGILL, SIGTRAP, SIGSYS};
    static const int quit[] = {
        SIGHUP,    SIGINT,  SIGQUIT, SIGTERM,   SIGUSR1, SIGUSR2, SIGPIPE,
        SIGALRM,   SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGPOLL,
#ifdef SIGSTKFLT
        SIGSTKFLT,
#endif
#ifdef SIGPWR
        SIGPWR,
#endif
    };
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_sigaction = on_crash;
    sa.sa_flags = SA_SIGINFO;
    for (size_t i = 0; i < sizeof crash / sizeof crash[0]; i++) {
        int sig = crash[i];
        if (!crash_saved[sig] && sigaction(sig, NULL, &crash_before[sig]) == 0 &&
            crash_before[sig].sa_handler != SIG_IGN && crash_before[sig].sa_handler != SIG_DFL)
            crash_saved[sig] = 1;
        sigaction(sig, &sa, NULL);
    }
    sa.sa_handler = on_quit;
    sa.sa_flags = 0;
    /* A quit handler must not run inside another one. */
    for (size_t i = 0; i < sizeof quit / sizeof quit[0]; i++)
        sigaddset(&sa.sa_mask, quit[i]);
    for (size_t i = 0; i < sizeof quit / sizeof quit[0]; i++) {
        /* What was ignored when mlviz started (nohup, a background job)
         * stays ignored; the deadline's own alarm is always caught. */
        if (sigaction(quit[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN && quit[i] != SIGALRM)
            continue;
        sigaction(quit[i], &sa, NULL);
    }
    for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
        if (sigaction(s, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(s, &sa, NULL);
}

void termguard_set_active(int fd)
{
    tty_fd = fd;
}

void termguard_set_capture(int capture, int real_stdout)
{
    capture_fd = capture;
    stdout_fd = real_stdout;
}

int termguard_quit_signal(void)
{
    return quit_sig;
}

void termguard_quit_deadline(void)
{
    luahost_interrupt();
    deadline_armed = 1;
    alarm(QUIT_DEADLINE_S);
}

void termguard_exit_if_signalled(void)
{
    alarm(0);
    deadline_armed = 0;
    int sig = quit_sig;
    if (!sig)
        return;
    fflush(NULL);
    signal(sig, SIG_DFL);
    raise_unblocked(sig);
}

enum termguard_wait termguard_wait_input(int ms)
{
    struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
    int r = poll(&p, 1, ms < 0 ? 0 : ms);
    if (r < 0)
        return errno == EINTR ? TERMGUARD_SIGNAL : TERMGUARD_GONE;
    if (r == 0)
        return TERMGUARD_TIMEOUT;
    if (p.revents & (POLLHUP | POLLERR | POLLNVAL))
        return TERMGUARD_GONE;
    return TERMGUARD_READY;
}

bool termguard_read_failed(bool failed)
{
    static int in_a_row;
    in_a_row = failed ? in_a_row + 1 : 0;
    return in_a_row >= READ_FAILURES_GONE;
}
