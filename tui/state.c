/* state: the interactive screen's state (struct ui, ui.h) and the one way
 * each part of it changes: the setup and its evaluation, the simulation
 * (started, advanced in budgeted slices, stepped), the speed, the status
 * line, and the read-only picture of it all the views draw from. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plan_ctl.h"
#include "state_internal.h"
#include "ui.h"
#include "units.h"

/* How long a status message stays. */
#define STATUS_S 6.0
/* Single step (`.`): give up after this many steps' worth of time. */
#define STEP_TIMEOUT_STEPS 4.0
/* Target wall seconds per training step for the starting speed. */
#define WALL_S_PER_STEP 1.5
/* ui_advance cuts a frame's simulated time into this many runs, checking
 * the wall-clock budget after each. */
enum { ADVANCE_SLICES = 4 };
/* Most ticks one sim_run of ui_advance takes before the clock is read
 * again (a tick costs nanoseconds to a microsecond: at most a few ms). */
enum { ADVANCE_PIECE_TICKS = 1 << 14 };

/* Simulated seconds per wall second. The top ones (an hour, six hours, a
 * day per second) let a played story cover a month-long run in seconds. */
const double ui_speeds[UI_SPEED_COUNT] = {0.1, 0.25, 0.5, 1,   2,    5,    10,    20,
                                          50,  100,  200, 500, 1000, 3600, 21600, TUI_SPEED_MAX};

void ui_set_status(struct ui *u, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(u->status, sizeof u->status, fmt, ap);
    va_end(ap);
    units_plain_numbers(u->status, sizeof u->status); /* an engine message's "1e-09" */
    u->status_until_s = u->wall_s + STATUS_S;
}

double ui_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct ui *ui_new(void)
{
    struct ui *u = calloc(1, sizeof *u);
    if (!u)
        return NULL;
    u->texts = calloc(1, sizeof *u->texts);
    if (!u->texts) {
        free(u);
        return NULL;
    }
    char path[1200], err[UI_MSG_LEN];
    snprintf(path, sizeof path, "%s/assets/stages.yaml", mlviz_data_dir());
    if (!stagetext_load(path, u->texts, err, sizeof err)) {
        stagetext_fallback(u->texts);
        ui_set_status(u, "%s", err);
        fprintf(stderr, "%s\n", err);
    }
    return u;
}

void ui_free(struct ui *u)
{
    if (!u)
        return;
    plan_ctl_free(u->plan); /* joins the search thread before the catalog goes */
    u->plan = NULL;
    ui_free_sim(u);
    if (u->cat)
        catalog_free(u->cat);
    free(u->texts);
    free(u);
}

void ui_pick_speed(struct ui *u)
{
    double step = ui_report(u)->step_time_s;
    double want = isfinite(step) && step > 0 ? step / WALL_S_PER_STEP : 1;
    int best = 0;
    for (int i = 0; i < UI_SPEED_COUNT; i++)
        if (fabs(log(ui_speeds[i] / want)) < fabs(log(ui_speeds[best] / want)))
            best = i;
    u->speed_index = best;
    u->speed = ui_speeds[best];
}

/* Live figures average whole steps (sim_window), at most this many: the
 * sim draws each step's storage and compute time at random (a coefficient
 * of variation of 0.2 for shared storage), so a few steps still swing.
 * The window needs WINDOW_SAMPLES samples of the sim's series (one a
 * simulated second) to hold WINDOW_STEPS 30-s steps. */
enum { WINDOW_STEPS = 256, WINDOW_SAMPLES = 16384 };
/* The figures are steady (no "~" before them) once the window's relative
 * standard error is at most this: a reading then lies within 5% of the
 * rate the pipeline sustains with 3 standard errors to spare. A healthy
 * setup, whose steps vary by a few percent, is steady after STEADY_MIN_STEPS
 * steps; a storage-starved one needs about 150. Fewer steps than that
 * minimum give too rough an estimate of the spread itself. */
#define STEADY_REL_SE (0.05 / 3)
enum { STEADY_MIN_STEPS = 4 };

/* A new sim or a setup that runs at another pace restarts the window. On a
 * starved pipeline the batches already queued feed a few fast steps first:
 * those are the old setup's, not this one's, so the window skips them. */
