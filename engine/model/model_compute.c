/* model_compute: the roofline of a GEMM, the times of one layer, and the
 * pipeline stages (their layers and parameters, and the few whose maximum
 * is the most loaded one). The times of a stage and
 * the device step are model_stage.c. See docs/MODEL.md. */

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
        double scores = heads_local * local_seq * seq * (s->model.causal ? 0.5 : 1.0);
        double flops = 4.0 * scores * d;
        double rate = c->vector_peak_flops * c->gemm_eff * sw->attention_efficiency * c->throttle;
        /* The rate depends on the length of each call (model_attention.c);
         * context parallelism adds the merges of partial results. */
        double merge_fwd, merge_bwd;
        model_cp_merge_bytes(c, &merge_fwd, &merge_bwd);
        double steps = (double)c->cp;
        double work = time_for(flops, rate);
        /* One exponential per score each way, at the device's own rate
         * (model_attention.c). */
        at->scores =
            model_attention_with_exp(c, work, scores, d) * model_attention_length_factor(c, false) +
            time_for(merge_fwd, c->mem_bw) + steps * c->kernel_s;
        at->attn_v = 0.0;
        at->softmax_s = 0.0;
        at->bwd = model_attention_with_exp(c, 2.5 * work, scores, d) *
                      model_attention_length_factor(c, true) +
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
     * GeLU one 2-byte read and write per element (4 bytes), SwiGLU the
     * stack's count (fused: read gate and up, write their product, 6 bytes;
     * eager: 10, software catalog). */
    double act_fn_bytes =
        moe ? 0.0 : (s->model.mlp == MLP_SWIGLU ? sw->swiglu_bytes_per_inner : 4.0) * M * f / t;
    double ew_bytes = sw->elementwise_bytes_sbh * M * h * split + act_fn_bytes;
    return time_for(ew_bytes * (c->act_bytes / 2.0), c->mem_bw);
}

/* The exposed communication of one layer: the tensor-parallel all-reduce
 * after overlap, and the ring-attention exchange under the attention. */
static void layer_comm(const struct ctx *c, double M, double gemms, double gemms_b, double attn,
                       double attn_bwd, struct layer_times *lt)
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
         * turns tp_comm_overlap off for NVFP4 (y2026). Userbuffers chunk
         * all-gathers and reduce-scatters only, the collectives of sequence
         * parallelism: Megatron-LM asserts --sequence-parallel with
         * --tp-comm-overlap (Transformer Engine issue 746, maintainer's
         * answer), so without it the all-reduces are exposed (i20). */
        bool no_sp = sw->tp_overlap_needs_sp && !c->s->training.sequence_parallel;
        double share = c->s->training.precision == TRAIN_NVFP4 || no_sp ? 0.0
                       : c->tp <= c->domain                             ? sw->tp_comm_overlap
                                                                        : 0.0;
        double hidden = share * (1.0 - 1.0 / t) * comm;
        /* One all-reduce per two GEMMs, twice per pass: each hides beside
         * a quarter of its own pass's GEMMs, the backward's data- and
         * weight-gradient GEMMs (twice the forward's) and host wait in the
         * backward (i20: timed against the forward's, the backward's
         * hiding shrank with a faster forward, and a higher peak could
         * lengthen the step). */
        lt->tp_hidden = mind(hidden, gemms / 4.0);
        lt->tp_comm = comm - lt->tp_hidden;
        lt->tp_hidden_b = mind(hidden, gemms_b / 4.0);
        lt->tp_comm_b = comm - lt->tp_hidden_b;
        /* What hides beyond the GEMMs' own quarter hides beside the host
         * wait: the SMs idle there, and nothing slows (model_stage.c). */
        lt->tp_idle_f = maxd(0.0, lt->tp_hidden - (gemms - lt->host_f) / 4.0);
        lt->tp_idle_b = maxd(0.0, lt->tp_hidden_b - (gemms_b - lt->host_b) / 4.0);
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
        /* and what hides beyond the attention, beside the host wait */
        lt->cp_idle_f = maxd(0.0, lt->cp_hidden_f - (attn - lt->host_f));
        lt->cp_idle_b = maxd(0.0, lt->cp_hidden_b - (attn_bwd - lt->host_b));
    }
}

