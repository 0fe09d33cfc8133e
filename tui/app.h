/* app: the frame loop (app.c), shared by `mlviz` (tui_run) and `mlviz
 * play` (play.c). Internal to tui/; views never include it. */
#ifndef MLVIZ_APP_H
#define MLVIZ_APP_H

#include <stdbool.h>
#include <stddef.h>

#include "tui.h"

enum { APP_EXIT_OK = 0, APP_EXIT_RUNTIME = 1, APP_EXIT_USAGE = 2 };

struct ui;
/* Called once a frame before drawing: advances what runs. False ends the
 * loop with exit status 1 (message in err). */
typedef bool (*app_tick_fn)(struct ui *u, void *ctx, double wall_dt, char *err, size_t err_len);

/* The screen's state for the catalog and setup of o (taken from o); NULL,
 * with the message printed, when out of memory. */
struct ui *app_open(struct tui_options *o);
/* Starts the terminal, runs frames until quit (or --frames), restores the
 * terminal. tick NULL: the simulation advances at the chosen speed.
 * Returns the exit status. */
int app_run(struct ui *u, const struct tui_options *o, app_tick_fn tick, void *ctx);

#endif