static void window_restart_if_changed(struct ui *u)
{
    struct ui_window *w = &u->win;
    const struct model_report *r = sim_report(u->sim);
    double key[3] = {r->step_time_s, r->tokens_per_s, r->power.it_kw};
    bool same =
        w->sim == u->sim && memcmp(key, w->key, sizeof key) == 0 && u->counters.time_s >= w->time_s;
    w->time_s = u->counters.time_s;
    if (same)
        return;
    w->sim = u->sim;
    memcpy(w->key, key, sizeof key);
    w->steps_at_start = u->counters.steps;
    double queued = 0;
    for (int q = 0; q < SIM_QUEUE_COUNT; q++)
        queued += isfinite(u->live.queue_fill[q]) ? u->live.queue_fill[q] : 0;
    w->skip_steps = r->starvation > 0 ? (uint64_t)ceil(queued) : 0;
    w->since_s = NAN;
}

/* Steady: the spread of the window's steps leaves its mean within the
 * band, or the window holds all it can (steps, or samples of the series). */
static bool window_steady(const struct sim *sim, const struct sim_window *a)
{
    if (a->steps < 1)
        return false;
    if (a->steps >= WINDOW_STEPS)
        return true;
    size_t len = sim_series_len(sim);
    if (len >= WINDOW_SAMPLES) {
        double held = sim_series_at(sim, SERIES_TIME_S, len - 1) -
                      sim_series_at(sim, SERIES_TIME_S, len - WINDOW_SAMPLES);
        double step = (a->to_s - a->from_s) / a->steps;
        if (a->to_s - a->from_s + step >= held)
            return true;
    }
    return a->steps >= STEADY_MIN_STEPS && a->rel_se <= STEADY_REL_SE;
}

static void window_update(struct ui *u)
{
    struct ui_window *w = &u->win;
    window_restart_if_changed(u);
    if (isnan(w->since_s) && u->counters.steps >= w->steps_at_start + w->skip_steps)
        w->since_s = u->counters.time_s;
    if (isnan(w->since_s)) {
        w->avg = (struct sim_window){.rel_se = NAN};
        w->steady = false;
        return;
    }
    sim_window(u->sim, w->since_s, WINDOW_STEPS, WINDOW_SAMPLES, &w->avg);
    w->steady = window_steady(u->sim, &w->avg);
    if (w->avg.steps < 1)
        return;
    static const enum sim_series_id util[STAGE_COUNT] = {
        SERIES_UTIL_DATA, SERIES_UTIL_CPUS, SERIES_UTIL_ACCEL, SERIES_UTIL_NET, SERIES_UTIL_INFRA};
    for (int i = 0; i < STAGE_COUNT; i++)
        u->live.stage_util[i] = w->avg.mean[util[i]];
}

void ui_refresh_live(struct ui *u)
{
    if (u->sim) {
        sim_live(u->sim, &u->live);
        sim_counters(u->sim, &u->counters);
        window_update(u);
        /* Until a whole step passed, the gauges show the steady state
         * (marked "warming up"), not a sample of part of a step. */
        if (u->win.avg.steps < 1)
            for (int i = 0; i < STAGE_COUNT; i++)
                u->live.stage_util[i] = ui_report(u)->utilization[i];
    } else {
        u->win = (struct ui_window){.since_s = NAN};
        memset(&u->live, 0, sizeof u->live);
        memset(&u->counters, 0, sizeof u->counters);
        /* A setup that cannot run keeps nothing busy. */
        for (int i = 0; i < STAGE_COUNT; i++)
            u->live.stage_util[i] = u->report.runnable ? u->report.utilization[i] : 0;
    }
}

void ui_free_sim(struct ui *u)
{
    if (u->sim && u->sim_owned)
        sim_free(u->sim);
    u->sim = NULL;
}

bool ui_new_sim(struct ui *u)
{
    struct sim_options so;
    sim_default_options(&so);
    so.seed = 1;
    so.series_capacity = WINDOW_SAMPLES;
    ui_free_sim(u);
    u->sim_error[0] = '\0';
    if (!u->report.runnable) {
        snprintf(u->sim_error, sizeof u->sim_error, "%s", u->report.why_not);
        return false;
    }
    u->sim = sim_new(&u->setup, u->cat, &so, u->sim_error, sizeof u->sim_error);
    u->sim_owned = u->sim != NULL;
    return u->sim != NULL;
}

