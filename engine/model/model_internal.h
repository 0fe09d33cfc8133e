/* model_internal: what the files of the analytic model share (model.c, the
 * orchestrator, and model_compute, model_memory, model_network, model_data,
 * model_facility, model_verdict, model_parallel). Not part of the engine's
 * public face: only model*.c include it. */
#ifndef MLVIZ_MODEL_INTERNAL_H
#define MLVIZ_MODEL_INTERNAL_H

#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "collective.h"
#include "model.h"
#include "setup.h"

/* Everything the parts of the model share, derived once per evaluation. */
struct ctx {
    const struct setup *s;
    const struct resolved *r;
    /* Counts in 64 bits: devices x micro-batch overflows an int within
     * the accepted ranges. All at least 1. */
    int64_t devices, per_node, nodes, tp, pp, dp, mb, m;
    int64_t cp, ep;           /* context- and expert-parallel sizes */
    int64_t domain;           /* devices on one scale-up fabric */
    double peak_flops;        /* dense GEMM peak, chosen precision, one device */
    double vector_peak_flops; /* the 16-bit path (attention in FP8 recipes) */
    double gemm_eff;
    double mem_bw; /* achievable bytes/s */
    double kernel_s;
    double act_bytes;     /* bytes per activation element */
    double gemm_in_bytes; /* bytes per GEMM input element (1 in FP8, 0.5 in FP4) */
    double w_bytes;       /* bytes per weight the GEMMs read */
    double grad_bytes;    /* bytes per gradient as accumulated and reduced */
    double opt_bytes;     /* optimizer bytes per parameter (incl. fp32 master) */
    double throttle;      /* clock share kept (cooling x power limit) */
    double clock_share;   /* y2026: sustained clock under the power limit (model_power.c) */
    int64_t etp;          /* y2026: expert tensor-parallel size */
    bool lora;            /* y2026: LoRA fine-tuning, base weights frozen */
    /* The device's lowest sustained clock, a share of the boost clock, and
     * whether the power limit would hold the clock below it (model_power.c). */
    double min_clock_share;
    bool power_floored;
    /* Per-layer figures computed once per evaluation (model_parallel.c). */
    struct layer_params_cache {
        double dense_dense, moe_dense, moe_experts;
    } lp;
    double act_dense, act_moe, act_full_dense, act_full_moe; /* bytes per layer, micro-batch */
    const struct model_split *split; /* the layout's split, given by the caller; or NULL */
};

/* ---- small helpers every part uses ---- */

enum { GB = 1000000000 };

#define SECONDS_PER_DAY  86400.0
#define SECONDS_PER_HOUR 3600.0

static inline double maxd(double a, double b)
{
    return a > b ? a : b;
}
static inline double mind(double a, double b)
{
    return a < b ? a : b;
}

/* Time to move or compute `amount` at `rate` per second: 0 for nothing to
 * do, the ceiling when the rate is zero or too small to give a finite
 * time. Every time in the model divides through here. */
static inline double time_for(double amount, double rate)
{
    if (!(amount > 0))
        return 0.0;
    double t = amount / rate;
    return rate > 0 && t < MODEL_TIME_CEILING_S ? t : MODEL_TIME_CEILING_S;
}

/* A rate or share a / b that is 0 when b is 0 (nothing happened in no time)
 * and never non-finite. */
static inline double ratio(double a, double b)
{
    double q = a / b;
    return b != 0 && isfinite(q) ? q : 0.0;
}

static inline int64_t at_least_one(int64_t n)
{
    return n < 1 ? 1 : n;
}

/* An int field of the report, saturated (the counts are 64-bit inside). */
static inline int report_int(int64_t n)
{
    return n > INT_MAX ? INT_MAX : n < INT_MIN ? INT_MIN : (int)n;
}

/* Copies a string into a fixed buffer, truncating (no printf: every
 * evaluation does this). */
