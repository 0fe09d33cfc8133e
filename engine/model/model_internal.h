/* model_internal: what the files of the analytic model share (model.c and
 * model_parallel.c). Not part of the engine's public face: only model*.c
 * include it. */
#ifndef MLVIZ_MODEL_INTERNAL_H
#define MLVIZ_MODEL_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "collective.h"
#include "setup.h"

/* Everything the parts of the model share, derived once per evaluation. */
struct ctx {
    const struct setup *s;
    const struct resolved *r;
    /* Counts in 64 bits: devices x micro-batch overflows an int within
     * the accepted ranges. All at least 1. */
    int64_t devices, per_node, nodes, tp, pp, dp, mb, m;
    int64_t cp, ep;     /* context- and expert-parallel sizes */
    int64_t domain;     /* devices on one scale-up fabric */
    double peak_flops;  /* dense GEMM peak, chosen precision, one device */
    double vector_peak_flops; /* the 16-bit path (attention in FP8 recipes) */
    double gemm_eff;
    double mem_bw;      /* achievable bytes/s */
    double kernel_s;
    double act_bytes;   /* bytes per activation element */
    double gemm_in_bytes; /* bytes per GEMM input element (1 in FP8, 0.5 in FP4) */
    double w_bytes;     /* bytes per weight the GEMMs read */
    double grad_bytes;  /* bytes per gradient as accumulated and reduced */
    double opt_bytes;   /* optimizer bytes per parameter (incl. fp32 master) */
    double throttle;    /* clock share kept */
    /* Per-layer figures computed once per evaluation (model_parallel.c). */
    struct layer_params_cache {
        double dense_dense, moe_dense, moe_experts;
    } lp;
    double act_dense, act_moe, act_full_dense, act_full_moe; /* bytes per layer, micro-batch */
};

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
    double fwd;
    double a2a_fwd;
    double load_factor; /* tokens of the busiest rank over the mean */
};
void model_moe_layer(const struct ctx *c, struct moe_times *out);

/* Ring-attention K/V exchange of one layer, forward (total, before overlap). */
double model_cp_ring_fwd(const struct ctx *c);

/* Time of an all-to-all where each device sends `bytes` in total (split
 * evenly over the n ranks, itself included). */
double model_alltoall_time(const struct ctx *c, double bytes, int64_t n, int64_t stride);

/* Mixture-of-experts layers among layers [first, first + n) (the first
 * dense_layers are dense). */
int model_moe_layers_in(const struct setup *s, int first, int n);

/* ---- i11: model_shapes.c, model_output.c, model_zero.c ---- */

/* Widths of the query (heads x head size) and key/value (kv heads x head
 * size) projections. */
void model_attention_dims(const struct setup *s, double *q_dim, double *kv_dim);
/* Embedding matrices of the whole model: 1 when the output layer shares the
 * embedding (model.tied_embeddings), else 2. */
double model_embedding_copies(const struct setup *s);

/* Output layer (logits GEMM, 16-bit even in FP8 recipes) and cross-entropy
 * loss for `tokens` tokens on one device: forward and backward times. */
void model_output_layer(const struct ctx *c, double tokens, double *fwd, double *bwd);

/* ZeRO-3: parameters gathered one unit (layer) at a time. */
struct zero3_cost {
    double total;   /* all collectives of a step */
    double exposed; /* the part compute does not hide */
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

#endif
