/* model_compute: the device step of the analytic model: parameters, FLOPs,
 * the roofline of a GEMM, the times of one layer and of one pipeline stage,
 * and the step of the slowest device. See docs/MODEL.md. */

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "model.h"
#include "model_internal.h"

/* Upper-tail quantile of the standard normal: z with P(Z > z) = q, for q in
 * (0, 1). Acklam's rational approximation (relative error < 1.2e-9), taken
 * on whichever tail keeps precision. */
double model_normal_upper_quantile(double q)
{
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                               -2.759285104469687e+02, 1.383577518672690e+02,
                               -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                               -1.556989798598866e+02, 6.680131188771972e+01,
                               -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                               -2.400758277161838e+00, -2.549671010229583e+00,
                               4.374664141464968e+00,  2.938163982698783e+00};
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                               3.754408661907416e+00};
    const double p_low = 0.02425;
    if (!(q > 0))
        q = 1e-300;
    if (!(q < 1))
        q = 1 - 1e-16;
    /* lower-tail quantile of p = 1 - q is -upper(q); compute x = Phi^-1(p). */
    double x;
    if (q < p_low) { /* upper tail: p close to 1 */
        double r = sqrt(-2 * log(q));
        x = -(((((c[0] * r + c[1]) * r + c[2]) * r + c[3]) * r + c[4]) * r + c[5]) /
            ((((d[0] * r + d[1]) * r + d[2]) * r + d[3]) * r + 1);
    } else if (q > 1 - p_low) { /* lower tail */
        double r = sqrt(-2 * log1p(-q));
        x = (((((c[0] * r + c[1]) * r + c[2]) * r + c[3]) * r + c[4]) * r + c[5]) /
            ((((d[0] * r + d[1]) * r + d[2]) * r + d[3]) * r + 1);
    } else {
        double p = 1 - q - 0.5;
        double r = p * p;
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * p /
            (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    }
    return x;
}

/* Blom's (1958) plotting position puts the expected maximum of n normals at
 * the upper quantile 0.625 / (n + 0.25): within 0.3% of the tabulated order
 * statistics from n = 3 (Harter 1961: 1.4236 for 8, 3.2414 for 1024); n = 2
 * is exact. */
double model_expected_max_normal(double n)
{
    if (n < 2)
        return 0.0;
    if (n < 3)
        return 1.0 / sqrt(M_PI); /* E max of two standard normals */
    return model_normal_upper_quantile(0.625 / (n + 0.25));
}
double model_time_for(double amount, double rate)
{
    return time_for(amount, rate);
}

/* ---- roofline of one GEMM -------------------------------------------------- */

/* Time of `batch` GEMMs of M x N x K on one device: the slower of the compute
 * time (peak x measured large-GEMM efficiency x wave quantization) and the
 * memory time (reading both inputs, writing the output), plus one kernel's
 * fixed cost. Wave quantization: output tiles are spread over the compute
 * units in waves and the last wave runs partly empty (NVIDIA, "Matrix
 * Multiplication Background User's Guide", 2023). */
double model_gemm_time(const struct ctx *c, double batch, double M, double N, double K)
{
    if (M <= 0 || N <= 0 || K <= 0 || batch <= 0)
        return 0.0;
    const struct accelerator *a = c->r->accel;
    double tile = a->gemm_tile > 0 ? a->gemm_tile : 128;
    double units = a->compute_units > 0 ? a->compute_units : 1;
    double tiles = batch * ceil(M / tile) * ceil(N / tile);
    double waves = ceil(tiles / units);
    double wave_eff = tiles / (waves * units);
    double flops = 2.0 * batch * M * N * K;
    double t_compute = time_for(flops, c->peak_flops * c->gemm_eff * wave_eff * c->throttle);
    /* Inputs in the GEMM format (1 byte in FP8), output in 16 bits. */
    double bytes = batch * ((M * K + K * N) * c->gemm_in_bytes + M * N * c->act_bytes);
    double t_memory = time_for(bytes, c->mem_bw);
    t_compute = model_gemm_with_epilogue(c, t_compute, batch * M * N); /* model_gemm.c */
    return maxd(t_compute, t_memory) + c->kernel_s;
}

/* Per-device times of one micro-batch through one layer. */
struct layer_times {
    double fwd;       /* forward: GEMMs + element-wise (+ experts) */
    double bwd;       /* backward: two GEMMs per forward GEMM + element-wise */
    double attn_core; /* QK^T, softmax, attention x V (selective recompute) */
    double attn_fwd;  /* attention core forward, and its backward */
    double attn_bwd;
    double tp_comm;     /* one exposed all-reduce of the layer output */
    double tp_hidden;   /* i20: the part of it hidden beside the GEMMs */
    double cp_hidden_f; /* i20: ring traffic hidden under the attention, forward */
    double cp_hidden_b; /* and backward */
    double cp_fwd;      /* exposed ring-attention exchange, forward and backward */
    double cp_bwd;
    double ep_fwd; /* exposed all-to-all dispatch + combine, forward */
    double op_re;  /* y2026: recompute of torchtitan's per-op policy */
};

