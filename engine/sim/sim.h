/* sim: the step loop. A seeded, deterministic discrete-time simulation of the
 * training pipeline: storage -> loader workers -> host prefetch buffer ->
 * host link -> device step phases, with jitter and stragglers, failures and
 * restarts from checkpoints, checkpoint writes, a first-order thermal model
 * per rack with throttling, and power over time.
 *
 * Capacities come from the analytic model (model_eval), so with jitter and
 * failures off the long-run throughput equals the model's. The cost of a
 * simulated second does not grow with the device count: identical devices
 * are aggregated and the slowest of N is drawn from order statistics. */
#ifndef MLVIZ_SIM_H
#define MLVIZ_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* Series recorded at every sample interval. */
enum sim_series_id {
    SERIES_TIME_S,       /* simulated time of the sample */
    SERIES_TOKENS_PER_S, /* throughput over the last interval */
    SERIES_UTIL_DATA,    /* busy share of each stage, 0..1 */
    SERIES_UTIL_CPUS,
    SERIES_UTIL_ACCEL,
    SERIES_UTIL_NET,
    SERIES_UTIL_INFRA,
    SERIES_QUEUE_LOADER,   /* batches waiting between storage and loaders */
    SERIES_QUEUE_PREFETCH, /* batches in the host prefetch buffer */
    SERIES_QUEUE_DEVICE,   /* batches copied to devices, waiting for a step */
    SERIES_DEVICE_POWER_W, /* one device, average */
    SERIES_IT_KW,
    SERIES_FACILITY_KW,
    SERIES_RACK_TEMP_C,  /* hottest rack group */
    SERIES_THROTTLE,     /* compute speed kept, 0..1 */
    SERIES_TOKENS_TOTAL, /* cumulative useful tokens */
    SERIES_LOST_S,       /* cumulative wall time lost (rollback + restart) */
    SERIES_FAILURES,     /* cumulative failures */
    SERIES_COUNT
};
extern const char *const sim_series_names[]; /* "time_s", "tokens_per_s", ... */

/* The smallest storage_slow factor: 4.9e-324 is "above 0" yet divides into inf. */
#define SIM_STORAGE_SLOW_MIN 1e-6

enum sim_event_kind {
    SIM_EVENT_SET, /* set a setup field: path + text value */
    SIM_EVENT_FAIL_DEVICE,
    SIM_EVENT_FAIL_NODE,
    SIM_EVENT_COOLING_LOSS, /* value: share of capacity lost, 0..1 */
    SIM_EVENT_COOLING_RESTORE,
    SIM_EVENT_STORAGE_SLOW, /* value: factor on storage bandwidth, SIM_STORAGE_SLOW_MIN..1 */
    SIM_EVENT_STORAGE_RESTORE,
    SIM_EVENT_STOP,
    SIM_EVENT_CALLBACK, /* calls the callback given to sim_set_callback */
    SIM_EVENT_KIND_COUNT
};
extern const char *const sim_event_names[]; /* "set", "fail_device", ... */

struct sim_event {
    double time_s;
    int kind;                 /* enum sim_event_kind */
    char path[FIELD_STR_LEN]; /* SIM_EVENT_SET */
    char text[FIELD_STR_LEN]; /* SIM_EVENT_SET value */
    double value;
    int callback_id; /* SIM_EVENT_CALLBACK */
    int line, col;   /* where an events file gave it; 0 otherwise */
};

struct sim_options {
    uint64_t seed;
    double tick_s;            /* default 0.001 (1 ms); 1 us .. 60 s */
    double sample_interval_s; /* default 1 s; rounded to whole ticks */
    size_t series_capacity;   /* ring buffer length per series (default 4096) */
    bool jitter;              /* compute and storage jitter, stragglers */
    bool failures;            /* random failures from the MTBFs (fail events still work) */
    bool thermal;             /* false: racks held at the model's steady temperature and clocks */
    double compute_jitter_cv; /* coefficient of variation of one device's step time */
    double storage_jitter_cv;
};

struct sim_counters {
    double time_s;
    uint64_t ticks;
    uint64_t steps;                /* completed optimizer steps (incl. ones later lost) */
    uint64_t useful_steps;         /* steps that survived (not rolled back) */
    double tokens;                 /* useful tokens */
    double items_in[STAGE_COUNT];  /* batches that entered each stage */
    double items_out[STAGE_COUNT]; /* batches that left each stage */
    double items_inside[STAGE_COUNT];
    uint64_t failures;
    uint64_t device_failures;
    uint64_t node_failures;
    uint64_t restarts;
    uint64_t checkpoints;
    double lost_s;       /* wall time lost to rollback and restart */
    double starved_s;    /* time the devices waited for data */
    double throttled_s;  /* time spent throttled */
    double checkpoint_s; /* time stalled writing checkpoints */
    double energy_j;     /* facility energy */
    double max_rack_temp_c;
    bool stopped;
};

struct sim;

void sim_default_options(struct sim_options *o);
/* Create a simulation of a resolved setup. The setup is copied; the catalog
 * must outlive the sim (SIM_EVENT_SET re-resolves against it). Returns NULL
 * with a message when the setup cannot run. */
