/* model_attention: how fast one fused-attention call runs for the lengths
 * it is given, and what context parallelism adds around the calls.
 * Formulas: docs/MODEL.md, section 2 ("Fused attention by call length").
 *
 * A fused (flash) attention kernel gives each thread block one tile of
 * ATTENTION_TILE rows and loops over the tiles of the other operand
 * (FlashAttention-2, Dao 2023, sections 3.1-3.2: the forward loops over
 * K/V tiles for each Q tile, the backward over Q tiles for each K/V tile).
 * Each block also pays a fixed cost (loading its own tile, writing its
 * result, the pipeline's fill and drain) worth `overhead` loop iterations,
 * a software catalog figure read off the per-length curves of Shah et al.
 * 2024 (FlashAttention-3), Figures 5 and 6. A loop of n tiles then runs at
 * n / (n + overhead) of the long-loop rate; a causal call of n x n tiles
 * does n (n + 1) / 2 iterations (the diagonal tiles half masked) for
 * n^2 / 2 of useful work, so it runs at n / (n + 1 + 2 overhead). The
 * software's attention_efficiency is the rate of a causal 16K call (the
 * longest of those figures), so every call is timed relative to it. */
#include <stdbool.h>

#include "model_internal.h"

#define ATTENTION_TILE    128.0   /* rows per thread block, head dim 128 (FA2, FA3, cuDNN) */
#define ATTENTION_REF_LEN 16384.0 /* the length attention_efficiency is quoted at */

/* Share of the long-loop rate a call reaches when each thread block loops
 * over `loop_len` elements (the full length of a causal call). */
double model_attention_call_share(double loop_len, bool causal, double overhead)
{
    double n = loop_len / ATTENTION_TILE;
    if (n <= 0)
        return 1.0;
    if (n < 1)
        n = 1; /* one partly filled tile still costs one iteration */
    return causal ? n / (n + 1.0 + 2.0 * overhead) : n / (n + overhead);
}

/* Time of the attention of one layer relative to the rate at the reference
 * length, for the forward (`bwd` false) or the backward. Without context
 * parallelism one call covers the sequence. With it (Megatron-Core through
 * Transformer Engine's AttnFuncWithCPAndKVP2P, load-balanced causal split
 * into 2c chunks, rank i holding chunks i and 2c-1-i) each of the c ring
 * steps is one call of the same work: the first causal over the rank's own
 * s/c tokens, every later one full over half of one side (all local
 * queries against half the received keys, or half the local queries
 * against all of them). The rank whose loop runs over the half sets the
 * pace of that step, since the next step waits for every rank's K/V. */
double model_attention_length_factor(const struct ctx *c, bool bwd)
{
    const struct software *sw = c->r->software;
    double overhead = bwd ? sw->attention_bwd_tile_overhead : sw->attention_fwd_tile_overhead;
    if (overhead <= 0)
        return 1.0;
    bool causal = c->s->model.causal;
    double ref = model_attention_call_share(ATTENTION_REF_LEN, true, overhead);
    double local = (double)c->s->model.seq_len / (double)c->cp;
    if (c->cp <= 1)
        return ref / model_attention_call_share(local, causal, overhead);
    if (!causal) /* every step: all local queries against a whole block */
        return ref / model_attention_call_share(local, false, overhead);
    double steps = (double)c->cp;
    double first = ref / model_attention_call_share(local, true, overhead);
    double later = ref / model_attention_call_share(local / 2.0, false, overhead);
    return (first + (steps - 1.0) * later) / steps;
}

/* The device attention_efficiency was measured on (Shah et al. 2024,
 * FlashAttention-3, section 3.1: H100 SXM5, 989 TFLOPS of 16-bit matrix
 * math against 3.9 tera special-function operations per second), with its
 * catalog GEMM efficiency (h100-sxm). */
#define REF_MATRIX_TFLOPS 989.5
#define REF_GEMM_EFF      0.70
#define REF_EXP_TERA      3.9
#define REF_HEAD_DIM      128.0 /* the head size those measurements used */
#define REF_HEAD_DIM      128.0 /* the head size of those measurements */

/* Fused attention takes one exponential per score, forward (the softmax)
 * and backward (P recomputed from the scores and the saved log-sum-exp),
 * on the SM's special-function units (MUFU.EX2), while the matrix products
 * run on the tensor cores. NVIDIA describes the softmax of a tile as
 * standing between its two products (BMM1, softmax, BMM2), the tensor
 * cores idle while it runs ("Making Softmax More Efficient with NVIDIA
 * Blackwell Ultra", NVIDIA technical blog, 2026), and Zadouri et al. 2026
 * (FlashAttention-4, arXiv 2603.05451) find the forward pass bound by the
 * exponential on B200, whose tensor cores doubled while its 16 exponentials
 * per clock per SM did not. So the time is taken as the sum: the measured
 * H100 time at head size 128 splits into its exponential part
 * (scores / 3.9e12) and the rest; the rest scales with the device's GEMM
 * rate and with the head size as before, the exponential part with the
 * device's own rate and not with the head size (one per score however wide
 * the heads: FlashAttention-3's head-64 forward runs at about 0.7 of its
 * head-128 rate). A device without a published rate keeps the H100's
 * proportion of exponentials to GEMM rate. `mma_s` is the time the
 * software's attention_efficiency gives for `scores` scores of `head_dim`
 * wide heads. */
double model_attention_with_exp(const struct ctx *c, double mma_s, double scores, double head_dim)
{
    if (!(scores > 0) || !(head_dim > 0))
        return mma_s;
    /* The H100 measurement's exponential time, carried to this device the
     * way the measurement itself is: at the ratio of GEMM rates. */
    double ref_ratio = (REF_MATRIX_TFLOPS * REF_GEMM_EFF) /
                       (c->vector_peak_flops * 1e-12 * c->gemm_eff * c->throttle);
    double ref_exp_s = scores / (REF_EXP_TERA * 1e12) * ref_ratio;
    double rate = c->r->accel->exp_tera_per_s * 1e12 * c->throttle;
    double exp_s = rate > 0 ? time_for(scores, rate) : mind(ref_exp_s, MODEL_TIME_CEILING_S);
    return maxd(mma_s - ref_exp_s * head_dim / REF_HEAD_DIM, 0.0) + exp_s;
}

/* Bytes the context-parallel merges move per layer and micro-batch beyond
 * the attention kernels (Transformer Engine, AttnFuncWithCPAndKVP2P): the
 * forward keeps each step's partial output and folds it into the running
 * output with the softmax statistics (flash_attn_fwd_out_correction: read
 * the step's output, read and write the running one, 16-bit: 6 bytes per
 * element, once per step); the backward adds each step's dQ into the
 * running dQ and each step's dK, dV into those passed around the ring (6
 * bytes per element of Q, K and V, once per step). */
void model_cp_merge_bytes(const struct ctx *c, double *fwd_bytes, double *bwd_bytes)
{
    *fwd_bytes = *bwd_bytes = 0.0;
    if (c->cp <= 1)
        return;
    double q_dim, kv_dim;
    model_attention_dims(c->s, &q_dim, &kv_dim);
    double tokens = (double)c->s->model.seq_len / (double)c->cp * (double)c->mb;
    double steps = (double)c->cp;
    *fwd_bytes = 6.0 * steps * tokens * q_dim / (double)c->tp;
    *bwd_bytes = 6.0 * steps * tokens * (q_dim + 2.0 * kv_dim) / (double)c->tp;
}
