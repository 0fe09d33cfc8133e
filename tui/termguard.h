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
bool term_probe(int fd, char *err, size_t err_len);

/* Catches every catchable signal whose default action ends the process.
 * A quit signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, ...) asks the
 * frame loop to leave (term_quit_signal) and interrupts a running script;
 * a second one, or the loop not leaving within a couple of seconds, puts
 * the terminal back from the handler and dies of the first signal. Crash
 * signals (SIGSEGV, SIGABRT, SIGFPE, SIGBUS, SIGILL, ...) put the terminal
 * back and die at once. Signals ignored at start stay ignored (nohup). */
void term_install_signals(void);
/* The terminal's descriptor while curses owns the screen (handlers then
 * write the restoring escapes to it); -1 when curses has let go. */
void term_set_active(int tty_fd);
/* While `mlviz play` captures stdout: the capture file and the real stdout,
 * so a dying handler can still copy what the script printed. -1, -1 off. */
void term_set_capture(int capture_fd, int stdout_fd);

/* The signal that asked mlviz to quit, 0 if none. */
int term_quit_signal(void);
/* After the terminal is restored and stdout replayed: die of the quit
 * signal, if one came, so the exit status says so (128 + signal). */
void term_exit_if_signalled(void);
/* Quitting without a signal (q): arms the same deadline as a signal. */
void term_quit_deadline(void);

enum term_wait { TERM_TIMEOUT, TERM_READY, TERM_SIGNAL, TERM_GONE };
/* Waits up to ms milliseconds for input on stdin: TERM_READY when there is
 * some, TERM_SIGNAL when a signal (a resize) interrupted the wait,
 * TERM_GONE when the terminal hung up or reports an error. */
enum term_wait term_wait_input(int ms);
/* Counts reads that came back empty although input was reported ready
 * (end of file, EIO): true once that repeats, which means the terminal is
 * gone. Pass false after any successful read. */
bool term_read_failed(bool failed);

#endif