static inline void copy_text(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (n >= size)
        n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* Mixed precision: every format but fp32/tf32 keeps 16-bit activations and
 * an fp32 master copy. */
static inline bool is_mixed(int precision)
{
    return precision != TRAIN_FP32 && precision != TRAIN_TF32;
}

/* FP8 and FP4 recipes (Transformer Engine): low-precision GEMM inputs, BF16
 * for everything else. */
static inline bool is_low_precision(int precision)
{
    return precision == TRAIN_FP8 || precision == TRAIN_MXFP8 || precision == TRAIN_FP4 ||
           precision == TRAIN_NVFP4;
}

/* Time to move or compute `amount` at `rate` per second, capped at
 * MODEL_TIME_CEILING_S; 0 for nothing to do. */
double model_time_for(double amount, double rate);

/* Time of `batch` GEMMs of M x N x K on one device (roofline + waves). */
double model_gemm_time(const struct ctx *c, double batch, double M, double N, double K);

/* Effective per-direction bandwidth of a link (GB/s). */
double model_link_bw(const struct link *l);
/* Per-device share of the node's NICs (GB/s, effective). */
double model_nic_share_gbs(const struct ctx *c);
/* A collective group of `devices` ranks, `per_domain` of them on one fabric. */
void model_make_net(const struct ctx *c, int64_t devices, int64_t per_domain,
                    struct collective_net *net);

/* Members of a group of `n` ranks spaced `stride` ranks apart (Megatron-Core
 * rank order: TP, CP, EP/DP, PP) that share one scale-up fabric. */
int64_t model_group_in_domain(const struct ctx *c, int64_t n, int64_t stride);

/* ---- model_parallel.c ---- */

/* Parameters of one layer split into the part every rank of a tensor group
 * holds (attention, norms, dense MLP, router, shared experts) and the routed
 * experts (sharded by expert parallelism). */
struct layer_params_split {
    double dense;
    double experts;
};
void model_layer_params(const struct setup *s, bool moe, struct layer_params_split *out);

/* Forward FLOPs of one layer (dense or MoE) for `tokens`
 * tokens: 2 per multiply-add, active experts only, full s x s attention. */
double model_layer_fwd_flops(const struct setup *s, bool moe, double tokens);

/* Per-device time of one micro-batch through the routed experts of one MoE
 * layer, forward (router, expert GEMMs at their per-expert shapes, load
 * imbalance or capacity), and the exposed all-to-all of dispatch + combine,
 * forward. Backward is twice each. */
struct moe_times {
    double fwd;      /* forward, the output-bias loop included */
    double bias_fwd; /* of it, the experts' output-bias loop (model_moe.c) */
    double bias_bwd; /* that loop's backward */
    double a2a_fwd;
    double load_factor; /* tokens of the busiest rank over the mean */
};
void model_moe_layer(const struct ctx *c, struct moe_times *out);

/* Ring-attention K/V exchange of one layer, forward (total, before overlap). */
double model_cp_ring_fwd(const struct ctx *c);

/* Time of an all-to-all where each device sends `bytes` in total (split
 * evenly over the n ranks, itself included). */
double model_alltoall_time(const struct ctx *c, double bytes, int64_t n, int64_t stride);
/* Distance between the ranks of an expert-parallel group (tp x cp; etp
 * under MoE parallel folding). */
int64_t model_ep_stride(const struct ctx *c);

/* Mixture-of-experts layers among layers [first, first + n) (the first
 * dense_layers are dense). */
int model_moe_layers_in(const struct setup *s, int first, int n);

/* ---- shared between the parts of the model ---- */

/* One pipeline stage: its layers and what it holds and runs besides them.
 * The first stage holds the embedding, the last the output layer and the
 * loss (Megatron-Core; Llama 3 paper section 3.3.2). */
struct stage {
    int index, first_layer, layers, moe_layers;
    bool first, last;
    struct layer_params_split params; /* per device (after TP and EP) */
    double embedding;                 /* of params.dense: embedding and output layer */
};

struct device_step {
    double compute, recompute, tp_comm, cp_comm, ep_comm, bubble, p2p, dp_exposed, dp_total;
    double ep_total;      /* expert all-to-alls before overlap (ep_comm: exposed) */
    double dp_mb_exposed; /* of dp_exposed, what every micro-batch's passes carry */
    double dp_mb_total;   /* of dp_total, what every micro-batch moves (ZeRO-2/3 per micro-batch) */
    double dp_mb_fwd;     /* of dp_mb_exposed, what the forward carries (ZeRO-3's gathers; below 0:
                           * the window it lends ZeRO-2's per-micro-batch reduce-scatter) */
    double dp_hidden_gather; /* of dp_total, ZeRO-1/2 weight gathers hidden under the forward */
    double optimizer, straggler, overhead;
    double interference; /* i20: compute slowed beside overlapped communication (in compute) */
    double offload_wait; /* y2026: of compute, the wait for offloaded activations' copies */
    double forward, backward;
    double total;
    double executed_flops, model_flops; /* whole cluster, per step */
    double hardware_flops;              /* model + recomputation, model's convention */
    double params_device;               /* parameters of the busiest stage, per device */
    int dp_algo;
};

struct data_path {
    double read_s, preprocess_s, h2d_s, bw_gbs, cores_busy, cores_total, lanes_need, lanes_have;
    double workers; /* loader workers per node that run (at most the free cores) */
    bool serial;    /* no loader workers or prefetch: nothing overlaps */
};

/* model.c: the context of one evaluation. */
void model_make_ctx(const struct setup *s, const struct resolved *r, struct ctx *c);

/* model_flops.c: FLOPs of a transformer step, whole cluster: the model's
 * (MFU), the executed ones and the hardware's (HFU). */
void model_transformer_flops(const struct ctx *c, struct device_step *d);

/* Per-device times of one micro-batch through one layer. */
struct layer_times {
    double fwd;       /* forward: GEMMs + element-wise (+ experts) */
    double bwd;       /* backward: two GEMMs per forward GEMM + element-wise */
    double attn_core; /* QK^T, softmax, attention x V (selective recompute) */
    double attn_fwd;  /* attention core forward, and its backward */
    double attn_bwd;
    double tp_comm;     /* one exposed all-reduce of the layer output, forward */
    double tp_hidden;   /* i20: the part of it hidden beside the GEMMs */
    double tp_comm_b;   /* one exposed all-reduce of the backward, and the */
    double tp_hidden_b; /* part of it hidden beside the backward's GEMMs */
    double cp_hidden_f; /* i20: ring traffic hidden under the attention, forward */
    double cp_hidden_b; /* and backward */
    /* i20: of tp_hidden, tp_hidden_b, cp_hidden_f and cp_hidden_b, what
     * runs beside the GPU's wait for the host (host_f, host_b), where no
     * kernel runs for it to slow */
    double tp_idle_f, tp_idle_b, cp_idle_f, cp_idle_b;
    double cp_fwd; /* exposed ring-attention exchange, forward and backward */
    double cp_bwd;
    double ep_fwd; /* exposed all-to-all dispatch + combine, forward */
    double op_re;  /* y2026: recompute of torchtitan's per-op policy */
    double host_f; /* issue 21: of fwd, the GPU's wait for the host to issue the layer */
    double host_b; /* and of bwd */
};

/* model_host.c (issue 21): whether a dropless MoE layer makes the host wait
 * for the GPU once per forward; host operations of one layer's forward; the
 * host's share of a layer's passes (added to fwd and bwd). */
bool model_moe_syncs(const struct ctx *c);
double model_layer_host_ops(const struct ctx *c, bool moe);
void model_layer_host(const struct ctx *c, bool moe, struct layer_times *lt);

/* model_compute.c */
void model_layer_times(const struct ctx *c, bool moe, struct layer_times *lt);
void model_make_stage(const struct ctx *c, int index, int first_layer, struct stage *st);
enum { MODEL_STAGE_CANDIDATES = 5 };
int model_candidate_stages(const struct ctx *c, struct stage out[MODEL_STAGE_CANDIDATES]);

/* model_stage.c: one stage's costs (the closed form and the step-schedule
 * simulator both run these; ld and lm: the dense and MoE layer times, unused
 * for a generic model), and the device step. */
void model_stage_cost(const struct ctx *c, const struct stage *st, const struct layer_times *ld,
                      const struct layer_times *lm, struct model_stage_cost *o);
void model_device_step(const struct ctx *c, struct device_step *d);

/* model_pipeline.c: the closed form of the pipeline schedule, passes over
 * the stages (the totals, then each stage's path; interleaved with m >= p a
 * third, first stage first, for the rounds), the same physics as the
 * step-schedule simulator (engine/sched). */
struct pipe_rounds {
    double fill, drain;  /* chunk 0 of the first and last micro-batch to stage k */
    double enter, leave; /* the longest paths into stage k's first chunk v - 1 forward and
                          * out of its last chunk v - 1 backward */
    double pre_pair;     /* the chunk passes of the stages before k */
    double gap_in, gap_around, gap_ring; /* the last stage's cycles through another stage
                                          * (-1: none) */
    double phi_prev, beta_prev;          /* stage k - 1's chunk passes */
    double arrive; /* the earliest stage k's last forward can start, from the stages before */
    double makespan;
};
/* The closed form follows 1F1B's steady cycles and each stage's end (for its
 * data-parallel tail) up to this many stages; beyond, the tail is timed
 * from the first stage's drain (an upper bound). */
enum { PIPE_STAGES_FOLLOWED = 64 };
struct pipe_form {
    int p, v;
    double m, e, link;        /* micro-batches, blocking and whole send */
    double chain_f, chain_b;  /* pass 1: every stage's chunk on the first path */
    double work_total;        /* pass 1: every stage's whole micro-batch */
    double sum_phi, sum_beta; /* pass 1: every stage's chunk passes, without the ends' extras */
    double mid_pair;          /* pass 1: the same, forward and backward, of all but the last */
    double edge_last;         /* pass 1: the output layer's forward and backward */
    double after_f, after_b;  /* pass 2 (last stage first): the stages after k */
    double after_max;         /* the longest any of them takes to send its backwards */
    double makespan;
    double tail;         /* how long after the pipeline the last stage's tail ends */
    double tail_drained; /* the tail timed from the drain, for more stages than followed */
    /* pass 2, interleaved: for ring_back below, to chunk v - 1 and to chunk 1 */
    double ring_run[2], suffix_phi, suffix_beta;
    double phi_last, beta_last; /* pass 2: the last stage's chunk passes */
    struct pipe_rounds r;
    /* Per stage (written before read, not cleared): pass 2 (and 3): its
     * forward and backward, the longest path to its end, its drain, its DP
     * tail; 1F1B: the path to its last forward's end less the chain to it,
     * and from its fill to its end through its last forward plus its tail.
     * Interleaved: pass 2, the longest way back to its first forward of the
     * second group through a later stage (model_pipe_round); pass 3, the
     * longest path to the end of its last backward of the last chunk, what
     * it runs after it, its chunk backward. */
    struct {
        double pair[PIPE_STAGES_FOLLOWED], end[PIPE_STAGES_FOLLOWED];
        double drain[PIPE_STAGES_FOLLOWED], dp_tail[PIPE_STAGES_FOLLOWED];
        double last_fwd[PIPE_STAGES_FOLLOWED], from_last_fwd[PIPE_STAGES_FOLLOWED];
        double ring_back[2][PIPE_STAGES_FOLLOWED];
        double last_bwd[PIPE_STAGES_FOLLOWED], after_last_bwd[PIPE_STAGES_FOLLOWED];
        double beta[PIPE_STAGES_FOLLOWED];
    } at;
};
void model_pipe_begin(struct pipe_form *pf, const struct ctx *c, int v);
void model_pipe_total(struct pipe_form *pf, int k, const struct model_stage_cost *st);
/* Stage k's path; called for k = p - 1 down to 0. */
void model_pipe_stage(struct pipe_form *pf, int k, const struct model_stage_cost *st);
/* Interleaved with at least p micro-batches: Megatron-Core's rounds, the
 * third pass, called for k = 0 up to p - 1 after the other two. */
bool model_pipe_rounds(const struct pipe_form *pf);
void model_pipe_round(struct pipe_form *pf, int k, const struct model_stage_cost *st);
/* After the passes: how long the stages' DP tails run past the pipeline
 * (pf->tail). */
void model_pipe_finish(struct pipe_form *pf);

/* model_network.c */
double model_tp_allreduce_time(const struct ctx *c, double bytes);
void model_dp_sync(const struct ctx *c, double params, int n, int stride, double t_f, double t_b,
                   struct device_step *d);
double model_pp_p2p_time(const struct ctx *c, double v);
double model_pp_send_time(const struct ctx *c);

/* model_data.c */
void model_data_path(const struct ctx *c, double device_step_s, struct data_path *p);

/* model_memory.c */
double model_layer_activation_bytes(const struct ctx *c, bool moe, int recompute);
void model_memory_model(const struct ctx *c, struct memory_report *m);
/* The phases of a step whose largest is a stage's peak (model_memory.c). */
enum {
    MEMORY_PHASE_FORWARD_END,   /* stored activations + the loss's logits */
    MEMORY_PHASE_BACKWARD_LAST, /* stored activations + the rebuilt layer */
    MEMORY_PHASE_OPTIMIZER,     /* the model states alone */
    MEMORY_PHASES
};
/* What stage `stage_index` holds in each phase, bytes; returns the number
 * of stages (phases all 0 for an index out of range). */
int model_memory_phases(const struct ctx *c, int stage_index, double phase[MEMORY_PHASES]);
/* y2026: activation bytes of one layer under torchtitan's per-op policy. */
double model_op_checkpoint_bytes(const struct ctx *c, bool moe);

/* model_facility.c */
double model_rack_load(const struct power_report *pw);
double model_nodes_in_rack(const struct ctx *c);
void model_power(const struct ctx *c, double busy, double cpu_util, struct power_report *pw);
/* The power of a node besides its devices (CPUs at cpu_util, NICs, the
 * rest), and the CPUs' utilization on a data path. */
double model_node_rest_w(const struct ctx *c, double cpu_util);
/* The share of the step the devices run, the rest waiting at idle for a
 * data path slower than the device step (model.c). */
double model_device_step_share(const struct device_step *d, const struct data_path *p);
double model_cpu_util(const struct data_path *p);
void model_power_at_balance(const struct ctx *c, double busy, double cpu_util,
                            struct power_report *pw);
/* params: the model's parameter count (model_params), in the checkpoint. */
void model_reliability(const struct ctx *c, double storage_write_scale, double params,
                       struct reliability_report *rr);
void model_energy_and_cost(const struct ctx *c, struct model_report *o);

/* model_verdict.c */
void model_cannot_run(struct model_report *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* words: also the sentences bottleneck_reason and next_reason. */
void model_name_bottleneck(const struct ctx *c, struct model_report *o, bool words);
void model_not_fit(const struct setup *s, const struct resolved *r, struct model_report *o);
const char *model_stalled_part(const struct model_report *o);

/* ---- i11: model_shapes.c, model_output.c, model_zero.c ---- */

/* Widths of the query (heads x head size) and key/value (kv heads x head
 * size) projections. */
void model_attention_dims(const struct setup *s, double *q_dim, double *kv_dim);
/* The attention's widths per token over all heads, and its weights. */
struct attention_widths {
    double q, k, v; /* query, key and value widths (score width: q = k) */
    double out;     /* input of the output projection: heads x value head size (the width
                       attention x V produces: every query head, grouped or not) */
    double weights; /* projection weights of one layer, output projection included */
    double latent;  /* multi-head latent attention: stored latent widths (else 0) */
    double norms;   /* multi-head latent attention: the latents' norm weights */
};
void model_attention_widths(const struct setup *s, struct attention_widths *w);
/* Embedding matrices of the whole model: 1 when the output layer shares the
 * embedding (model.tied_embeddings), else 2. */
double model_embedding_copies(const struct setup *s);

/* Output layer (logits GEMM, 16-bit even in FP8 recipes) and cross-entropy
 * loss for `tokens` tokens on one device: forward and backward times. */
void model_output_layer(const struct ctx *c, double tokens, double *fwd, double *bwd);
/* The forward time of one multi-token prediction module's 2h -> h
 * projection for `tokens` tokens. */
double model_mtp_projection(const struct ctx *c, double tokens);

/* ZeRO-3: parameters gathered one unit (layer) at a time. */
struct zero3_cost {
    double total;       /* all collectives of a step */
    double exposed;     /* the part compute does not hide */
    double exposed_fwd; /* of it, in the forward passes */
};
/* Gathering units (layers) of one pipeline stage. */
double model_zero3_units(const struct ctx *c);
/* The step's per-layer all-gathers and reduce-scatters of `params`
 * parameters per device over `net`, micro-batch forward/backward times
 * t_f and t_b of the stage. */
void model_zero3_sync(const struct ctx *c, const struct collective_net *net, int algo,
                      double params, double t_f, double t_b, struct zero3_cost *out);
/* Memory of the gathered weights and the unsharded gradient in flight, for
 * a layer of `layer_params` parameters (per device, unsharded). */
double model_zero3_buffer_bytes(const struct ctx *c, double layer_params);

/* ---- i11: model_gemm.c ---- */

/* A GEMM's math time `t_math` (at the catalog's large-GEMM efficiency) plus
 * the write of its `out_elems` outputs after the main loop, normalised so
 * that the catalog's reference GEMM keeps its measured time. */
double model_gemm_with_epilogue(const struct ctx *c, double t_math, double out_elems);

/* ---- i11: model_moe.c ---- */

/* Bytes (16-bit activations) read and written by the token permutations of
 * one MoE layer's forward for `tokens` tokens on this device, dispatch and
 * combine. */
double model_moe_permute_bytes(const struct ctx *c, double tokens);
/* Activation bytes an FP8 recipe saves in one MoE layer for `tokens` tokens
 * (its saved expert inputs are 1 byte, not 2). */
double model_moe_fp8_saved_bytes_saving(const struct setup *s, double tokens);
/* Exposed part of one MoE layer's all-to-alls (`a2a_s`, both passes of a
 * micro-batch) given that layer's compute of both passes (`compute_s`). */
double model_moe_exposed_a2a(const struct ctx *c, double a2a_s, double compute_s);
/* Time of the GEMMs of `local` experts of M x N x K each, in the rounds
 * of concurrent per-expert kernels the software issues. */
double model_moe_expert_gemms(const struct ctx *c, double local, double M, double N, double K);
/* Issue 21: whether the stack adds the experts' output bias in an eager
 * loop over the local experts (model.mlp_bias, software expert_bias_loop),
 * and that loop's time, forward and backward, for `local` experts and
 * `out_elems` elements of their fc2 output on this device. */
bool model_moe_bias_loop_applies(const struct ctx *c);
void model_moe_bias_loop(const struct ctx *c, double local, double out_elems, double *fwd,
                         double *bwd);

/* ---- model_attention.c ---- */

/* Share of the long-loop rate of a fused-attention call whose thread blocks
 * loop over `loop_len` elements (causal: the call's length), with a fixed
 * cost of `overhead` loop iterations per block. */
double model_attention_call_share(double loop_len, bool causal, double overhead);
/* Attention time of one layer over its time at the software's reference
 * length, forward or backward, for the calls this layout makes. */
double model_attention_length_factor(const struct ctx *c, bool bwd);
/* Fused attention's core time for `scores` score elements of `head_dim`
 * wide heads that take `mma_s` at the software's (H100-measured, head size
 * 128) efficiency: the exponential part of that measurement moved to this
 * device's special-function rate and freed from the head size. */
double model_attention_with_exp(const struct ctx *c, double mma_s, double scores, double head_dim);
/* Bytes moved per layer and micro-batch by context parallelism's merges of
 * partial outputs (forward) and gradients (backward). */
void model_cp_merge_bytes(const struct ctx *c, double *fwd_bytes, double *bwd_bytes);

/* ---- y2026: model_power.c, model_lora.c, model_offload.c ---- */

/* The device's power cap (the setup's, else the TDP) and the share of the
 * boost clock it sustains on dense GEMMs under it. */
double model_power_limit_w(const struct setup *s, const struct accelerator *a);
double model_clock_share(const struct setup *s, const struct accelerator *a);
double model_min_clock_share(const struct accelerator *a);
/* LoRA adapter parameters of one layer (whole), and of a stage per device. */
double model_lora_layer_params(const struct setup *s, bool moe);
double model_lora_stage_params(const struct ctx *c, const struct stage *st);
/* Activation offloading: layers offloaded on a stage; host bytes and device
 * bytes saved with `inflight` micro-batches held; the copies' exposed time
 * per micro-batch beside forward and backward compute of `fwd`, `bwd`. */
double model_offload_layers(const struct ctx *c, const struct stage *st);
double model_offload_host_bytes(const struct ctx *c, const struct stage *st, double inflight);
double model_offload_device_saving(const struct ctx *c, const struct stage *st, double inflight);
void model_offload_exposed(const struct ctx *c, const struct stage *st, double fwd, double bwd,
                           double *fwd_extra, double *bwd_extra);

/* model_precision.c: bytes read and written per element quantised for a
 * low-precision GEMM (0 for 16- and 32-bit), and the quantisation time of
 * one layer's GEMM inputs (forward) and output gradients (backward) for `M`
 * tokens on this device. */
double model_quant_bytes_per_element(const struct setup *s);
/* Bytes per parameter of a linear layer's weight as the stack stores it
 * (16-bit, or the low format with its scales). */
double model_linear_weight_bytes(const struct ctx *c);
/* Bytes per parameter the data-parallel weight all-gathers move: the low
 * format where the stack keeps its weights in it (fp8_param_gather). */
double model_param_gather_bytes(const struct ctx *c);
void model_layer_quant_times(const struct ctx *c, bool moe, double M, double *fwd, double *bwd);

/* DeepEP's dispatch and combine of `bytes` per device over `n` expert
 * ranks `stride` apart, forward (model_deepep.c). */
double model_deepep_time(const struct ctx *c, double bytes, int64_t n, int64_t stride);
/* i20 (model_grads.c): the time of accumulating one micro-batch's weight
 * gradients of `params` parameters held by the device; the compute time
 * lost beside `hidden_s` seconds of overlapped communication. */
double model_grad_accum_time(const struct ctx *c, double params);
double model_overlap_interference(const struct ctx *c, double hidden_s, double compute_s);
/* i20 (model_throttle.c): the clock share a cooling-limited rack keeps
 * (0: it cannot be cooled at all), from the mean power over the model's
 * own step at each clock share; a waiting device draws `wait_share` of the
 * dynamic power. Leaves c->throttle as it found it. */
double model_throttle_balanced(struct ctx *c, const struct power_report *pw, double wait_share);
/* The heat of the fullest rack (kW) with its devices computing flat out at
 * their lowest clock and every loader worker busy: a cooling-limited setup
 * runs only where the cooling removes at least that (docs/MODEL.md, section
 * 6). It depends on the hardware and the data path only, not on the step.
 * Without `loaders`, every CPU core busy: a bound no lower, without the
 * data path. */
double model_rack_kw_at_floor(const struct ctx *c, bool loaders);

#endif