/* The attention core of one layer for one micro-batch: the score and
 * attention x V products (or one fused kernel), the softmax traffic, and
 * the backward of all three. */
struct attention_times {
    double scores, attn_v, softmax_s, bwd;
};

static void attention_times(const struct ctx *c, double local_seq, struct attention_times *at)
{
    const struct setup *s = c->s;
    double t = c->tp, b = c->mb, seq = s->model.seq_len;
    struct attention_widths w; /* scores over q, values over every query head (out) */
    model_attention_widths(s, &w);
    double heads = s->model.heads, d = (w.q + w.out) / (2.0 * heads);
    double heads_local = b * heads / t;
    const struct software *sw = c->r->software;
    if (s->training.flash_attention) {
        /* Fused attention (Dao et al. 2022) never writes the s x s scores:
         * compute-bound at the software's attention efficiency on the 16-bit
         * path (FP8 recipes keep attention in BF16), no softmax traffic; with
         * a causal mask it skips the blocks above the diagonal, half the
         * work (context parallelism balances that half over the ranks). Its
         * backward recomputes the scores: 5 matrix products against 2
         * forward, 2.5x (Dao 2023, FlashAttention-2, section 3.2). */
        double flops = 4.0 * heads_local * local_seq * seq * d * (s->model.causal ? 0.5 : 1.0);
        double rate = c->vector_peak_flops * c->gemm_eff * sw->attention_efficiency * c->throttle;
        /* The rate depends on the length of each call (model_attention.c);
         * context parallelism adds the merges of partial results. */
        double merge_fwd, merge_bwd;
        model_cp_merge_bytes(c, &merge_fwd, &merge_bwd);
        double steps = (double)c->cp;
        double work = time_for(flops, rate);
        at->scores = work * model_attention_length_factor(c, false) +
                     time_for(merge_fwd, c->mem_bw) + steps * c->kernel_s;
        at->attn_v = 0.0;
        at->softmax_s = 0.0;
        at->bwd = 2.5 * work * model_attention_length_factor(c, true) +
                  time_for(merge_bwd, c->mem_bw) + 2.0 * steps * c->kernel_s;
    } else {
        at->scores = model_gemm_time(c, heads_local, local_seq, seq, d);
        at->attn_v = model_gemm_time(c, heads_local, local_seq, d, seq);
        at->softmax_s = sw->softmax_bytes_as2b * heads_local * local_seq * seq *
                        (c->act_bytes / 2.0) / c->mem_bw;
        at->bwd = 2.0 * (at->scores + at->attn_v + at->softmax_s);
    }
}

/* Element-wise time of one layer forward for `M` tokens (sequence x
 * micro-batch on this device). */
static double elementwise_time(const struct ctx *c, bool moe, double M)
{
    const struct setup *s = c->s;
    const struct software *sw = c->r->software;
    double t = c->tp, h = s->model.hidden, f = setup_ffn_hidden(s);
    /* Element-wise traffic (layer norms, residuals, dropout, activation
     * function) splits across tensor-parallel ranks the way Korthikanti et
     * al. 2022 split activations: 10 of 34 parts stay whole without sequence
     * parallelism. */
    double split = s->training.sequence_parallel ? 1.0 / t : (10.0 + 24.0 / t) / 34.0;
    /* The MLP activation function reads and writes the inner activations:
     * GeLU one 2-byte read and write per element (4 bytes), SwiGLU reads
     * gate and up and writes their product (6 bytes). */
    double act_fn_bytes = moe ? 0.0 : (s->model.mlp == MLP_SWIGLU ? 6.0 : 4.0) * M * f / t;
    double ew_bytes = sw->elementwise_bytes_sbh * M * h * split + act_fn_bytes;
    return time_for(ew_bytes * (c->act_bytes / 2.0), c->mem_bw);
}

/* The exposed communication of one layer: the tensor-parallel all-reduce
 * after overlap, and the ring-attention exchange under the attention. */