void ui_eval(struct ui *u)
{
    model_eval(&u->setup, &u->res, &u->report);
    infer_eval(&u->setup, &u->res, &u->infer);
}

bool ui_apply_setup(struct ui *u, const struct setup *s, char *err, size_t err_len)
{
    struct resolved r;
    if (!setup_resolve(s, u->cat, &r, err, err_len))
        return false;
    u->setup = *s;
    u->res = r;
    ui_eval(u);
    if (u->sim && u->report.runnable) {
        if (!sim_replace_setup(u->sim, &u->setup, err, err_len)) {
            /* The sim refused: start a fresh one on the new setup. */
            if (u->sim_owned)
                ui_new_sim(u);
        }
    } else if (u->sim_owned || !u->sim) {
        ui_new_sim(u);
    }
    ui_refresh_live(u);
    return true;
}

void ui_change_speed(struct ui *u, int dir)
{
    int i = u->speed_index + dir;
    if (i < 0)
        i = 0;
    if (i >= UI_SPEED_COUNT)
        i = UI_SPEED_COUNT - 1;
    u->speed_index = i;
    u->speed = ui_speeds[i];
}

/* Runs one slice of ui_advance in pieces of at most ADVANCE_PIECE_TICKS
 * ticks, reading the clock after each: a fine tick at a high speed makes
 * one slice billions of ticks, and the frame (so the keys) must not wait
 * for them. Adds the simulated time run to *done; returns -1 when the sim
 * failed, 0 when the slice ran out, 1 when the wall-clock deadline came. */
static int advance_slice(struct ui *u, double slice, double deadline, double *done, char *err,
                         size_t err_len)
{
    double piece_s = ADVANCE_PIECE_TICKS * sim_tick_s(u->sim);
    while (slice > 0) {
        double piece = slice > piece_s ? piece_s : slice;
        if (!sim_run(u->sim, piece, err, err_len))
            return -1;
        *done += piece;
        slice -= piece;
        if (ui_now_s() > deadline)
            return slice > 0 ? 1 : 0;
    }
    return 0;
}

double ui_advance(struct ui *u, double sim_dt, double *budget_s, char *err, size_t err_len)
{
    double t0 = ui_now_s(), done = 0;
    double deadline = t0 + *budget_s;
    u->lagging = false;
    for (int i = 0; i < ADVANCE_SLICES && sim_dt > 0; i++) {
        int r = advance_slice(u, sim_dt / ADVANCE_SLICES, deadline, &done, err, err_len);
        if (r < 0)
            return -1;
        if (r > 0 || ui_now_s() > deadline) {
            u->lagging = r > 0 || i + 1 < ADVANCE_SLICES;
            break;
        }
    }
    *budget_s -= ui_now_s() - t0;
    return done;
}

void ui_single_step(struct ui *u)
{
    if (!u->sim)
        return;
    struct sim_counters c;
    sim_counters(u->sim, &c);
    uint64_t start = c.steps;
    double step = ui_report(u)->step_time_s;
    if (!(step > 0) || !isfinite(step))
        step = 1;
    double limit = c.time_s + step * STEP_TIMEOUT_STEPS;
    double slice = step / 64;
    char err[UI_MSG_LEN];
    while (c.steps == start && c.time_s < limit) {
        if (!sim_run(u->sim, slice, err, sizeof err)) {
            ui_set_status(u, "simulation stopped: %s", err);
            break;
        }
        sim_counters(u->sim, &c);
    }
}

/* Batches move along the arrows at the sim's flow rates, averaged over
 * about one training step (a step's batches arrive in bursts; the average
 * is the flow). Each lane shows a few batches; one batch crossing takes
 * 1/rate simulated seconds, but the on-screen speed is limited so fast
 * flows read as a steady stream rather than flicker. */
#define LANE_BATCHES    3.0
#define MAX_PHASE_PER_S 1.2
/* A data lane's flow (batches/s) over what the devices would consume at
 * their own pace, 0..1 (1 when fed or unknown). */
static double lane_share(const struct model_report *r, double rate)
{
    double demand = r->device_step_s > 0 ? 1.0 / r->device_step_s : 0;
    if (!(demand > 0) || !isfinite(demand) || !isfinite(rate))
        return 1;
    double x = rate / demand;
    return x < 0 ? 0 : x > 1 ? 1 : x;
}