void model_layer_times(const struct ctx *c, bool moe, struct layer_times *lt)
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
        /* The bias loop's backward has its own count (model_moe.c). */
        lt->bwd += wgrad * (mt.fwd - mt.bias_fwd) + mt.bias_bwd;
        lt->op_re += 0.5 * mt.fwd;
        lt->ep_fwd = mt.a2a_fwd;
    }
    /* Issue 21: the GPU's wait for the host to issue the layer
     * (model_host.c); communication on its own streams runs on while the
     * compute stream waits, so the wait widens the windows it hides in. */
    model_layer_host(c, moe, lt);
    layer_comm(c, M, gemms + lt->host_f, wgrad * gemms + lt->host_b, attn + lt->host_f,
               at.bwd + lt->host_b, lt);
}

/* ---- pipeline stages ------------------------------------------------------------ */

void model_make_stage(const struct ctx *c, int index, int first_layer, struct stage *st)
{
    const struct setup *s = c->s;
    memset(st, 0, sizeof *st);
    st->index = index;
    st->first = index == 0;
    st->last = index == c->pp - 1;
    st->first_layer = first_layer;
    if (s->model.kind == MODEL_GENERIC) {
        st->params.dense = s->model.params;
        return;
    }
    st->layers = setup_stage_layers(s, index);
    st->moe_layers = model_moe_layers_in(s, first_layer, st->layers);
    int n_dense = st->layers - st->moe_layers;
    struct layer_params_split p = {n_dense * c->lp.dense_dense + st->moe_layers * c->lp.moe_dense,
                                   st->moe_layers * c->lp.moe_experts};
    double vh = (double)s->model.vocab * s->model.hidden;
    /* One embedding copy per stage that holds it; with a single stage a
     * tied output layer shares it (model_shapes.c). */
    double emb =
        (st->first ? vh : 0.0) + (st->last && (c->pp > 1 || !s->model.tied_embeddings) ? vh : 0.0);
    if (st->last && s->model.mtp_layers > 0) {
        /* Multi-token prediction (DeepSeek-V3, section 2.2): each module is
         * one more layer and a 2h x h projection; it shares the embedding
         * and output layer of the main model. */
        bool moe = s->model.experts > 0;
        double h = s->model.hidden;
        p.dense +=
            s->model.mtp_layers * ((moe ? c->lp.moe_dense : c->lp.dense_dense) + 2.0 * h * h);
        p.experts += s->model.mtp_layers * (moe ? c->lp.moe_experts : 0.0);
    }
    st->params.dense = (p.dense + emb) / c->tp;
    st->embedding = emb / c->tp;
    /* MoE parallel folding: experts are split over expert-tensor x expert
     * ranks (Megatron-Core --expert-tensor-parallel-size). */
    st->params.experts = p.experts / ((double)c->etp * c->ep);
}

/* The first middle stage whose layers are all MoE layers, past the
 * dense_layers (the stages before it are lighter); -1 when none. Walks at
 * most dense_layers + 1 stages. */
static int first_moe_stage(const struct ctx *c, int *first_layer)
{
    const struct setup *s = c->s;
    int dense = s->model.dense_layers, layer = 0;
    if (s->model.experts <= 0 || dense <= 0)
        return -1;
    for (int k = 0; k < c->pp - 1; k++) {
        if (layer >= dense) {
            *first_layer = layer;
            return k;
        }
        layer += setup_stage_layers(s, k);
    }
    return -1;
}

/* The stages worth looking at: the first, the second (the first middle one
 * gets the extra layers), the first one past the dense layers of an MoE
 * model, the one before the last, and the last. Their maximum is the most
 * loaded stage without a walk over all p (the device step walks every
 * stage, model_stage.c). */
int model_candidate_stages(const struct ctx *c, struct stage out[MODEL_STAGE_CANDIDATES])
{
    int p = c->pp, n = 0, moe_first = 0;
    int idx[MODEL_STAGE_CANDIDATES] = {0, 1, first_moe_stage(c, &moe_first), p - 2, p - 1};
    int last_first = c->s->model.kind == MODEL_TRANSFORMER ? c->s->model.layers : 0;
    for (int i = 0; i < MODEL_STAGE_CANDIDATES; i++) {
        if (idx[i] < 0 || idx[i] >= p)
            continue;
        bool seen = false;
        for (int j = 0; j < n; j++)
            seen = seen || out[j].index == idx[i];
        if (seen)
            continue;
        int first_layer = 0;
        if (i == 2)
            first_layer = moe_first;
        else if (idx[i] == 1)
            first_layer = setup_stage_layers(c->s, 0);
        else if (idx[i] == p - 1 && p > 1)
            first_layer = last_first - setup_stage_layers(c->s, p - 1);
        else if (idx[i] == p - 2 && p > 2)
            first_layer =
                last_first - setup_stage_layers(c->s, p - 1) - setup_stage_layers(c->s, p - 2);
        model_make_stage(c, idx[i], first_layer, &out[n++]);
    }
    return n;
}