static void layer_comm(const struct ctx *c, double M, double gemms, double attn, double attn_bwd,
                       struct layer_times *lt)
{
    const struct software *sw = c->r->software;
    double t = c->tp, h = c->s->model.hidden;
    if (c->tp > 1) {
        /* Megatron-Core --tp-comm-overlap (userbuffers) splits each
         * all-gather/reduce-scatter into t chunks pipelined with the GEMM
         * chunks: all but the first chunk can hide, at most behind the GEMM
         * time of the layer (Wang et al. 2022, "Overlap communication with
         * dependent computation via decomposition"). */
        double comm = model_tp_allreduce_time(c, M * h * c->act_bytes);
        /* i20: userbuffers overlap runs over NVLink/NVSwitch only; a TP
         * group wider than the scale-up domain crosses the network, where
         * its traffic is exposed (the stack's tp_overlap_source). Transformer
         * Engine's userbuffers overlap has no NVFP4 path: Megatron-Bridge
         * turns tp_comm_overlap off for NVFP4 (y2026). */
        double share = c->s->training.precision == TRAIN_NVFP4 ? 0.0
                       : c->tp <= c->domain                    ? sw->tp_comm_overlap
                                                               : 0.0;
        double hidden = share * (1.0 - 1.0 / t) * comm;
        double gemm_share = gemms / 4.0; /* one all-reduce per two GEMMs, twice per pass */
        lt->tp_hidden = mind(hidden, gemm_share);
        lt->tp_comm = comm - lt->tp_hidden;
    }
    if (c->cp > 1) {
        /* Ring attention overlaps each block's K/V transfer with the
         * attention of the block before (Liu et al. 2023); backward sends
         * K, V and their gradients (twice the bytes) under the backward
         * attention. */
        double ring = model_cp_ring_fwd(c);
        lt->cp_fwd = maxd(0.0, ring - attn);
        lt->cp_bwd = maxd(0.0, 2.0 * ring - attn_bwd);
        lt->cp_hidden_f = mind(ring, attn);
        lt->cp_hidden_b = mind(2.0 * ring, attn_bwd);
    }
}

static void layer_times(const struct ctx *c, bool moe, struct layer_times *lt)
{
    const struct setup *s = c->s;
    memset(lt, 0, sizeof *lt);
    double t = c->tp, b = c->mb, seq = s->model.seq_len, h = s->model.hidden;
    double f = setup_ffn_hidden(s);
    double local_seq = seq / c->cp; /* context parallelism splits the sequence */
    double M = local_seq * b;
    double mlp_up = (s->model.mlp == MLP_SWIGLU ? 2.0 : 1.0) * f / t;

    struct attention_widths w; /* latent attention: the down and up projections' FLOPs */
    model_attention_widths(s, &w);
    double qkv = model_gemm_time(c, 1, M, (w.weights / h - w.out) / t, h);
    double out = model_gemm_time(c, 1, M, h, w.out / t);
    double up = 0.0, down = 0.0;
    if (!moe) {
        up = model_gemm_time(c, 1, M, mlp_up, h);
        down = model_gemm_time(c, 1, M, h, f / t);
    }
    struct attention_times at;
    attention_times(c, local_seq, &at);
    double ew = elementwise_time(c, moe, M);
    double kernels = c->r->software->kernels_per_layer_fwd * c->kernel_s;
    double gemms = qkv + out + up + down;
    double attn = at.scores + at.attn_v + at.softmax_s;
    double quant_f, quant_b; /* low-precision casts (model_precision.c) */
    model_layer_quant_times(c, moe, M, &quant_f, &quant_b);
    lt->fwd = gemms + attn + ew + kernels + quant_f;
    /* LoRA freezes the base weights: their backward computes the input
     * gradients (dgrad) but no weight gradients (model_lora.c). */
    double wgrad = c->lora ? 1.0 : 2.0;
    lt->bwd = wgrad * gemms + at.bwd + 2.0 * ew + 2.0 * kernels + quant_b;
    lt->attn_core = attn;
    /* Per-op checkpointing recomputes every op it did not save: half the
     * linear layers and all element-wise work (the attention output is
     * saved). */
    lt->op_re = 0.5 * gemms + ew + kernels + quant_f;
    lt->attn_fwd = attn;
    lt->attn_bwd = at.bwd;
    if (moe) {
        struct moe_times mt;
        model_moe_layer(c, &mt);
        lt->fwd += mt.fwd;
        lt->bwd += wgrad * mt.fwd;
        lt->op_re += 0.5 * mt.fwd;
        lt->ep_fwd = mt.a2a_fwd;
    }
    layer_comm(c, M, gemms, attn, at.bwd, lt);
}

/* ---- the device step ------------------------------------------------------ */

/* One stage's times per micro-batch. */
struct stage_time {
    double fwd, bwd, re, tp, cp, ep;
    double hidden;         /* i20: communication hidden beside this stage's compute */
    double ep_total;       /* the all-to-alls before overlap (ep: what stays exposed) */
    double edge_f, edge_b; /* of fwd and bwd, the embedding or output layer */
    double hidden_f;       /* of hidden, the part in the forward pass */
    double cp_f;           /* of cp, the forward's */
    double off_f, off_b;   /* of fwd and bwd, the waits for offloaded activations */
};

/* What the first and last stages run beside their layers: the output
 * layer (logits GEMM) and the cross entropy on the last (model_output.c),
 * with each multi-token prediction module's one more layer and shared
 * output layer on the same tokens (DeepSeek-V3, 2.2); the embedding lookup
 * on the first (a gather and scatter-add of s b h). */
