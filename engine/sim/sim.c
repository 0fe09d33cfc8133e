/* sim: the step loop (see sim.h).
 *
 * Time advances in fixed ticks. Between "special" ticks (samples, thermal
 * updates, failures, scheduled events, async checkpoint completions) the hot
 * loop sim_run_ticks() does a handful of flops per tick: three fluid flows between
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

#include "rng.h"
#include "setup.h"
#include "sim_internal.h"

const char *const sim_series_names[] = {
    "time_s",      "tokens_per_s", "util_data",      "util_cpus",    "util_accel",     "util_net",
    "util_infra",  "queue_loader", "queue_prefetch", "queue_device", "device_power_w", "it_kw",
    "facility_kw", "rack_temp_c",  "throttle",       "tokens_total", "lost_s",         "failures",
    NULL};

const char *const sim_event_names[] = {
    "set",          "fail_device",     "fail_node", "cooling_loss", "cooling_restore",
    "storage_slow", "storage_restore", "stop",      "callback",     NULL};

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
        snprintf(err, err_len,
                 "jitter coefficients of variation must be in 0..1 (compute) "
                 "and 0..2 (storage)");
        return false;
    }
    return true;
}

/* ---- capacities from the analytic model ------------------------------------------ */

/* Power and heat of a rack from the report at full clocks. */
static void thermal_capacities(const struct resolved *res, const struct model_report *rep,
                               const struct model_report *full, struct capacities *k)
{
    k->idle_w = res->accel->idle_w;
    /* The report's device power averages the step, idle while the data
     * path keeps the devices waiting; the sim draws the dynamic part only
     * while a step runs. */
    double running = safe_div(full->device_step_s, full->step_time_s);
    k->dyn_w = max2(0.0, full->power.device_w - k->idle_w) / (running > 0 ? running : 1.0);
    k->other_node_w = max2(0.0, full->power.node_w - full->power.device_w * k->per_node);
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
}

/* Clock sensitivity of the step, from a third evaluation whose cooling allows
 * CALIBRATION_DYNAMIC_SHARE of the dynamic power when the model does not
 * throttle already. */
static void clock_sensitivity(const struct setup *s, const struct resolved *res,
                              const struct model_report *rep, const struct model_report *full,
                              struct capacities *k)
{
    struct model_report calib;
    struct resolved rf = *res;
    /* Clock sensitivity: step(f) = step_full + clock_s * (1/f - 1), exact at
     * f = 1 and at the calibration clock. */
    double f1 = k->model_f, s1 = rep->device_step_s;
    if (!(f1 < 1.0 - 1e-9)) {
        struct cooling cc = *res->cooling;
        double devs = (double)k->rack_nodes * k->per_node;
        double rack_kw = full->power.per_rack_kw;
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
}

/* Checkpoints, failures and the data path. */
static void reliability_capacities(const struct setup *s, const struct model_report *rep,
                                   struct capacities *k)
{
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
}

/* Shares of the device step for utilization and the live phase. */
static void step_shares(const struct model_report *rep, struct capacities *k)
{
    const struct stage_times *st = &rep->stages;
    const struct step_breakdown *b = &rep->breakdown;
    double ds = max2(rep->device_step_s, MIN_STAGE_S);
    /* The model's busy times (model_devices_busy_s), so the live gauges
     * and eval's utilization are one quantity. */
    k->busy_share = clamp01(model_devices_busy_s(rep) / ds);
    k->comm_share = clamp01(model_links_busy_s(rep) / ds);
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
}

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
     * even idle devices overheat, clocks held below the device's lowest (a
     * power cap or cooling, docs/MODEL.md section 6). A job that the model
     * says makes no progress between failures still runs: showing that is
     * the sim's job. */
    bool overheats = rep->power.throttled && !(rep->power.throttle_factor > 0);
    if (!rep->memory.fits || overheats || rep->power.below_min_clock) {
        snprintf(err, err_len, "%s cannot run: %s", s->name, rep->why_not);
        return false;
    }
    struct model_report full;
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
    thermal_capacities(res, rep, &full, k);
    clock_sensitivity(s, res, rep, &full, k);
    reliability_capacities(s, rep, k);
    step_shares(rep, k);
    return true;
}

/* ---- series ------------------------------------------------------------------------ */

static double *series_slot(struct sim *S, size_t pos, int id)
{
    return &S->series[(size_t)id * S->series_cap + pos];
}

