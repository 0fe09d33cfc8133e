/* play: `mlviz play` and `mlviz lesson`. A loaded Lua scenario runs as a
 * coroutine: each frame it is resumed until it asks for simulated time
 * (sim:run), which the view then plays out at the chosen speed, or
 * pauses for the presenter. Narration arrives through the host's hooks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "glyphs.h"
#include "termguard.h"
#include "terminal.h"
#include "ui.h"

/* Wall seconds a script's sim:run(d) should take at most, unless the
 * presenter chose a speed (--speed, + or -). */
#define PLAY_RUN_WALL_S 10.0
/* Wall-clock budget of the simulation per frame (as app.c's). */
#define PLAY_BUDGET_S 0.012
/* Wall-clock budget per frame of the replay up to a pause (b): most of a
 * frame, since nothing is animated meanwhile. */
#define PLAY_REPLAY_BUDGET_S 0.025

/* Narration arrives through the host's hooks. The luahost is created (by
 * cmd_lua.c) before tui_play runs, so the hooks start without a context
 * and print as the headless commands do; tui_play hands the host the ui
 * as their context while the view is up (luahost_set_hooks_ctx). */

static void hook_print(void *ctx, const char *text)
{
    /* On stdout too: while the view is up that is the capture file, shown
     * after quitting (docs/TUI.md). */
    fputs(text, stdout);
    fputc('\n', stdout);
    struct ui *u = ctx;
    if (u) {
        /* print() may carry several lines (tables): keep each. */
        const char *p = text;
        do {
            const char *nl = strchr(p, '\n');
            size_t n = nl ? (size_t)(nl - p) : strlen(p);
            ui_transcript_add(u, p, n, true);
            p += n + (nl != NULL);
        } while (*p);
    }
}

static void hook_table_header(void *ctx, const char *text)
{
    hook_print(ctx, text);
    struct ui *u = ctx;
    if (u)
        ui_transcript_mark_header(u);
}

static void hook_say(void *ctx, const char *text)
{
    struct ui *u = ctx;
    if (u) {
        ui_set_caption(u, text);
        ui_transcript_add(u, text, strlen(text), false);
    } else {
        printf("%s\n", text);
    }
}

static void hook_focus(void *ctx, int stage)
{
    struct ui *u = ctx;
    if (!u)
        return;
    if (stage >= 0 && stage < STAGE_COUNT)
        ui_show_stage(u, stage); /* the box selection stays */
    else
        ui_show_overview(u);
}

/* show(setup): the view animates its own sim of that setup; a script's sim
 * on screen is the script's to keep. */
static void hook_show(void *ctx, const struct setup *s)
{
    struct ui *u = ctx;
    if (!u)
        return;
    ui_free_sim(u);
    char err[UI_MSG_LEN];
    if (!ui_apply_setup(u, s, err, sizeof err)) {
        ui_set_status(u, "show: %s", err);
        return;
    }
    ui_keep_as_loaded(u);
    if (!ui_speed_chosen(u))
        ui_pick_speed(u);
}

static void hook_mark(void *ctx, const char *label)
{
    struct ui *u = ctx;
    if (u)
        ui_set_status(u, "%s", label); /* the views draw the bullet */
}

static void hook_mode(void *ctx, bool infer)
{
    struct ui *u = ctx;
    if (u && ui_infer_mode(u) != infer) {
        ui_set_infer_mode(u, infer);
        knobs_build(u);
    }
}

void tui_play_hooks(struct luahost_hooks *hooks)
{
    hooks->ctx = NULL;
    hooks->print = hook_print;
    hooks->table_header = hook_table_header;
    hooks->say = hook_say;
    hooks->focus = hook_focus;
    hooks->mark = hook_mark;
    hooks->show = hook_show;
    hooks->mode = hook_mode;
}

struct play_state {
    struct luahost **host;
    double remaining_s; /* simulated time left of the current sim:run */
    bool running;
};

/* Copies the scenario's parameters into the ui for the parameters panel. */
static void load_params(struct ui *u, const struct luahost *host)
{
    size_t n;
    const struct luahost_param *ps = luahost_params(host, &n);
    ui_set_params(u, ps, n);
}

/* Starts the scenario again with the values of the parameters panel. The
 * old host owns the simulation on screen, so the view takes back its own
 * before the old host goes. */
static void restart_play(struct ui *u, struct play_state *p, const char *why)
{
    const struct ui_param *params = ui_params(u);
    char args[UI_MAX_PARAMS][sizeof params[0].name + sizeof params[0].value + 4];
    char *argv[UI_MAX_PARAMS];
    for (int i = 0; i < ui_n_params(u); i++) {
        snprintf(args[i], sizeof args[i], "--%s=%s", params[i].name, params[i].value);
        argv[i] = args[i];
    }
    char err[1024];
    struct luahost *fresh = luahost_reload(*p->host, ui_n_params(u), argv, err, sizeof err);
    if (!fresh) {
        ui_set_status(u, "cannot restart: %s", err);
        return;
    }
    ui_new_sim(u); /* the view's own again: the old host's sim goes with it */
    luahost_free(*p->host);
    *p->host = fresh;
    load_params(u, fresh);
    p->running = false;
    p->remaining_s = 0;
    if (ui_play_started_again(u))
        knobs_build(u); /* the mode it began in, with its knobs */
    terminal_restart_capture();
    ui_set_caption(u, why);
    ui_transcript_clear(u, why);
    ui_set_status(u, "the scenario starts again");
}