void ui_animate(struct ui *u, double wall_dt)
{
    if (u->paused || !u->sim)
        return;
    double tau = ui_report(u)->step_time_s;
    if (!isfinite(tau) || tau <= 0)
        tau = 1;
    double keep = exp(-u->speed * wall_dt / tau);
    /* Each overview arrow carries one of the sim's flows. */
    static const enum sim_flow arrow_flow[ARROW_COUNT] = {
        [ARROW_BATCH_LOADING] = SIM_FLOW_STORAGE_READ,
        [ARROW_TASK_DISTRIBUTION] = SIM_FLOW_HOST_TO_DEVICE,
        [ARROW_GRADIENT_SYNC] = SIM_FLOW_GRADIENT_SYNC,
        [ARROW_SYSTEM_SUPPORT] = SIM_FLOW_STEP_SUPPORT,
    };
    for (int i = 0; i < ARROW_COUNT; i++) {
        double rate = u->live.flow_rate[arrow_flow[i]];
        if (!isfinite(rate) || rate < 0)
            rate = 0;
        double *avg = &u->anim_rate[i];
        *avg = *avg > 0 && isfinite(*avg) ? keep * *avg + (1 - keep) * rate : rate;
        double dphase = *avg * u->speed * wall_dt / LANE_BATCHES;
        /* The cap keeps fast flows readable; it is scaled by the flow
         * against what the devices would consume, so a starved lane moves
         * slower than a fed one at any speed instead of both at the cap. */
        double top = MAX_PHASE_PER_S * wall_dt;
        if (i == ARROW_BATCH_LOADING || i == ARROW_TASK_DISTRIBUTION)
            top *= lane_share(ui_report(u), *avg);
        if (dphase > top)
            dphase = top;
        u->anim_phase[i] = fmod(u->anim_phase[i] + dphase, 1.0);
    }
}

void ui_open(struct ui *u, struct tui_options *o)
{
    u->cat = o->cat;
    o->cat = NULL;
    u->setup = o->setup;
    u->res = o->res;
    u->setup0 = u->setup;
    u->infer_mode = u->infer_start = o->infer;
    ui_eval(u);
    ui_new_sim(u);
    ui_refresh_live(u);
    ui_pick_speed(u);
    if (o->speed > 0) {
        u->speed = o->speed;
        u->speed_chosen = true;
        /* +/- continue from the nearest offered speed. */
        for (int i = 0; i < UI_SPEED_COUNT; i++)
            if (fabs(log(ui_speeds[i] / o->speed)) <
                fabs(log(ui_speeds[u->speed_index] / o->speed)))
                u->speed_index = i;
    }
    u->selected_box = u->report.bottleneck >= 0 && u->report.bottleneck < STAGE_COUNT
                          ? u->report.bottleneck
                          : STAGE_ACCELERATORS;
}

/* ---- named changes: the only writes to struct ui ------------------------------ */

void ui_set_wall_clock(struct ui *u, double wall_s)
{
    u->wall_s = wall_s;
}

void ui_expire_status(struct ui *u)
{
    if (u->status[0] && u->wall_s > u->status_until_s)
        u->status[0] = '\0';
}

void ui_set_paused(struct ui *u, bool paused)
{
    u->paused = paused;
}

void ui_set_colors(struct ui *u, int colors, bool mouse)
{
    u->colors = colors;
    u->mouse = mouse;
}

void ui_choose_speed(struct ui *u, int dir)
{
    ui_change_speed(u, dir);
    u->speed_chosen = true;
}

void ui_reset_animation(struct ui *u)
{
    memset(u->anim_phase, 0, sizeof u->anim_phase);
    memset(u->anim_rate, 0, sizeof u->anim_rate);
}

void ui_set_infer_mode(struct ui *u, bool infer)
{
    u->infer_mode = infer;
}

/* -- what the screen shows -- */

void ui_show_overview(struct ui *u)
{
    u->view = VIEW_OVERVIEW;
}

void ui_show_stage(struct ui *u, int stage)
{
    if (stage < 0 || stage >= STAGE_COUNT)
        return;
    u->view = VIEW_STAGE;
    u->stage = stage;
}

void ui_open_stage(struct ui *u, int stage)
{
    ui_show_stage(u, stage);
    ui_select_box(u, stage);
}

