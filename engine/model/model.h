/* model: the analytic model. One setup in, one report out, in microseconds.
 *
 * model_eval() breaks a training step into its parts (data read,
 * preprocessing, host-to-device copy, forward/backward compute,
 * recomputation, tensor-parallel communication, pipeline bubble, exposed
 * data-parallel gradient sync, optimizer), computes memory per device,
 * power and cooling, cost, reliability, and names the bottleneck.
 * It allocates nothing and never fails on a resolved setup: a setup that
 * cannot run (does not fit, cannot be cooled) is reported with
 * `runnable = false` and a reason. Formulas and sources: docs/MODEL.md. */
#ifndef MLVIZ_MODEL_H
#define MLVIZ_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "collective.h"
#include "setup.h"
#include "stages.h"

/* Exposed (critical-path) seconds per step; they add up to step_time_s. */
struct step_breakdown {
    double data_read;
    double preprocess;
    double host_to_device;
    double compute;
    double recompute;
    double tp_comm;
    double cp_comm; /* exposed ring-attention K/V exchange */
    double ep_comm; /* exposed expert all-to-all (dispatch + combine) */
    double pp_bubble;
    double pp_p2p;
    double dp_comm_exposed;
    double optimizer;
    double straggler; /* the synchronous step waits for the slowest of N devices */
    double overhead;  /* fixed per-step software cost */
};

struct memory_report {
    double params_gb;
    double grads_gb;
    double optimizer_gb;
    double activations_gb;
    double logits_gb;
    double reserved_gb; /* runtime workspaces + fragmentation */
    double per_device_gb;
    double capacity_gb;
    double experts_gb;      /* of params + grads + optimizer: the routed experts' share */
    double host_offload_gb; /* y2026: activations offloaded to host memory (not counted above) */
    bool fits;
};

enum { SUGGESTION_MAX = 6 };
struct suggestion {
    char text[160];       /* "ZeRO stage 3" */
    char changes[192];    /* "path=value path=value", applied in order */
    double saves_gb;      /* per device */
    double per_device_gb; /* after the change */
    bool fits;
};

struct power_report {
    double device_w; /* one device at the modelled utilization */
    double node_w;   /* devices + CPUs + NICs + rest of the node */
    double it_kw;
    double facility_kw;
    double pue;
    double per_rack_kw;
    double rack_cooling_limit_kw;
    double cooling_headroom; /* 1 - rack/limit (negative when over) */
    bool throttled;
    double throttle_factor; /* compute speed kept under throttling (1 = none) */
    double rack_temp_c;     /* steady-state device temperature */
    double full_rack_kw;    /* heat per rack the devices would make at full clocks */
    double energy_per_step_j;
    double energy_per_token_j;
    double limit_w;     /* y2026: the device's power cap (the TDP when not set) */
    double clock_share; /* sustained GEMM clock under it, share of the boost clock */
    double clock_mhz;   /* that clock (0 when the catalog has no boost clock) */
    /* The device's lowest sustained clock, share of the boost clock, and
     * whether the power cap or the cooling would hold the clocks below it
     * (then the setup cannot run; docs/MODEL.md, section 6). */
    double min_clock_share;
    bool below_min_clock;
};

struct cost_report {
    double usd_per_hour;
    double days_to_train;
    double energy_mwh;
    double usd_total;
    double usd_energy;
    double usd_devices;
};

struct reliability_report {
    double interruptions_per_day;
    double mtbf_h; /* of the whole job */
    double checkpoint_gb;
    double checkpoint_write_s;
    double checkpoint_interval_min;
    double lost_fraction; /* re-done work + restarts + checkpoint stalls */
    double goodput;       /* useful share of wall time */
};

/* Rates of each stage of the data path and the device step (seconds per
 * global step); the step loop takes its server capacities from these. */
struct stage_times {
    double read_s;       /* storage -> host for one global batch */
    double preprocess_s; /* loader workers for one global batch */
    double h2d_s;        /* host -> device copies for one global batch */
    double device_s;     /* device step without data stalls */
    double forward_s;    /* per step, all micro-batches */
    double backward_s;
    double dp_comm_s; /* full gradient sync time before overlap */
    double tp_comm_s;
    double storage_bw_gbs;  /* shared-tier (or local) bandwidth available */
    double need_bw_gbs;     /* read bandwidth the devices consume */
    double cpu_cores_busy;  /* cores busy with loader work per node */
    double cpu_cores_total; /* cores per node */
    double ep_comm_s;       /* expert all-to-alls of a step before overlap */
};

