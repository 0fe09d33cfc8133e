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

/* Narration arrives through hooks with a static context: the luahost is
 * created (by cmd_lua.c) before tui_play runs, so the hooks point here and
 * find the current ui, if any. */
static struct ui *play_ui;

static void transcript_add(struct ui *u, const char *text, size_t len, bool printed)
{
    if (u->transcript_count == UI_TRANSCRIPT_MAX) {
        memmove(&u->transcript[0], &u->transcript[1],
                sizeof u->transcript[0] * (UI_TRANSCRIPT_MAX - 1));
        u->transcript_count--;
    }
    struct ui_said *e = &u->transcript[u->transcript_count++];
    if (len >= sizeof e->text)
        len = sizeof e->text - 1;
    memcpy(e->text, text, len);
    e->text[len] = '\0';
    e->printed = printed;
    e->header = false;
    if (u->caption_scroll > 0)
        u->caption_scroll++; /* a reader scrolled back keeps their place (about) */
}

static void transcript_clear(struct ui *u, const char *first)
{
    u->transcript_count = 0;
    u->caption_scroll = 0;
    transcript_add(u, first, strlen(first), false);
}

static void hook_print(void *ctx, const char *text)
{
    (void)ctx;
    /* On stdout too: while the view is up that is the capture file, shown
     * after quitting (docs/TUI.md). */
    fputs(text, stdout);
    fputc('\n', stdout);
    if (play_ui) {
        /* print() may carry several lines (tables): keep each. */
        const char *p = text;
        do {
            const char *nl = strchr(p, '\n');
            size_t n = nl ? (size_t)(nl - p) : strlen(p);
            transcript_add(play_ui, p, n, true);
            p += n + (nl != NULL);
        } while (*p);
    }
}

static void hook_table_header(void *ctx, const char *text)
{
    hook_print(ctx, text);
    if (play_ui && play_ui->transcript_count > 0)
        play_ui->transcript[play_ui->transcript_count - 1].header = true;
}

static void hook_say(void *ctx, const char *text)
{
    (void)ctx;
    if (play_ui) {
        snprintf(play_ui->caption, sizeof play_ui->caption, "%s", text);
        transcript_add(play_ui, text, strlen(text), false);
    } else {
        printf("%s\n", text);
    }
}

static void hook_focus(void *ctx, int stage)
{
    (void)ctx;
    if (!play_ui)
        return;
    if (stage >= 0 && stage < STAGE_COUNT) {
        play_ui->view = VIEW_STAGE;
        play_ui->stage = stage;
    } else {
        play_ui->view = VIEW_OVERVIEW;
    }
}

/* show(setup): the view animates its own sim of that setup; a script's sim
 * on screen is the script's to keep. */
static void hook_show(void *ctx, const struct setup *s)
{
    (void)ctx;
    struct ui *u = play_ui;
    if (!u)
        return;
    if (u->sim_owned)
        ui_free_sim(u);
    u->sim = NULL;
    char err[UI_MSG_LEN];
    if (!ui_apply_setup(u, s, err, sizeof err)) {
        ui_set_status(u, "show: %s", err);
        return;
    }
    u->setup0 = u->setup;
    u->undo_count = 0;
    if (!u->speed_chosen)
        ui_pick_speed(u);
}

static void hook_mark(void *ctx, const char *label)
{
    (void)ctx;
    if (play_ui)
        ui_set_status(play_ui, "%s", label); /* the views draw the bullet */
}

