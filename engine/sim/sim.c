/* sim: the step loop (see sim.h).
 *
 * Time advances in fixed ticks. Between "special" ticks (samples, thermal
 * updates, failures, scheduled events, async checkpoint completions) the hot
 * loop run_ticks() does a handful of flops per tick: three fluid flows between
 * bounded queues and a countdown of the current device phase. Everything that
 * costs more (random draws, model evaluations, power and heat) happens per
 * step or per special tick, never per tick, and nothing is allocated after
 * sim_new() except when events are scheduled.
 *
 * Pipeline (items are global batches, fractions allowed):
 *   storage --read--> [loader queue] --preprocess--> [prefetch buffer]
 *     --host link--> [device queue] --> device step (one whole batch)
 * Storage, loaders and host link are fluid servers with rates 1/read_s,
 * 1/preprocess_s and 1/h2d_s from the analytic model; a flow is limited by
 * its rate, what its input queue holds and the room in its output queue
 * (back-pressure). The device starts a step when a whole batch waits in its
 * queue (else it starves) and runs it for device_step_s, stretched by
 * throttling and by the slowest of N devices when jitter is on. Without
 * loader workers or prefetch the model runs the data path in series with
 * the step, and so does the sim (one batch at a time, phase by phase).
 *
 * All identical devices are one aggregate: the cost of a simulated second
 * does not depend on the device count. */
#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "setup.h"

const char *const sim_series_names[] = {
    "time_s",         "tokens_per_s",   "util_data",      "util_cpus",     "util_accel",
    "util_net",       "util_infra",     "queue_loader",   "queue_prefetch", "queue_device",
    "device_power_w", "it_kw",          "facility_kw",    "rack_temp_c",   "throttle",
    "tokens_total",   "lost_s",         "failures",       NULL};

const char *const sim_event_names[] = {"set",          "fail_device",     "fail_node",
                                       "cooling_loss", "cooling_restore", "storage_slow",
                                       "storage_restore", "stop",         "callback",
                                       NULL};

/* ---- modelling constants ------------------------------------------------------- */

/* Default coefficient of variation of one device's compute time per step.
 * Measured step-to-step variation of large GEMM workloads on one GPU is a few
 * percent (clock boosting, memory refresh, OS noise; see Sinha et al., "Not
 * All GPUs Are Created Equal", SC 2022, which reports ~2-8% spread across
 * nominally identical GPUs). A modelling assumption, overridable. */
#define DEFAULT_COMPUTE_JITTER_CV MODEL_COMPUTE_JITTER_CV
/* Default coefficient of variation of shared-storage read time per batch:
 * parallel file systems under shared load vary by tens of percent. An
 * assumption, overridable. */
#define DEFAULT_STORAGE_JITTER_CV 0.20
/* The thermal state is integrated at this step: rack time constants are
 * minutes (C / (capacity / span) = 300 kJ/C / (20 kW / 60 C) = 900 s for air),
 * so 100 ms is far finer than needed, and exact exponential integration keeps
 * it stable at any step. */
#define THERMAL_DT_S 0.1
/* Below the throttle temperature by more than this band the governor runs
 * at full clocks; inside it, it caps power at what the cooling removes. The
 * band keeps the governor from toggling at the balance point. */
#define GOVERNOR_BAND_C 0.5
/* Above the throttle temperature the governor sheds the stored excess heat
 * over about this long (firmware slews clocks over seconds to a minute). */
#define GOVERNOR_RECOVERY_S 60.0
/* Deepest clock share a governor reaches (power can fall no lower than idle). */
#define THROTTLE_FLOOR 0.05
/* Fluid rounding: a queue holding 1 - 1e-9 batches holds a whole batch. */
#define BATCH_EPS 1e-9
/* Shortest stage time the sim accepts (guards divisions). */
#define MIN_STAGE_S 1e-9
/* Storage read-ahead: the loaders keep this many batches of reads queued. */
#define LOADER_QUEUE_BATCHES 1.0
/* Batches the devices hold besides the one in use (double buffering). */
#define DEVICE_QUEUE_BATCHES 1.0
/* A jittered step lasts at least this share of the nominal step (a normal
 * draw far in the lower tail must not make it negative). */
#define MIN_JITTER_SHARE 0.1
/* The clock sensitivity of the step is calibrated with a model evaluation
 * whose cooling allows this share of the devices' dynamic power. */
#define CALIBRATION_DYNAMIC_SHARE 0.5
/* Cooling capacity that never binds (kW per rack), for the full-clock model. */
#define UNLIMITED_RACK_KW 1e12
#define SECONDS_PER_HOUR 3600.0

enum phase {
    PH_WAIT,     /* waiting for a batch in the device queue */
    PH_STEP,     /* running a step */
    PH_CKPT,     /* stalled writing a checkpoint */
    PH_RESTART,  /* down after a failure */
    PH_READ,     /* serial data path: reading one batch */
    PH_PRE,      /* serial: preprocessing it */
    PH_H2D,      /* serial: copying it to the devices */
};

/* Everything derived from one model evaluation. */
struct capacities {
    double read_s, pre_s, h2d_s; /* per global batch */
    double step_full_s;          /* device step at full clocks */
    double clock_s;              /* extra step seconds per unit of (1/f - 1) */
    double jitter_s;             /* compute part of the step at full clocks */
    double tokens_per_step;
    double idle_w, dyn_w;        /* per device: idle and dynamic power at full clocks */
    double other_node_w;         /* CPUs, NICs, the rest of a node */
    double pue;
    double cap_kw;               /* rack cooling capacity */
    double inlet_c, limit_c, throttle_c, heat_kj_per_c;
    double ckpt_interval_s, ckpt_write_s, restart_s;
    bool ckpt_async;
    double fail_per_s, node_fail_share;
    double prefetch_cap;
    bool serial;
    int devices, nodes, per_node, rack_nodes;
    double busy_share, comm_share; /* of the device step: compute, communication */
    double phase_end[4];           /* cumulative shares: forward, backward, sync, optimizer */
    double model_f, model_temp_c;  /* the analytic steady state */
};

struct queued_event {
    struct sim_event ev;
    uint64_t seq; /* insertion order, breaks ties in time */
};

struct sim {
    struct sim_options opt;
    struct setup setup;
    const struct catalog *cat;
    struct resolved res;
    struct model_report rep;
    struct capacities cap;

    /* clock */
    uint64_t ticks;
    double tick_s;
    bool stopped;

    /* queues (batches) and their capacities */
    double lq, pq, dq;
    double lq_cap, pq_cap, dq_cap;
    double in_step;  /* batch held by the running step, 0 or 1 */
    /* rates per tick (0 while down) */
    double rt_read, rt_pre, rt_h2d;
    double storage_factor, read_jitter;
    double cooling_share;

    /* device */
    int phase;
    double rem_s, phase_len_s;
    double throttle;
    double temp_c;
    int failed_devices;
    int down_kind; /* 0 device, 1 node */