struct model_report {
    bool runnable;
    char why_not[256]; /* when !runnable */
    double step_time_s;
    double device_step_s; /* step time if data were free */
    double tokens_per_s;
    double samples_per_s;
    double flops_per_step;       /* executed, incl. recomputation */
    double model_flops_per_step; /* forward + backward only */
    double tflops_per_device;    /* executed FLOPs per device per second / 1e12 */
    double mfu;
    double hfu;                      /* executed FLOPs (tflops_per_device) over step x peak */
    double hfu_model_convention;     /* i20: MFU's convention plus recomputation: mfu <= it */
    char flops_convention[96];       /* i20: the convention MFU counts FLOPs in */
    double peak_tflops;              /* dense peak per device at the chosen precision */
    double achieved_fraction;        /* compute-phase FLOP/s over peak (roofline result) */
    double starvation;               /* share of the step the devices wait for data */
    double utilization[STAGE_COUNT]; /* busy share of each stage, 0..1 */
    int bottleneck;                  /* enum stage_id */
    int next_bottleneck;
    char bottleneck_reason[256];
    char next_reason[256];
    struct step_breakdown breakdown;
    struct stage_times stages;
    struct memory_report memory;
    struct suggestion suggestions[SUGGESTION_MAX];
    int n_suggestions;
    struct power_report power;
    struct cost_report cost;
    struct reliability_report reliability;
    /* Static sanity checks from the seeds. */
    bool host_ram_ok;   /* host RAM >= device memory per node */
    bool pcie_lanes_ok; /* lanes enough for devices and NICs */
    double pcie_lanes_needed;
    double pcie_lanes_have;
    double params;        /* total model parameters */
    double params_active; /* parameters each token uses (MoE: top_k experts) */
    int devices, nodes, racks, dp, tp, pp, cp, ep, micro_batches;
    /* The resolved layout, echoed. */
    int vp, zero_stage;
    char recompute[16];
    char precision[16];
    char software[64];
};

/* The longest time the model reports, about 32 million years. A capacity
 * so small (zero, denormal) that a part of the step would take longer is
 * timed at this ceiling, and the setup is reported as not runnable. */
#define MODEL_TIME_CEILING_S 1e15

/* The lowest sustained clock, as a share of the boost clock, of a device
 * whose catalog entry publishes none (min_clock_mhz 0): a round bound below
 * every published floor (Hopper's lowest DVFS state is 345 of 1,980 MHz,
 * 0.174), so it refuses no setup that a published floor would let run
 * (docs/MODEL.md, section 6). Below its floor a device cannot run. */
#define MODEL_MIN_CLOCK_SHARE_UNPUBLISHED 0.10

/* Evaluate a resolved setup. Never allocates; always fills every field with
 * finite numbers. */
void model_eval(const struct setup *s, const struct resolved *r, struct model_report *out);
/* The same numbers (and flags, bottleneck stages, runnable) without the
 * verdict's sentences: no bottleneck_reason, next_reason, suggestions, and
 * no why_not for a setup that does not fit. For the planner and loops that
 * read figures only. */
void model_eval_numbers(const struct setup *s, const struct resolved *r, struct model_report *out);

/* The busy time of a step's stages, one definition for the model's
 * utilization and the step loop's live one: the devices computing
 * (compute, recomputation, optimizer), and the links carrying traffic
 * (tensor, context, expert and pipeline exchanges, and the data-parallel
 * sync whether hidden behind compute or not). */
double model_devices_busy_s(const struct model_report *r);
double model_links_busy_s(const struct model_report *r);

/* Coefficient of variation of one device's compute speed. Sinha et al.,
 * "Not All GPUs Are Created Equal" (SC 2022, arXiv 2208.11035), measured
 * over 90% of the GPUs of five clusters (Summit's 27,648 V100 among them)
 * an 8% average performance variation between nominally identical GPUs
 * running the same kernels, outliers (up to 1.5x slower) reported apart.
 * Read as the box plot's whisker span, +-2.7 sigma of a normal (Tukey's
 * 1.5 IQR fences), that is sigma = 0.08 / 5.4 = 1.5%. A synchronous step
 * waits for the slowest of its N devices: cv x E[max of N] (2.1% on 8
 * devices, 5.7% on 16,384; docs/MODEL.md). The analytic model charges
 * that; the step loop draws it. */
#define MODEL_COMPUTE_JITTER_CV 0.015

/* Expected maximum of n independent standard normals (Blom's
 * approximation; exact for n = 1 and 2), and the standard normal quantile
 * with upper-tail probability q (the step loop draws with it). */
double model_expected_max_normal(double n);
double model_normal_upper_quantile(double q);

/* Settles the setup's automatic values that its checks need as numbers:
 * training.tensor_parallel "auto" (stored as 0) becomes the smallest power
 * of two up to the scale-up domain at which the memory per device fits
 * (engine/model/model_auto.c). False, with the reason, when none does (the
 * field stays auto). Callers run it after the last change and before
 * setup_resolve: the CLI after --set, the Lua host before it evaluates. */
struct catalog;
bool model_settle_auto(struct setup *s, const struct catalog *cat, char *err, size_t err_len);

/* Memory per device alone (the same figures as model_eval's `memory`), for
 * callers that reject setups that do not fit before a full evaluation. */
void model_memory(const struct setup *s, const struct resolved *r, struct memory_report *out);

