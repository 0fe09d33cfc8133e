/* tui: the public face of the interactive screen (tui/, tui/views/). The
 * headless commands in tui/cli/ include this header and nothing else from
 * the screen: they parse the view's options (tui/cli/commands.c), load the
 * catalog and setup, and hand a plain struct to tui_run or tui_play. */
#ifndef MLVIZ_TUI_H
#define MLVIZ_TUI_H

#include <stdbool.h>
#include <stdio.h>

#include "catalog.h"
#include "luahost.h"
#include "setup.h"

/* The fastest simulation speed the view offers (simulated seconds per wall
 * second): --speed accepts values above 0 up to this. */
#define TUI_SPEED_MAX 86400.0

/* What the command line chose for the view. */
struct tui_options {
    struct catalog *cat; /* loaded by the caller; tui_run/tui_play free it */
    struct setup setup;  /* loaded and resolved by the caller (--setup, --set) */
    struct resolved res;
    const char *theme; /* --theme NAME, or NULL */
    long frames;       /* --frames N: quit after N frames (0: never) */
    double speed;      /* --speed X (0: chosen from the step time) */
    bool tour, mono, ascii, no_mouse;
    bool infer; /* --infer: start in the inference mode */
};

/* Before the catalog and setup are loaded: checks that stdin and stdout are
 * a terminal curses can drive, and sets the locale and glyphs (--ascii).
 * Prints the message and returns the exit status when it cannot. */
int tui_prepare(bool ascii);
/* True when `name` is a theme --theme accepts. */
bool tui_theme_known(const char *name);

/* `mlviz`: the interactive view until q. Returns the exit status. */
int tui_run(struct tui_options *o);

/* `mlviz play`, `mlviz lesson`: fill hooks with the callbacks that deliver a
 * played script's narration (say, print, focus, mark, show) to the view.
 * Call before luahost_new when tui_play will be called. */
void tui_play_hooks(struct luahost_hooks *hooks);
/* Play a loaded scenario in the view. The presenter may restart it with
 * other parameters, which replaces *host (the caller frees whatever *host
 * is at the end). Returns the exit status. */
int tui_play(struct luahost **host, const char *script_path, struct tui_options *o);

/* `mlviz keys`: the key table as help text, man-page roff or markdown. */
enum tui_keys_format { TUI_KEYS_TEXT, TUI_KEYS_MAN, TUI_KEYS_MD };
void tui_write_keys(FILE *out, enum tui_keys_format format);

/* The screen's entry points as one table. tui/cli/ reaches the screen only
 * through the table main() registers (cli_use_screen), so the CLI library
 * links no screen code and its unit tests link no ncurses. */
struct tui_entry {
    int (*prepare)(bool ascii);
    bool (*theme_known)(const char *name);
    int (*run)(struct tui_options *o);
    void (*play_hooks)(struct luahost_hooks *hooks);
    int (*play)(struct luahost **host, const char *script_path, struct tui_options *o);
    void (*write_keys)(FILE *out, enum tui_keys_format format);
    const char *const *theme_names; /* the theme table's names, NULL-terminated */
};
extern const struct tui_entry tui_screen;

/* For benchmarks: the view's state for a loaded setup, drawn to whatever
 * curses screen is current (newterm on /dev/null). Takes the catalog. */
struct ui;
struct ui *tui_frame_open(struct catalog *cat, const struct setup *s, bool utf8);
/* Advance the simulation by wall_dt seconds of wall time (not timed by a
 * frame benchmark) ... */
void tui_frame_advance(struct ui *u, double wall_dt);
/* ... then lay out, draw and output one frame. */
void tui_frame_draw(struct ui *u);
void tui_frame_close(struct ui *u);

#endif
