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

#include "plan_view.h"
#include "ui.h"

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

const struct model_report *ui_report(const struct ui *u)
{
    return u->sim ? sim_report(u->sim) : &u->report;
}

const struct setup *ui_setup(const struct ui *u)
{
    return u->sim ? sim_setup(u->sim) : &u->setup;
}

void ui_set_status(struct ui *u, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(u->status, sizeof u->status, fmt, ap);
    va_end(ap);
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
    plan_view_free(u->plan); /* joins the search thread before the catalog goes */
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

void ui_view_ctx(const struct ui *u, struct view_ctx *v)
{
    *v = (struct view_ctx){
        .cat = u->cat,
        .setup = ui_setup(u),
        .setup0 = &u->setup0,
        .res = &u->res,
        .report = ui_report(u),
        .infer = &u->infer,
        .infer_mode = u->infer_mode,
        .sim = u->sim,
        .live = &u->live,
        .counters = &u->counters,
        .win = &u->win.avg,
        .win_steady = u->win.steady,
        .texts = u->texts,
        .lay = &u->lay,
        .speed = u->speed,
        .wall_s = u->wall_s,
        .paused = u->paused,
        .lagging = u->lagging,
        .anim_phase = u->anim_phase,
        .anim_rate = u->anim_rate,
        .stage = u->stage,
        .selected_box = u->selected_box,
        .knobs = u->knobs,
        .knob_sel = u->knob_sel,
        .text_scroll = u->text_scroll,
        .text_full = u->text_full,
        .help_scroll = u->help_scroll,
        .status = u->status,
        .tour = u->tour,
        .tour_stop = u->tour_stop,
        .playing = u->playing,
        .play_waiting = u->play_waiting,
        .play_done = u->play_done,
        .transcript = u->transcript,
        .transcript_count = u->transcript_count,
        .caption_scroll = u->caption_scroll,
        .params = u->params,
        .n_params = u->n_params,
        .params_more = u->params_more,
        .param_sel = u->param_sel,
    };
}