/* Tokens arrive when a step completes: per sample that is a comb of 0 and
 * bursts. The rate over the last whole step (between its two completions)
 * is what runs; a step running longer than that one sets a slower pace
 * (racks throttling, devices down). With no two completions apart in time
 * yet (several steps in one tick), the sample's own average. */
static double whole_step_rate(const struct sim *S, double sampled)
{
    double span = S->done_t[1] - S->done_t[0];
    if (S->done_count < 2 || !(span > 0))
        return sampled;
    double rate = (S->done_tokens[1] - S->done_tokens[0]) / span;
    double running = now_s(S) - S->done_t[1];
    if (running > span && S->cap.tokens_per_step > 0)
        rate = fmin(rate, S->cap.tokens_per_step / running);
    return rate;
}

static void take_sample(struct sim *S)
{
    const struct capacities *k = &S->cap;
    double interval = (double)(S->ticks - S->last_sample_tick) * S->tick_s;
    S->last_sample_tick = S->ticks;
    double d_read = S->flow_read - S->s_flow_read;
    double d_busy = S->read_busy_s - S->s_read_busy_s;
    double d_pre = S->flow_pre - S->s_flow_pre;
    double d_h2d = S->flow_h2d - S->s_flow_h2d;
    double d_step = S->step_total_s - S->s_step_s;
    double d_tokens = S->tokens_done - S->s_tokens_done;
    double d_energy = S->energy_it_j - S->s_energy_it_j;
    S->s_flow_read = S->flow_read;
    S->s_read_busy_s = S->read_busy_s;
    S->s_flow_pre = S->flow_pre;
    S->s_flow_h2d = S->flow_h2d;
    S->s_step_s = S->step_total_s;
    S->s_tokens_done = S->tokens_done;
    S->s_energy_it_j = S->energy_it_j;

    double u[STAGE_COUNT];
    /* Storage's busy share is the time it spent reading: a jittered read
     * takes longer than the nominal one, so batches read times the nominal
     * read time would count a slow stretch as idle. */
    u[STAGE_DATA] = clamp01(safe_div(d_busy, interval));
    u[STAGE_CPUS] = clamp01(safe_div(max2(d_pre * k->pre_s, d_h2d * k->h2d_s), interval));
    u[STAGE_ACCELERATORS] = clamp01(safe_div(d_step * k->busy_share, interval));
    u[STAGE_INTERCONNECT] = clamp01(safe_div(d_step * k->comm_share, interval));
    double it_kw = safe_div(d_energy, interval) / 1000.0;
    double rack_kw = safe_div(it_kw, k->nodes) * k->rack_nodes;
    u[STAGE_INFRASTRUCTURE] = clamp01(safe_div(rack_kw, k->cap_kw * S->cooling_share));
    memcpy(S->last_util, u, sizeof u);
    S->last_flow[SIM_FLOW_STORAGE_READ] = safe_div(d_read, interval);
    S->last_flow[SIM_FLOW_HOST_TO_DEVICE] = safe_div(d_h2d, interval);
    S->last_flow[SIM_FLOW_GRADIENT_SYNC] =
        safe_div(d_step, interval) / max2(sim_step_len(S, S->throttle), MIN_STAGE_S);
    S->last_flow[SIM_FLOW_STEP_SUPPORT] = S->last_flow[SIM_FLOW_GRADIENT_SYNC];

    double v[SERIES_COUNT];
    v[SERIES_TIME_S] = now_s(S);
    v[SERIES_TOKENS_PER_S] = whole_step_rate(S, safe_div(d_tokens, interval));
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

/* ---- events ----------------------------------------------------------------------- */

bool sim_apply_setup(struct sim *S, const struct setup *ns, char *err, size_t err_len)
{
    struct resolved res;
    struct model_report rep;
    struct capacities k;
    if (!evaluate(ns, S->cat, &res, &rep, &k, err, err_len))
        return false;
    sim_account_power(S);
    double old_len = sim_step_len(S, S->throttle);
    S->setup = *ns;
    S->res = res;
    S->rep = rep;
    S->cap = k;
    if (!S->opt.thermal)
        S->throttle = k.model_f;
    if (S->phase == PH_STEP && old_len > 0) {
        double ratio = sim_step_len(S, S->throttle) / old_len;
        S->rem_s *= ratio;
        S->phase_len_s *= ratio;
    }
    sim_update_rates(S);
    sim_draw_next_failure(S); /* the rate may have changed; exponential is memoryless */
    return true;
}

bool sim_check_setup(const struct setup *s, const struct catalog *cat, char *err, size_t err_len)
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
    sim_update_rates(S);
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
    sim_draw_next_failure(S);
    sim_update_next_special(S);
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
    sim_account_power(S);
    while (!S->stopped && S->next_event <= S->ticks) {
        struct sim_event ev;
        sim_take_next_event(S, &ev);
        sim_set_next_event(S);
        if (!sim_do_event(S, &ev, err, err_len)) {
            sim_update_next_special(S);
            return false;
        }
    }
    if (S->next_fail <= S->ticks) {
        sim_fail(S, rng_open01(S->rng_fail) < S->cap.node_fail_share);
        sim_draw_next_failure(S);
    }
    if (S->async_done <= S->ticks) {
        S->async_done = UINT64_MAX;
        if (S->async_writing) {
            S->async_writing = false;
            sim_checkpoint_written(S);
            S->t_valid_s = S->async_snap_s;
            S->since_valid -=
                S->async_snap_steps < S->since_valid ? S->async_snap_steps : S->since_valid;
        }
    }
    if (S->next_thermal <= S->ticks) {
        sim_thermal_update(S);
        S->next_thermal = S->ticks + S->thermal_ticks;
    }
    if (S->next_sample <= S->ticks) {
        take_sample(S);
        S->next_sample = S->ticks + S->sample_ticks;
    }
    sim_update_next_special(S);
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
            sim_run_ticks(S, stop_at - S->ticks);
        if (S->ticks >= S->next_special && !handle_specials(S, err, err_len)) {
            sim_account_power(S);
            return false;
        }
    }
    sim_account_power(S);
    return true;
}

