/* terminal: curses on and off for the screen (terminal.c). */
#ifndef MLVIZ_TERMINAL_H
#define MLVIZ_TERMINAL_H

#include <stdbool.h>

struct terminal_options {
    const char *theme; /* --theme, or NULL: chosen from COLORFGBG */
    bool mono;         /* --mono (NO_COLOR does the same) */
    bool no_mouse;
};

/* Checks stdin and stdout are a terminal terminfo knows; sets the locale
 * and the glyphs. Prints the message and returns 2 when it cannot, else 0. */
int terminal_prepare(bool ascii);
bool terminal_theme_known(const char *name);
/* Starts curses (and the theme, the mouse) on the terminal, or on the
 * saved stdout while captured. Returns the colours in use (0: none), or
 * -1 when curses cannot start. Restores itself at exit. */
int terminal_start(const struct terminal_options *o, bool *mouse);
/* Leaves curses and replays captured output; safe to call twice. */
void terminal_restore(void);
/* While a script plays, stdout goes to a temporary file (replayed by
 * terminal_restore) so its writes do not scribble over the screen. */
void terminal_capture_stdout(void);
/* The scenario starts again: what it printed so far goes. */
void terminal_restart_capture(void);
/* Gives stdout back without curses having started. */
void terminal_replay_stdout(void);

#endif
