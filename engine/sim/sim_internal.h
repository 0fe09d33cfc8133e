/* sim_internal: what the files of the step loop share (sim.c, sim_step.c,
 * sim_thermal.c, sim_events.c). Not part of the engine's public face. */
#ifndef MLVIZ_SIM_INTERNAL_H
#define MLVIZ_SIM_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim.h"

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
#define SECONDS_PER_HOUR  3600.0

/* What the devices do, in the sim's own terms: the public phases where they
 * are the same (sim_live reports these as they are), one state for the
 * whole step (sim_live splits it into forward .. optimizer by progress), and
 * the serial data path (reported as waiting for data). */
enum phase {
    PH_WAIT = SIM_PHASE_WAITING_FOR_DATA, /* waiting for a batch in the device queue */
    PH_STEP = SIM_PHASE_FORWARD,          /* running a step */
    PH_CKPT = SIM_PHASE_CHECKPOINT,       /* stalled writing a checkpoint */
    PH_RESTART = SIM_PHASE_RESTARTING,    /* down after a failure */
    PH_READ = SIM_PHASE_COUNT,            /* serial data path: reading one batch */
    PH_PRE,                               /* serial: preprocessing it */
    PH_H2D,                               /* serial: copying it to the devices */
};

/* Everything derived from one model evaluation. */
struct capacities {
    double read_s, pre_s, h2d_s; /* per global batch */
    double step_full_s;          /* device step at full clocks */
    double clock_s;              /* extra step seconds per unit of (1/f - 1) */
    double jitter_s;             /* compute part of the step at full clocks */
    double tokens_per_step;
    double idle_w, dyn_w; /* per device: idle and dynamic power at full clocks */
    double other_node_w;  /* CPUs, NICs, the rest of a node */
    double pue;
    double cap_kw; /* rack cooling capacity */
    double inlet_c, limit_c, throttle_c, heat_kj_per_c;
    double ckpt_interval_s, ckpt_write_s, restart_s;
    bool ckpt_async;
    double fail_per_s, node_fail_share;
    double prefetch_cap;
    bool serial;
    int devices, nodes, per_node, rack_nodes;
    double busy_share, comm_share; /* of the device step: compute, communication */
    /* cumulative shares of the step: forward, backward, sync, optimizer */
    double phase_end[SIM_PHASE_OPTIMIZER - SIM_PHASE_FORWARD + 1];
    double model_f, model_temp_c; /* the analytic steady state */
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
    double in_step; /* batch held by the running step, 0 or 1 */
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
    double t_valid_s;     /* time the valid checkpoint's state corresponds to */
    uint64_t since_valid; /* steps done since the valid checkpoint */
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
    double read_busy_s; /* storage reading (not held back by a full loader queue) */
    double dropped[STAGE_COUNT];
    double ckpt_in, ckpt_out;
    double step_total_s; /* time spent in steps */
    /* power accounting */
    uint64_t power_tick;
    double power_step_s;
    double e_dev_j, e_other_j; /* per device / per node, since the last thermal update */
    /* at the last sample */
    double s_flow_read, s_flow_pre, s_flow_h2d, s_step_s, s_tokens_done, s_energy_it_j;
    double s_read_busy_s;
    double energy_it_j;
    double tokens_done; /* tokens of completed steps, rolled back or not */
    /* the last two step completions (time, tokens_done then): the series'
     * tokens/s is the rate over whole steps, not a comb of 0 and bursts */
    double done_t[2], done_tokens[2];
    uint64_t done_count;
    double last_util[STAGE_COUNT], last_flow[SIM_FLOW_COUNT];

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

static inline double min2(double a, double b)
{
    return a < b ? a : b;
}
static inline double max2(double a, double b)
{
    return a > b ? a : b;
}
static inline double clamp01(double v)
{
    return v < 0 ? 0 : v > 1 ? 1 : v;
}
static inline double finite_or(double v, double d)
{
    return isfinite(v) ? v : d;
}
static inline double safe_div(double a, double b)
{
    return b != 0 && isfinite(a / b) ? a / b : 0.0;
}

static inline double now_s(const struct sim *S)
{
    return (double)S->ticks * S->tick_s;
}

/* ---- across the files ---- */

/* sim.c */
bool sim_apply_setup(struct sim *S, const struct setup *ns, char *err, size_t err_len);

/* sim_step.c */
double sim_step_len(const struct sim *S, double f);
void sim_update_rates(struct sim *S);
uint64_t sim_tick_at(const struct sim *S, double t);
void sim_update_next_special(struct sim *S);
void sim_draw_next_failure(struct sim *S);
void sim_set_next_event(struct sim *S);
void sim_checkpoint_written(struct sim *S);
void sim_run_ticks(struct sim *S, uint64_t n);
void sim_fail(struct sim *S, bool node);

/* sim_thermal.c */
void sim_account_power(struct sim *S);
void sim_thermal_update(struct sim *S);

/* sim_events.c: the queue of scheduled events */
void sim_take_next_event(struct sim *S, struct sim_event *out);
bool sim_do_event(struct sim *S, const struct sim_event *ev, char *err, size_t err_len);

#endif