void ui_show_plan(struct ui *u, char *msg, size_t msg_len)
{
    if (!plan_ctl_open(&u->plan, &u->setup, u->cat, msg, msg_len))
        return;
    u->view = VIEW_PLAN;
    u->tour = false;
}

struct plan_ctl *ui_plan(struct ui *u)
{
    return u->plan;
}

void ui_select_box(struct ui *u, int box)
{
    if (box >= 0 && box < STAGE_COUNT)
        u->selected_box = box;
}

void ui_toggle_help(struct ui *u)
{
    u->help = !u->help;
    u->help_scroll = 0;
}

void ui_close_help(struct ui *u)
{
    u->help = false;
}

/* Scrolls stop at the top; their ends depend on the width and are set
 * when drawn (ui_frame_end). */
static void scroll_by(int *scroll, int lines)
{
    *scroll += lines;
    if (*scroll < 0)
        *scroll = 0;
}

void ui_scroll_help(struct ui *u, int lines)
{
    scroll_by(&u->help_scroll, lines);
}

void ui_scroll_text(struct ui *u, int lines)
{
    scroll_by(&u->text_scroll, lines);
}

void ui_scroll_caption(struct ui *u, int lines)
{
    u->caption_home = false; /* from where the last frame showed it */
    scroll_by(&u->caption_scroll, lines);
}

void ui_set_text_full(struct ui *u, bool full)
{
    u->text_full = full;
}

/* -- frames -- */

struct view_out *ui_frame_begin(struct ui *u, int cols, int lines, struct view_ctx *v)
{
    bool caption = u->tour || u->playing;
    layout_compute(cols, lines, u->view == VIEW_STAGE ? LAYOUT_STAGE : LAYOUT_OVERVIEW, caption,
                   &u->lay);
    hit_clear(&u->hits);
    /* The explanation's scroll belongs to the stage it was scrolled in. */
    if (u->text_stage != u->stage) {
        u->text_stage = u->stage;
        u->text_scroll = 0;
    }
    ui_view_ctx(u, v);
    struct view_out *out = &u->out;
    out->hits = &u->hits;
    out->text_scroll = u->text_scroll;
    out->caption_scroll = u->caption_home ? -1 : u->caption_scroll;
    out->help_scroll = u->help_scroll;
    return out;
}

void ui_frame_end(struct ui *u)
{
    u->text_scroll = u->out.text_scroll;
    u->caption_scroll = u->out.caption_scroll;
    u->help_scroll = u->out.help_scroll;
}

/* -- knobs and undo -- */

void ui_knobs_clear(struct ui *u)
{
    for (int s = 0; s < STAGE_COUNT; s++) {
        u->knobs[s].count = 0;
        u->knob_sel[s] = 0;
    }
}

void ui_knobs_add(struct ui *u, int stage, const struct field *f)
{
    if (stage < 0 || stage >= STAGE_COUNT)
        return;
    struct ui_knobs *k = &u->knobs[stage];
    if (k->count < UI_MAX_KNOBS)
        k->field[k->count++] = f;
}

void ui_select_knob(struct ui *u, int stage, int i)
{
    if (stage >= 0 && stage < STAGE_COUNT && i >= 0 && i < u->knobs[stage].count)
        u->knob_sel[stage] = i;
}

void ui_undo_push(struct ui *u, const struct setup *before)
{
    if (u->undo_count == UI_UNDO_MAX) {
        memmove(&u->undo[0], &u->undo[1], sizeof u->undo[0] * (UI_UNDO_MAX - 1));
        u->undo_count--;
    }
    u->undo[u->undo_count++] = *before;
}

void ui_undo_drop(struct ui *u)
{
    if (u->undo_count > 0)
        u->undo_count--;
}

void ui_undo_clear(struct ui *u)
{
    u->undo_count = 0;
}

void ui_keep_as_loaded(struct ui *u)
{
    u->setup0 = u->setup;
    u->undo_count = 0;
}

/* -- the tour -- */

void ui_tour_begin(struct ui *u)
{
    u->tour = true;
    u->tour_stop = 0;
}

void ui_tour_finish(struct ui *u)
{
    u->tour = false;
}

void ui_tour_stop_at(struct ui *u, int stop, double next_s)
{
    u->tour_stop = stop;
    u->tour_next_s = next_s;
}

void ui_tour_hold(struct ui *u)
{
    u->tour_next_s = INFINITY;
}