    /* checkpoints */
    double t_valid_s;        /* time the valid checkpoint's state corresponds to */
    uint64_t since_valid;    /* steps done since the valid checkpoint */
    bool async_writing;
    double async_snap_s;
    uint64_t async_snap_steps;

    /* specials (tick numbers; UINT64_MAX = never) */
    uint64_t next_sample, next_thermal, next_fail, next_event, async_done, next_special;
    uint64_t sample_ticks, thermal_ticks;
    uint64_t last_thermal_tick, last_sample_tick;

    /* accumulators: totals */
    struct sim_counters c;
    double flow_read, flow_pre, flow_h2d, flow_steps; /* batches */
    double dropped[STAGE_COUNT];
    double ckpt_in, ckpt_out;
    double step_total_s;       /* time spent in steps */
    /* power accounting */
    uint64_t power_tick;
    double power_step_s;
    double e_dev_j, e_other_j; /* per device / per node, since the last thermal update */
    /* at the last sample */
    double s_flow_read, s_flow_pre, s_flow_h2d, s_step_s, s_tokens_done, s_energy_it_j;
    double energy_it_j;
    double tokens_done; /* tokens of completed steps, rolled back or not */
    double last_util[STAGE_COUNT], last_flow[4];

    /* randomness: separate streams so that switching jitter on or off does
     * not move the failure times */
    uint64_t rng_jit[4], rng_fail[4];

    /* events: a binary min-heap on (time_s, seq), so scheduling and taking
     * the next event cost O(log n) and ties keep their insertion order */
    struct queued_event *ev;
    size_t n_ev, cap_ev;
    uint64_t ev_seq;
    sim_callback_fn cb;
    void *cb_ctx;
    char run_err[256];
    bool run_failed;

    /* series ring buffers */
    double *series;
    size_t series_cap, series_len, series_head; /* head: index of the oldest */
};

/* ---- small helpers ------------------------------------------------------------ */

static inline double min2(double a, double b) { return a < b ? a : b; }
static inline double max2(double a, double b) { return a > b ? a : b; }
static double clamp01(double v) { return v < 0 ? 0 : v > 1 ? 1 : v; }
static double finite_or(double v, double d) { return isfinite(v) ? v : d; }
static double safe_div(double a, double b) { return b != 0 && isfinite(a / b) ? a / b : 0.0; }

static double now_s(const struct sim *S) { return (double)S->ticks * S->tick_s; }