static void stage_edges(const struct ctx *c, const struct stage *st, const struct layer_times *ld,
                        const struct layer_times *lm, double *fwd, double *bwd)
{
    const struct setup *s = c->s;
    double tokens_mb = (double)s->model.seq_len / c->cp * c->mb;
    *fwd = *bwd = 0.0;
    if (st->last) {
        double out_f, out_b, mtp = s->model.mtp_layers;
        const struct layer_times *l = s->model.experts > 0 ? lm : ld;
        model_output_layer(c, tokens_mb, &out_f, &out_b);
        double proj = mtp > 0 ? model_mtp_projection(c, tokens_mb) : 0.0; /* model_output.c */
        *fwd = (1.0 + mtp) * out_f + mtp * (l->fwd + proj);
        *bwd = (1.0 + mtp) * out_b + mtp * (l->bwd + (c->lora ? 1.0 : 2.0) * proj);
    }
    if (st->first)
        *fwd += time_for(2.0 * tokens_mb * s->model.hidden * c->act_bytes, c->mem_bw);
}

/* Splits a stage's per-micro-batch time into its two passes: two of the
 * four (six, with full recomputation) tensor-parallel all-reduces and one
 * of the two (three) expert all-to-all rounds run in the forward, and the
 * ring-attention exchange of the forward (`cp_fwd`). */
static void split_passes(const struct ctx *c, const struct stage_time *t, double cp_fwd, double *f,
                         double *b)
{
    bool full = c->s->training.recompute == RECOMPUTE_FULL;
    double tp_fwd = t->tp * (full ? 2.0 / 6.0 : 0.5);
    double ep_fwd = t->ep / (full ? 3.0 : 2.0);
    *f = t->fwd + tp_fwd + cp_fwd + ep_fwd;
    *b = t->bwd + t->re + (t->tp - tp_fwd) + (t->cp - cp_fwd) + (t->ep - ep_fwd);
}

/* i20: a second of compute hides at most one second of communication: the
 * expert all-to-alls of a layer hide under what its TP and CP traffic
 * leaves free (else a faster device could make a slower step). */
static double ep_free(const struct layer_times *l)
{
    return maxd(0.0, l->fwd + l->bwd - 4.0 * l->tp_hidden - l->cp_hidden_f - l->cp_hidden_b);
}

/* The communication of the multi-token prediction modules on the last
 * stage: each is a whole transformer layer (DeepSeek-V3, 2.2), with its
 * tensor-parallel all-reduces, ring exchange and expert all-to-alls, run
 * once forward and once backward (not recomputed, as their compute in
 * stage_edges). */
static void mtp_comm(const struct ctx *c, const struct stage *st, const struct layer_times *ld,
                     const struct layer_times *lm, struct stage_time *o)
{
    double mtp = c->s->model.mtp_layers;
    if (!st->last || !(mtp > 0))
        return;
    bool moe = c->s->model.experts > 0;
    const struct layer_times *l = moe ? lm : ld;
    o->tp += 4.0 * mtp * l->tp_comm;
    o->cp += mtp * (l->cp_fwd + l->cp_bwd);
    o->cp_f += mtp * l->cp_fwd;
    o->hidden += mtp * (4.0 * l->tp_hidden + l->cp_hidden_f + l->cp_hidden_b);
    o->hidden_f += mtp * (2.0 * l->tp_hidden + l->cp_hidden_f);
    if (moe) {
        double total = 2.0 * l->ep_fwd, exposed = model_moe_exposed_a2a(c, total, ep_free(l));
        o->ep_total += mtp * total, o->ep += mtp * exposed;
        o->hidden += mtp * (total - exposed), o->hidden_f += mtp * (total - exposed) / 2.0;
    }
}

