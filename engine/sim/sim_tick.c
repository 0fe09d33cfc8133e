/* sim_tick: the automatic tick (sim.h, "the automatic tick"): a bound from
 * the setup's own times, aligned to the run, then checked on a probe run
 * against a ten times finer tick. */
#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim_internal.h"

/* The ticks tried, coarsest first. */
static const double candidates_s[] = {50,  20,   10,   5,    2,     1,     0.5,  0.2,
                                      0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001};
enum { CANDIDATES = sizeof candidates_s / sizeof candidates_s[0] };

/* A tick at most this share of the slowest stage's time per batch. */
#define TICKS_PER_BATCH 10.0
/* Failures expected in a run times tick / step: the chance that one moves
 * past a step end. */
#define CROSSING_SHARE 0.05
/* The probe: this many slowest-stage times, at a tick this many times finer,
 * at most this many fine ticks (a few milliseconds of CPU). */
#define PROBE_BATCHES   50.0
#define PROBE_FINER     10.0
#define PROBE_MAX_TICKS 2e6

struct bound {
    double s;
    const char *by;
};

static void lower(struct bound *b, double s, const char *by)
{
    if (s < b->s) {
        b->s = s;
        b->by = by;
    }
}

/* Whether x is a whole number of ticks t (0 is). */
static bool whole_ticks(double x, double t)
{
    double n = x / t;
    return fabs(n - nearbyint(n)) <= 1e-9 * fmax(1.0, fabs(n));
}

static double slowest_batch_s(const struct capacities *k, const char **what)
{
    double s = k->step_full_s;
    *what = "a step";
    if (k->read_s > s)
        s = k->read_s, *what = "reading a batch";
    if (k->pre_s > s)
        s = k->pre_s, *what = "preprocessing a batch";
    if (k->h2d_s > s)
        s = k->h2d_s, *what = "copying a batch to the devices";
    return s;
}

/* The coarsest tick the setup's own times allow (struct sim's capacities
 * at the setup's start). */
static void bound_of(const struct capacities *k, const struct sim_options *o, double duration_s,
                     const struct sim_event *ev, size_t n_ev, struct bound *b)
{
    b->s = SIM_AUTO_TICK_MAX_S;
    b->by = "the longest automatic tick";
    const char *what;
    double slowest = slowest_batch_s(k, &what);
    lower(b, slowest / TICKS_PER_BATCH, what);
    /* Failures expected in the run; one when its length is not known. */
    double doubt = !(o->failures && k->fail_per_s > 0) ? 0
                   : duration_s > 0                    ? k->fail_per_s * duration_s
                                                       : 1.0;
    for (size_t i = 0; i < n_ev; i++)
        doubt += ev[i].kind == SIM_EVENT_FAIL_DEVICE || ev[i].kind == SIM_EVENT_FAIL_NODE;
    if (doubt <= 0)
        return;
    lower(b, fmax(k->restart_s, SIM_AUTO_TICK_MIN_S), "a restart");
    lower(b, CROSSING_SHARE * k->step_full_s / doubt, "the failures");
    /* Each failure's rounding (at most a tick of lost time), within the
     * tolerance of the run's time. */
    if (duration_s > 0)
        lower(b, SIM_AUTO_TICK_TOLERANCE * duration_s / doubt, "the failures");
}

/* Whether tick t divides the run, the sample interval and every event. */
static bool aligned(double t, const struct sim_options *o, double duration_s,
                    const struct sim_event *ev, size_t n_ev)
{
    if (!whole_ticks(duration_s, t) || !whole_ticks(o->sample_interval_s, t))
        return false;
    for (size_t i = 0; i < n_ev; i++)
        if (!whole_ticks(ev[i].time_s, t))
            return false;
    return true;
}

/* Runs the first horizon_s of the setup at tick t; false when it cannot. */
static bool probe_run(const struct setup *s, const struct catalog *cat, const struct sim_options *o,
                      double t, double horizon_s, const struct sim_event *ev, size_t n_ev,
                      struct sim_counters *c)
{
    struct sim_options po = *o;
    po.tick_s = t;
    po.sample_interval_s = horizon_s;
    po.series_capacity = 2;
    char err[256];
    struct sim *S = sim_new(s, cat, &po, err, sizeof err);
    if (!S)
        return false;
    bool ok = true;
    for (size_t i = 0; ok && i < n_ev; i++)
        if (ev[i].kind != SIM_EVENT_CALLBACK && ev[i].time_s <= horizon_s)
            ok = sim_schedule(S, &ev[i], err, sizeof err);
    ok = ok && sim_run(S, horizon_s, err, sizeof err);
    sim_counters(S, c);
    sim_free(S);
    return ok;
}