/* The pipeline split of one layout: the stages whose memory the model
 * weighs (the first, the second, the first one of whole MoE layers, the
 * last two: the device's memory is the most loaded one's), each with its
 * layers and parameters per device. It depends on the model, the
 * pipeline, tensor and expert sizes and the uneven-split fields, not on
 * recomputation, ZeRO, sequence parallelism, flash attention or
 * gradient-sync overlap, so a caller that evaluates many setups of one
 * layout (the planner: one unit) computes it once with model_split_of and
 * hands it to model_memory_split and model_eval_numbers_split, which give
 * what model_memory and model_eval_numbers give. */
enum { MODEL_SPLIT_STAGES = 5 };
struct model_split_stage {
    int index, first_layer, layers, moe_layers;
    bool first, last;
    double dense, experts; /* parameters per device (after TP and EP) */
    double embedding;      /* of dense: the embedding and output layer */
};
struct model_split {
    int n;
    struct model_split_stage stage[MODEL_SPLIT_STAGES];
};
void model_split_of(const struct setup *s, const struct resolved *r, struct model_split *out);
void model_memory_split(const struct setup *s, const struct resolved *r,
                        const struct model_split *split, struct memory_report *out);
void model_eval_numbers_split(const struct setup *s, const struct resolved *r,
                              const struct model_split *split, struct model_report *out);

/* Parameter count of the model in the setup. */
double model_params(const struct setup *s);
/* Parameters each token uses (mixture of experts: top_k of the routed
 * experts); model_params for a dense model. */
double model_params_active(const struct setup *s);

/* ---- the pipeline, stage by stage (model_pipeline.c) ----
 * What the step-schedule simulator (engine/sched) runs: the per-micro-batch
 * costs of every pipeline stage, computed by the same code as the closed
 * form, so that both see the same costs. */
struct model_stage_cost {
    int layers;
    double fwd_s;   /* one micro-batch's forward, exposed TP/CP/EP, DP/ZeRO and slowdown included */
    double bwd_s;   /* its backward, recomputation and the same included */
    double wgrad_s; /* of bwd_s, the weight-gradient GEMMs (a zero-bubble W pass) */
    double recompute_s;                  /* of bwd_s, the recomputed forward */
    double compute_fwd_s, compute_bwd_s; /* the passes' compute alone (bwd: no recompute) */
    double edge_fwd_s, edge_bwd_s;       /* of the passes, the embedding (first stage) or the output
                                          * layer and loss (last): the first or last model chunk's */
    double tp_s, cp_s, ep_s; /* exposed per micro-batch, both passes (inside fwd_s + bwd_s) */
    double ep_total_s;       /* the expert all-to-alls per micro-batch before overlap */
    double dp_mb_s;          /* exposed DP/ZeRO traffic per micro-batch (inside fwd_s + bwd_s) */
    double slow_mb_s; /* compute slowed beside hidden communication, per micro-batch (inside) */
    double offload_wait_s;   /* of compute_fwd_s + compute_bwd_s, waits for offloaded activations */
    double offload_filled_s; /* of offload_wait_s, what slowed compute fills (not in slow_mb_s) */
    double dp_tail_s;   /* after the stage's last backward: exposed DP/ZeRO traffic and slowdown */
    double slow_tail_s; /* of dp_tail_s, the slowdown beside the step's hidden DP traffic (less
                         * than 0 when the last micro-batch hides less than the others) */
    double dp_total_s;  /* all DP/ZeRO traffic of the step, before overlap */
};

struct model_pipeline {
    int pp, vp, m;
    double send_s;          /* one activation (or gradient) transfer between stages */
    double send_blocking_s; /* of it, what the sending stream waits (the rest overlaps) */
    double optimizer_s, straggler_s, overhead_s; /* after the pipeline, as the closed form */
    double closed_step_s; /* the closed form's device step, bubble and sends */
    double closed_bubble_s;
    double closed_p2p_s;
};

/* Micro-batches (of the stage's layers) stage `stage` of a p-stage pipeline
 * with v chunks per stage and m micro-batches holds at its peak; the
 * schedule simulator reproduces it (model_memory.c). */
double model_inflight(int64_t p, int v, int64_t m, int stage);

/* Fills `out` and the costs of stages [0, min(pp, max)) of an evaluated
 * setup (`o`: its report, for the throttled clocks). Returns pp. */
int model_pipeline_costs(const struct setup *s, const struct resolved *r,
                         const struct model_report *o, struct model_pipeline *out,
                         struct model_stage_cost *stages, int max);

/* y2026: the paths the expert dispatch and combine take, as the model times
 * them (model_deepep.c, model_parallel.c): how many of the EP ranks share
 * one scale-up domain (an NVL72 rack, an 8-GPU node) and the per-device
 * bandwidth inside it and across domains. For screens and explanations. */
struct ep_dispatch_paths {
    bool deepep;         /* training.moe_dispatcher deepep */
    int ranks;           /* expert-parallel size */
    int ranks_in_domain; /* of them on one scale-up fabric */
    int domains;         /* scale-up domains the group spans */
    double inside_gbs;   /* per device inside a domain */
    double across_gbs;   /* per device between domains (0 when inside one) */
};
void model_ep_dispatch_paths(const struct setup *s, const struct resolved *r,
                             struct ep_dispatch_paths *out);

#endif