static void stage_time(const struct ctx *c, const struct stage *st, const struct layer_times *ld,
                       const struct layer_times *lm, struct stage_time *o)
{
    const struct setup *s = c->s;
    int rc = s->training.recompute;
    double nd = st->layers - st->moe_layers, nm = st->moe_layers;
    stage_edges(c, st, ld, lm, &o->edge_f, &o->edge_b);
    o->fwd = nd * ld->fwd + nm * lm->fwd + o->edge_f;
    o->bwd = nd * ld->bwd + nm * lm->bwd + o->edge_b;
    o->re = rc == RECOMPUTE_FULL        ? nd * ld->fwd + nm * lm->fwd
            : rc == RECOMPUTE_SELECTIVE ? nd * ld->attn_core + nm * lm->attn_core
            : rc == RECOMPUTE_OP        ? nd * ld->op_re + nm * lm->op_re
                                        : 0.0;
    /* Tensor parallelism: two all-reduces per layer forward and two
     * backward (Shoeybi et al. 2019), two more when the forward is
     * recomputed. */
    double per_layer = rc == RECOMPUTE_FULL ? 6.0 : 4.0;
    o->tp = per_layer * (nd * ld->tp_comm + nm * lm->tp_comm);
    double again = rc == RECOMPUTE_FULL ? 1.0 : 0.0;
    o->cp = nd * ((1.0 + again) * ld->cp_fwd + ld->cp_bwd) +
            nm * ((1.0 + again) * lm->cp_fwd + lm->cp_bwd);
    o->cp_f = nd * ld->cp_fwd + nm * lm->cp_fwd;
    /* Expert parallelism: dispatch and combine forward, their transposes
     * backward, again when the forward is recomputed. */
    o->ep_total = nm * (2.0 + again) * lm->ep_fwd;
    double cp_f = lm->cp_hidden_f, cp_b = lm->cp_hidden_b;
    o->ep = nm * model_moe_exposed_a2a(c, (2.0 + again) * lm->ep_fwd, ep_free(lm));
    o->hidden = per_layer * (nd * ld->tp_hidden + nm * lm->tp_hidden) +
                nd * ((1.0 + again) * ld->cp_hidden_f + ld->cp_hidden_b) +
                nm * ((1.0 + again) * cp_f + cp_b) + (o->ep_total - o->ep);
    o->hidden_f = 2.0 * (nd * ld->tp_hidden + nm * lm->tp_hidden) + nd * ld->cp_hidden_f +
                  nm * cp_f + (o->ep_total - o->ep) / (2.0 + again);
    mtp_comm(c, st, ld, lm, o);
    /* Activation offloading's copies (model_offload.c) run on copy engines
     * beside the SMs and NCCL: they hide under the whole pass, its exposed
     * communication included, not only under its compute. */
    double wall_f, wall_b, off_f, off_b;
    split_passes(c, o, o->cp_f, &wall_f, &wall_b);
    model_offload_exposed(c, st, wall_f, wall_b, &off_f, &off_b);
    o->fwd += off_f;
    o->bwd += off_b;
    o->off_f = off_f, o->off_b = off_b;
}

static double stage_total(const struct stage_time *t)
{
    return t->fwd + t->bwd + t->re + t->tp + t->cp + t->ep;
}

/* A generic model: FLOPs per sample from the user, two thirds in the
 * backward pass (Kaplan et al. 2020: 6N per token = 2N + 4N), as a roofline
 * against the stated memory traffic per FLOP. */
static void generic_step(const struct ctx *c, struct stage_time *slow, struct device_step *d)
{
    const struct setup *s = c->s;
    double samples = s->training.global_batch;
    double flops_mb = s->model.flops_per_sample * c->mb;
    double t_c = time_for(flops_mb, c->peak_flops * c->gemm_eff * c->throttle);
    double t_m = time_for(flops_mb * s->model.bytes_per_flop, c->mem_bw);
    double t = maxd(t_c, t_m) + c->kernel_s;
    slow->fwd = t / 3.0;
    slow->bwd = 2.0 * t / 3.0;
    slow->re = s->training.recompute == RECOMPUTE_FULL ? slow->fwd : 0.0;
    d->model_flops = s->model.flops_per_sample * samples;
    d->executed_flops = d->model_flops * (slow->re > 0 ? 4.0 / 3.0 : 1.0);
    d->hardware_flops = d->executed_flops;
}

/* A transformer: the times of the slowest of the candidate stages; returns
 * its index in `stages` (*n_out: how many there are). */
static int transformer_step(const struct ctx *c, struct stage stages[MODEL_STAGE_CANDIDATES],
                            int *n_out, struct stage_time *slow, struct layer_times *ld_out,
                            struct layer_times *lm_out)
{
    struct layer_times ld, lm;
    layer_times(c, false, &ld);
    lm = ld;
    if (c->s->model.experts > 0)
        layer_times(c, true, &lm);
    *ld_out = ld;
    *lm_out = lm;
    int n_stages = model_candidate_stages(c, stages);
    *n_out = n_stages;
    int busy = 0;
    /* The slowest stage sets the pace of the pipeline. */
    double worst = -1.0;
    for (int i = 0; i < n_stages; i++) {
        struct stage_time st;
        stage_time(c, &stages[i], &ld, &lm, &st);
        if (stage_total(&st) > worst) {
            worst = stage_total(&st);
            *slow = st;
            busy = i;
        }
    }
    return busy;
}

/* Data-parallel gradient sync, the optimizer, the fixed overhead and the
 * straggler of the step of the busiest stage `busy`. */
