/* app: the frame loop of the interactive screen: wait for input until the
 * next frame is due (no busy waiting), advance the simulation, draw. The
 * parts live elsewhere: state.c (what is shown), input.c (keys and mouse),
 * terminal.c (curses), play.c (mlviz play), tour.c, views/ (drawing). */
#include "app.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glyphs.h"
#include "keys.h"
#include "termguard.h"
#include "terminal.h"
#include "theme.h"
#include "ui.h"
#include "views.h"

/* Frame timing: about 30 frames per second. The test hook MLVIZ_FRAME_HZ
 * (1 to 30) lowers the rate: the tmux suites read a screen a few times a
 * second, and a lower rate draws less for each read (keys still show at
 * once: a key ends the wait for the next frame). */
#define FRAME_HZ 30

static double frame_s(void)
{
    static double s;
    if (s == 0) {
        const char *v = getenv("MLVIZ_FRAME_HZ");
        char *end = NULL;
        long hz = v ? strtol(v, &end, 10) : 0;
        s = 1.0 / (v && end != v && *end == '\0' && hz >= 1 && hz < FRAME_HZ ? hz : FRAME_HZ);
    }
    return s;
}
/* Wall time the simulation may use per frame before it is declared
 * lagging (it then runs slower than asked rather than freezing the UI). */
#define SIM_BUDGET_S 0.012
/* When nothing moves (paused, no script, tour, message or plan screen) the
 * loop draws once and then blocks in poll() for input, waking this often. */
#define STILL_WAIT_S 1.0
/* Never advance more than this much wall time at once (after a stall). */
#define MAX_FRAME_GAP_S 0.25
enum { MAX_KEYS_PER_FRAME = 64 };

/* Lays out, lets the views draw from a read-only picture of the state,
 * then takes back what they answered (scroll bounds; the hit rectangles
 * stay for the mouse). */
static void draw_frame(struct ui *u)
{
    bool caption = ui_touring(u) || ui_playing(u);
    struct view_ctx v;
    struct view_out *out = ui_frame_begin(u, COLS, LINES, &v);
    if (v.lay->too_small) {
        view_draw_too_small(&v);
        refresh();
        return;
    }
    erase();
    if (ui_current_view(u) == VIEW_STAGE)
        view_stage_draw(&v, out);
    else if (ui_current_view(u) == VIEW_PLAN)
        view_plan_draw(&v, out);
    else if (ui_infer_mode(u))
        view_infer_overview_draw(&v, out);
    else
        view_overview_draw(&v, out);
    if (caption)
        view_draw_caption(&v, out);
    if (ui_params_open(u))
        view_draw_params(&v, out);
    if (ui_help_open(u))
        view_draw_help(&v, out);
    ui_frame_end(u);
    refresh();
}

/* Handles input until the next frame is due (at `due`, a ui_now_s time).
 * Returns false to quit, with *status set when the terminal went away. A
 * key shows its effect at once: the frame is drawn after each (*key set). */
static bool wait_input(struct ui *u, double due, int *status, bool *key)
{
    bool ready = false; /* poll saw input that getch has not yet read */
    for (int k = 0; k < MAX_KEYS_PER_FRAME; k++) {
        timeout(0);
        int ch = getch();
        if (termguard_quit_signal())
            return false;
        if (ch != ERR) {
            *key = true;
            termguard_read_failed(false);
            if (input_key(u, ch))
                return true;
            if (ui_playing(u))
                termguard_quit_deadline(); /* a running script stops too */
            return false;
        }
        /* Input was reported but reading it failed: end of file or EIO. */
        if (ready && termguard_read_failed(true)) {
            *status = APP_EXIT_RUNTIME;
            return false;
        }
        double left = due - ui_now_s();
        if (left <= 0)
            return true;
        enum termguard_wait w = termguard_wait_input((int)(left * 1000) + 1);
        if (w == TERMGUARD_GONE) {
            *status = APP_EXIT_RUNTIME;
            return false;
        }
        if (w == TERMGUARD_TIMEOUT)
            return true;
        ready = w == TERMGUARD_READY;
    }
    return true;
}

/* The simulation of `mlviz` (not a played script): wall_dt at the speed. */
static void advance_free(struct ui *u, double wall_dt)
{
    if (!ui_sim(u) || ui_paused(u) || wall_dt <= 0)
        return;
    double budget = SIM_BUDGET_S;
    char err[UI_MSG_LEN];
    if (ui_advance(u, wall_dt * ui_speed(u), &budget, err, sizeof err) < 0) {
        ui_set_status(u, "simulation stopped: %s", err);
        ui_set_paused(u, true);
    }
}

/* Nothing on the screen can change without input: the frame drawn last
 * stays right until a key, a mouse event or a resize. */
static bool still(const struct ui *u, app_tick_fn tick)
{
    return !tick && ui_paused(u) && !ui_touring(u) && !ui_status_shown(u) &&
           ui_current_view(u) != VIEW_PLAN;
}