struct sim *sim_new(const struct setup *s, const struct catalog *cat, const struct sim_options *o,
                    char *err, size_t err_len);
void sim_free(struct sim *sim);
/* Heap bytes a sim holds: one created with options o (before creating it),
 * and a live one now, its event queue included. A host that runs scripts
 * charges these against the script's memory cap. */
size_t sim_new_bytes(const struct sim_options *o);
size_t sim_memory_bytes(const struct sim *sim);

/* Events waiting to happen in one sim, at most: scheduling more fails. */
#define SIM_MAX_PENDING_EVENTS 100000
/* Schedule an event (taken in time order; ties in insertion order). Costs
 * O(log n) in the number of pending events. */
bool sim_schedule(struct sim *sim, const struct sim_event *ev, char *err, size_t err_len);
/* Callback for SIM_EVENT_CALLBACK events; returns false to stop the run with
 * the message it wrote. */
typedef bool (*sim_callback_fn)(void *ctx, struct sim *sim, int callback_id, char *err,
                                size_t err_len);
void sim_set_callback(struct sim *sim, sim_callback_fn fn, void *ctx);

/* Advance by duration_s of simulated time (in ticks). Returns false when a
 * callback failed or an event was invalid (message in err). */
bool sim_run(struct sim *sim, double duration_s, char *err, size_t err_len);
/* Apply a setup field change now (as SIM_EVENT_SET at the current time). */
bool sim_set(struct sim *sim, const char *path, const char *text, char *err, size_t err_len);
/* Replace the whole setup (the TUI's knobs); the pipeline state carries over. */
bool sim_replace_setup(struct sim *sim, const struct setup *s, char *err, size_t err_len);

void sim_counters(const struct sim *sim, struct sim_counters *out);
/* Simulated seconds per tick (sim_options.tick_s): a caller that must stay
 * responsive runs a long stretch in pieces of a bounded number of ticks. */
double sim_tick_s(const struct sim *sim);
const struct setup *sim_setup(const struct sim *sim);
/* The analytic report the sim is running on (after events applied). */
const struct model_report *sim_report(const struct sim *sim);

/* Series access: number of samples held (<= capacity) and the i-th oldest. */
size_t sim_series_len(const struct sim *sim);
double sim_series_at(const struct sim *sim, enum sim_series_id id, size_t i);
/* Copy the newest n samples (oldest first) into out; returns how many. */
size_t sim_series_tail(const struct sim *sim, enum sim_series_id id, double *out, size_t n);
int sim_series_find(const char *name); /* -1 when unknown */

/* Rates averaged over whole steps: the time-weighted mean of every series
 * between two step completions (cumulative series: their mean, of little
 * use; tokens_per_s: the tokens those steps made over the span). steps is
 * 0 ("warming up") until a whole step lies after since_s. */
struct sim_window {
    int steps;           /* whole steps averaged; 0: none yet */
    double from_s, to_s; /* the span */
    double mean[SERIES_COUNT];
    /* How far the span's rate may be from the rate the pipeline sustains:
     * the relative standard error of its mean time per token, from the
     * spread of the times between completions (jittered storage and
     * compute make each step's length a random draw). NAN with fewer than
     * two intervals. */
    double rel_se;
};
/* The newest whole steps that ended by sample `end` (an index as for
 * sim_series_at) and began after since_s: at most max_steps of them within
 * max_samples samples. */
void sim_window_at(const struct sim *sim, size_t end, double since_s, int max_steps,
                   size_t max_samples, struct sim_window *out);
/* sim_window_at ending at the newest sample. */
void sim_window(const struct sim *sim, double since_s, int max_steps, size_t max_samples,
                struct sim_window *out);

/* What the devices are doing. A step runs forward, backward, gradient sync
 * and optimizer in turn; between steps the devices wait for data, write a
 * checkpoint or restart after a failure. */
enum sim_phase {
    SIM_PHASE_WAITING_FOR_DATA = 0, /* no whole batch on the devices (or the serial data
                                       path is reading, preprocessing or copying one) */
    SIM_PHASE_FORWARD = 1,
    SIM_PHASE_BACKWARD = 2,   /* with recomputation, tensor-parallel communication, the
                                 pipeline bubble and sends */
    SIM_PHASE_SYNC = 3,       /* exposed data-parallel gradient sync */
    SIM_PHASE_OPTIMIZER = 4,  /* optimizer update and fixed per-step overhead */
    SIM_PHASE_CHECKPOINT = 5, /* stalled writing a checkpoint */
    SIM_PHASE_RESTARTING = 6, /* down after a failure, restarting from the last checkpoint */
    SIM_PHASE_COUNT
};

/* The bounded queues of the data path, in pipeline order (batches). */
enum sim_queue {
    SIM_QUEUE_LOADER,   /* read from storage, waiting for the loader workers */
    SIM_QUEUE_PREFETCH, /* preprocessed, in the host prefetch buffer */
    SIM_QUEUE_DEVICE,   /* copied to the devices, waiting for a step */
    SIM_QUEUE_COUNT
};

