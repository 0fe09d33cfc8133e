/* app: the interactive front end (`mlviz`, `mlviz play`). tui_main and
 * tui_play are declared in cli.h; this header adds what other front-end
 * files need to wire into it. */
#ifndef MLVIZ_APP_H
#define MLVIZ_APP_H

#include <stdbool.h>

#include "luahost.h"

/* Fill hooks with the callbacks that deliver a played script's narration
 * (say, print, focus, mark) to the interactive view. cmd_lua.c calls this
 * before luahost_new when it is going to call tui_play. */
void tui_play_hooks(struct luahost_hooks *hooks);

/* For benchmarks and tests: the interactive state for a setup, drawn to
 * whatever curses screen is current (newterm on a pty or /dev/null).
 * tui_frame_open loads the catalog and setup (messages on stderr) and
 * applies the theme; call it after newterm. */
struct ui;
struct ui *tui_frame_open(const char *setup_arg, bool utf8);
/* Advance the step loop by wall_dt seconds of wall time at the current
 * speed (not timed by a frame benchmark) ... */
void tui_frame_advance(struct ui *u, double wall_dt);
/* ... then lay out, draw and output one frame. */
void tui_frame_draw(struct ui *u);
void tui_frame_close(struct ui *u);

#endif
