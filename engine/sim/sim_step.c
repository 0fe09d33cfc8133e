/* sim_step: the pipeline inside the step loop: queue rates, the device
 * phases (steps, checkpoints, restarts, the serial data path), the hot loop
 * over ticks, failures, and the bookkeeping of special ticks. */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "setup.h"
#include "sim_internal.h"

/* Device step length at clock share f. */
double sim_step_len(const struct sim *S, double f)
{
    return S->cap.step_full_s + S->cap.clock_s * (1.0 / max2(f, THROTTLE_FLOOR) - 1.0);
}

/* Per-tick rates and queue capacities from the capacities and the state. */
void sim_update_rates(struct sim *S)
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

uint64_t sim_tick_at(const struct sim *S, double t)
{
    double x = ceil(t / S->tick_s - 1e-9);
    if (!(x >= 0))
        return 0;
    if (x >= 1.8e19)
        return UINT64_MAX;
    return (uint64_t)x;
}

void sim_update_next_special(struct sim *S)
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

void sim_draw_next_failure(struct sim *S)
{
    if (!S->opt.failures || !(S->cap.fail_per_s > 0)) {
        S->next_fail = UINT64_MAX;
        return;
    }
    double t = now_s(S) + rng_exp(S->rng_fail, S->cap.fail_per_s);
    uint64_t k = sim_tick_at(S, t);
    S->next_fail = k > S->ticks ? k : S->ticks + 1;
}

void sim_set_next_event(struct sim *S)
{
    S->next_event = S->n_ev ? sim_tick_at(S, S->ev[0].ev.time_s) : UINT64_MAX;
    if (S->next_event < S->ticks)
        S->next_event = S->ticks;
}

/* ---- device phases ------------------------------------------------------------------ */

static void begin_step(struct sim *S)
{
    double len = sim_step_len(S, S->throttle);
    if (S->opt.jitter) {
        /* Every device draws its compute time from N(mu, (cv mu)^2); the
         * synchronous step waits for the slowest of them. */
        double z = rng_max_normal(S->rng_jit, (double)S->cap.devices);
        double compute = S->cap.jitter_s / max2(S->throttle, THROTTLE_FLOOR);
        /* The model's step already holds the expected wait for the slowest
         * device at MODEL_COMPUTE_JITTER_CV: replace it by this step's draw. */
        double expected =
            MODEL_COMPUTE_JITTER_CV * model_expected_max_normal((double)S->cap.devices);
        len =
            max2(len + compute * (S->opt.compute_jitter_cv * z - expected), len * MIN_JITTER_SHARE);
        S->read_jitter = rng_lognormal_mean1(S->rng_jit, S->opt.storage_jitter_cv);
        if (!S->cap.serial)
            S->rt_read = S->storage_factor / (S->cap.read_s * S->read_jitter) * S->tick_s;
    }
    S->phase = PH_STEP;
    S->rem_s = S->phase_len_s = len;
}

void sim_checkpoint_written(struct sim *S)
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
    if (S->done_count == 0 || t > S->done_t[1]) {
        S->done_t[0] = S->done_t[1];
        S->done_tokens[0] = S->done_tokens[1];
        S->done_count++;
    }
    S->done_t[1] = t;
    S->done_tokens[1] = S->tokens_done;
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
            S->async_done = sim_tick_at(S, t + write);
            if (S->async_done <= S->ticks)
                S->async_done = S->ticks + 1;
            sim_update_next_special(S);
        }
        return;
    }
    S->ckpt_in += 1;
    S->phase = PH_CKPT;
    S->rem_s = S->phase_len_s = S->cap.ckpt_write_s / max2(S->storage_factor, 1e-6);
}

/* A checkpoint write, a restart or a part of the serial data path ended at
 * time t: what comes next. */
static void timed_phase_ended(struct sim *S, double t)
{
    if (S->phase == PH_CKPT) {
        /* Nothing ran during the write: the checkpoint holds the
         * state of now. */
        sim_checkpoint_written(S);
        S->t_valid_s = t;
        S->since_valid = 0;
        S->phase = PH_WAIT;
    } else if (S->phase == PH_RESTART) {
        S->phase = PH_WAIT;
        S->failed_devices = 0;
        S->t_valid_s = t;
        S->since_valid = 0;
        S->c.restarts++;
        sim_update_rates(S);
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
            if (S->phase == PH_READ)
                S->read_busy_s += used;
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
            timed_phase_ended(S, t + dt - left);
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

void sim_run_ticks(struct sim *S, uint64_t n)
{
    const double dt = S->tick_s;
    const double lcap = S->lq_cap, pcap = S->pq_cap, dcap = S->dq_cap;
    const double need = S->cap.serial ? -1.0 : 1.0 - BATCH_EPS; /* serial: never wait here */
    double lq = S->lq, pq = S->pq, dq = S->dq, rem = S->rem_s;
    double rr = S->rt_read, rp = S->rt_pre, rh = S->rt_h2d;
    double fr = 0, fp = 0, fh = 0;
    /* Storage time per batch read: a tick that reads f batches kept it
     * busy f * per_read seconds (less than the tick when the loader queue
     * had less room than a tick's reading). */
    double per_read = rr > 0 ? dt / rr : 0, busy = 0;
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
            per_read = rr > 0 ? dt / rr : 0;
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
        busy += f * per_read;
    }
    add_phase_time(S, ph, (double)(n - stretch) * dt);
    S->ticks = base + n;
    S->lq = lq, S->pq = pq, S->dq = dq, S->rem_s = rem, S->phase = ph;
    S->flow_read += fr;
    S->read_busy_s += busy;
    S->flow_pre += fp;
    S->flow_h2d += fh;
}

/* ---- failures ---------------------------------------------------------------------- */

void sim_fail(struct sim *S, bool node)
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
        S->c.useful_steps -=
            S->since_valid < S->c.useful_steps ? S->since_valid : S->c.useful_steps;
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
    sim_update_rates(S);
}
