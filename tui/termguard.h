/* termguard: what the interactive view needs from the terminal outside curses:
 * the check that it can address the cursor at all, the saved modes and the
 * escape strings that put it back from a signal handler, the signals that
 * end mlviz, and waiting for input that notices a terminal gone away.
 * Internal to tui/ (app.c uses it). */
#ifndef MLVIZ_TERMGUARD_H
#define MLVIZ_TERMGUARD_H

#include <stdbool.h>
#include <stddef.h>

/* Before curses starts: looks the terminal up in terminfo (TERM) for the
 * terminal on descriptor fd without letting ncurses exit the process, and
 * checks that it can address the cursor. On success it saves the terminal
 * modes of stdin and precomputes the strings that leave the alternate
 * screen, show the cursor and stop mouse reports. False with a message. */
bool termguard_probe(int fd, char *err, size_t err_len);

/* Catches every catchable signal whose default action ends the process.
 * A quit signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, ...) asks the
 * frame loop to leave (termguard_quit_signal) and interrupts a running script;
 * a second one, or the loop not leaving within a couple of seconds, puts
 * the terminal back from the handler and dies of the first signal. Crash
 * signals (SIGSEGV, SIGABRT, SIGFPE, SIGBUS, SIGILL, ...) put the terminal
 * back and die at once. Signals ignored at start stay ignored (nohup). */
void termguard_install_signals(void);
/* The terminal's descriptor while curses owns the screen (handlers then
 * write the restoring escapes to it); -1 when curses has let go. */
void termguard_set_active(int tty_fd);
/* While `mlviz play` captures stdout: the capture file and the real stdout,
 * so a dying handler can still copy what the script printed. -1, -1 off. */
void termguard_set_capture(int capture_fd, int stdout_fd);

/* The signal that asked mlviz to quit, 0 if none. */
int termguard_quit_signal(void);
/* After the terminal is restored and stdout replayed: die of the quit
 * signal, if one came, so the exit status says so (128 + signal). */
void termguard_exit_if_signalled(void);
/* Quitting without a signal (q): arms the same deadline as a signal. */
void termguard_quit_deadline(void);

enum termguard_wait { TERMGUARD_TIMEOUT, TERMGUARD_READY, TERMGUARD_SIGNAL, TERMGUARD_GONE };
/* Waits up to ms milliseconds for input on stdin: TERMGUARD_READY when there is
 * some, TERMGUARD_SIGNAL when a signal (a resize) interrupted the wait,
 * TERMGUARD_GONE when the terminal hung up or reports an error. */
enum termguard_wait termguard_wait_input(int ms);
/* Counts reads that came back empty although input was reported ready
 * (end of file, EIO): true once that repeats, which means the terminal is
 * gone. Pass false after any successful read. */
bool termguard_read_failed(bool failed);

#endif