void ui_tour_save(struct ui *u)
{
    if (!u->tour_swapped)
        u->tour_saved = *ui_setup(u); /* the setup to come back to */
}

void ui_tour_swap(struct ui *u, bool swapped)
{
    u->tour_swapped = swapped;
}

/* -- playback (mlviz play) -- */

void ui_set_playing(struct ui *u, const char *caption)
{
    u->playing = true;
    ui_set_caption(u, caption);
    ui_transcript_clear(u, caption);
}

void ui_set_caption(struct ui *u, const char *text)
{
    snprintf(u->caption, sizeof u->caption, "%s", text);
    units_plain_numbers(u->caption, sizeof u->caption);
}

void ui_transcript_add(struct ui *u, const char *text, size_t len, bool printed)
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
    units_plain_numbers(e->text, sizeof e->text); /* a script's "2.097e+06" */
    e->printed = printed;
    e->header = false;
    if (u->caption_scroll > 0 && !u->caption_home)
        u->caption_scroll++; /* a reader scrolled back keeps their place (about) */
    else
        u->caption_home = true; /* the newest entry shows from its start */
}

void ui_transcript_mark_header(struct ui *u)
{
    if (u->transcript_count > 0)
        u->transcript[u->transcript_count - 1].header = true;
}

void ui_transcript_clear(struct ui *u, const char *first)
{
    u->transcript_count = 0;
    u->caption_scroll = 0;
    ui_transcript_add(u, first, strlen(first), false);
}

void ui_adopt_sim(struct ui *u, struct sim *sim)
{
    if (u->sim == sim)
        return;
    ui_free_sim(u);
    u->sim = sim;
    u->sim_owned = false;
    u->setup = *sim_setup(sim);
    ui_keep_as_loaded(u); /* what the story shows is the setup "as loaded" */
    char err[UI_MSG_LEN];
    if (setup_resolve(&u->setup, u->cat, &u->res, err, sizeof err))
        ui_eval(u);
    if (!u->speed_chosen)
        ui_pick_speed(u);
}

void ui_forget_sim(struct ui *u)
{
    if (!u->sim_owned)
        u->sim = NULL; /* the script's: its host frees it */
}

void ui_set_params(struct ui *u, const struct luahost_param *ps, size_t n)
{
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

void ui_set_param_value(struct ui *u, int i, const char *value)
{
    if (i >= 0 && i < u->n_params)
        snprintf(u->params[i].value, sizeof u->params[i].value, "%s", value);
}

void ui_select_param(struct ui *u, int delta)
{
    if (u->n_params > 0)
        u->param_sel = ((u->param_sel + delta) % u->n_params + u->n_params) % u->n_params;
}

void ui_toggle_params(struct ui *u)
{
    u->params_open = !u->params_open;
}

void ui_apply_params_later(struct ui *u)
{
    u->params_apply = true;
    u->params_open = false;
}

bool ui_take_params_apply(struct ui *u)
{
    bool apply = u->params_apply;
    u->params_apply = false;
    return apply;
}

void ui_play_restart_later(struct ui *u, int to_pause)
{
    u->play_restart = true;
    u->back_to_pause = to_pause > 0 ? to_pause : 0;
}

bool ui_take_play_restart(struct ui *u)
{
    bool restart = u->play_restart;
    u->play_restart = false;
    return restart;
}

void ui_play_continue(struct ui *u)
{
    u->play_waiting = false;
}

void ui_play_paused(struct ui *u, bool waiting)
{
    u->pauses_reached++;
    u->play_waiting = u->play_waiting || waiting;
}

void ui_play_finished(struct ui *u)
{
    u->play_done = true;
    u->back_to_pause = 0;
}

void ui_play_replay_to(struct ui *u, int pause)
{
    u->back_to_pause = pause;
}

void ui_play_replayed(struct ui *u)
{
    u->play_waiting = u->pauses_reached > 0;
    u->back_to_pause = 0;
}

bool ui_play_started_again(struct ui *u)
{
    u->play_done = u->play_waiting = false;
    u->pauses_reached = 0;
    u->view = VIEW_OVERVIEW; /* the script's focus() calls open views again */
    bool mode_changed = u->infer_mode != u->infer_start;
    u->infer_mode = u->infer_start; /* and its mode() calls set the mode */
    return mode_changed;
}