/* Flows between the stages of the pipeline, batches per second over the last
 * sample interval. */
enum sim_flow {
    SIM_FLOW_STORAGE_READ,   /* storage -> loader queue (the data stage's output) */
    SIM_FLOW_HOST_TO_DEVICE, /* prefetch buffer -> devices over the host links */
    SIM_FLOW_GRADIENT_SYNC,  /* steps finished, each one gradient sync over the interconnect */
    SIM_FLOW_STEP_SUPPORT,   /* steps powered and cooled by the infrastructure (the same rate) */
    SIM_FLOW_COUNT
};

/* Live state: current fill of each queue and its capacity, the phase of
 * the devices and the progress through it, per-rack-group temperatures. */
struct sim_live {
    double queue_fill[SIM_QUEUE_COUNT]; /* batches, by enum sim_queue */
    double queue_cap[SIM_QUEUE_COUNT];
    double step_progress; /* 0..1 through the current step (or checkpoint,
                             restart) */
    int phase;            /* enum sim_phase */
    double stage_util[STAGE_COUNT];
    double rack_temp_c;
    double throttle;
    int failed_devices;               /* devices down right now (restart pending) */
    double flow_rate[SIM_FLOW_COUNT]; /* batches/s, by enum sim_flow */
};
void sim_live(const struct sim *sim, struct sim_live *out);

/* ---- the automatic tick (sim_tick.c) ----
 * The step loop times step ends, checkpoint writes, restarts and the
 * serial data path exactly inside a tick; what the tick rounds is a wait
 * for data (a step starts at a tick), a failure, an event and a sample
 * (each at the tick after its time). So a tick far below the time of a
 * batch leaves the results as they are, and the automatic tick is the
 * coarsest one, of 1, 2 or 5 times a power of ten from 1 ms
 * (SIM_AUTO_TICK_MIN_S, the step loop's default) to 50 s, that:
 *  - is at most a tenth of the slowest stage's time per batch (the step,
 *    or reading, preprocessing or copying a batch), and no longer than a
 *    restart when failures can happen;
 *  - moves few failures across a step end: a failure comes at the tick
 *    after its time, and one that moves past the end of a step keeps that
 *    step (the runs then draw their jitter apart): the failures expected
 *    in the run (one when its length is not known) times tick / step stay
 *    below 5%, and their rounding within the tolerance of the run's time;
 *  - divides the run's length, the sample interval and every event's time;
 *  - and passes a check: a probe of the run's first 50 slowest-stage times
 *    (at most the run) at the tick and at a tenth of it gives the same
 *    counters within SIM_AUTO_TICK_TOLERANCE (sim_counters_agree); a tick
 *    that fails it gives way to the next finer one. */
#define SIM_AUTO_TICK_TOLERANCE 1e-4
#define SIM_AUTO_TICK_MIN_S     0.001
#define SIM_AUTO_TICK_MAX_S     50.0
struct sim_tick_choice {
    double tick_s;        /* the tick chosen */
    double bound_s;       /* the coarsest the setup allows, before alignment and check */
    const char *bound_by; /* what sets the bound: "a step", "a restart", "the failures"... */
    double probe_s;       /* simulated time the check ran; 0: none (the finest tick) */
    double probe_tick_s;  /* the finer tick it compared with */
    int refused;          /* coarser ticks that failed the check */
};
/* Chooses the tick for a run of duration_s (0: not known, as for a Lua
 * sim: no alignment to it, one failure in doubt) of setup s with options o
 * (its tick_s is not read) and the events ev. False, with the message,
 * when the setup cannot run (sim_new's). */
bool sim_auto_tick(const struct setup *s, const struct catalog *cat, const struct sim_options *o,
                   double duration_s, const struct sim_event *ev, size_t n_ev,
                   struct sim_tick_choice *out, char *err, size_t err_len);
/* Whether two runs of the same length agree within tol: counts and
 * amounts (kept steps, failures, checkpoints, tokens, energy, hottest
 * rack) relative to the larger, times (starved, lost, throttled,
 * checkpointing) relative to the run's time; completed steps as well, or
 * within one a failure (the step a failure ends is rolled back, whether it
 * completed first or not). */
bool sim_counters_agree(const struct sim_counters *a, const struct sim_counters *b, double tol);

/* Whether the sim can run a setup: it resolves, fits in device memory and
 * can be cooled at idle (a setup whose failures leave no progress still
 * runs: showing that is the point). Same message as sim_new otherwise. */
bool sim_check_setup(const struct setup *s, const struct catalog *cat, char *err, size_t err_len);

/* Load a YAML list of timed events ("- {at: 2h, event: cooling_loss, value:
 * 0.5}") strictly: errors are "file:line:col: message". Set events are
 * checked against the setup's field table. On success *out holds *n events,
 * sorted by time, ties in file order (free() it; NULL when there are none). */
bool sim_events_load_file(const char *path, const struct setup *s, struct sim_event **out,
                          size_t *n, char *err, size_t err_len);
bool sim_events_load_string(const char *name, const char *text, const struct setup *s,
                            struct sim_event **out, size_t *n, char *err, size_t err_len);

#endif
