/* sched: the step-schedule simulator, the reference for the closed form's
 * pipeline terms. A discrete-event simulation of one training step: for
 * every pipeline stage, model chunk and micro-batch, the forward and the
 * backward (recomputation inside it; a zero-bubble schedule splits off the
 * weight gradients), each on its stage's compute stream in the order the
 * schedule issues them, and the sends between stages on their own stream
 * (only their blocking part holds the sender). The TP, CP, EP and DP/ZeRO
 * collectives overlap compute as the model's overlap rules allow (their
 * exposed parts lengthen the passes they belong to; the data-parallel
 * traffic left after the last backward ends each stage). Costs come from
 * model_pipeline_costs, the same code as the closed form. Formulas and
 * sources: docs/MODEL.md, "The step schedule". */
#ifndef MLVIZ_SCHEDULE_H
#define MLVIZ_SCHEDULE_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"
#include "setup.h"

enum sched_kind {
    SCHED_AUTO,        /* what the setup runs: 1F1B, or interleaved when virtual_stages > 1 */
    SCHED_GPIPE,       /* all forwards, then all backwards (Huang et al. 2019) */
    SCHED_1F1B,        /* PipeDream-Flush / Megatron 1F1B (Narayanan et al. 2021) */
    SCHED_INTERLEAVED, /* Megatron-Core interleaved 1F1B with v model chunks */
    SCHED_ZB_H1,       /* zero bubble ZB-H1 (Qi et al. 2023) */
    SCHED_KIND_COUNT
};

/* "auto", "gpipe", "1f1b", "interleaved", "zb-h1"; the kind of a name, or -1. */
const char *sched_kind_name(int kind);
int sched_kind_parse(const char *name);

enum sched_op_kind { SCHED_OP_FORWARD, SCHED_OP_BACKWARD, SCHED_OP_WGRAD };

/* One pass of one chunk of one micro-batch on one stage (the timeline). */
struct sched_op {
    int stage, chunk, micro_batch, kind;
    double start_s, end_s;
};

struct sched_stage {
    double busy_s;             /* passes on the compute stream, exposed collectives included */
    double send_s;             /* the compute stream held by sends */
    double idle_s;             /* waiting within the pipeline (its bubble) */
    double end_s;              /* its last pass (and send) ends */
    double dp_tail_s;          /* exposed data-parallel traffic after that */
    int peak_chunks;           /* most chunk activations held at once */
    double peak_micro_batches; /* the same in micro-batches of the stage's layers */
};

struct sched_result {
    int kind, pp, vp, m;
    double step_s;     /* the device step: pipeline, DP tail, optimizer, straggler, overhead */
    double pipeline_s; /* first pass to the last pass (and send) of any stage */
    int critical;      /* the busiest stage: the first that computes longest */
    /* The step of the busiest stage, exposed seconds; they add up to step_s. */
    double compute_s, recompute_s, tp_s, cp_s, ep_s, p2p_s, bubble_s, dp_s;
    double optimizer_s, straggler_s, overhead_s;
    struct sched_stage *stages; /* pp of them */
    struct sched_op *ops;       /* the timeline, when asked for */
    size_t n_ops;
};

enum sched_status {
    SCHED_OK = 0,
    SCHED_TOO_BIG = 1, /* stages x chunks x micro-batches above SCHED_MAX_SLOTS */
    SCHED_NO_MEMORY = 2,
    SCHED_BAD_INPUT = 3,
    SCHED_DEADLOCK = 4 /* the order waits on itself (interleaving with m not a multiple of p,
                        * which Megatron-Core refuses) */
};

/* Most (stage, chunk, micro-batch) slots one simulation takes on. */
#define SCHED_MAX_SLOTS (1 << 20)

/* Simulates one step from its costs (model_pipeline_costs). `kind` SCHED_AUTO
 * runs the setup's own schedule. With `timeline`, out->ops holds every pass
 * in the order each stage runs them. Free the result with sched_free. */
int sched_run(const struct model_pipeline *pipe, const struct model_stage_cost *stages, int kind,
              bool timeline, struct sched_result *out);

/* The same from an evaluated setup (`o`: its model_eval report). */
int sched_simulate(const struct setup *s, const struct resolved *r, const struct model_report *o,
                   int kind, bool timeline, struct sched_result *out);

void sched_free(struct sched_result *out);

/* The pipeline bubble of an evaluated setup, in seconds and as a share of
 * its step: the one figure `mlviz eval`, the pipeline picture and the step
 * bar show. It is the closed form's (tested against this simulator), and it
 * never includes the straggler wait. */
double sched_bubble_s(const struct model_report *o);
double sched_bubble_share(const struct model_report *o);

#endif