static void step_sync_and_update(const struct ctx *c, const struct stage *busy,
                                 const struct stage_time *slow, struct device_step *d)
{
    const struct setup *s = c->s;
    const struct software *sw = c->r->software;
    /* Gradient sync: non-expert parameters over DP x CP (ranks tp apart),
     * expert parameters over DP x CP / EP (ranks tp x cp x ep apart). */
    /* i20: the gradient sync hides under the compute the per-layer traffic
     * leaves free (one second of compute hides one second of traffic),
     * shared between the passes as each pass's compute less the traffic
     * hidden in it. */
    double free = maxd(0.0, slow->fwd + slow->bwd - slow->hidden);
    double f_free = maxd(0.0, slow->fwd - slow->hidden_f);
    double b_free = maxd(0.0, slow->bwd - (slow->hidden - slow->hidden_f));
    double t_f = f_free + b_free > 0 ? free * f_free / (f_free + b_free) : 0.0;
    double t_b = free - t_f;
    /* With MoE parallel folding the expert-data-parallel group is what
     * is left of tp x cp x dp after etp x ep. LoRA syncs only the adapters. */
    int64_t edp = at_least_one(c->tp * c->cp * c->dp / (c->etp * c->ep));
    double dense = c->lora ? model_lora_stage_params(c, busy) : busy->params.dense;
    double experts = c->lora ? 0.0 : busy->params.experts;
    double total0 = d->dp_total, exposed0 = d->dp_exposed, gather0 = d->dp_hidden_gather;
    model_dp_sync(c, dense, c->dp * c->cp, c->tp, t_f, t_b, d);
    /* The expert gradients hide in what the dense ones left of the window:
     * the weight gathers hid under the forward, the rest under the
     * backward (spilling into the forward). */
    double gather = d->dp_hidden_gather - gather0;
    double hid = (d->dp_total - total0) - (d->dp_exposed - exposed0) - gather;
    double w = sw->dp_overlap_window > 0 ? sw->dp_overlap_window : 1.0;
    double g = sw->param_gather_overlap > 0 ? gather / sw->param_gather_overlap : 0.0;
    double t_b2 = maxd(0.0, t_b - hid / w);
    double t_f2 = maxd(0.0, t_f - g - maxd(0.0, hid / w - t_b));
    model_dp_sync(c, experts, edp, c->etp * c->ep, t_f2, t_b2, d);
    /* Optimizer: memory-bound; reads and writes the optimizer state, reads
     * the gradient, writes the new weights, for this device's shard. */
    double nd = s->training.zero_stage >= 1 ? (double)c->dp * c->cp : 1.0;
    double shard = dense / nd + experts / (s->training.zero_stage >= 1 ? (double)edp : 1.0);
    d->optimizer = time_for(shard * (2.0 * c->opt_bytes + c->grad_bytes + c->w_bytes), c->mem_bw);
    d->overhead = sw->step_overhead_s;
    /* Every synchronous step waits for the slowest device: the compute of
     * each varies by MODEL_COMPUTE_JITTER_CV, and the expected maximum of N
     * normals grows as sqrt(2 ln N), one of the losses that grow with scale. */
    /* The waits for offloaded activations are copies, not compute. */
    double waits = (double)c->m * (slow->off_f + slow->off_b);
    d->straggler = maxd(0.0, d->compute - waits + d->recompute) * MODEL_COMPUTE_JITTER_CV *
                   model_expected_max_normal(c->devices);
}

/* The gradient accumulation of one micro-batch on a stage (model_grads.c):
 * the parameters it trains (LoRA: its adapters). */
static double grad_accum_time(const struct ctx *c, const struct stage *st)
{
    double params =
        c->lora ? model_lora_stage_params(c, st) : st->params.dense + st->params.experts;
    return model_grad_accum_time(c, params);
}

/* One stage's figures for the closed form of the schedule; `dp_mb`: the
 * exposed DP/ZeRO traffic each micro-batch carries, shared by both passes
 * as their times. */
static void stage_pipe(const struct ctx *c, const struct layer_times *ld,
                       const struct layer_times *lm, const struct stage *st, double dp_mb,
                       struct pipe_stage *ps)
{
    struct stage_time t;
    stage_time(c, st, ld, lm, &t);
    t.bwd += grad_accum_time(c, st);
    split_passes(c, &t, t.cp_f, &ps->f, &ps->b);
    if (dp_mb > 0) { /* this stage's own, from its parameters and passes */
        struct device_step d;
        memset(&d, 0, sizeof d);
        model_dp_sync(c, st->params.dense, c->dp * c->cp, c->tp, t.fwd, t.bwd, &d);
        model_dp_sync(c, st->params.experts, c->dp * c->cp / c->ep, c->tp * c->cp * c->ep, t.fwd,
                      t.bwd, &d);
        dp_mb = d.dp_mb_exposed;
    }
    double share = ratio(ps->f, ps->f + ps->b);
    ps->f += dp_mb * share;
    ps->b += dp_mb * (1.0 - share);
    ps->ef = t.edge_f;
    ps->eb = t.edge_b;
}

/* Both passes of the closed form over every stage (the second from the
 * last stage back). Stages with the same layers and ends have the same
 * times: a few are computed, the rest reused. */