static int run_loop(struct ui *u, long max_frames, app_tick_fn tick, void *ctx)
{
    double last = ui_now_s(), start = last;
    long frames = 0;
    int status = APP_EXIT_OK;
    bool drawn_still = false; /* the still frame is on the screen */
    for (;;) {
        double frame_start = ui_now_s();
        double wall_dt = frame_start - last;
        if (wall_dt > MAX_FRAME_GAP_S)
            wall_dt = MAX_FRAME_GAP_S;
        last = frame_start;
        ui_set_wall_clock(u, frame_start - start);
        if (tick) {
            char err[1024];
            if (!tick(u, ctx, wall_dt, err, sizeof err)) {
                terminal_restore();
                if (!termguard_quit_signal()) /* else the script heard the quit */
                    fprintf(stderr, "%s\n", err);
                return APP_EXIT_RUNTIME;
            }
        } else {
            advance_free(u, wall_dt);
        }
        ui_refresh_live(u);
        ui_animate(u, wall_dt);
        if (ui_touring(u) && !ui_paused(u) && ui_wall_s(u) >= ui_tour_next_s(u))
            tour_move(u, +1);
        ui_expire_status(u);
        bool is_still = still(u, tick);
        if (!is_still || !drawn_still)
            draw_frame(u);
        drawn_still = is_still;
        frames++;
        if (max_frames && frames >= max_frames)
            break;
        bool key = false;
        if (!wait_input(u, frame_start + (is_still ? STILL_WAIT_S : frame_s()), &status, &key))
            break;
        drawn_still = drawn_still && !key;
    }
    return status;
}

struct ui *app_open(struct tui_options *o)
{
    struct ui *u = ui_new();
    if (!u) {
        fputs("mlviz: out of memory\n", stderr);
        if (o->cat)
            catalog_free(o->cat);
        o->cat = NULL;
        return NULL;
    }
    ui_open(u, o);
    knobs_build(u);
    return u;
}

int app_run(struct ui *u, const struct tui_options *o, app_tick_fn tick, void *ctx)
{
    struct terminal_options to = {o->theme, o->mono, o->no_mouse};
    bool mouse = false;
    int colors = terminal_start(&to, &mouse);
    if (colors < 0) {
        terminal_replay_stdout();
        fputs("mlviz: cannot initialise the terminal (is TERM set?)\n", stderr);
        return APP_EXIT_RUNTIME;
    }
    ui_set_colors(u, colors, mouse);
    if (o->tour && !tick)
        tour_start(u);
    int rc = run_loop(u, o->frames, tick, ctx);
    terminal_restore();
    termguard_exit_if_signalled();
    return rc;
}

/* ---- the public face (tui.h) ---- */

int tui_prepare(bool ascii)
{
    return terminal_prepare(ascii);
}

const struct tui_entry tui_screen = {
    .prepare = tui_prepare,
    .theme_known = tui_theme_known,
    .run = tui_run,
    .play_hooks = tui_play_hooks,
    .play = tui_play,
    .write_keys = tui_write_keys,
    .theme_names = theme_names,
};

bool tui_theme_known(const char *name)
{
    return terminal_theme_known(name);
}

int tui_run(struct tui_options *o)
{
    struct ui *u = app_open(o);
    if (!u)
        return APP_EXIT_RUNTIME;
    termguard_install_signals();
    int rc = app_run(u, o, NULL, NULL);
    ui_free(u);
    return rc;
}

void tui_write_keys(FILE *out, enum tui_keys_format format)
{
    if (format == TUI_KEYS_MAN) {
        keys_write_man(out);
    } else if (format == TUI_KEYS_MD) {
        keys_write_md(out);
    } else {
        char buf[8192];
        keys_help_text(buf, sizeof buf);
        fputs(buf, out);
    }
}

/* ---- frames for benchmarks ---- */

struct ui *tui_frame_open(struct catalog *cat, const struct setup *s, bool utf8)
{
    glyphs_use(utf8);
    struct tui_options o;
    memset(&o, 0, sizeof o);
    o.cat = cat;
    o.setup = *s;
    char err[UI_MSG_LEN];
    if (!setup_resolve(&o.setup, cat, &o.res, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        catalog_free(cat);
        return NULL;
    }
    struct ui *u = app_open(&o);
    if (!u)
        return NULL;
    if (has_colors()) {
        start_color();
        use_default_colors();
        ui_set_colors(u, COLORS, ui_mouse(u));
    }
    theme_apply(theme_choose(THEME_DEFAULT, ui_colors(u), false));
    return u;
}

void tui_frame_advance(struct ui *u, double wall_dt)
{
    ui_set_wall_clock(u, ui_wall_s(u) + wall_dt);
    advance_free(u, wall_dt);
    ui_refresh_live(u);
    ui_animate(u, wall_dt);
}

void tui_frame_draw(struct ui *u)
{
    draw_frame(u);
}

void tui_frame_close(struct ui *u)
{
    ui_free(u);
}
