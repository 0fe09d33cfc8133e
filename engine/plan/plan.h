/* plan: the search over layouts and hardware behind `mlviz plan`.
 *
 * A search space is a list of dimensions, each a setup field (from the field
 * table) with a list of values. Three levels, outermost first:
 *   hardware  fields the user varies with --vary (accelerator, nodes, ...);
 *   layout    parallel sizes and micro-batch: they decide whether a setup is
 *             valid (setup_resolve) and are searched by default;
 *   switch    recomputation, ZeRO stage, sequence parallel, flash attention,
 *             overlap: free choices that never make a setup invalid.
 * Candidates are numbered in mixed radix over the dimensions in that order;
 * the number breaks ties, so the answer never depends on the thread count or
 * on how the space was split into shards. A "unit" is one combination of the
 * hardware and layout dimensions with all its switch combinations.
 *
 * Pruning (docs/PLAN.md says why each cut is safe): a unit that
 * setup_resolve rejects, or whose most memory-frugal switch combination does
 * not fit, is cut whole; a candidate that does not fit is cut before its full
 * evaluation; a unit whose devices break --max devices is cut whole; without
 * the front, a unit whose fastest possible step (plan_bound.c) cannot beat
 * the N-th best or the base setup is cut whole.
 * plan_run allocates only for the Pareto front; model evaluation never does. */
#ifndef MLVIZ_PLAN_H
#define MLVIZ_PLAN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model.h"

/* Figures every candidate carries: the objective, constraints and output
 * columns all name them. */
enum plan_figure {
    PLAN_TOKENS_PER_S,
    PLAN_DAYS,
    PLAN_USD_TOTAL,
    PLAN_ENERGY_MWH,
    PLAN_MFU,
    PLAN_USD_PER_HOUR,
    PLAN_FACILITY_KW,
    PLAN_MEMORY_GB,
    PLAN_DEVICES,
    PLAN_STEP_TIME_S,
    PLAN_FIGURE_COUNT
};
extern const char *const plan_figure_names[];       /* "tokens_per_s", "days", ... */
extern const char *const plan_figure_report_keys[]; /* "tokens_per_s", "cost.days_to_train" */
/* Whether more is better (tokens_per_s, mfu). */
bool plan_figure_maximized(int figure);
/* Index by name, or -1. */
int plan_figure_find(const char *name);

enum plan_level { PLAN_HARDWARE, PLAN_LAYOUT, PLAN_SWITCH };
enum { PLAN_DIMS_MAX = 24, PLAN_VALUES_MAX = 64, PLAN_TOP_MAX = 1000, PLAN_ARG_LEN = 1024 };
enum { PLAN_ONE_FEWER = -1 };

struct plan_dim {
    const struct field *field;
    int level; /* enum plan_level */
    int count;
    double num[PLAN_VALUES_MAX];               /* numbers, bools, enum indices */
    char text[PLAN_VALUES_MAX][FIELD_STR_LEN]; /* catalog ids and text */
    int frugal;          /* index of the value that needs the least memory, -1 unknown */
    bool splits_devices; /* a parallel size: the product of these divides the devices */
    /* first/last_stage_layers: the value PLAN_ONE_FEWER ("even-1" in
     * --vary) stands for one layer fewer than the stage's even share. */
    bool one_fewer;
};

struct plan_spec {
    int objective; /* enum plan_figure */
    int top;       /* 1..PLAN_TOP_MAX */
    bool has_max[PLAN_FIGURE_COUNT];
    double max[PLAN_FIGURE_COUNT];
    int threads;                  /* 1..64 */
    int shard_index, shard_count; /* this run does units u with u % count == index */
    bool exhaustive;              /* reference mode: resolve and evaluate every candidate */
    /* Rank by the closed form alone: plan_run does not re-score (a script
     * comparing the plan with its own sweep of model evaluations). */
    bool closed_form;
    /* The Pareto front is wanted (the default). When false the front is not
     * kept and the step-time bound may cut units (docs/PLAN.md, Pruning). */
    bool front;
    /* Seconds between two calls of plan_run's report callback (0: a tenth
     * of a second). A caller that charges the work as it goes asks for
     * more calls, so it stops the search sooner. */
    double report_s;
    /* The option strings that define the space, replayed by --merge. */
    char vary[PLAN_DIMS_MAX][PLAN_ARG_LEN];
    int n_vary;
    char maxes[PLAN_FIGURE_COUNT][PLAN_ARG_LEN];
    int n_maxes;
};