static void stage_pipeline(const struct ctx *c, const struct layer_times *ld,
                           const struct layer_times *lm, double dp_mb, struct pipe_form *pf)
{
    enum { KINDS = 8, REMEMBERED = 64 };
    struct pipe_stage seen[KINDS];
    int key[KINDS][3], n_seen = 0;
    signed char kind_of[REMEMBERED]; /* pass 1 finds stage p - 1 - n's kind here */
    bool remember = c->pp <= REMEMBERED;
    for (int pass = 0; pass < 2; pass++) {
        int layer_end = c->s->model.layers;
        for (int n = 0; n < c->pp; n++) {
            int i = (int)c->pp - 1 - n;
            if (pass == 1 && remember) {
                model_pipe_stage(pf, i, &seen[kind_of[n]]);
                continue;
            }
            int layers = setup_stage_layers(c->s, i);
            layer_end -= layers;
            int k[3] = {layers, model_moe_layers_in(c->s, layer_end, layers),
                        (i == 0 ? 1 : 0) + (i == c->pp - 1 ? 2 : 0)};
            int j = 0;
            while (j < n_seen && memcmp(key[j], k, sizeof k) != 0)
                j++;
            if (pass == 0 && remember) {
                kind_of[n] = (signed char)j;
                remember = j < KINDS;
            }
            struct pipe_stage ps;
            if (j < n_seen) {
                ps = seen[j];
            } else {
                struct stage st;
                model_make_stage(c, i, layer_end, &st);
                stage_pipe(c, ld, lm, &st, dp_mb, &ps);
                if (n_seen < KINDS) {
                    memcpy(key[n_seen], k, sizeof k);
                    seen[n_seen++] = ps;
                }
            }
            if (pass == 0)
                model_pipe_total(pf, &ps);
            else
                model_pipe_stage(pf, i, &ps);
        }
    }
}

/* A generic model: every stage alike. */
static void generic_pipeline(const struct ctx *c, const struct stage_time *slow, double dp_mb,
                             struct pipe_form *pf)
{
    struct pipe_stage ps = {slow->fwd, slow->bwd + slow->re + dp_mb, 0.0, 0.0};
    for (int i = (int)c->pp - 1; i >= 0; i--)
        model_pipe_total(pf, &ps);
    for (int i = (int)c->pp - 1; i >= 0; i--)
        model_pipe_stage(pf, i, &ps);
}

/* The data-parallel traffic after each stage's last backward: the busiest
 * stage finishes `busy_drain` before the first one (the last backward
 * still travels back), which hides that much of its own; the first stage's
 * (its embedding adds parameters) is what the step waits for when longer. */
static void last_stage_tail(const struct ctx *c, const struct stage *stages,
                            const struct stage *busy, const struct layer_times *ld,
                            const struct layer_times *lm, double busy_drain, struct device_step *d)
{
    double m = (double)c->m;
    double tail = d->dp_exposed - m * d->dp_mb_exposed, tail0 = tail;
    if (busy != &stages[0] && c->s->model.kind != MODEL_GENERIC) {
        struct stage_time t;
        stage_time(c, &stages[0], ld, lm, &t);
        t.bwd += grad_accum_time(c, &stages[0]);
        struct device_step d0;
        memset(&d0, 0, sizeof d0);
        model_dp_sync(c, stages[0].params.dense, c->dp * c->cp, c->tp, t.fwd, t.bwd, &d0);
        model_dp_sync(c, stages[0].params.experts, c->dp * c->cp / c->ep, c->tp * c->cp * c->ep,
                      t.fwd, t.bwd, &d0);
        tail0 = d0.dp_exposed - m * d0.dp_mb_exposed;
    }
    double waited = maxd(tail0, tail - busy_drain);
    d->dp_exposed += waited - tail;
}