/* The probe's length for tick t: PROBE_BATCHES slowest-stage times, whole
 * ticks, within the run and PROBE_MAX_TICKS fine ticks. */
static double probe_horizon_s(const struct capacities *k, double t, double duration_s)
{
    const char *what;
    double h = PROBE_BATCHES * slowest_batch_s(k, &what);
    h = fmin(h, PROBE_MAX_TICKS * t / PROBE_FINER);
    if (duration_s > 0)
        h = fmin(h, duration_s);
    return fmax(1.0, ceil(h / t - 1e-9)) * t;
}

bool sim_auto_tick(const struct setup *s, const struct catalog *cat, const struct sim_options *o,
                   double duration_s, const struct sim_event *ev, size_t n_ev,
                   struct sim_tick_choice *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    out->tick_s = SIM_AUTO_TICK_MIN_S;
    struct sim_options base = *o;
    base.tick_s = SIM_AUTO_TICK_MIN_S;
    base.series_capacity = 2;
    struct sim *S = sim_new(s, cat, &base, err, err_len);
    if (!S)
        return false;
    struct capacities k = S->cap;
    sim_free(S);
    struct bound b;
    bound_of(&k, o, duration_s > 0 ? duration_s : 0, ev, n_ev, &b);
    out->bound_s = b.s;
    out->bound_by = b.by;
    for (int i = 0; i < CANDIDATES - 1; i++) {
        double t = candidates_s[i];
        if (t > b.s * (1 + 1e-9) || !aligned(t, o, duration_s > 0 ? duration_s : 0, ev, n_ev))
            continue;
        double h = probe_horizon_s(&k, t, duration_s), fine = t / PROBE_FINER;
        struct sim_counters coarse, finer;
        bool agree = probe_run(s, cat, o, t, h, ev, n_ev, &coarse) &&
                     probe_run(s, cat, o, fine, h, ev, n_ev, &finer) &&
                     sim_counters_agree(&coarse, &finer, SIM_AUTO_TICK_TOLERANCE);
        if (agree) {
            out->tick_s = t;
            out->probe_s = h;
            out->probe_tick_s = fine;
            return true;
        }
        out->refused++;
    }
    return true;
}

static bool close_to(double a, double b, double scale, double tol)
{
    return fabs(a - b) <= tol * scale;
}

bool sim_counters_agree(const struct sim_counters *a, const struct sim_counters *b, double tol)
{
    /* A failure ends the step in flight: whether it ended first moves with
     * the failure's tick, and it is rolled back either way, so completed
     * steps may differ by one a failure. */
    double failures = fmax((double)a->failures, (double)b->failures);
    double steps = fmax((double)a->steps, (double)b->steps);
    if (fabs((double)a->steps - (double)b->steps) > fmax(tol * steps, failures))
        return false;
    const double counts[][2] = {
        {(double)a->useful_steps, (double)b->useful_steps},
        {(double)a->failures, (double)b->failures},
        {(double)a->device_failures, (double)b->device_failures},
        {(double)a->node_failures, (double)b->node_failures},
        {(double)a->restarts, (double)b->restarts},
        {(double)a->checkpoints, (double)b->checkpoints},
        {a->tokens, b->tokens},
        {a->energy_j, b->energy_j},
        {a->max_rack_temp_c, b->max_rack_temp_c},
        {a->time_s, b->time_s},
    };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        if (!close_to(counts[i][0], counts[i][1], fmax(fabs(counts[i][0]), fabs(counts[i][1])),
                      tol))
            return false;
    double run_s = fmax(a->time_s, b->time_s);
    const double times[][2] = {
        {a->starved_s, b->starved_s},
        {a->lost_s, b->lost_s},
        {a->throttled_s, b->throttled_s},
        {a->checkpoint_s, b->checkpoint_s},
    };
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++)
        if (!close_to(times[i][0], times[i][1], run_s, tol))
            return false;
    return a->stopped == b->stopped;
}