static void hook_mode(void *ctx, bool infer)
{
    (void)ctx;
    if (play_ui && play_ui->infer_mode != infer) {
        play_ui->infer_mode = infer;
        knobs_build(play_ui);
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

static void adopt_sim(struct ui *u, struct sim *sim)
{
    if (u->sim == sim)
        return;
    ui_free_sim(u);
    u->sim = sim;
    u->sim_owned = false;
    u->setup = *sim_setup(sim);
    u->setup0 = u->setup; /* what the story shows is the setup "as loaded" */
    u->undo_count = 0;
    char err[UI_MSG_LEN];
    if (setup_resolve(&u->setup, u->cat, &u->res, err, sizeof err))
        ui_eval(u);
    if (!u->speed_chosen)
        ui_pick_speed(u);
}

/* Copies the scenario's parameters into the ui for the parameters panel. */
static void load_params(struct ui *u, const struct luahost *host)
{
    size_t n;
    const struct luahost_param *ps = luahost_params(host, &n);
    u->n_params = n < UI_MAX_PARAMS ? (int)n : UI_MAX_PARAMS;
    u->params_more = n > UI_MAX_PARAMS ? (int)(n - UI_MAX_PARAMS) : 0;
    for (int i = 0; i < u->n_params; i++) {
        struct ui_param *q = &u->params[i];
        snprintf(q->name, sizeof q->name, "%s", ps[i].name);
        snprintf(q->type, sizeof q->type, "%s", ps[i].type);
        snprintf(q->help, sizeof q->help, "%s", ps[i].help);
        snprintf(q->value, sizeof q->value, "%s",
                 ps[i].value_text[0] ? ps[i].value_text : ps[i].default_text);
    }
    if (u->param_sel >= u->n_params)
        u->param_sel = 0;
}

/* Starts the scenario again with the values of the parameters panel. The
 * old host owns the simulation on screen, so the view takes back its own
 * before the old host goes. */
static void restart_play(struct ui *u, struct play_state *p, const char *why)
{
    char args[UI_MAX_PARAMS][sizeof u->params[0].name + sizeof u->params[0].value + 4];
    char *argv[UI_MAX_PARAMS];
    for (int i = 0; i < u->n_params; i++) {
        snprintf(args[i], sizeof args[i], "--%s=%s", u->params[i].name, u->params[i].value);
        argv[i] = args[i];
    }
    char err[1024];
    struct luahost *fresh = luahost_reload(*p->host, u->n_params, argv, err, sizeof err);
    if (!fresh) {
        ui_set_status(u, "cannot restart: %s", err);
        return;
    }
    if (!u->sim_owned)
        u->sim = NULL;
    ui_new_sim(u);
    luahost_free(*p->host);
    *p->host = fresh;
    load_params(u, fresh);
    p->running = false;
    p->remaining_s = 0;
    u->play_done = u->play_waiting = false;
    u->pauses_reached = 0;
    u->view = VIEW_OVERVIEW; /* the script's focus() calls open views again */
    if (u->infer_mode != u->infer_start) {
        u->infer_mode = u->infer_start; /* and its mode() calls set the mode */
        knobs_build(u);
    }
    terminal_restart_capture();
    snprintf(u->caption, sizeof u->caption, "%s", why);
    transcript_clear(u, why);
    ui_set_status(u, "the scenario starts again");
}

/* b: run the restarted script without animation up to pause number
 * u->back_to_pause; the same seed and parameters replay the same story.
 * It runs under a frame's budget like play does (ui_advance stops inside
 * a long sim:run at the deadline), so keys act between frames: returns
 * with u->back_to_pause still set while there is more to replay. */
static bool play_fast_forward(struct ui *u, struct play_state *p, char *err, size_t err_len)
{
    double budget = PLAY_REPLAY_BUDGET_S;
    while (u->pauses_reached < u->back_to_pause) {
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
                adopt_sim(u, req.sim);
            p->remaining_s = req.duration_s > 0 ? req.duration_s : 0;
            p->running = req.sim != NULL && p->remaining_s > 0;
            break;
        case LUAHOST_PAUSE:
            u->pauses_reached++;
            break;
        case LUAHOST_DONE:
            u->play_done = true;
            u->back_to_pause = 0;
            return true;
        case LUAHOST_ERROR:
        default:
            u->back_to_pause = 0;
            return false;
        }
    }
    u->play_waiting = u->pauses_reached > 0;
    ui_set_status(u, "back at pause %d", u->pauses_reached);
    u->back_to_pause = 0;
    ui_refresh_live(u);
    return true;
}

static bool play_tick(struct ui *u, void *ctx, double wall_dt, char *err, size_t err_len)
{
    struct play_state *p = ctx;
    if (u->params_apply) {
        u->params_apply = false;
        restart_play(u, p, "Restarted with new parameters");
    }
    if (u->play_restart) {
        u->play_restart = false;
        int target = u->back_to_pause;
        restart_play(u, p, "Restarted");
        if (target > 0) {
            u->back_to_pause = target;
            ui_set_status(u, "going back to pause %d", target);
        }
    }
    if (u->back_to_pause > 0)
        return play_fast_forward(u, p, err, err_len);
    if (u->play_done || u->play_waiting) {
        /* At a pause the picture stays live: a setup the story showed runs
         * in the view's own sim. A script's sim is left alone, so going
         * back (b) replays the story exactly. */
        if (u->sim_owned && u->sim && !u->paused) {
            double budget = PLAY_BUDGET_S;
            if (ui_advance(u, wall_dt * u->speed, &budget, err, err_len) < 0)
                return false;
        }
        return true;
    }
    if (p->running) {
        if (u->paused)
            return true;
        double dt = wall_dt * u->speed;
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
            adopt_sim(u, req.sim);
        p->remaining_s = req.duration_s > 0 ? req.duration_s : 0;
        p->running = true;
        /* A long run plays in a few seconds unless the presenter chose a
         * speed (--speed, + or -). */
        while (!u->speed_chosen && u->speed_index + 1 < UI_SPEED_COUNT &&
               p->remaining_s / u->speed > PLAY_RUN_WALL_S)
            ui_change_speed(u, +1);
        return true;
    case LUAHOST_PAUSE:
        u->play_waiting = true;
        u->pauses_reached++;
        return true;
    case LUAHOST_DONE:
        u->play_done = true;
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
    u->playing = true;
    load_params(u, *host);
    const char *base = strrchr(script_path, '/');
    snprintf(u->caption, sizeof u->caption, "Playing %s", base ? base + 1 : script_path);
    transcript_clear(u, u->caption);
    termguard_install_signals();
    terminal_capture_stdout();
    play_ui = u;
    struct play_state p = {host, 0, false};
    int rc = app_run(u, o, play_tick, &p);
    play_ui = NULL;
    /* The script owns the sim it handed over: forget it before freeing. */
    if (!u->sim_owned)
        u->sim = NULL;
    ui_free(u);
    return rc;
}