void model_device_step(const struct ctx *c, struct device_step *d)
{
    const struct setup *s = c->s;
    memset(d, 0, sizeof *d);
    int m = c->m;
    struct stage stages[MODEL_STAGE_CANDIDATES];
    struct stage_time slow;
    memset(&slow, 0, sizeof slow);
    const struct stage *busy = &stages[0];
    struct layer_times ld, lm;
    struct stage widest;
    if (s->model.kind == MODEL_GENERIC) {
        model_make_stage(c, 0, 0, &stages[0]);
        generic_step(c, &slow, d);
    } else {
        int n;
        busy = &stages[transformer_step(c, stages, &n, &slow, &ld, &lm)];
        /* i20: every stage syncs its own gradients after its last backward;
         * the one holding the most parameters sets that wait, whichever
         * stage computes longest (picking the busiest stage's parameters
         * let a faster device switch to a heavier sync). */
        widest = *busy;
        for (int i = 0; i < n; i++) {
            widest.params.dense = maxd(widest.params.dense, stages[i].params.dense);
            widest.params.experts = maxd(widest.params.experts, stages[i].params.experts);
        }
        busy = &widest;
        model_transformer_flops(c, d); /* model_flops.c */
    }
    double psi = busy->params.dense + busy->params.experts;
    d->params_device = psi;
    slow.bwd += grad_accum_time(c, busy);
    double per_mb = stage_total(&slow);
    d->forward = m * slow.fwd;
    d->backward = m * slow.bwd;
    d->compute = m * (slow.fwd + slow.bwd);
    d->recompute = m * slow.re;
    d->tp_comm = m * slow.tp;
    d->cp_comm = m * slow.cp;
    d->ep_comm = m * slow.ep;
    d->ep_total = m * slow.ep_total;
    step_sync_and_update(c, busy, &slow, d);
    /* The pipeline: its bubble and blocking sends from the closed form of
     * the schedule (model_pipeline.c), which the step-schedule simulator
     * checks. */
    if (c->pp > 1) {
        int v = s->model.kind == MODEL_TRANSFORMER ? s->training.virtual_stages : 1;
        struct pipe_form pf;
        model_pipe_begin(&pf, c, v);
        pf.busy = busy->index;
        if (s->model.kind == MODEL_GENERIC)
            generic_pipeline(c, &slow, d->dp_mb_exposed, &pf);
        else
            stage_pipeline(c, &ld, &lm, d->dp_mb_exposed, &pf);
        int sends = 2 * pf.v - (busy->index == 0) - (busy->index == c->pp - 1);
        d->p2p = m * sends * pf.e;
        d->bubble = maxd(0.0, pf.makespan - m * (per_mb + d->dp_mb_exposed) - d->p2p);
        last_stage_tail(c, stages, busy, &ld, &lm, pf.busy_drain, d);
    }
    /* i20: compute beside overlapped communication runs slower (model_grads.c). */
    /* The slowdown was measured beside intra-node (NVLink) collectives: it
     * is charged where the group stays inside the scale-up domain. */
    bool mp_in = (double)c->tp * c->cp * c->ep <= c->domain, dp_in = c->devices <= c->domain;
    double hidden =
        (mp_in ? m * slow.hidden : 0.0) + (dp_in ? maxd(0.0, d->dp_total - d->dp_exposed) : 0.0);
    d->interference = model_overlap_interference(c, hidden, d->compute + d->recompute);
    /* Where a pass waits for offloaded activations, the compute slowed
     * beside its hidden traffic fills the wait first (copy engines do not
     * slow down): the forward's share of the slowdown is its share of the
     * hidden traffic. */
    double i_f = d->interference * ratio(mp_in ? m * slow.hidden_f : 0.0, hidden);
    double absorbed = mind(i_f, m * slow.off_f) + mind(d->interference - i_f, m * slow.off_b);
    d->compute += d->interference - absorbed;
    d->backward += d->interference - absorbed;
    d->offload_wait = m * (slow.off_f + slow.off_b) - absorbed;
    d->total = d->compute + d->recompute + d->tp_comm + d->cp_comm + d->ep_comm + d->bubble +
               d->p2p + d->dp_exposed + d->optimizer + d->straggler + d->overhead;
}

/* ---- every stage, for the schedule simulator (model_pipeline.c) ---------- */

/* The per-micro-batch times of stage `st` (the closed form's stage_time plus
 * the gradient accumulation), split into the two passes. */
void model_stage_times(const struct ctx *c, const struct stage *st, struct model_stage_cost *o)
{
    const struct setup *s = c->s;
    struct stage_time t;
    double cp_fwd = 0.0;
    memset(o, 0, sizeof *o);
    o->layers = st->layers;
    if (s->model.kind == MODEL_GENERIC) {
        struct device_step d;
        memset(&d, 0, sizeof d);
        generic_step(c, &t, &d);
        t.tp = t.cp = t.ep = 0.0;
        o->wgrad_s = 0.5 * t.bwd;
    } else {
        struct layer_times ld, lm;
        layer_times(c, false, &ld);
        lm = ld;
        if (s->model.experts > 0)
            layer_times(c, true, &lm);
        stage_time(c, st, &ld, &lm, &t);
        stage_edges(c, st, &ld, &lm, &o->edge_fwd_s, &o->edge_bwd_s);
        /* Weight gradients: one of the two GEMMs of each forward GEMM's
         * backward, about half of the backward outside the attention core
         * (Qi et al. 2023, section 2: B and W are equal passes). */
        double nd = st->layers - st->moe_layers, nm = st->moe_layers;
        o->wgrad_s = 0.5 * maxd(0.0, t.bwd - o->edge_bwd_s - nd * ld.attn_bwd - nm * lm.attn_bwd);
        cp_fwd = t.cp_f;
    }
    t.bwd += grad_accum_time(c, st);
    split_passes(c, &t, cp_fwd, &o->fwd_s, &o->bwd_s);
    o->recompute_s = t.re;
    o->compute_fwd_s = t.fwd;
    o->compute_bwd_s = t.bwd;
    o->tp_s = t.tp;
    o->cp_s = t.cp;
    o->ep_s = t.ep;
}