/* b: run the restarted script without animation up to pause number
 * ui_back_to_pause(u); the same seed and parameters replay the same story.
 * It runs under a frame's budget like play does (ui_advance stops inside
 * a long sim:run at the deadline), so keys act between frames: returns
 * with ui_back_to_pause(u) still set while there is more to replay. */
static bool play_fast_forward(struct ui *u, struct play_state *p, char *err, size_t err_len)
{
    double budget = PLAY_REPLAY_BUDGET_S;
    while (ui_pauses_reached(u) < ui_back_to_pause(u)) {
        if (p->running) {
            double done = ui_advance(u, p->remaining_s, &budget, err, err_len);
            p->remaining_s -= done > 0 ? done : 0;
            if (done >= 0 && p->remaining_s > 1e-9)
                return true;    /* the frame's time is up: on at the next frame */
            p->running = false; /* a failed run: the script hears of it at the resume */
        }
        if (budget <= 0)
            return true;
        struct luahost_request req;
        memset(&req, 0, sizeof req);
        switch (luahost_resume(*p->host, &req, err, err_len)) {
        case LUAHOST_RUN:
            if (req.sim)
                ui_adopt_sim(u, req.sim);
            p->remaining_s = req.duration_s > 0 ? req.duration_s : 0;
            p->running = req.sim != NULL && p->remaining_s > 0;
            break;
        case LUAHOST_PAUSE:
            ui_play_paused(u, false);
            break;
        case LUAHOST_DONE:
            ui_play_finished(u);
            return true;
        case LUAHOST_ERROR:
        default:
            ui_play_replay_to(u, 0);
            return false;
        }
    }
    ui_play_replayed(u);
    ui_set_status(u, "back at pause %d", ui_pauses_reached(u));
    ui_refresh_live(u);
    return true;
}

static bool play_tick(struct ui *u, void *ctx, double wall_dt, char *err, size_t err_len)
{
    struct play_state *p = ctx;
    if (ui_take_params_apply(u))
        restart_play(u, p, "Restarted with new parameters");
    if (ui_take_play_restart(u)) {
        int target = ui_back_to_pause(u);
        restart_play(u, p, "Restarted");
        if (target > 0) {
            ui_play_replay_to(u, target);
            ui_set_status(u, "going back to pause %d", target);
        }
    }
    if (ui_back_to_pause(u) > 0)
        return play_fast_forward(u, p, err, err_len);
    if (ui_play_done(u) || ui_play_waiting(u)) {
        /* At a pause the picture stays live: a setup the story showed runs
         * in the view's own sim. A script's sim is left alone, so going
         * back (b) replays the story exactly. */
        if (ui_sim_owned(u) && ui_sim(u) && !ui_paused(u)) {
            double budget = PLAY_BUDGET_S;
            if (ui_advance(u, wall_dt * ui_speed(u), &budget, err, err_len) < 0)
                return false;
        }
        return true;
    }
    if (p->running) {
        if (ui_paused(u))
            return true;
        double dt = wall_dt * ui_speed(u);
        if (dt > p->remaining_s)
            dt = p->remaining_s;
        double budget = PLAY_BUDGET_S;
        double done = ui_advance(u, dt, &budget, err, err_len);
        /* On failure the script hears about it and answers with its
         * traceback (LUAHOST_ERROR) or handles it. */
        if (done >= 0) {
            p->remaining_s -= done;
            if (p->remaining_s > 1e-9)
                return true;
        }
        p->running = false;
    }
    struct luahost_request req;
    memset(&req, 0, sizeof req);
    switch (luahost_resume(*p->host, &req, err, err_len)) {
    case LUAHOST_RUN:
        if (req.sim)
            ui_adopt_sim(u, req.sim);
        p->remaining_s = req.duration_s > 0 ? req.duration_s : 0;
        p->running = true;
        /* A long run plays in a few seconds unless the presenter chose a
         * speed (--speed, + or -). */
        while (!ui_speed_chosen(u) && ui_speed_index(u) + 1 < UI_SPEED_COUNT &&
               p->remaining_s / ui_speed(u) > PLAY_RUN_WALL_S)
            ui_change_speed(u, +1);
        return true;
    case LUAHOST_PAUSE:
        ui_play_paused(u, true);
        return true;
    case LUAHOST_DONE:
        ui_play_finished(u);
        ui_set_status(u, "the scenario has finished: r restarts, q quits");
        return true;
    case LUAHOST_ERROR:
    default:
        return false;
    }
}

int tui_play(struct luahost **host, const char *script_path, struct tui_options *o)
{
    /* Until the script starts a simulation, the view shows the setup given. */
    struct ui *u = app_open(o);
    if (!u)
        return APP_EXIT_RUNTIME;
    load_params(u, *host);
    const char *base = strrchr(script_path, '/');
    char caption[UI_MSG_LEN * 2];
    snprintf(caption, sizeof caption, "Playing %s", base ? base + 1 : script_path);
    ui_set_playing(u, caption);
    termguard_install_signals();
    terminal_capture_stdout();
    luahost_set_hooks_ctx(*host, u);
    struct play_state p = {host, 0, false};
    int rc = app_run(u, o, play_tick, &p);
    luahost_set_hooks_ctx(*host, NULL);
    /* The script owns the sim it handed over: forget it before freeing. */
    ui_forget_sim(u);
    ui_free(u);
    return rc;
}