/* ---- random numbers: xoshiro256** seeded by splitmix64 (Blackman & Vigna 2018) -- */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void rng_seed(uint64_t s[4], uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        s[i] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t rng_next(uint64_t s[4])
{
    uint64_t r = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return r;
}

/* Uniform in (0, 1): never 0, never 1. */
static double rng_open01(uint64_t s[4])
{
    return ((double)(rng_next(s) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}


/* The largest of n standard normals, drawn exactly in O(1): P(max <= x) =
 * Phi(x)^n, so with U uniform, max = Phi^-1(U^(1/n)); the upper tail
 * 1 - U^(1/n) = -expm1(ln U / n) keeps its precision for n up to millions. */
static double draw_max_normal(uint64_t s[4], double n)
{
    double u = rng_open01(s);
    double q = -expm1(log(u) / max2(n, 1.0));
    return model_normal_upper_quantile(q);
}

/* A lognormal factor with mean 1 and coefficient of variation cv. */
static double draw_lognormal_mean1(uint64_t s[4], double cv)
{
    if (cv <= 0)
        return 1.0;
    double sigma2 = log1p(cv * cv);
    double z = model_normal_upper_quantile(rng_open01(s));
    return exp(sqrt(sigma2) * z - 0.5 * sigma2);
}

static double draw_exp(uint64_t s[4], double rate)
{
    return -log(rng_open01(s)) / rate;
}

/* ---- options --------------------------------------------------------------------- */

void sim_default_options(struct sim_options *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->tick_s = 0.001;
    o->sample_interval_s = 1.0;
    o->series_capacity = 4096;
    o->jitter = true;
    o->failures = true;
    o->thermal = true;
    o->compute_jitter_cv = DEFAULT_COMPUTE_JITTER_CV;
    o->storage_jitter_cv = DEFAULT_STORAGE_JITTER_CV;
}

static bool check_options(const struct sim_options *o, char *err, size_t err_len)
{
    if (!(o->tick_s >= 1e-6 && o->tick_s <= 60)) {
        snprintf(err, err_len, "tick must be between 1 us and 60 s (got %g s)", o->tick_s);
        return false;
    }
    /* The sample interval is rounded to whole ticks (at least one). */
    if (!(o->sample_interval_s > 0 && o->sample_interval_s <= 1e9)) {
        snprintf(err, err_len, "sample interval must be above 0 s (got %g s)",
                 o->sample_interval_s);
        return false;
    }
    if (o->series_capacity < 2 || o->series_capacity > ((size_t)1 << 26)) {
        snprintf(err, err_len, "series capacity must be 2 .. 67108864 samples (got %zu)",
                 o->series_capacity);
        return false;
    }
    if (!(o->compute_jitter_cv >= 0 && o->compute_jitter_cv <= 1) ||
        !(o->storage_jitter_cv >= 0 && o->storage_jitter_cv <= 2)) {
        snprintf(err, err_len, "jitter coefficients of variation must be in 0..1 (compute) "
                               "and 0..2 (storage)");
        return false;
    }
    return true;
}

/* ---- capacities from the analytic model ------------------------------------------ */

/* Evaluate s into rep and cap. The full-clock numbers come from a second
 * evaluation with cooling that never binds; the clock sensitivity of the
 * step from a third with cooling that allows half the dynamic power. */
static bool evaluate(const struct setup *s, const struct catalog *cat, struct resolved *res,
                     struct model_report *rep, struct capacities *k, char *err, size_t err_len)
{
    char msg[512];
    if (!setup_resolve(s, cat, res, msg, sizeof msg)) {
        snprintf(err, err_len, "%s", msg);
        return false;
    }
    model_eval(s, res, rep);
    /* Refuse what cannot start at all: memory that does not fit, racks where
     * even idle devices overheat. A job that the model says makes no
     * progress between failures still runs: showing that is the sim's job. */
    bool overheats = rep->power.throttled && !(rep->power.throttle_factor > 0);
    if (!rep->memory.fits || overheats) {
        snprintf(err, err_len, "%s cannot run: %s", s->name, rep->why_not);
        return false;
    }
    struct model_report full, calib;
    struct resolved rf = *res;
    struct cooling cool = *res->cooling;
    cool.rack_kw_max = UNLIMITED_RACK_KW;
    rf.cooling = &cool;
    model_eval(s, &rf, &full);

    memset(k, 0, sizeof *k);
    const struct stage_times *st = &rep->stages;
    k->read_s = max2(st->read_s, MIN_STAGE_S);
    k->pre_s = max2(st->preprocess_s, MIN_STAGE_S);
    k->h2d_s = max2(st->h2d_s, MIN_STAGE_S);
    k->step_full_s = max2(full.device_step_s, MIN_STAGE_S);
    k->jitter_s = full.breakdown.compute + full.breakdown.recompute;
    k->tokens_per_step =
        s->training.global_batch * (s->model.kind == MODEL_TRANSFORMER ? s->model.seq_len : 1.0);
    k->devices = rep->devices;
    k->nodes = rep->nodes;
    k->per_node = s->cluster.node.accelerators_per_node;
    k->rack_nodes = k->nodes < s->facility.nodes_per_rack ? k->nodes : s->facility.nodes_per_rack;
    k->idle_w = res->accel->idle_w;
    k->dyn_w = max2(0.0, full.power.device_w - k->idle_w);
    k->other_node_w = max2(0.0, full.power.node_w - full.power.device_w * k->per_node);
    k->pue = rep->power.pue;
    k->cap_kw = rep->power.rack_cooling_limit_kw;
    k->inlet_c = res->cooling->inlet_c;
    k->limit_c = res->cooling->limit_c;
    /* The analytic model throttles when the rack reaches the cooling limit;
     * a device with a lower throttle point throttles earlier. */
    k->throttle_c = k->limit_c;
    if (res->accel->max_temp_c > k->inlet_c && res->accel->max_temp_c < k->throttle_c)
        k->throttle_c = res->accel->max_temp_c;
    k->heat_kj_per_c = max2(res->cooling->heat_capacity_kj_per_c, 1e-3);
    k->model_f = rep->power.throttled ? rep->power.throttle_factor : 1.0;
    k->model_temp_c = rep->power.rack_temp_c;

    /* Clock sensitivity: step(f) = step_full + clock_s * (1/f - 1), exact at
     * f = 1 and at the calibration clock. */
    double f1 = k->model_f, s1 = rep->device_step_s;
    if (!(f1 < 1.0 - 1e-9)) {
        struct cooling cc = *res->cooling;
        double devs = (double)k->rack_nodes * k->per_node;
        double rack_kw = full.power.per_rack_kw;
        cc.rack_kw_max = rack_kw - (1.0 - CALIBRATION_DYNAMIC_SHARE) * k->dyn_w * devs / 1000.0;
        rf.cooling = &cc;
        if (cc.rack_kw_max > 0) {
            model_eval(s, &rf, &calib);
            f1 = calib.power.throttled ? calib.power.throttle_factor : 1.0;
            s1 = calib.device_step_s;
        }
    }
    if (f1 > 1e-6 && f1 < 1.0 - 1e-9 && s1 > k->step_full_s)
        k->clock_s = (s1 - k->step_full_s) / (1.0 / f1 - 1.0);
    else
        k->clock_s = k->jitter_s; /* compute-bound fallback */

    const struct reliability_report *rr = &rep->reliability;
    k->ckpt_write_s = max2(rr->checkpoint_write_s, 0.0);
    k->ckpt_interval_s = max2(rr->checkpoint_interval_min * 60.0, MIN_STAGE_S);
    k->restart_s = s->reliability.restart_min * 60.0;
    k->ckpt_async = s->reliability.checkpoint_async;
    double dev_rate = k->devices / s->reliability.device_mtbf_h;
    double node_rate = k->nodes / s->reliability.node_mtbf_h;
    k->fail_per_s = finite_or((dev_rate + node_rate) / SECONDS_PER_HOUR, 0.0);
    k->node_fail_share = clamp01(safe_div(node_rate, dev_rate + node_rate));
    k->prefetch_cap = s->data.prefetch_batches;
    k->serial = s->data.prefetch_batches == 0 || s->data.loader_workers_per_device == 0;

    /* Shares of the device step for utilization and the live phase. */
    const struct step_breakdown *b = &rep->breakdown;
    double ds = max2(rep->device_step_s, MIN_STAGE_S);
    k->busy_share = clamp01((b->compute + b->recompute + b->optimizer) / ds);
    k->comm_share = clamp01((b->tp_comm + b->pp_p2p + st->dp_comm_s) / ds);
    double fwd = st->forward_s;
    double bwd = st->backward_s + b->recompute + b->tp_comm + b->pp_bubble + b->pp_p2p;
    double sync = b->dp_comm_exposed;
    double opt = b->optimizer + b->overhead;
    double sum = fwd + bwd + sync + opt;
    if (!(sum > 0))
        fwd = sum = 1.0;
    k->phase_end[0] = fwd / sum;
    k->phase_end[1] = (fwd + bwd) / sum;
    k->phase_end[2] = (fwd + bwd + sync) / sum;
    k->phase_end[3] = 1.0;
    return true;
}

/* Device step length at clock share f. */
static double step_len(const struct sim *S, double f)
{
    return S->cap.step_full_s + S->cap.clock_s * (1.0 / max2(f, THROTTLE_FLOOR) - 1.0);
}

/* Per-tick rates and queue capacities from the capacities and the state. */
static void update_rates(struct sim *S)
{
    const struct capacities *k = &S->cap;
    double dt = S->tick_s;
    bool up = S->phase != PH_RESTART && !S->stopped;
    double r_read = S->storage_factor / (k->read_s * S->read_jitter);
    double r_pre = 1.0 / k->pre_s, r_h2d = 1.0 / k->h2d_s;
    if (k->serial || !up) {
        S->rt_read = S->rt_pre = S->rt_h2d = 0;
    } else {
        S->rt_read = r_read * dt;
        S->rt_pre = r_pre * dt;
        S->rt_h2d = r_h2d * dt;
    }
    /* A queue passes at most its capacity per tick, so when more than one
     * batch a tick flows (steps shorter than a tick) every queue must hold a
     * tick's worth plus one, or the tick length rather than the hardware
     * would limit throughput. Otherwise the configured sizes stand. */
    double slowest = max2(max2(k->read_s, k->pre_s), max2(k->h2d_s, k->step_full_s));
    double per_tick = dt / slowest;
    double floor_cap = per_tick <= 1.0 ? 1.0 : min2(ceil(per_tick), 1e9) + 1.0;
    S->lq_cap = max2(LOADER_QUEUE_BATCHES, floor_cap);
    S->pq_cap = max2(k->prefetch_cap, floor_cap);
    S->dq_cap = max2(DEVICE_QUEUE_BATCHES, floor_cap);
}

/* ---- specials bookkeeping -------------------------------------------------------- */

static uint64_t tick_at(const struct sim *S, double t)
{
    double x = ceil(t / S->tick_s - 1e-9);
    if (!(x >= 0))
        return 0;
    if (x >= 1.8e19)
        return UINT64_MAX;
    return (uint64_t)x;
}

static void update_next_special(struct sim *S)
{
    uint64_t m = S->next_sample;
    if (S->next_thermal < m)
        m = S->next_thermal;
    if (S->next_fail < m)
        m = S->next_fail;
    if (S->next_event < m)
        m = S->next_event;
    if (S->async_done < m)
        m = S->async_done;
    S->next_special = m;
}

static void draw_next_failure(struct sim *S)
{
    if (!S->opt.failures || !(S->cap.fail_per_s > 0)) {
        S->next_fail = UINT64_MAX;
        return;
    }
    double t = now_s(S) + draw_exp(S->rng_fail, S->cap.fail_per_s);
    uint64_t k = tick_at(S, t);
    S->next_fail = k > S->ticks ? k : S->ticks + 1;
}

static void set_next_event(struct sim *S)
{
    S->next_event = S->n_ev ? tick_at(S, S->ev[0].ev.time_s) : UINT64_MAX;
    if (S->next_event < S->ticks)
        S->next_event = S->ticks;
}

/* ---- power ----------------------------------------------------------------------- */

static double device_step_w(const struct sim *S)
{
    double f = S->throttle;
    return S->cap.idle_w + S->cap.dyn_w * f * f * f;
}

/* Integrate power from the last accounting point to now. Power depends only
 * on whether the devices step and on the clock, both constant between
 * special ticks, so this is exact. */
static void account_power(struct sim *S)
{
    double span = (double)(S->ticks - S->power_tick) * S->tick_s;
    double stepping = min2(span, max2(0.0, S->step_total_s - S->power_step_s));
    const struct capacities *k = &S->cap;
    double dev_j = k->idle_w * span + (device_step_w(S) - k->idle_w) * stepping;
    double other_j = k->other_node_w * span;
    double it_j = dev_j * k->devices + other_j * k->nodes;
    S->e_dev_j += dev_j;
    S->e_other_j += other_j;
    S->energy_it_j += it_j;
    S->c.energy_j += it_j * k->pue;
    S->power_tick = S->ticks;
    S->power_step_s = S->step_total_s;
}

/* ---- device phases ------------------------------------------------------------------ */

static void begin_step(struct sim *S)
{
    double len = step_len(S, S->throttle);
    if (S->opt.jitter) {
        /* Every device draws its compute time from N(mu, (cv mu)^2); the
         * synchronous step waits for the slowest of them. */
        double z = draw_max_normal(S->rng_jit, (double)S->cap.devices);
        double compute = S->cap.jitter_s / max2(S->throttle, THROTTLE_FLOOR);
        /* The model's step already holds the expected wait for the slowest
         * device at MODEL_COMPUTE_JITTER_CV: replace it by this step's draw. */
        double expected = MODEL_COMPUTE_JITTER_CV *
                          model_expected_max_normal((double)S->cap.devices);
        len = max2(len + compute * (S->opt.compute_jitter_cv * z - expected),
                   len * MIN_JITTER_SHARE);
        S->read_jitter = draw_lognormal_mean1(S->rng_jit, S->opt.storage_jitter_cv);
        if (!S->cap.serial)
            S->rt_read = S->storage_factor / (S->cap.read_s * S->read_jitter) * S->tick_s;
    }
    S->phase = PH_STEP;
    S->rem_s = S->phase_len_s = len;
}

static void checkpoint_written(struct sim *S)
{
    S->c.checkpoints++;
    S->ckpt_out += 1;
}

/* A step ended at time t: count it and decide what comes next. */
static void end_step(struct sim *S, double t)
{
    S->in_step = 0;
    S->flow_steps += 1;
    S->c.steps++;
    S->c.useful_steps++;
    S->since_valid++;
    S->c.tokens += S->cap.tokens_per_step;
    S->tokens_done += S->cap.tokens_per_step;
    S->phase = PH_WAIT;
    S->rem_s = 0;
    bool due = t - S->t_valid_s >= S->cap.ckpt_interval_s;
    if (!due)
        return;
    if (S->cap.ckpt_async) {
        if (!S->async_writing) {
            S->async_writing = true;
            S->async_snap_s = t;
            S->async_snap_steps = S->since_valid;
            S->ckpt_in += 1;
            double write = S->cap.ckpt_write_s / max2(S->storage_factor, 1e-6);
            S->async_done = tick_at(S, t + write);
            if (S->async_done <= S->ticks)
                S->async_done = S->ticks + 1;
            update_next_special(S);
        }
        return;
    }
    S->ckpt_in += 1;
    S->phase = PH_CKPT;
    S->rem_s = S->phase_len_s = S->cap.ckpt_write_s / max2(S->storage_factor, 1e-6);
}

/* The slow path of the device, for one tick of length dt starting at time
 * t: phase changes, several steps within one tick, waiting, serial data. */
static void device_slow(struct sim *S, double dt)
{
    double t = now_s(S);
    double left = dt;
    int guard = 0;
    while (left > 0 && guard++ < 1000000) {
        switch (S->phase) {
        case PH_STEP:
            if (S->rem_s > left) {
                S->rem_s -= left;
                S->step_total_s += left;
                return;
            }
            left -= S->rem_s;
            S->step_total_s += S->rem_s;
            end_step(S, t + dt - left);
            break;
        case PH_WAIT:
            if (S->cap.serial) {
                S->phase = PH_READ;
                S->rem_s = S->phase_len_s =
                    S->cap.read_s * S->read_jitter / max2(S->storage_factor, 1e-6);
                S->flow_read += 1;
                S->lq = 1;
            } else if (S->dq >= 1.0 - BATCH_EPS) {
                S->dq = max2(0.0, S->dq - 1.0);
                S->in_step = 1;
                begin_step(S);
            } else {
                S->c.starved_s += left;
                return;
            }
            break;
        case PH_CKPT:
        case PH_RESTART:
        case PH_READ:
        case PH_PRE:
        case PH_H2D: {
            double used = min2(S->rem_s, left);
            if (S->phase == PH_CKPT)
                S->c.checkpoint_s += used;
            else if (S->phase == PH_RESTART)
                S->c.lost_s += used;
            else
                S->c.starved_s += used;
            if (S->rem_s > left) {
                S->rem_s -= left;
                return;
            }
            left -= S->rem_s;
            S->rem_s = 0;
            double tt = t + dt - left;
            if (S->phase == PH_CKPT) {
                /* Nothing ran during the write: the checkpoint holds the
                 * state of now. */
                checkpoint_written(S);
                S->t_valid_s = tt;
                S->since_valid = 0;
                S->phase = PH_WAIT;
            } else if (S->phase == PH_RESTART) {
                S->phase = PH_WAIT;
                S->failed_devices = 0;
                S->t_valid_s = tt;
                S->since_valid = 0;
                S->c.restarts++;
                update_rates(S);
            } else if (S->phase == PH_READ) {
                S->lq = 0;
                S->flow_pre += 1;
                S->pq = 1;
                S->phase = PH_PRE;
                S->rem_s = S->phase_len_s = S->cap.pre_s;
            } else if (S->phase == PH_PRE) {
                S->phase = PH_H2D;
                S->rem_s = S->phase_len_s = S->cap.h2d_s;
            } else {
                S->pq = 0;
                S->flow_h2d += 1;
                S->in_step = 1;
                begin_step(S);
            }
            break;
        }
        default:
            return;
        }
    }
}

/* ---- the hot loop ------------------------------------------------------------------ */

/* Time spent in full ticks of one phase, added when the phase's stretch of
 * fast-path ticks ends. */
static void add_phase_time(struct sim *S, int phase, double seconds)
{
    switch (phase) {
    case PH_STEP:
        S->step_total_s += seconds;
        break;
    case PH_CKPT:
        S->c.checkpoint_s += seconds;
        break;
    case PH_RESTART:
        S->c.lost_s += seconds;
        break;
    default: /* waiting for data, or the serial data path */
        S->c.starved_s += seconds;
        break;
    }
}

static void run_ticks(struct sim *S, uint64_t n)
{
    const double dt = S->tick_s;
    const double lcap = S->lq_cap, pcap = S->pq_cap, dcap = S->dq_cap;
    const double need = S->cap.serial ? -1.0 : 1.0 - BATCH_EPS; /* serial: never wait here */
    double lq = S->lq, pq = S->pq, dq = S->dq, rem = S->rem_s;
    double rr = S->rt_read, rp = S->rt_pre, rh = S->rt_h2d;
    double fr = 0, fp = 0, fh = 0;
    int ph = S->phase;
    uint64_t base = S->ticks, stretch = 0; /* first tick of the current fast stretch */
    for (uint64_t i = 0; i < n; i++) {
        /* Fast path: a phase counting down, or waiting with no batch yet. */
        bool fast = ph == PH_WAIT ? dq < need : rem > dt;
        if (fast) {
            rem -= ph == PH_WAIT ? 0.0 : dt;
        } else {
            add_phase_time(S, ph, (double)(i - stretch) * dt);
            stretch = i + 1;
            S->lq = lq, S->pq = pq, S->dq = dq, S->rem_s = rem, S->phase = ph;
            S->ticks = base + i;
            device_slow(S, dt);
            lq = S->lq, pq = S->pq, dq = S->dq, rem = S->rem_s, ph = S->phase;
            rr = S->rt_read, rp = S->rt_pre, rh = S->rt_h2d;
        }
        /* Downstream first, so that room freed this tick is used this tick. */
        double f = min2(min2(rh, pq), dcap - dq);
        f = max2(f, 0.0);
        dq += f;
        pq -= f;
        fh += f;
        f = min2(min2(rp, lq), pcap - pq);
        f = max2(f, 0.0);
        pq += f;
        lq -= f;
        fp += f;
        f = max2(min2(rr, lcap - lq), 0.0);
        lq += f;
        fr += f;
    }
    add_phase_time(S, ph, (double)(n - stretch) * dt);
    S->ticks = base + n;
    S->lq = lq, S->pq = pq, S->dq = dq, S->rem_s = rem, S->phase = ph;
    S->flow_read += fr;
    S->flow_pre += fp;
    S->flow_h2d += fh;
}

/* ---- thermal ------------------------------------------------------------------------ */

/* Change the clock share; a running step keeps its progress. */
static void set_throttle(struct sim *S, double f)
{
    if (f == S->throttle)
        return;
    double old_len = step_len(S, S->throttle), new_len = step_len(S, f);
    if ((S->phase == PH_STEP) && old_len > 0) {
        double ratio = new_len / old_len;
        S->rem_s *= ratio;
        S->phase_len_s *= ratio;
    }
    S->throttle = f;
}

/* Heat per rack from the energy integrated since the last update; first-
 * order model C dT/dt = P_in - P_out with P_out = cap (T - inlet)/(limit -
 * inlet), integrated exactly over the interval (P_in constant in it). Then
 * the governor: within the band below the throttle temperature, devices may
 * draw only what the cooling removes at that temperature; the clock share is
 * the cube root of the dynamic power allowed (power ~ f^3, as in the model). */
static void thermal_update(struct sim *S)
{
    const struct capacities *k = &S->cap;
    double span_s = (double)(S->ticks - S->last_thermal_tick) * S->tick_s;
    S->last_thermal_tick = S->ticks;
    double rack_devs = (double)k->rack_nodes * k->per_node;
    double heat_kw = 0;
    if (span_s > 0)
        heat_kw = (S->e_dev_j * rack_devs + S->e_other_j * k->rack_nodes) / span_s / 1000.0;
    S->e_dev_j = S->e_other_j = 0;
    if (S->throttle < 1.0)
        S->c.throttled_s += span_s;
    if (!S->opt.thermal) {
        S->temp_c = k->model_temp_c;
        return;
    }
    double span_c = max2(k->limit_c - k->inlet_c, 1e-6);
    double cap = k->cap_kw * S->cooling_share;
    double C = k->heat_kj_per_c; /* kJ/C: with kW gives C/s */
    double T = S->temp_c;
    if (cap > 1e-9) {
        double g = cap / span_c; /* kW per C removed */
        double T_eq = k->inlet_c + heat_kw / g;
        double a = -expm1(-span_s * g / C);
        T += (T_eq - T) * a;
    } else {
        T += heat_kw * span_s / C;
    }
    S->temp_c = finite_or(T, k->inlet_c);
    if (S->temp_c > S->c.max_rack_temp_c)
        S->c.max_rack_temp_c = S->temp_c;

    double f = 1.0;
    if (S->temp_c >= k->throttle_c - GOVERNOR_BAND_C) {
        double allowed_kw = cap * (k->throttle_c - k->inlet_c) / span_c;
        double dev_w = (allowed_kw * 1000.0 - k->other_node_w * k->rack_nodes) /
                       max2(rack_devs, 1.0);
        if (S->temp_c > k->throttle_c) {
            /* Over the limit (cooling was cut): also shed the stored excess
             * heat over GOVERNOR_RECOVERY_S. */
            double excess_kw = (S->temp_c - k->throttle_c) * C / GOVERNOR_RECOVERY_S;
            dev_w -= excess_kw * 1000.0 / max2(rack_devs, 1.0);
        }
        double share = safe_div(dev_w - k->idle_w, k->dyn_w);
        f = share >= 1.0 ? 1.0 : share <= 0 ? THROTTLE_FLOOR : max2(cbrt(share), THROTTLE_FLOOR);
    }
    set_throttle(S, f);
}

/* ---- series ------------------------------------------------------------------------ */

static double *series_slot(struct sim *S, size_t pos, int id)
{
    return &S->series[(size_t)id * S->series_cap + pos];
}

static void take_sample(struct sim *S)
{
    const struct capacities *k = &S->cap;
    double interval = (double)(S->ticks - S->last_sample_tick) * S->tick_s;
    S->last_sample_tick = S->ticks;
    double d_read = S->flow_read - S->s_flow_read;
    double d_pre = S->flow_pre - S->s_flow_pre;
    double d_h2d = S->flow_h2d - S->s_flow_h2d;
    double d_step = S->step_total_s - S->s_step_s;
    double d_tokens = S->tokens_done - S->s_tokens_done;
    double d_energy = S->energy_it_j - S->s_energy_it_j;
    S->s_flow_read = S->flow_read;
    S->s_flow_pre = S->flow_pre;
    S->s_flow_h2d = S->flow_h2d;
    S->s_step_s = S->step_total_s;
    S->s_tokens_done = S->tokens_done;
    S->s_energy_it_j = S->energy_it_j;

    double u[STAGE_COUNT];
    u[STAGE_DATA] = clamp01(safe_div(d_read * k->read_s / max2(S->storage_factor, 1e-6), interval));
    u[STAGE_CPUS] = clamp01(safe_div(max2(d_pre * k->pre_s, d_h2d * k->h2d_s), interval));
    u[STAGE_ACCELERATORS] = clamp01(safe_div(d_step * k->busy_share, interval));
    u[STAGE_INTERCONNECT] = clamp01(safe_div(d_step * k->comm_share, interval));
    double it_kw = safe_div(d_energy, interval) / 1000.0;
    double rack_kw = safe_div(it_kw, k->nodes) * k->rack_nodes;
    u[STAGE_INFRASTRUCTURE] = clamp01(safe_div(rack_kw, k->cap_kw * S->cooling_share));
    memcpy(S->last_util, u, sizeof u);
    S->last_flow[0] = safe_div(d_read, interval);
    S->last_flow[1] = safe_div(d_h2d, interval);
    S->last_flow[2] = safe_div(d_step, interval) / max2(step_len(S, S->throttle), MIN_STAGE_S);
    S->last_flow[3] = S->last_flow[2];

    double v[SERIES_COUNT];
    v[SERIES_TIME_S] = now_s(S);
    v[SERIES_TOKENS_PER_S] = safe_div(d_tokens, interval);
    v[SERIES_UTIL_DATA] = u[STAGE_DATA];
    v[SERIES_UTIL_CPUS] = u[STAGE_CPUS];
    v[SERIES_UTIL_ACCEL] = u[STAGE_ACCELERATORS];
    v[SERIES_UTIL_NET] = u[STAGE_INTERCONNECT];
    v[SERIES_UTIL_INFRA] = u[STAGE_INFRASTRUCTURE];
    v[SERIES_QUEUE_LOADER] = S->lq;
    v[SERIES_QUEUE_PREFETCH] = S->pq;
    v[SERIES_QUEUE_DEVICE] = S->dq;
    double dev_j = safe_div(d_energy - interval * k->other_node_w * k->nodes, k->devices);
    v[SERIES_DEVICE_POWER_W] = max2(0.0, safe_div(dev_j, interval));
    v[SERIES_IT_KW] = it_kw;
    v[SERIES_FACILITY_KW] = it_kw * k->pue;
    v[SERIES_RACK_TEMP_C] = S->temp_c;
    v[SERIES_THROTTLE] = S->throttle;
    v[SERIES_TOKENS_TOTAL] = S->c.tokens;
    v[SERIES_LOST_S] = S->c.lost_s;
    v[SERIES_FAILURES] = (double)S->c.failures;

    size_t pos;
    if (S->series_len < S->series_cap) {
        pos = (S->series_head + S->series_len) % S->series_cap;
        S->series_len++;
    } else {
        pos = S->series_head;
        S->series_head = (S->series_head + 1) % S->series_cap;
    }
    for (int i = 0; i < SERIES_COUNT; i++)
        *series_slot(S, pos, i) = finite_or(v[i], 0.0);
}

/* ---- failures ---------------------------------------------------------------------- */

static void fail(struct sim *S, bool node)
{
    double t = now_s(S);
    S->c.failures++;
    if (node)
        S->c.node_failures++;
    else
        S->c.device_failures++;
    /* Roll back to the last valid checkpoint (work during a restart is
     * already counted as lost). */
    if (S->phase != PH_RESTART) {
        S->c.lost_s += max2(0.0, t - S->t_valid_s);
        S->c.useful_steps -= S->since_valid < S->c.useful_steps ? S->since_valid : S->c.useful_steps;
        S->c.tokens = max2(0.0, S->c.tokens - (double)S->since_valid * S->cap.tokens_per_step);
        S->since_valid = 0;
    }
    if (S->async_writing) { /* the write in flight is lost */
        S->async_writing = false;
        S->async_done = UINT64_MAX;
        S->ckpt_out += 1; /* left the infrastructure stage, unfinished */
        S->dropped[STAGE_INFRASTRUCTURE] += 1;
    }
    if (S->phase == PH_CKPT) {
        S->ckpt_out += 1;
        S->dropped[STAGE_INFRASTRUCTURE] += 1;
    }
    /* The job restarts from scratch: data in flight is thrown away. */
    S->dropped[STAGE_DATA] += S->lq;
    S->dropped[STAGE_CPUS] += S->pq;
    S->dropped[STAGE_ACCELERATORS] += S->dq + S->in_step;
    S->lq = S->pq = S->dq = S->in_step = 0;
    S->phase = PH_RESTART;
    S->rem_s = S->phase_len_s = max2(S->cap.restart_s, S->tick_s);
    S->down_kind = node ? 1 : 0;
    S->failed_devices = node ? S->cap.per_node : 1;
    update_rates(S);
}

/* ---- events ----------------------------------------------------------------------- */

static bool apply_setup(struct sim *S, const struct setup *ns, char *err, size_t err_len)
{
    struct resolved res;
    struct model_report rep;
    struct capacities k;
    if (!evaluate(ns, S->cat, &res, &rep, &k, err, err_len))
        return false;
    account_power(S);
    double old_len = step_len(S, S->throttle);
    S->setup = *ns;
    S->res = res;
    S->rep = rep;
    S->cap = k;
    if (!S->opt.thermal)
        S->throttle = k.model_f;
    if (S->phase == PH_STEP && old_len > 0) {
        double ratio = step_len(S, S->throttle) / old_len;
        S->rem_s *= ratio;
        S->phase_len_s *= ratio;
    }
    update_rates(S);
    draw_next_failure(S); /* the rate may have changed; exponential is memoryless */
    return true;
}

static bool check_event(const struct sim_event *ev, char *err, size_t err_len)
{
    if (!(ev->time_s >= 0) || !isfinite(ev->time_s)) {
        snprintf(err, err_len, "event time must be a finite time >= 0 (got %g)", ev->time_s);
        return false;
    }
    if (ev->kind < 0 || ev->kind >= SIM_EVENT_KIND_COUNT) {
        snprintf(err, err_len, "unknown event kind %d", ev->kind);
        return false;
    }
    if (ev->kind == SIM_EVENT_COOLING_LOSS && !(ev->value >= 0 && ev->value <= 1)) {
        snprintf(err, err_len, "cooling_loss value is the share of capacity lost, 0..1 (got %g)",
                 ev->value);
        return false;
    }
    if (ev->kind == SIM_EVENT_STORAGE_SLOW &&
        !(ev->value >= SIM_STORAGE_SLOW_MIN && ev->value <= 1)) {
        snprintf(err, err_len,
                 "storage_slow value multiplies the storage bandwidth, > 0 and <= 1 (got %g)",
                 ev->value);
        return false;
    }
    if (ev->kind == SIM_EVENT_SET && ev->path[0] == '\0') {
        snprintf(err, err_len, "a set event needs a path");
        return false;
    }
    return true;
}

static bool event_before(const struct queued_event *a, const struct queued_event *b)
{
    return a->ev.time_s < b->ev.time_s || (a->ev.time_s == b->ev.time_s && a->seq < b->seq);
}

/* Remove the earliest event from the heap into *out. */
static void take_next_event(struct sim *S, struct sim_event *out)
{
    *out = S->ev[0].ev;
    struct queued_event last = S->ev[--S->n_ev];
    size_t pos = 0;
    for (;;) {
        size_t child = 2 * pos + 1;
        if (child >= S->n_ev)
            break;
        if (child + 1 < S->n_ev && event_before(&S->ev[child + 1], &S->ev[child]))
            child++;
        if (!event_before(&S->ev[child], &last))
            break;
        S->ev[pos] = S->ev[child];
        pos = child;
    }
    if (S->n_ev)
        S->ev[pos] = last;
}

bool sim_schedule(struct sim *S, const struct sim_event *ev, char *err, size_t err_len)
{
    if (!check_event(ev, err, err_len))
        return false;
    if (ev->kind == SIM_EVENT_SET) {
        struct setup tmp = S->setup;
        if (!setup_set(&tmp, ev->path, ev->text, err, err_len))
            return false;
    }
    if (S->n_ev >= SIM_MAX_PENDING_EVENTS) {
        snprintf(err, err_len, "too many scheduled events (at most %d may be pending)",
                 SIM_MAX_PENDING_EVENTS);
        return false;
    }
    if (S->n_ev == S->cap_ev) {
        size_t nc = S->cap_ev ? S->cap_ev * 2 : 16;
        struct queued_event *p = realloc(S->ev, nc * sizeof *p);
        if (!p) {
            snprintf(err, err_len, "out of memory");
            return false;
        }
        S->ev = p;
        S->cap_ev = nc;
    }
    struct queued_event q = {.ev = *ev, .seq = S->ev_seq++};
    q.ev.path[sizeof q.ev.path - 1] = '\0';
    q.ev.text[sizeof q.ev.text - 1] = '\0';
    size_t pos = S->n_ev++;
    while (pos > 0 && event_before(&q, &S->ev[(pos - 1) / 2])) {
        S->ev[pos] = S->ev[(pos - 1) / 2];
        pos = (pos - 1) / 2;
    }
    S->ev[pos] = q;
    set_next_event(S);
    update_next_special(S);
    return true;
}

void sim_set_callback(struct sim *S, sim_callback_fn fn, void *ctx)
{
    S->cb = fn;
    S->cb_ctx = ctx;
}

static bool do_event(struct sim *S, const struct sim_event *ev, char *err, size_t err_len)
{
    switch (ev->kind) {
    case SIM_EVENT_SET:
        return sim_set(S, ev->path, ev->text, err, err_len);
    case SIM_EVENT_FAIL_DEVICE:
        fail(S, false);
        return true;
    case SIM_EVENT_FAIL_NODE:
        fail(S, true);
        return true;
    case SIM_EVENT_COOLING_LOSS:
        S->cooling_share = clamp01(1.0 - ev->value);
        return true;
    case SIM_EVENT_COOLING_RESTORE:
        S->cooling_share = 1.0;
        return true;
    case SIM_EVENT_STORAGE_SLOW:
        S->storage_factor = ev->value > 0 ? min2(ev->value, 1.0) : 1.0;
        update_rates(S);
        return true;
    case SIM_EVENT_STORAGE_RESTORE:
        S->storage_factor = 1.0;
        update_rates(S);
        return true;
    case SIM_EVENT_STOP:
        S->stopped = true;
        S->c.stopped = true;
        update_rates(S);
        return true;
    case SIM_EVENT_CALLBACK:
        if (S->cb)
            return S->cb(S->cb_ctx, S, ev->callback_id, err, err_len);
        return true;
    default:
        snprintf(err, err_len, "unknown event kind %d", ev->kind);
        return false;
    }
}

bool sim_check_setup(const struct setup *s, const struct catalog *cat, char *err,
                     size_t err_len)
{
    struct resolved res;
    struct model_report rep;
    struct capacities k;
    return evaluate(s, cat, &res, &rep, &k, err, err_len);
}

/* ---- creation ---------------------------------------------------------------------- */

struct sim *sim_new(const struct setup *s, const struct catalog *cat, const struct sim_options *o,
                    char *err, size_t err_len)
{
    struct sim_options def;
    if (!o) {
        sim_default_options(&def);
        o = &def;
    }
    if (!check_options(o, err, err_len))
        return NULL;
    struct sim *S = calloc(1, sizeof *S);
    if (!S) {
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    S->opt = *o;
    S->cat = cat;
    S->tick_s = o->tick_s;
    if (!evaluate(s, cat, &S->res, &S->rep, &S->cap, err, err_len)) {
        free(S);
        return NULL;
    }
    S->setup = *s;
    S->series_cap = o->series_capacity;
    S->series = calloc(S->series_cap * SERIES_COUNT, sizeof *S->series);
    if (!S->series) {
        snprintf(err, err_len, "out of memory for %zu samples", S->series_cap);
        free(S);
        return NULL;
    }
    rng_seed(S->rng_jit, o->seed ^ 0x6a09e667f3bcc908ull);
    rng_seed(S->rng_fail, o->seed ^ 0xbb67ae8584caa73bull);
    S->storage_factor = 1.0;
    S->read_jitter = 1.0;
    S->cooling_share = 1.0;
    /* The run starts in the analytic steady state: racks at the model's
     * temperature and clocks, so that it compares with the model from the
     * first second. */
    S->throttle = S->cap.model_f;
    S->temp_c = S->cap.model_temp_c;
    S->c.max_rack_temp_c = S->temp_c;
    S->phase = PH_WAIT;
    /* Storage, loaders and the host buffers begin full, as after warm-up. */
    update_rates(S);
    if (!S->cap.serial) {
        S->lq = S->lq_cap;
        S->pq = S->pq_cap;
        S->dq = S->dq_cap;
        S->flow_read = S->lq + S->pq + S->dq;
        S->flow_pre = S->pq + S->dq;
        S->flow_h2d = S->dq;
        S->s_flow_read = S->flow_read;
        S->s_flow_pre = S->flow_pre;
        S->s_flow_h2d = S->flow_h2d;
    }
    S->sample_ticks = (uint64_t)llround(o->sample_interval_s / o->tick_s);
    if (S->sample_ticks < 1)
        S->sample_ticks = 1;
    S->thermal_ticks = (uint64_t)llround(THERMAL_DT_S / o->tick_s);
    if (S->thermal_ticks < 1)
        S->thermal_ticks = 1;
    S->next_sample = S->sample_ticks;
    S->next_thermal = S->thermal_ticks;
    S->async_done = UINT64_MAX;
    S->next_event = UINT64_MAX;
    draw_next_failure(S);
    update_next_special(S);
    return S;
}

size_t sim_new_bytes(const struct sim_options *o)
{
    size_t per_sample = SERIES_COUNT * sizeof(double);
    if (o->series_capacity > (SIZE_MAX - sizeof(struct sim)) / per_sample)
        return SIZE_MAX;
    return sizeof(struct sim) + o->series_capacity * per_sample;
}

size_t sim_memory_bytes(const struct sim *S)
{
    return sim_new_bytes(&S->opt) + S->cap_ev * sizeof *S->ev;
}

void sim_free(struct sim *S)
{
    if (!S)
        return;
    free(S->ev);
    free(S->series);
    free(S);
}

/* ---- running ----------------------------------------------------------------------- */

/* Handle every special due at the current tick. */
static bool handle_specials(struct sim *S, char *err, size_t err_len)
{
    account_power(S);
    while (!S->stopped && S->next_event <= S->ticks) {
        struct sim_event ev;
        take_next_event(S, &ev);
        set_next_event(S);
        if (!do_event(S, &ev, err, err_len)) {
            update_next_special(S);
            return false;
        }
    }
    if (S->next_fail <= S->ticks) {
        fail(S, rng_open01(S->rng_fail) < S->cap.node_fail_share);
        draw_next_failure(S);
    }
    if (S->async_done <= S->ticks) {
        S->async_done = UINT64_MAX;
        if (S->async_writing) {
            S->async_writing = false;
            checkpoint_written(S);
            S->t_valid_s = S->async_snap_s;
            S->since_valid -= S->async_snap_steps < S->since_valid ? S->async_snap_steps
                                                                   : S->since_valid;
        }
    }
    if (S->next_thermal <= S->ticks) {
        thermal_update(S);
        S->next_thermal = S->ticks + S->thermal_ticks;
    }
    if (S->next_sample <= S->ticks) {
        take_sample(S);
        S->next_sample = S->ticks + S->sample_ticks;
    }
    update_next_special(S);
    return true;
}

bool sim_run(struct sim *S, double duration_s, char *err, size_t err_len)
{
    char dummy[8];
    if (!err) {
        err = dummy;
        err_len = sizeof dummy;
    }
    if (!(duration_s >= 0) || !isfinite(duration_s)) {
        snprintf(err, err_len, "duration must be a finite time >= 0 (got %g)", duration_s);
        return false;
    }
    double n = floor(duration_s / S->tick_s + 0.5);
    uint64_t end = S->ticks + (uint64_t)n;
    while (!S->stopped && S->ticks < end) {
        uint64_t stop_at = S->next_special < end ? S->next_special : end;
        if (stop_at > S->ticks)
            run_ticks(S, stop_at - S->ticks);
        if (S->ticks >= S->next_special && !handle_specials(S, err, err_len)) {
            account_power(S);
            return false;
        }
    }
    account_power(S);
    return true;
}

bool sim_set(struct sim *S, const char *path, const char *text, char *err, size_t err_len)
{
    struct setup ns = S->setup;
    if (!setup_set(&ns, path, text, err, err_len))
        return false;
    return apply_setup(S, &ns, err, err_len);
}

bool sim_replace_setup(struct sim *S, const struct setup *s, char *err, size_t err_len)
{
    return apply_setup(S, s, err, err_len);
}

/* ---- reading ---------------------------------------------------------------------- */

void sim_counters(const struct sim *S, struct sim_counters *out)
{
    *out = S->c;
    out->time_s = now_s(S);
    out->ticks = S->ticks;
    /* items: data stage = storage reads -> loader queue; CPUs = loaders ->
     * prefetch buffer -> host link; accelerators = device queue + the batch
     * in a step; interconnect = gradient syncs of finished steps (they leave
     * when they enter); infrastructure = checkpoint writes. Thrown-away items
     * (after a failure) count as leaving. */
    out->items_in[STAGE_DATA] = S->flow_read;
    out->items_out[STAGE_DATA] = S->flow_pre + S->dropped[STAGE_DATA];
    out->items_inside[STAGE_DATA] = S->lq;
    out->items_in[STAGE_CPUS] = S->flow_pre;
    out->items_out[STAGE_CPUS] = S->flow_h2d + S->dropped[STAGE_CPUS];
    out->items_inside[STAGE_CPUS] = S->pq;
    out->items_in[STAGE_ACCELERATORS] = S->flow_h2d;
    out->items_out[STAGE_ACCELERATORS] = S->flow_steps + S->dropped[STAGE_ACCELERATORS];
    out->items_inside[STAGE_ACCELERATORS] = S->dq + S->in_step;
    out->items_in[STAGE_INTERCONNECT] = S->flow_steps;
    out->items_out[STAGE_INTERCONNECT] = S->flow_steps;
    out->items_inside[STAGE_INTERCONNECT] = 0;
    out->items_in[STAGE_INFRASTRUCTURE] = S->ckpt_in;
    out->items_out[STAGE_INFRASTRUCTURE] = S->ckpt_out;
    out->items_inside[STAGE_INFRASTRUCTURE] =
        (S->phase == PH_CKPT || S->async_writing) ? 1.0 : 0.0;
}

const struct setup *sim_setup(const struct sim *S) { return &S->setup; }
const struct model_report *sim_report(const struct sim *S) { return &S->rep; }

size_t sim_series_len(const struct sim *S) { return S->series_len; }

double sim_series_at(const struct sim *S, enum sim_series_id id, size_t i)
{
    if ((int)id < 0 || id >= SERIES_COUNT || i >= S->series_len)
        return 0.0;
    return S->series[(size_t)id * S->series_cap + (S->series_head + i) % S->series_cap];
}

size_t sim_series_tail(const struct sim *S, enum sim_series_id id, double *out, size_t n)
{
    if ((int)id < 0 || id >= SERIES_COUNT)
        return 0;
    size_t m = n < S->series_len ? n : S->series_len;
    size_t first = S->series_len - m;
    for (size_t i = 0; i < m; i++)
        out[i] = sim_series_at(S, id, first + i);
    return m;
}

int sim_series_find(const char *name)
{
    if (!name)
        return -1;
    for (int i = 0; i < SERIES_COUNT; i++)
        if (strcmp(name, sim_series_names[i]) == 0)
            return i;
    return -1;
}

void sim_live(const struct sim *S, struct sim_live *out)
{
    memset(out, 0, sizeof *out);
    out->queue_fill[0] = S->lq;
    out->queue_fill[1] = S->pq;
    out->queue_fill[2] = S->dq;
    out->queue_cap[0] = S->lq_cap;
    out->queue_cap[1] = S->pq_cap;
    out->queue_cap[2] = S->dq_cap;
    double prog = S->phase_len_s > 0 ? clamp01(1.0 - S->rem_s / S->phase_len_s) : 0.0;
    switch (S->phase) {
    case PH_STEP:
        out->step_progress = prog;
        out->phase = 4;
        for (int i = 0; i < 4; i++)
            if (prog < S->cap.phase_end[i]) {
                out->phase = i + 1;
                break;
            }
        break;
    case PH_CKPT:
        out->step_progress = prog;
        out->phase = 5;
        break;
    case PH_RESTART:
        out->step_progress = prog;
        out->phase = 6;
        break;
    default:
        out->phase = 0;
        break;
    }
    memcpy(out->stage_util, S->last_util, sizeof out->stage_util);
    out->rack_temp_c = S->temp_c;
    out->throttle = S->throttle;
    out->failed_devices = S->phase == PH_RESTART ? S->failed_devices : 0;
    memcpy(out->flow_rate, S->last_flow, sizeof out->flow_rate);
}