/* Defaults: objective tokens_per_s, top 10, one thread, one shard. */
void plan_spec_init(struct plan_spec *spec);
/* "--vary PATH=a,b,c" or "PATH=lo..hi" (doubling) or "PATH=lo..hi+step". */
bool plan_spec_vary(struct plan_spec *spec, const char *arg, char *err, size_t err_len);
/* "--max FIGURE=VALUE". */
bool plan_spec_max(struct plan_spec *spec, const char *arg, char *err, size_t err_len);
bool plan_spec_objective(struct plan_spec *spec, const char *name, char *err, size_t err_len);

/* The space built from a base setup and a spec. */
struct plan_space {
    struct setup base;
    struct plan_dim dims[PLAN_DIMS_MAX];
    int n_dims;
    int n_switch;      /* the last n_switch dims are switches */
    uint64_t units;    /* combinations of hardware and layout dims */
    uint64_t per_unit; /* switch combinations */
    uint64_t candidates;
};

/* Builds the space (allocates nothing; `space` is large: keep it off small
 * stacks). Messages name the option ("--vary training.foo: ..."). */
bool plan_space_build(struct plan_space *space, const struct setup *base,
                      const struct plan_spec *spec, const struct catalog *cat, char *err,
                      size_t err_len);
/* The setup of candidate `index`. */
void plan_space_setup(const struct plan_space *space, uint64_t index, struct setup *out);
/* The dimensions (indices into space->dims) whose field differs in `s`
 * from the base, in dimension order; returns how many. */
int plan_space_changed(const struct plan_space *space, const struct setup *s,
                       int dims[PLAN_DIMS_MAX]);
/* "path=value path=value": the fields candidate `index` changes from the base. */
void plan_space_changes(const struct plan_space *space, uint64_t index, char *buf, size_t len);

struct plan_entry {
    uint64_t index;
    double fig[PLAN_FIGURE_COUNT];
    /* After plan_rescore: the step-schedule simulator's step (data stalls
     * included; 0 when the schedule could not be simulated) and the closed
     * form's, which the search ranked by. */
    double sim_step_s, closed_step_s;
};

struct plan_counts {
    uint64_t candidates;       /* in this run's share of the space */
    uint64_t invalid;          /* cut because setup_resolve rejects the unit */
    uint64_t memory_cut;       /* cut because they cannot fit (unit bound or exact check) */
    uint64_t constraint_cut;   /* broke a --max (before or after evaluation) */
    uint64_t evaluated;        /* full model evaluations */
    uint64_t runnable;         /* evaluated, runnable and within every --max */
    uint64_t better_than_base; /* runnable candidates strictly better than the base setup */
    uint64_t bound_cut; /* cut whole: their fastest possible step is too slow (plan_bound.c) */
};

struct plan_result {
    struct plan_entry top[PLAN_TOP_MAX];
    int n_top;
    struct plan_entry *front; /* Pareto front over days, usd_total, energy_mwh (malloc) */
    size_t n_front, cap_front;
    struct plan_counts counts;
    bool base_runnable;
    struct plan_entry base; /* the base setup's figures (index unused) */
    bool cancelled;
    bool rescored;    /* plan_rescore ran: top and base follow the simulator */
    int rescore_rows; /* rows it simulated (the K of docs/PLAN.md, "Re-scoring") */
    double rescore_s; /* wall time it took (for make bench; never printed on stdout) */
};

/* Progress shared with other threads while plan_run works: the workers,
 * the calling thread and a screen that shows it all touch these fields,
 * so each is a C11 atomic; read them with plan_progress_read. Before the
 * workers start, a pruned search ranks every unit (the candidates that
 * share their hardware and layout) by its best possible figures
 * (`preparing` 1) and searches the most promising units first (2), in the
 * calling thread; prep_done of prep_total counts the units of that step. */
struct plan_progress {
    _Atomic uint64_t done;  /* candidates decided */
    _Atomic uint64_t total; /* candidates to decide */
    _Atomic int cancel;     /* non-zero: stop early (also while preparing) */
    _Atomic int preparing;
    _Atomic uint64_t prep_done, prep_total;
    /* The work so far, for a caller that charges it as it goes (a script's
     * budget): candidates evaluated in full (the preparation's included)
     * and units ranked by their bound while preparing. */
    _Atomic uint64_t evaluated, ranked;
};

/* One reading of a plan_progress (each field read atomically). */
struct plan_progress_now {
    uint64_t done, total, prep_done, prep_total, evaluated, ranked;
    int preparing;
};

/* Zero every field (before handing the record to plan_run; not while a
 * search uses it). */
void plan_progress_init(struct plan_progress *p);
/* Safe from any thread while a search runs. */
void plan_progress_read(const struct plan_progress *p, struct plan_progress_now *now);
void plan_progress_cancel(struct plan_progress *p);