bool sim_set(struct sim *S, const char *path, const char *text, char *err, size_t err_len)
{
    struct setup ns = S->setup;
    if (!setup_set(&ns, path, text, err, err_len))
        return false;
    return sim_apply_setup(S, &ns, err, err_len);
}

bool sim_replace_setup(struct sim *S, const struct setup *s, char *err, size_t err_len)
{
    return sim_apply_setup(S, s, err, err_len);
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
    out->items_inside[STAGE_INFRASTRUCTURE] = (S->phase == PH_CKPT || S->async_writing) ? 1.0 : 0.0;
}

double sim_tick_s(const struct sim *S)
{
    return S->tick_s;
}

const struct setup *sim_setup(const struct sim *S)
{
    return &S->setup;
}
const struct model_report *sim_report(const struct sim *S)
{
    return &S->rep;
}

size_t sim_series_len(const struct sim *S)
{
    return S->series_len;
}

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
    out->queue_fill[SIM_QUEUE_LOADER] = S->lq;
    out->queue_fill[SIM_QUEUE_PREFETCH] = S->pq;
    out->queue_fill[SIM_QUEUE_DEVICE] = S->dq;
    out->queue_cap[SIM_QUEUE_LOADER] = S->lq_cap;
    out->queue_cap[SIM_QUEUE_PREFETCH] = S->pq_cap;
    out->queue_cap[SIM_QUEUE_DEVICE] = S->dq_cap;
    double prog = S->phase_len_s > 0 ? clamp01(1.0 - S->rem_s / S->phase_len_s) : 0.0;
    switch (S->phase) {
    case PH_STEP: /* forward .. optimizer by the shares of the step */
        out->step_progress = prog;
        out->phase = SIM_PHASE_OPTIMIZER;
        for (int i = SIM_PHASE_FORWARD; i < SIM_PHASE_OPTIMIZER; i++)
            if (prog < S->cap.phase_end[i - SIM_PHASE_FORWARD]) {
                out->phase = i;
                break;
            }
        break;
    case PH_CKPT:
    case PH_RESTART:
        out->step_progress = prog;
        out->phase = S->phase;
        break;
    default: /* waiting, or the serial data path */
        out->phase = SIM_PHASE_WAITING_FOR_DATA;
        break;
    }
    memcpy(out->stage_util, S->last_util, sizeof out->stage_util);
    out->rack_temp_c = S->temp_c;
    out->throttle = S->throttle;
    out->failed_devices = S->phase == PH_RESTART ? S->failed_devices : 0;
    memcpy(out->flow_rate, S->last_flow, sizeof out->flow_rate);
}