/* Runs the search with spec->threads threads. `progress` may be NULL; when
 * `report` is given it is called from the calling thread about ten times a
 * second, while preparing too. Returns false on allocation failure or an
 * invalid base setup. */
bool plan_run(const struct plan_space *space, const struct catalog *cat,
              const struct plan_spec *spec, struct plan_result *out, struct plan_progress *progress,
              void (*report)(void *ctx, const struct plan_progress *p), void *ctx, char *err,
              size_t err_len);
void plan_result_free(struct plan_result *r);

/* Orders entries by the objective (best first), ties by index. */
int plan_compare(const struct plan_spec *spec, const struct plan_entry *a,
                 const struct plan_entry *b);

/* Shards: a partial result as text (the setup and the options that define
 * the space, then the kept candidate numbers), and the merge of a complete
 * set of them. plan_merge re-evaluates the kept candidates, so a merged
 * answer has exactly the figures of a single run. Errors are "file:line:". */
bool plan_write_partial(FILE *out, const struct plan_space *space, const struct plan_spec *spec,
                        const struct plan_result *r);
/* Reads one partial file into spec (its options), base setup YAML text
 * (malloc'd, caller frees) and entries appended to r. */
struct plan_partial {
    struct plan_spec spec;
    char *setup_yaml;
    int shard_index, shard_count;
    struct plan_counts counts;
    uint64_t *top, *front;
    size_t n_top, n_front;
};
bool plan_read_partial(const char *path, struct plan_partial *p, char *err, size_t err_len);
/* The same from text in memory (len bytes, text[len] == '\0'; the lines
 * are cut in place); `name` is used in messages. */
bool plan_parse_partial(const char *name, char *text, size_t len, struct plan_partial *p, char *err,
                        size_t err_len);
void plan_partial_free(struct plan_partial *p);
/* Figures of one setup (resolve + evaluate); false when it cannot run. */
bool plan_eval_setup(const struct setup *s, const struct catalog *cat, struct plan_entry *e);
/* Figures of candidate `index` (resolve + evaluate); false when it is not
 * runnable. */
bool plan_eval_candidate(const struct plan_space *space, const struct catalog *cat, uint64_t index,
                         struct plan_entry *e);
/* Re-scoring (docs/PLAN.md): the closed form prunes the space and keeps
 * its best K candidates; the step-schedule simulator (engine/sched) times
 * those K and the base setup, and the top rows are ranked by the simulated
 * figures. K = max(PLAN_RESCORE_MIN, PLAN_RESCORE_FACTOR x top), at most
 * PLAN_TOP_MAX. */
enum { PLAN_RESCORE_MIN = 64, PLAN_RESCORE_FACTOR = 4 };
int plan_rescore_rows(const struct plan_spec *spec);
/* Simulates every kept row and the base, scales the figures that follow
 * the step (tokens/s, MFU, days, USD, MWh; power and memory stay the
 * closed form's), drops rows that now break a --max, re-ranks and keeps
 * spec->top rows; the base's rank counts the re-scored rows by their
 * simulated figures. plan_run calls it for a whole search (not a shard);
 * a merge calls it once the shards are combined. Deterministic. */
void plan_rescore(const struct plan_space *sp, const struct catalog *cat,
                  const struct plan_spec *spec, struct plan_result *r);
/* The figures of a report, in enum plan_figure order (the closed form's). */
void plan_figures_of(const struct model_report *o, double fig[PLAN_FIGURE_COUNT]);
/* The figures of entry `closed` (the closed form's) with its step replaced
 * by `step_s`: what plan_rescore prints for a simulated step. */
void plan_entry_at_step(const struct plan_entry *closed, double step_s, struct plan_entry *out);

/* Why a candidate beats the base setup: both steps part by part (seconds,
 * the busiest stage, from the simulated schedule where it runs), then the
 * step and the memory per device. */
enum { PLAN_WHY_STEP = 12, PLAN_WHY_MEMORY = 13, PLAN_WHY_PARTS = 14 };
extern const char *const plan_why_names[PLAN_WHY_PARTS]; /* "compute", ..., "memory_gb" */
struct plan_why {
    bool ok, simulated;
    double base[PLAN_WHY_PARTS], best[PLAN_WHY_PARTS];
};
bool plan_why(const struct plan_space *sp, const struct catalog *cat, uint64_t index,
              struct plan_why *out);

/* Adds an entry to a result's top list and front (used by merge). */
bool plan_result_add(struct plan_result *r, const struct plan_spec *spec,
                     const struct plan_entry *e);

#endif
