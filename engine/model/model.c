/* model: the analytic model of one training step. See docs/MODEL.md for
 * every formula with its source. Nothing here allocates. */
#include "model.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "model_internal.h"
#include "report_fields.h"


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
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                               2.445134137142996e+00, 3.754408661907416e+00};
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


enum { GB = 1000000000 };

/* Share of its dynamic power (TDP - idle) a device draws while it waits on
 * communication or sits in a pipeline bubble at full clocks. An estimate,
 * checked against the measured node power of GPT-3 175B FP8 training on
 * 8 x H100 nodes (MLPerf power logs, Latif et al., arXiv 2412.08602: ~7.0 kW
 * median, 8.4 kW peak): with it the NeMo GPT-3 175B FP8 setup draws
 * ~7.2 kW per node and a fully busy node stays below 8.4 kW. */
#define DEVICE_WAIT_DYNAMIC_SHARE 0.5
#define SECONDS_PER_DAY 86400.0
#define SECONDS_PER_HOUR 3600.0

static double maxd(double a, double b)
{
    return a > b ? a : b;
}
static double mind(double a, double b)
{
    return a < b ? a : b;
}

/* Time to move or compute `amount` at `rate` per second: 0 for nothing to
 * do, the ceiling when the rate is zero or too small to give a finite
 * time. Every time in the model divides through here. */
static double time_for(double amount, double rate)
{
    if (!(amount > 0))
        return 0.0;
    double t = amount / rate;
    return rate > 0 && t < MODEL_TIME_CEILING_S ? t : MODEL_TIME_CEILING_S;
}

double model_time_for(double amount, double rate)
{
    return time_for(amount, rate);
}

/* A rate or share a / b that is 0 when b is 0 (nothing happened in no time)
 * and never non-finite. */
static double ratio(double a, double b)
{
    double q = a / b;
    return b != 0 && isfinite(q) ? q : 0.0;
}

static int64_t at_least_one(int64_t n)
{
    return n < 1 ? 1 : n;
}

/* An int field of the report, saturated (the counts are 64-bit inside). */
static int report_int(int64_t n)
{
    return n > INT_MAX ? INT_MAX : n < INT_MIN ? INT_MIN : (int)n;
}

/* Mixed precision: every format but fp32/tf32 keeps 16-bit activations and
 * an fp32 master copy. */
static bool is_mixed(int precision)
{
    return precision != TRAIN_FP32 && precision != TRAIN_TF32;
}

/* FP8 and FP4 recipes (Transformer Engine): low-precision GEMM inputs, BF16
 * for everything else. */
static bool is_low_precision(int precision)
{
    return precision == TRAIN_FP8 || precision == TRAIN_MXFP8 || precision == TRAIN_FP4 ||
           precision == TRAIN_NVFP4;
}

/* ---- parameters ----------------------------------------------------------- */

/* Parameters of a run of layers starting at `first`: dense layers and MoE
 * layers (the first dense_layers are dense). */
static void stack_params(const struct setup *s, int first, int n, struct layer_params_split *sum)
{
    struct layer_params_split dense, moe;
    model_layer_params(s, false, &dense);
    int n_moe = model_moe_layers_in(s, first, n);
    sum->dense = (n - n_moe) * dense.dense;
    sum->experts = 0.0;
    if (n_moe > 0) {
        model_layer_params(s, true, &moe);
        sum->dense += n_moe * moe.dense;
        sum->experts = n_moe * moe.experts;
    }
}

double model_params(const struct setup *s)
{
    if (s->model.kind == MODEL_GENERIC)
        return s->model.params;
    /* Embedding V x h, and the output layer's own V x h unless tied. */
    struct layer_params_split p;
    stack_params(s, 0, s->model.layers, &p);
    return p.dense + p.experts + model_embedding_copies(s) * s->model.vocab * s->model.hidden;
}

/* ---- FLOPs ---------------------------------------------------------------- */

static double logits_fwd_flops(const struct setup *s, double tokens)
{
    return 2.0 * tokens * s->model.hidden * s->model.vocab;
}

/* Forward FLOPs of the whole layer stack for `tokens` tokens. */
static double stack_fwd_flops(const struct setup *s, double tokens)
{
    int n_moe = model_moe_layers_in(s, 0, s->model.layers);
    double f = (s->model.layers - n_moe) * model_layer_fwd_flops(s, false, tokens);
    if (n_moe > 0)
        f += n_moe * model_layer_fwd_flops(s, true, tokens);
    return f;
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
    t_compute = model_gemm_with_epilogue(c, t_compute, batch * M * N); /* i11 hook: model_gemm.c */
    return maxd(t_compute, t_memory) + c->kernel_s;
}

/* Per-device times of one micro-batch through one layer. */
struct layer_times {
    double fwd;        /* forward: GEMMs + element-wise (+ experts) */
    double bwd;        /* backward: two GEMMs per forward GEMM + element-wise */
    double attn_core;  /* QK^T, softmax, attention x V (selective recompute) */
    double attn_fwd;   /* attention core forward, and its backward */
    double attn_bwd;
    double tp_comm;    /* one exposed all-reduce of the layer output */
    double cp_fwd;     /* exposed ring-attention exchange, forward and backward */
    double cp_bwd;
    double ep_fwd;     /* exposed all-to-all dispatch + combine, forward */
};

static double tp_allreduce_time(const struct ctx *c, double bytes);

static void layer_times(const struct ctx *c, bool moe, struct layer_times *lt)
{
    const struct setup *s = c->s;
    memset(lt, 0, sizeof *lt);
    double t = c->tp, b = c->mb, seq = s->model.seq_len, h = s->model.hidden;
    double heads = s->model.heads, d = setup_head_dim(s), f = setup_ffn_hidden(s);
    double q_dim, kv_dim;
    model_attention_dims(s, &q_dim, &kv_dim); /* i11 hook: head_dim */
    double local_seq = seq / c->cp; /* context parallelism splits the sequence */
    double M = local_seq * b;
    double mlp_up = (s->model.mlp == MLP_SWIGLU ? 2.0 : 1.0) * f / t;

    double qkv = model_gemm_time(c, 1, M, (q_dim + 2.0 * kv_dim) / t, h);
    double out = model_gemm_time(c, 1, M, h, q_dim / t);
    double up = 0.0, down = 0.0;
    if (!moe) {
        up = model_gemm_time(c, 1, M, mlp_up, h);
        down = model_gemm_time(c, 1, M, h, f / t);
    }
    double heads_local = b * heads / t;
    double scores, attn_v, softmax_s, attn_bwd;
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
        scores = time_for(flops, c->vector_peak_flops * c->gemm_eff * sw->attention_efficiency *
                                     c->throttle) +
                 c->kernel_s;
        attn_v = 0.0;
        softmax_s = 0.0;
        attn_bwd = 2.5 * (scores - c->kernel_s) + 2.0 * c->kernel_s;
    } else {
        scores = model_gemm_time(c, heads_local, local_seq, seq, d);
        attn_v = model_gemm_time(c, heads_local, local_seq, d, seq);
        softmax_s = sw->softmax_bytes_as2b * heads_local * local_seq * seq * (c->act_bytes / 2.0) /
                    c->mem_bw;
        attn_bwd = 2.0 * (scores + attn_v + softmax_s);
    }
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
    if (is_low_precision(s->training.precision)) {
        /* Transformer Engine casts each GEMM input to FP8 (read 2 bytes,
         * write 1, plus the amax reduction's read): the layer inputs of QKV
         * and fc1 and the inputs of the output projection and fc2. */
        ew_bytes += 4.0 * M * (2.0 * h + q_dim / t + f / t);
    }
    double ew = time_for(ew_bytes * (c->act_bytes / 2.0), c->mem_bw);
    double kernels = sw->kernels_per_layer_fwd * c->kernel_s;
    double gemms = qkv + out + up + down;
    double attn = scores + attn_v + softmax_s;
    lt->fwd = gemms + attn + ew + kernels;
    lt->bwd = 2.0 * gemms + attn_bwd + 2.0 * ew + 2.0 * kernels;
    lt->attn_core = attn;
    lt->attn_fwd = attn;
    lt->attn_bwd = attn_bwd;
    if (moe) {
        struct moe_times mt;
        model_moe_layer(c, &mt);
        lt->fwd += mt.fwd;
        lt->bwd += 2.0 * mt.fwd;
        lt->ep_fwd = mt.a2a_fwd;
    }
    if (c->tp > 1) {
        /* Megatron-Core --tp-comm-overlap (userbuffers) splits each
         * all-gather/reduce-scatter into t chunks pipelined with the GEMM
         * chunks: all but the first chunk can hide, at most behind the GEMM
         * time of the layer (Wang et al. 2022, "Overlap communication with
         * dependent computation via decomposition"). */
        double comm = tp_allreduce_time(c, M * h * c->act_bytes);
        double hidden = sw->tp_comm_overlap * (1.0 - 1.0 / t) * comm;
        double gemm_share = gemms / 4.0; /* one all-reduce per two GEMMs, twice per pass */
        lt->tp_comm = comm - mind(hidden, gemm_share);
    }
    if (c->cp > 1) {
        /* Ring attention overlaps each block's K/V transfer with the
         * attention of the block before (Liu et al. 2023); backward sends
         * K, V and their gradients (twice the bytes) under the backward
         * attention. */
        double ring = model_cp_ring_fwd(c);
        lt->cp_fwd = maxd(0.0, ring - attn);
        lt->cp_bwd = maxd(0.0, 2.0 * ring - attn_bwd);
    }
}

/* ---- networks ---------------------------------------------------------------- */

double model_link_bw(const struct link *l)
{
    return l ? l->bw_gbs * l->nccl_efficiency : 0.0;
}

/* Per-device share of the node's NICs (GB/s, effective). */
double model_nic_share_gbs(const struct ctx *c)
{
    const struct setup *s = c->s;
    if (!c->r->nic || s->cluster.node.nics_per_node < 1)
        return model_link_bw(c->r->intra_link);
    return model_link_bw(c->r->nic) * s->cluster.node.nics_per_node / c->per_node;
}

void model_make_net(const struct ctx *c, int64_t devices, int64_t per_domain,
                    struct collective_net *net)
{
    net->devices = report_int(devices);
    net->per_node = report_int(per_domain < 1 ? 1 : (per_domain > devices ? devices : per_domain));
    net->intra_bw_gbs = model_link_bw(c->r->intra_link);
    net->intra_lat_s = c->r->intra_link->latency_us * 1e-6;
    net->inter_bw_gbs = model_nic_share_gbs(c);
    net->inter_lat_s = (c->r->nic ? c->r->nic->latency_us : c->r->intra_link->latency_us) * 1e-6;
    net->nvls_bw_gbs = c->r->intra_link->nvls_bw_gbs;
    net->nvls_setup_s = c->r->intra_link->nvls_setup_us * 1e-6;
}

/* Tensor-parallel groups are consecutive ranks (Megatron's ordering), so a
 * group stays on one scale-up fabric when it fits. */
static double tp_allreduce_time(const struct ctx *c, double bytes)
{
    struct collective_net net;
    model_make_net(c, c->tp, model_group_in_domain(c, c->tp, 1), &net);
    /* Inside a node NCCL's tree is a chain, no faster than the ring: only
     * NVLink SHARP can beat the ring there. */
    int algo = net.nvls_bw_gbs > 0 ? ALLREDUCE_AUTO : ALLREDUCE_RING;
    return collective_time(COLL_ALL_REDUCE, algo, bytes, &net, NULL);
}

/* ---- pipeline stages ------------------------------------------------------------ */

/* One pipeline stage: its layers and what it holds and runs besides them.
 * The first stage holds the embedding, the last the output layer and the
 * loss (Megatron-Core; Llama 3 paper section 3.3.2). */
struct stage {
    int index, first_layer, layers, moe_layers;
    bool first, last;
    struct layer_params_split params; /* per device (after TP and EP) */
};

static void make_stage(const struct ctx *c, int index, int first_layer, struct stage *st)
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
    struct layer_params_split p = {
        n_dense * c->lp.dense_dense + st->moe_layers * c->lp.moe_dense,
        st->moe_layers * c->lp.moe_experts};
    double vh = (double)s->model.vocab * s->model.hidden;
    /* One embedding copy per stage that holds it; with a single stage a
     * tied output layer shares it. i11 hook: model_shapes.c */
    double emb = (st->first ? vh : 0.0) +
                 (st->last && (c->pp > 1 || !s->model.tied_embeddings) ? vh : 0.0);
    st->params.dense = (p.dense + emb) / c->tp;
    st->params.experts = p.experts / ((double)c->tp * c->ep);
}

/* The stages worth looking at: the first, the second (the first middle one
 * gets the extra layers), the one before the last, and the last. Their
 * maximum is the slowest or most loaded stage without a walk over all p. */
static int candidate_stages(const struct ctx *c, struct stage out[4])
{
    int p = c->pp, n = 0;
    int idx[4] = {0, 1, p - 2, p - 1};
    int last_first = c->s->model.kind == MODEL_TRANSFORMER ? c->s->model.layers : 0;
    for (int i = 0; i < 4; i++) {
        if (idx[i] < 0 || idx[i] >= p)
            continue;
        bool seen = false;
        for (int j = 0; j < n; j++)
            seen = seen || out[j].index == idx[i];
        if (seen)
            continue;
        int first_layer = 0;
        if (idx[i] == 1)
            first_layer = setup_stage_layers(c->s, 0);
        else if (idx[i] == p - 1 && p > 1)
            first_layer = last_first - setup_stage_layers(c->s, p - 1);
        else if (idx[i] == p - 2 && p > 2)
            first_layer = last_first - setup_stage_layers(c->s, p - 1) -
                          setup_stage_layers(c->s, p - 2);
        make_stage(c, idx[i], first_layer, &out[n++]);
    }
    return n;
}

/* ---- memory ------------------------------------------------------------------ */

/* Activation bytes of one layer for one micro-batch on one device,
 * Korthikanti et al. 2022 (Table 2), generalised to grouped-query attention
 * and SwiGLU by counting the same stored tensors; context parallelism
 * divides the sequence (Megatron-Core). An MoE layer stores, instead of the
 * dense MLP, its routed tokens' inner activations (top_k per token, times
 * the load factor of the busiest rank), the shared experts' and the
 * permuted token copies for dispatch and combine. */
static double layer_activation_bytes(const struct ctx *c, bool moe, int recompute)
{
    const struct setup *s = c->s;
    double t = c->tp, seq = (double)s->model.seq_len / c->cp, b = c->mb, h = s->model.hidden;
    double a = s->model.heads, q_dim, kv_dim;
    model_attention_dims(s, &q_dim, &kv_dim); /* i11 hook: head_dim */
    double f = setup_ffn_hidden(s);
    double sbh = seq * b * h;
    double scale = c->act_bytes / 2.0; /* the paper counts 16-bit activations */
    bool sp = s->training.sequence_parallel;
    if (recompute == RECOMPUTE_FULL)
        return 2.0 * sbh / (sp ? t : 1.0) * scale; /* only each layer's input is kept */
    double whole = 10.0 * sbh; /* layer-norm inputs, QKV and MLP inputs, dropout masks */
    double inner = s->model.mlp == MLP_SWIGLU ? 6.0 : 4.0;
    double mlp = inner * seq * b * f;
    if (moe) {
        double fe = setup_expert_ffn_hidden(s);
        double routed = s->model.top_k * maxd(1.0, s->training.capacity_factor);
        /* The permuted tokens each expert GEMM reads are saved for its
         * weight gradient: one 16-bit copy of k h-vectors per token. */
        mlp = inner * seq * b * fe * (routed + s->model.shared_experts) +
              2.0 * seq * b * s->model.top_k * h;
    }
    double split = 4.0 * seq * b * (q_dim + kv_dim) + mlp; /* Q, K, V, attention output, MLP inner */
    double scores = 5.0 * a * seq * s->model.seq_len * b; /* softmax, mask, dropout output */
    if (recompute == RECOMPUTE_SELECTIVE || s->training.flash_attention)
        scores = 0.0;
    if (is_low_precision(s->training.precision)) {
        /* Transformer Engine saves the FP8 casts of the GEMM inputs for the
         * weight gradients: the QKV and fc1 inputs (whole) and the fc2 input
         * (inner) take 1 byte instead of 2. */
        whole -= 2.0 * sbh;
        split -= moe ? model_moe_fp8_saved_bytes_saving(s, seq * b) : seq * b * f; /* i11 hook */
    }
    return ((sp ? whole / t : whole) + (split + scores) / t) * scale;
}

/* Model states of one stage on one device. The software entry says what a
 * parameter costs in mixed precision before sharding (Megatron-Core: bf16
 * weight 2, fp32 main gradient 4, fp32 master 4, Adam 8 = 18 bytes; ZeRO
 * paper: 16); ZeRO stage 1 (the distributed optimizer) shards the master
 * copy and optimizer state, stage 2 also the gradients, stage 3 also the
 * weights (Rajbhandari et al. 2020) over the data-parallel group (x CP,
 * whose ranks hold the same weights); expert parameters over the
 * expert-data-parallel group, DP x CP / EP. FP8 recipes that cache FP8
 * weight copies (Transformer Engine keeps the weight and its transpose) add
 * fp8_weight_bytes. */
struct states {
    double params, grads, optim, experts;
};

static void stage_states(const struct ctx *c, const struct stage *st, struct states *o)
{
    const struct setup *s = c->s;
    int zero = s->training.zero_stage;
    double nd = (double)c->dp * c->cp, ne = nd / c->ep;
    double pd = st->params.dense, pe = st->params.experts;
    double w = c->w_bytes;
    if (is_low_precision(s->training.precision))
        w += c->r->software->fp8_weight_bytes;
    double params_d = pd * w / (zero >= 3 ? nd : 1.0), params_e = pe * w / (zero >= 3 ? ne : 1.0);
    double grads_d = pd * c->grad_bytes / (zero >= 2 ? nd : 1.0);
    double grads_e = pe * c->grad_bytes / (zero >= 2 ? ne : 1.0);
    double optim_d = pd * c->opt_bytes / (zero >= 1 ? nd : 1.0);
    double optim_e = pe * c->opt_bytes / (zero >= 1 ? ne : 1.0);
    o->params = params_d + params_e;
    o->grads = grads_d + grads_e;
    o->optim = optim_d + optim_e;
    o->experts = params_e + grads_e + optim_e;
    if (zero >= 3 && st->layers > 0) {
        /* ZeRO-3/FSDP gathers one layer at a time and prefetches the next:
         * two layers' weights are whole at once. */
        o->params += model_zero3_buffer_bytes(c, (pd + pe * c->ep) / (double)st->layers); /* i11 hook */
    }
}

/* Activations of a stage. 1F1B keeps min(p - i, m) micro-batches in flight
 * on stage i (Narayanan et al. 2021). The interleaved schedule with v chunks
 * runs 2(p - i - 1) + (v - 1) p warm-up chunk forwards before the first
 * backward, at most all m v chunks (Megatron-Core
 * get_num_warmup_microbatches), so stage i holds that many plus one chunks
 * of L_i / v layers; for the first stage this is Korthikanti et al.'s
 * (1 + (p-1)/(p v)) x p micro-batches (2022, section 4.2.3). */
static double stage_activations(const struct ctx *c, const struct stage *st, double *logits)
{
    const struct setup *s = c->s;
    *logits = 0.0;
    if (s->model.kind == MODEL_GENERIC)
        return s->model.activation_bytes_per_sample * c->mb;
    int rc = s->training.recompute;
    double v = s->training.virtual_stages;
    double inflight = mind(c->pp - st->index, c->m); /* in micro-batches of L_i layers */
    if (v > 1) {
        double warmup = 2.0 * (c->pp - st->index - 1) + (v - 1.0) * c->pp;
        inflight = mind(warmup + 1.0, (double)c->m * v) / v;
    }
    int dense = st->layers - st->moe_layers;
    double per_mb = dense * c->act_dense + st->moe_layers * c->act_moe;
    double acts = per_mb * inflight;
    if (rc == RECOMPUTE_FULL) /* the layer being recomputed, whole */
        acts += st->moe_layers > 0 ? c->act_full_moe : c->act_full_dense;
    if (st->last) {
        /* Logits: 16-bit output plus an fp32 copy for the vocabulary-parallel
         * cross entropy, per token and vocabulary entry. */
        *logits = (double)s->model.seq_len / c->cp * c->mb * s->model.vocab / c->tp *
                  (c->act_bytes + 4.0);
    }
    return acts;
}

static void memory_model(const struct ctx *c, struct memory_report *m)
{
    const struct software *sw = c->r->software;
    struct stage stages[4];
    int n = c->s->model.kind == MODEL_GENERIC ? 1 : candidate_stages(c, stages);
    if (c->s->model.kind == MODEL_GENERIC)
        make_stage(c, 0, 0, &stages[0]);
    double best = -1.0;
    for (int i = 0; i < n; i++) {
        struct states st;
        stage_states(c, &stages[i], &st);
        double logits;
        double acts = stage_activations(c, &stages[i], &logits);
        double used = st.params + st.grads + st.optim + acts + logits;
        double reserved = sw->runtime_reserved_gb * GB + sw->fragmentation * used;
        if (used + reserved <= best)
            continue;
        best = used + reserved;
        m->params_gb = st.params / GB;
        m->grads_gb = st.grads / GB;
        m->optimizer_gb = st.optim / GB;
        m->experts_gb = st.experts / GB;
        m->activations_gb = acts / GB;
        m->logits_gb = logits / GB;
        m->reserved_gb = reserved / GB;
        m->per_device_gb = (used + reserved) / GB;
    }
    m->capacity_gb = c->r->accel->mem_gb;
    m->fits = m->per_device_gb <= m->capacity_gb;
}

/* ---- context ---------------------------------------------------------------- */

static void make_ctx(const struct setup *s, const struct resolved *r, struct ctx *c)
{
    memset(c, 0, sizeof *c);
    c->s = s;
    c->r = r;
    c->per_node = at_least_one(s->cluster.node.accelerators_per_node);
    c->nodes = at_least_one(s->cluster.nodes);
    c->devices = c->per_node * c->nodes;
    c->domain = at_least_one(setup_scaleup_domain(s));
    c->tp = at_least_one(s->training.tensor_parallel);
    c->pp = at_least_one(s->training.pipeline_parallel);
    c->cp = at_least_one(s->training.context_parallel);
    c->ep = at_least_one(s->training.expert_parallel);
    c->dp = at_least_one(c->devices / (c->tp * c->pp * c->cp));
    c->mb = at_least_one(s->training.micro_batch);
    c->m = at_least_one(s->training.global_batch / (c->dp * c->mb));
    const struct accelerator *a = r->accel;
    double peak = setup_gemm_peak_tflops(s, a);
    c->peak_flops = (peak > 0 ? peak : 1e-3) * 1e12;
    double vector = setup_vector_peak_tflops(s, a);
    c->vector_peak_flops = (vector > 0 ? vector : 1e-3) * 1e12;
    c->gemm_eff = a->gemm_efficiency;
    c->mem_bw = a->mem_bw_gbs * a->mem_bw_efficiency * 1e9;
    c->kernel_s = a->kernel_overhead_us * 1e-6;
    bool mixed = is_mixed(s->training.precision);
    const struct software *sw = r->software;
    c->act_bytes = mixed ? 2.0 : 4.0;
    c->gemm_in_bytes = s->training.precision == TRAIN_FP4 || s->training.precision == TRAIN_NVFP4
                           ? 0.5
                       : is_low_precision(s->training.precision) ? 1.0
                                                                 : c->act_bytes;
    /* Bytes per parameter from the software entry in mixed precision
     * (weights, gradients, fp32 master); fp32 training keeps 4 + 4 and no
     * separate master. Optimizer state: Adam m and v (8), SGD momentum (4),
     * Adafactor's factored moments (~0). Mixed-precision Adam in the ZeRO
     * paper's convention is 2 + 2 + 12. */
    c->w_bytes = mixed ? sw->weight_bytes : 4.0;
    c->grad_bytes = mixed ? sw->grad_bytes : 4.0;
    double state = s->training.optimizer == OPT_ADAM ? 8.0
                   : s->training.optimizer == OPT_SGD ? 4.0 : 0.0;
    c->opt_bytes = (mixed ? sw->master_bytes : 0.0) + state;
    c->throttle = 1.0;
    if (s->model.kind == MODEL_TRANSFORMER) {
        struct layer_params_split d, m;
        model_layer_params(s, false, &d);
        c->lp.dense_dense = d.dense;
        bool full = s->training.recompute == RECOMPUTE_FULL;
        c->act_dense = layer_activation_bytes(c, false, s->training.recompute);
        c->act_full_dense = full ? layer_activation_bytes(c, false, RECOMPUTE_NONE) : 0.0;
        if (s->model.experts > 0) {
            model_layer_params(s, true, &m);
            c->lp.moe_dense = m.dense;
            c->lp.moe_experts = m.experts;
            c->act_moe = layer_activation_bytes(c, true, s->training.recompute);
            c->act_full_moe = full ? layer_activation_bytes(c, true, RECOMPUTE_NONE) : 0.0;
        }
    }
}

/* ---- the device step ------------------------------------------------------ */

struct device_step {
    double compute, recompute, tp_comm, cp_comm, ep_comm, bubble, p2p, dp_exposed, dp_total;
    double optimizer, straggler, overhead;
    double forward, backward;
    double total;
    double executed_flops, model_flops; /* whole cluster, per step */
    double hardware_flops;              /* model + recomputation, model's convention */
    double params_device;               /* parameters of the busiest stage, per device */
    int dp_algo;
};

/* One stage's times per micro-batch. */
struct stage_time {
    double fwd, bwd, re, tp, cp, ep;
};

static void stage_time(const struct ctx *c, const struct stage *st, const struct layer_times *ld,
                       const struct layer_times *lm, struct stage_time *o)
{
    const struct setup *s = c->s;
    int rc = s->training.recompute;
    double nd = st->layers - st->moe_layers, nm = st->moe_layers;
    double tokens_mb = (double)s->model.seq_len / c->cp * c->mb;
    o->fwd = nd * ld->fwd + nm * lm->fwd;
    o->bwd = nd * ld->bwd + nm * lm->bwd;
    if (st->last) {
        /* The output layer (logits GEMM) and the cross entropy, which reads
         * the 16-bit logits, writes and reads an fp32 copy and writes the
         * 16-bit gradient (memory-bound, 12 bytes per logit over forward and
         * backward). */
        double out_f, out_b; /* i11 hook: model_output.c */
        model_output_layer(c, tokens_mb, &out_f, &out_b);
        o->fwd += out_f;
        o->bwd += out_b;
    }
    if (st->first) /* embedding lookup: gather and scatter-add of s b h */
        o->fwd += time_for(2.0 * tokens_mb * s->model.hidden * c->act_bytes, c->mem_bw);
    o->re = rc == RECOMPUTE_FULL        ? nd * ld->fwd + nm * lm->fwd
            : rc == RECOMPUTE_SELECTIVE ? nd * ld->attn_core + nm * lm->attn_core
                                        : 0.0;
    /* Tensor parallelism: two all-reduces per layer forward and two
     * backward (Shoeybi et al. 2019), two more when the forward is
     * recomputed. */
    double per_layer = rc == RECOMPUTE_FULL ? 6.0 : 4.0;
    o->tp = per_layer * (nd * ld->tp_comm + nm * lm->tp_comm);
    double again = rc == RECOMPUTE_FULL ? 1.0 : 0.0;
    o->cp = nd * ((1.0 + again) * ld->cp_fwd + ld->cp_bwd) +
            nm * ((1.0 + again) * lm->cp_fwd + lm->cp_bwd);
    /* Expert parallelism: dispatch and combine forward, their transposes
     * backward, again when the forward is recomputed. */
    o->ep = nm * model_moe_exposed_a2a(c, (2.0 + again) * lm->ep_fwd, lm->fwd + lm->bwd); /* i11 */
}

static double stage_total(const struct stage_time *t)
{
    return t->fwd + t->bwd + t->re + t->tp + t->cp + t->ep;
}

/* Data-parallel gradient sync of `params` parameters per device over a group
 * of `n` ranks spaced `stride` apart. Stages 0: one all-reduce after the
 * last micro-batch, hidden under its backward when overlap is on (Li et al.
 * 2020, PyTorch DDP buckets). Stage 1 (Megatron-Core's distributed
 * optimizer): one reduce-scatter of the gradients under the last backward
 * (--overlap-grad-reduce) and one all-gather of the updated weights, hidden
 * behind the next step's forward as far as the stack overlaps it
 * (--overlap-param-gather). Stages 2-3 (Rajbhandari et al. 2020): stacks that
 * reduce every micro-batch (DeepSpeed, FSDP) reduce-scatter during each
 * backward; stage 3 also gathers the weights for every forward and backward,
 * prefetched under compute. */
static void dp_sync(const struct ctx *c, double params, int n, int stride, double t_f, double t_b,
                    struct device_step *d)
{
    const struct setup *s = c->s;
    const struct software *sw = c->r->software;
    if (n <= 1 || params <= 0)
        return;
    struct collective_net net;
    model_make_net(c, n, model_group_in_domain(c, n, stride), &net);
    double grads = params * c->grad_bytes, weights = params * c->w_bytes;
    int algo = s->training.allreduce, m = c->m;
    double hide_b = s->training.overlap_grad_sync ? sw->dp_overlap_window * t_b : 0.0;
    double hide_fb = s->training.overlap_grad_sync ? sw->dp_overlap_window * (t_f + t_b) : 0.0;
    /* A reduce-scatter issued after one micro-batch's backward runs on its
     * own stream while the next micro-batch computes (forward and backward);
     * only the last one has just its own backward to hide behind. */
    double hide_gather = sw->param_gather_overlap * t_f;
    int zero = s->training.zero_stage;
    int used = ALLREDUCE_RING;
    if (zero == 0) {
        double ar = collective_time(COLL_ALL_REDUCE, algo, grads, &net, &used);
        d->dp_total += ar;
        d->dp_exposed += maxd(0.0, ar - hide_b);
    } else {
        double rs = collective_time(COLL_REDUCE_SCATTER, algo, grads, &net, &used);
        double ag = collective_time(COLL_ALL_GATHER, algo, weights, &net, NULL);
        if (zero == 3) { /* i11 hook: model_zero.c, per-layer gathers */
            struct zero3_cost z;
            model_zero3_sync(c, &net, algo, params, t_f, t_b, &z);
            d->dp_total += z.total;
            d->dp_exposed += z.exposed;
        } else if (zero == 2 && sw->reduce_per_microbatch) {
            d->dp_total += m * rs + ag;
            d->dp_exposed += (m - 1) * maxd(0.0, rs - hide_fb) + maxd(0.0, rs - hide_b) +
                             maxd(0.0, ag - hide_gather);
        } else {
            d->dp_total += rs + ag;
            d->dp_exposed += maxd(0.0, rs - hide_b) + maxd(0.0, ag - hide_gather);
        }
    }
    d->dp_algo = used;
}

static void device_step_model(const struct ctx *c, struct device_step *d)
{
    const struct setup *s = c->s;
    const struct software *sw = c->r->software;
    memset(d, 0, sizeof *d);
    double samples = s->training.global_batch;
    int m = c->m;
    struct stage stages[4];
    int n_stages = 1;
    struct stage_time slow;
    memset(&slow, 0, sizeof slow);
    const struct stage *busy = &stages[0];
    if (s->model.kind == MODEL_GENERIC) {
        /* Generic model: FLOPs per sample from the user, two thirds in the
         * backward pass (Kaplan et al. 2020: 6N per token = 2N + 4N), as a
         * roofline against the stated memory traffic per FLOP. */
        make_stage(c, 0, 0, &stages[0]);
        double flops_mb = s->model.flops_per_sample * c->mb;
        double t_c = time_for(flops_mb, c->peak_flops * c->gemm_eff * c->throttle);
        double t_m = time_for(flops_mb * s->model.bytes_per_flop, c->mem_bw);
        double t = maxd(t_c, t_m) + c->kernel_s;
        slow.fwd = t / 3.0;
        slow.bwd = 2.0 * t / 3.0;
        slow.re = s->training.recompute == RECOMPUTE_FULL ? slow.fwd : 0.0;
        d->model_flops = s->model.flops_per_sample * samples;
        d->executed_flops = d->model_flops * (slow.re > 0 ? 4.0 / 3.0 : 1.0);
        d->hardware_flops = d->executed_flops;
    } else {
        struct layer_times ld, lm;
        layer_times(c, false, &ld);
        lm = ld;
        if (s->model.experts > 0)
            layer_times(c, true, &lm);
        n_stages = candidate_stages(c, stages);
        /* The slowest stage sets the pace of the pipeline. */
        double worst = -1.0;
        for (int i = 0; i < n_stages; i++) {
            struct stage_time st;
            stage_time(c, &stages[i], &ld, &lm, &st);
            if (stage_total(&st) > worst) {
                worst = stage_total(&st);
                slow = st;
                busy = &stages[i];
            }
        }
        double tokens = (double)s->model.seq_len * samples;
        double fwd = stack_fwd_flops(s, tokens) + logits_fwd_flops(s, tokens);
        d->model_flops = 3.0 * fwd;
        /* Executed FLOPs: a causal fused-attention kernel skips the masked
         * half, and its backward recomputes the scores (2.5x the forward,
         * not 2x); recomputation adds forward work. MFU keeps the published
         * convention (Megatron-LM: full s x s, forward + 2 x backward). */
        double q_dim, kv_dim;
        model_attention_dims(s, &q_dim, &kv_dim); /* i11 hook: head_dim */
        double attn_model = 3.0 * 4.0 * tokens * s->model.seq_len * q_dim * s->model.layers;
        double attn_exec = attn_model;
        if (s->training.flash_attention)
            attn_exec = attn_model / 3.0 * (s->model.causal ? 0.5 : 1.0) * 3.5;
        double attn_fwd_exec = s->training.flash_attention ? attn_exec / 3.5 : attn_model / 3.0;
        double re = s->training.recompute == RECOMPUTE_FULL        ? stack_fwd_flops(s, tokens)
                    : s->training.recompute == RECOMPUTE_SELECTIVE ? attn_fwd_exec
                                                                   : 0.0;
        d->executed_flops = d->model_flops - attn_model + attn_exec + re;
        /* HFU in the MFU convention (full s^2), recomputation added
         * (Korthikanti et al. 2022), so that MFU <= HFU always. */
        d->hardware_flops = d->model_flops + (s->training.recompute == RECOMPUTE_FULL
                                                  ? stack_fwd_flops(s, tokens)
                                              : s->training.recompute == RECOMPUTE_SELECTIVE
                                                  ? attn_model / 3.0
                                                  : 0.0);
    }
    double psi = busy->params.dense + busy->params.experts;
    d->params_device = psi;
    /* Mixed precision accumulates each micro-batch's weight gradients into
     * fp32 buffers (Megatron-LM main_grad): a 4-byte read and write per
     * parameter held, once per micro-batch. With ZeRO stage 2 and above only
     * this rank's shard is kept. */
    double accum_bytes = is_mixed(s->training.precision) ? 8.0 : 2.0 * c->w_bytes;
    double accum_params = s->training.zero_stage >= 2 ? psi / ((double)c->dp * c->cp) : psi;
    slow.bwd += time_for(accum_params * accum_bytes, c->mem_bw);
    double per_mb = stage_total(&slow);
    d->forward = m * slow.fwd;
    d->backward = m * slow.bwd;
    d->compute = m * (slow.fwd + slow.bwd);
    d->recompute = m * slow.re;
    d->tp_comm = m * slow.tp;
    d->cp_comm = m * slow.cp;
    d->ep_comm = m * slow.ep;
    /* 1F1B pipeline bubble: (p-1) micro-batch slots of the slowest stage,
     * i.e. (p-1)/(m+p-1) of the step (Narayanan et al. 2021); the
     * interleaved schedule with v model chunks per stage divides it by v and
     * multiplies the sends by v. */
    double v = s->model.kind == MODEL_TRANSFORMER ? s->training.virtual_stages : 1;
    d->bubble = (c->pp - 1) * per_mb / v;
    if (c->pp > 1) {
        /* Activations cross each stage boundary forward and gradients come
         * back, sharded over the tensor-parallel ranks (scatter/gather). */
        double bytes = (double)s->model.seq_len / c->cp * c->mb * s->model.hidden * c->act_bytes /
                       c->tp;
        int stage_span = c->tp * c->cp * c->dp; /* ranks between neighbouring stages */
        bool inter = stage_span >= c->domain && c->devices > c->domain;
        double bw = (inter ? model_nic_share_gbs(c) : model_link_bw(c->r->intra_link)) * 1e9;
        double lat = (inter && c->r->nic ? c->r->nic->latency_us : c->r->intra_link->latency_us) *
                     1e-6;
        double one = lat + time_for(bytes, bw);
        d->p2p = (1.0 - sw->pp_p2p_overlap) * 2.0 * (m + c->pp - 1) * v * one;
    }
    /* Gradient sync: non-expert parameters over DP x CP (ranks tp apart),
     * expert parameters over DP x CP / EP (ranks tp x cp x ep apart). */
    dp_sync(c, busy->params.dense, c->dp * c->cp, c->tp, slow.fwd, slow.bwd, d);
    dp_sync(c, busy->params.experts, c->dp * c->cp / c->ep, c->tp * c->cp * c->ep, slow.fwd,
            slow.bwd, d);
    /* Optimizer: memory-bound; reads and writes the optimizer state, reads
     * the gradient, writes the new weights, for this device's shard. */
    double nd = s->training.zero_stage >= 1 ? (double)c->dp * c->cp : 1.0;
    double shard = busy->params.dense / nd + busy->params.experts / maxd(1.0, nd / c->ep);
    d->optimizer = time_for(shard * (2.0 * c->opt_bytes + c->grad_bytes + c->w_bytes), c->mem_bw);
    d->overhead = sw->step_overhead_s;
    /* Every synchronous step waits for the slowest device: the compute of
     * each varies by MODEL_COMPUTE_JITTER_CV, and the expected maximum of N
     * normals grows as sqrt(2 ln N), one of the losses that grow with scale. */
    d->straggler = (d->compute + d->recompute) * MODEL_COMPUTE_JITTER_CV *
                   model_expected_max_normal(c->devices);
    d->total = d->compute + d->recompute + d->tp_comm + d->cp_comm + d->ep_comm + d->bubble +
               d->p2p + d->dp_exposed + d->optimizer + d->straggler + d->overhead;
}

/* ---- data path ------------------------------------------------------------------ */

struct data_path {
    double read_s, preprocess_s, h2d_s, bw_gbs, cores_busy, cores_total, lanes_need, lanes_have;
    bool serial;       /* no loader workers or prefetch: nothing overlaps */
};

static void data_path_model(const struct ctx *c, double device_step_s, struct data_path *p)
{
    const struct setup *s = c->s;
    const struct resolved *r = c->r;
    memset(p, 0, sizeof *p);
    double samples = s->training.global_batch;
    double bytes = samples * s->data.sample_bytes * (1.0 - s->data.cache_hit);
    double bw;
    if (s->data.source == DATA_LOCAL && r->local_storage) {
        bw = r->local_storage->read_gbs * c->nodes;
    } else {
        bw = s->cluster.storage_bw_gbs > 0 ? s->cluster.storage_bw_gbs : r->storage->read_gbs;
        if (r->storage->scope == STORAGE_LOCAL)
            bw *= c->nodes; /* a "shared" tier that is really per-node drives */
    }
    p->bw_gbs = bw;
    p->read_s = time_for(bytes, bw * 1e9) + r->storage->latency_us * 1e-6;
    /* Loader workers run on the cores left after the training processes. */
    double cores = (double)s->cluster.node.cpu_sockets * r->cpu->cores;
    double free_cores = maxd(1.0, cores - c->per_node * r->software->loader_reserved_cores);
    double workers = (double)s->data.loader_workers_per_device * c->per_node;
    double eff_workers = workers > 0 ? mind(workers, free_cores) : c->per_node;
    p->preprocess_s =
        time_for(samples * s->data.preprocess_us_per_sample * 1e-6, c->nodes * eff_workers);
    p->cores_total = cores;
    p->cores_busy = device_step_s > 0
                        ? mind(eff_workers, eff_workers * ratio(p->preprocess_s, device_step_s))
                        : 0.0;
    /* Host-to-device copies: each device of the first stage receives its
     * share of the batch over its own host link. When the CPUs have fewer
     * PCIe lanes than the devices and NICs need, the links are shared. */
    double per_device = samples / c->dp * s->data.sample_bytes;
    /* With PCIe switches the CPUs see one x16 uplink per switch, and the
     * devices behind a switch share it (GPUDirect traffic to the NICs stays
     * under the switch); without, every device and NIC needs its own x16. */
    double endpoints = c->per_node + s->cluster.node.nics_per_node;
    int switches = s->cluster.node.pcie_switches;
    p->lanes_need = 16.0 * (switches > 0 ? mind(switches, endpoints) : endpoints);
    p->lanes_have = (double)r->cpu->pcie_lanes * s->cluster.node.cpu_sockets;
    double share = mind(1.0, ratio(p->lanes_have, p->lanes_need));
    if (switches > 0 && switches < c->per_node)
        share *= 1.0 / ceil((double)c->per_node / switches);
    p->h2d_s = time_for(per_device, model_link_bw(r->host_link) * share * 1e9) +
               r->host_link->latency_us * 1e-6;
    p->serial = s->data.prefetch_batches == 0 || s->data.loader_workers_per_device == 0;
}

/* ---- power and cooling ------------------------------------------------------------ */

/* Rack power over cooling capacity, 1 when there is no capacity. */
static double rack_load(const struct power_report *pw)
{
    if (!(pw->rack_cooling_limit_kw > 0))
        return 1.0;
    return ratio(pw->per_rack_kw, pw->rack_cooling_limit_kw);
}

/* Nodes in the fullest rack. */
static double nodes_in_rack(const struct ctx *c)
{
    int64_t per_rack = at_least_one(c->s->facility.nodes_per_rack);
    return (double)(c->nodes < per_rack ? c->nodes : per_rack);
}

static void power_model(const struct ctx *c, double busy, double cpu_util, struct power_report *pw)
{
    const struct setup *s = c->s;
    const struct resolved *r = c->r;
    const struct accelerator *a = r->accel;
    pw->device_w = a->idle_w + (a->tdp_w - a->idle_w) * busy;
    double cpu_w = s->cluster.node.cpu_sockets * (r->cpu->idle_w +
                                                  (r->cpu->tdp_w - r->cpu->idle_w) * cpu_util);
    double nic_w = r->nic ? r->nic->power_w * s->cluster.node.nics_per_node : 0.0;
    pw->node_w = pw->device_w * c->per_node + cpu_w + nic_w + s->cluster.node.other_w;
    pw->it_kw = pw->node_w * c->nodes / 1000.0;
    pw->pue = s->facility.pue > 0 ? s->facility.pue : r->cooling->pue;
    pw->facility_kw = pw->it_kw * pw->pue;
    double in_rack = nodes_in_rack(c);
    pw->per_rack_kw = pw->node_w * in_rack / 1000.0;
    pw->rack_cooling_limit_kw = r->cooling->rack_kw_max;
    /* No cooling at all: everything is over (the throttle finds it cannot run). */
    pw->cooling_headroom = pw->rack_cooling_limit_kw > 0
                               ? 1.0 - pw->per_rack_kw / pw->rack_cooling_limit_kw
                               : -1.0;
    pw->throttle_factor = 1.0;
    pw->throttled = false;
    /* First-order thermal steady state: temperature rises linearly from the
     * inlet to the limit as heat approaches the cooling capacity. */
    double span = r->cooling->limit_c - r->cooling->inlet_c;
    pw->rack_temp_c = r->cooling->inlet_c + span * mind(1.0, rack_load(pw));
}

/* When a rack makes more heat than its cooling removes, devices lower their
 * clocks until it balances. Dynamic power scales with f * V^2 and voltage
 * tracks frequency in the DVFS range, so power ~ f^3 (Weste & Harris, CMOS
 * VLSI Design, ch. 5): the clock share kept is the cube root of the dynamic
 * power share allowed. Returns 0 when even idle devices overheat. */
static double throttle_for_cooling(const struct ctx *c, const struct power_report *pw)
{
    if (pw->per_rack_kw <= pw->rack_cooling_limit_kw)
        return 1.0;
    const struct accelerator *a = c->r->accel;
    double in_rack = nodes_in_rack(c);
    double excess_w = (pw->per_rack_kw - pw->rack_cooling_limit_kw) * 1000.0;
    double allowed = pw->device_w - excess_w / (in_rack * c->per_node);
    double dynamic = pw->device_w - a->idle_w;
    if (allowed <= a->idle_w || dynamic <= 0)
        return 0.0;
    return cbrt((allowed - a->idle_w) / dynamic);
}

/* ---- reliability -------------------------------------------------------------------- */

/* A failure rate beyond this (an MTBF of a few picoseconds) is as good as
 * "always failing"; capping it keeps the figures finite. */
#define MAX_FAILURES_PER_HOUR 1e15

static double failures_per_hour(int64_t count, double mtbf_h)
{
    double rate = ratio((double)count, mtbf_h);
    return mtbf_h > 0 && rate > 0 ? mind(rate, MAX_FAILURES_PER_HOUR) : MAX_FAILURES_PER_HOUR;
}

static void reliability_model(const struct ctx *c, double storage_write_scale,
                              struct reliability_report *rr)
{
    const struct setup *s = c->s;
    double per_hour = mind(failures_per_hour(c->devices, s->reliability.device_mtbf_h) +
                               failures_per_hour(c->nodes, s->reliability.node_mtbf_h),
                           MAX_FAILURES_PER_HOUR);
    rr->interruptions_per_day = per_hour * 24.0;
    rr->mtbf_h = ratio(1.0, per_hour);
    /* A checkpoint holds the weights and the optimizer state (fp32 master
     * and moments), written in parallel by the shards to the shared tier. */
    double bytes = model_params(s) * (c->w_bytes + c->opt_bytes);
    rr->checkpoint_gb = bytes / GB;
    double write_gbs = c->r->storage->write_gbs * storage_write_scale;
    if (c->r->storage->scope == STORAGE_LOCAL)
        write_gbs *= c->nodes;
    rr->checkpoint_write_s = time_for(bytes, write_gbs * 1e9);
    double mtbf_s = rr->mtbf_h * SECONDS_PER_HOUR;
    double delta = rr->checkpoint_write_s;
    double tau = s->reliability.checkpoint_interval_min > 0
                     ? s->reliability.checkpoint_interval_min * 60.0
                     : sqrt(2.0 * delta * mtbf_s); /* Young 1974 */
    if (tau < delta)
        tau = delta;
    rr->checkpoint_interval_min = tau / 60.0;
    /* First-order waste (Daly 2006): the checkpoint stall per interval, plus
     * per failure half an interval of lost work and the restart. */
    double stall = s->reliability.checkpoint_async ? 0.0 : ratio(delta, tau);
    /* No failures at all (mtbf 0 from a zero rate) lose nothing. */
    double lost = ratio(tau / 2.0 + s->reliability.restart_min * 60.0, mtbf_s);
    rr->lost_fraction = stall + lost;
    rr->goodput = maxd(0.0, 1.0 - rr->lost_fraction);
}

/* ---- bottleneck ---------------------------------------------------------------------- */

/* The reasons are built on every evaluation, so they avoid printf (which
 * dominated the profile): numbers go through a small fixed formatter and
 * the sentence is appended piece by piece. */
struct text {
    char *p;
    size_t left;
};

static void put(struct text *t, const char *s)
{
    while (*s && t->left > 1) {
        *t->p++ = *s++;
        t->left--;
    }
    *t->p = '\0';
}

/* Three significant digits at most: 412, 41.2, 4.1, 0.41, 0.0041. */
static void put_num(struct text *t, double v)
{
    char buf[32], *q = buf + sizeof buf - 1;
    *q = '\0';
    if (!isfinite(v) || v < 0)
        v = 0;
    int decimals = v >= 100 ? 0 : v >= 10 ? 1 : 2;
    if (v > 0 && v < 0.1) /* two significant digits for small values */
        for (double x = v * 100; x < 10 && decimals < 9; x *= 10)
            decimals++;
    if (v >= 1e15)
        v = 1e15;
    double scale = 1;
    for (int i = 0; i < decimals; i++)
        scale *= 10;
    unsigned long long n = (unsigned long long)llround(v * scale);
    for (int i = 0; i < decimals; i++) {
        *--q = (char)('0' + n % 10);
        n /= 10;
    }
    if (decimals) {
        /* Drop trailing zeros of the fraction: 4.10 -> 4.1, 4.00 -> 4. */
        char *end = buf + sizeof buf - 1;
        while (end > q && end[-1] == '0')
            *--end = '\0';
        if (end > q)
            *--q = '.';
    }
    do {
        *--q = (char)('0' + n % 10);
        n /= 10;
    } while (n);
    put(t, q);
}

static void stage_reason(const struct ctx *c, const struct model_report *o, int stage, char *buf,
                         size_t len)
{
    struct text t = {buf, len};
    const struct stage_times *st = &o->stages;
    buf[0] = '\0';
    switch (stage) {
    case STAGE_DATA:
        put(&t, "storage delivers ");
        put_num(&t, st->storage_bw_gbs);
        put(&t, " GB/s; the devices consume ");
        put_num(&t, st->need_bw_gbs);
        put(&t, " GB/s");
        break;
    case STAGE_CPUS:
        if (st->preprocess_s >= st->h2d_s) {
            put(&t, "loader workers prepare ");
            put_num(&t, ratio(c->s->training.global_batch, st->preprocess_s));
            put(&t, " samples/s; the devices consume ");
            put_num(&t, ratio(c->s->training.global_batch, o->device_step_s));
        } else {
            double per_dev = c->s->training.global_batch / (double)c->dp * c->s->data.sample_bytes;
            put(&t, "host links carry ");
            put_num(&t, ratio(per_dev, st->h2d_s) / 1e9);
            put(&t, " GB/s per device; the devices need ");
            put_num(&t, ratio(per_dev, o->device_step_s) / 1e9);
            put(&t, " GB/s");
        }
        break;
    case STAGE_ACCELERATORS:
        put(&t, "compute-bound: devices busy ");
        put_num(&t, 100.0 * o->utilization[STAGE_ACCELERATORS]);
        put(&t, "% of the step at ");
        put_num(&t, 100.0 * o->achieved_fraction);
        put(&t, "% of peak");
        break;
    case STAGE_INTERCONNECT: {
        const struct step_breakdown *k = &o->breakdown;
        const char *biggest = "gradient sync";
        double top = k->dp_comm_exposed;
        if (k->tp_comm > top)
            biggest = "tensor-parallel all-reduces", top = k->tp_comm;
        if (k->pp_bubble > top)
            biggest = "the pipeline bubble", top = k->pp_bubble;
        if (k->pp_p2p > top)
            biggest = "pipeline sends", top = k->pp_p2p;
        if (k->cp_comm > top)
            biggest = "the context-parallel ring exchange", top = k->cp_comm;
        if (k->ep_comm > top)
            biggest = "expert all-to-alls", top = k->ep_comm;
        put(&t, "communication takes ");
        put_num(&t, k->tp_comm + k->cp_comm + k->ep_comm + k->pp_bubble + k->pp_p2p +
                        k->dp_comm_exposed);
        put(&t, " s of the ");
        put_num(&t, o->step_time_s);
        put(&t, " s step, most of it ");
        put(&t, biggest);
        put(&t, " (");
        put_num(&t, top);
        put(&t, " s)");
        break;
    }
    default:
        if (o->power.throttled) {
            put(&t, "racks make ");
            put_num(&t, o->power.per_rack_kw);
            put(&t, " kW of heat; cooling removes ");
            put_num(&t, o->power.rack_cooling_limit_kw);
            put(&t, " kW: clocks at ");
            put_num(&t, 100.0 * o->power.throttle_factor);
            put(&t, "%");
        } else {
            put(&t, "racks draw ");
            put_num(&t, o->power.per_rack_kw);
            put(&t, " kW of ");
            put_num(&t, o->power.rack_cooling_limit_kw);
            put(&t, " kW cooling capacity");
        }
        break;
    }
}

/* The time each stage imposes on a step; the largest is the bottleneck. */
static void stage_pressure(const struct model_report *o, double out[STAGE_COUNT])
{
    const struct stage_times *st = &o->stages;
    const struct step_breakdown *k = &o->breakdown;
    out[STAGE_DATA] = st->read_s;
    out[STAGE_CPUS] = maxd(st->preprocess_s, st->h2d_s);
    out[STAGE_ACCELERATORS] = k->compute + k->recompute + k->optimizer;
    out[STAGE_INTERCONNECT] =
        k->tp_comm + k->cp_comm + k->ep_comm + k->pp_bubble + k->pp_p2p + k->dp_comm_exposed;
    /* Throttling costs the compute time it adds. */
    double f = o->power.throttle_factor;
    out[STAGE_INFRASTRUCTURE] = f > 0 && f < 1 ? (k->compute + k->recompute) * (1.0 - f) : 0.0;
}

static void name_bottleneck(const struct ctx *c, struct model_report *o)
{
    double p[STAGE_COUNT];
    stage_pressure(o, p);
    int first = STAGE_ACCELERATORS;
    if (o->starvation > 0) {
        /* The devices wait: the data path sets the pace. */
        first = p[STAGE_DATA] >= p[STAGE_CPUS] ? STAGE_DATA : STAGE_CPUS;
    } else if (o->power.throttled) {
        first = STAGE_INFRASTRUCTURE;
    } else if (p[STAGE_INTERCONNECT] > p[STAGE_ACCELERATORS]) {
        first = STAGE_INTERCONNECT;
    }
    int second = -1;
    for (int i = 0; i < STAGE_COUNT; i++)
        if (i != first && (second < 0 || p[i] > p[second]))
            second = i;
    o->bottleneck = first;
    o->next_bottleneck = second;
    stage_reason(c, o, first, o->bottleneck_reason, sizeof o->bottleneck_reason);
    stage_reason(c, o, second, o->next_reason, sizeof o->next_reason);
}

/* ---- suggestions when it does not fit ---------------------------------------------- */

/* The scale-out search stops here (65,536 nodes). */
#define SCALE_OUT_MAX_NODES ((int64_t)1 << 16)

static double memory_of(const struct setup *s, const struct resolved *r)
{
    struct ctx c;
    make_ctx(s, r, &c);
    struct memory_report m;
    memory_model(&c, &m);
    return m.per_device_gb;
}

/* Cheap validity check for a changed setup (the cross-checks of setup.c that
 * a memory suggestion could break). */
static bool shape_ok(const struct setup *s)
{
    int64_t dev = setup_devices(s), tp = s->training.tensor_parallel,
            pp = s->training.pipeline_parallel, cp = s->training.context_parallel;
    if (tp < 1 || pp < 1 || cp < 1 || dev % (tp * pp * cp) != 0)
        return false;
    if (s->model.kind == MODEL_TRANSFORMER && (s->model.heads < 1 || setup_kv_heads(s) < 1))
        return false;
    if (s->model.kind == MODEL_TRANSFORMER &&
        (s->model.heads % tp != 0 || pp > s->model.layers ||
         (setup_kv_heads(s) % tp != 0 && tp % setup_kv_heads(s) != 0)))
        return false;
    return true;
}

static void add_suggestion(struct model_report *o, double base_gb,
                           const struct setup *changed, const struct resolved *r,
                           const char *text, const char *changes)
{
    if (o->n_suggestions >= SUGGESTION_MAX || !shape_ok(changed))
        return;
    double after = memory_of(changed, r);
    double saves = base_gb - after;
    if (saves <= 0.001)
        return;
    struct suggestion *g = &o->suggestions[o->n_suggestions++];
    snprintf(g->text, sizeof g->text, "%s", text);
    snprintf(g->changes, sizeof g->changes, "%s", changes);
    g->saves_gb = saves;
    g->per_device_gb = after;
    g->fits = after <= r->accel->mem_gb;
}

static void suggest_fits(const struct setup *s, const struct resolved *r, struct model_report *o)
{
    struct setup t;
    char text[160], changes[192];
    int64_t dp = setup_data_parallel(s);
    if (dp > 1 && s->training.zero_stage < 3) {
        t = *s;
        t.training.zero_stage = 3;
        add_suggestion(o, o->memory.per_device_gb, &t, r, "ZeRO stage 3: shard weights, gradients and optimizer state",
                       "training.zero_stage=3");
    }
    if (s->model.kind == MODEL_TRANSFORMER && s->training.recompute != RECOMPUTE_FULL) {
        t = *s;
        t.training.recompute = RECOMPUTE_FULL;
        add_suggestion(o, o->memory.per_device_gb, &t, r, "full activation recomputation", "training.recompute=full");
    }
    if (s->training.tensor_parallel > 1 && !s->training.sequence_parallel) {
        t = *s;
        t.training.sequence_parallel = true;
        add_suggestion(o, o->memory.per_device_gb, &t, r, "sequence parallelism", "training.sequence_parallel=true");
    }
    int64_t tp2 = (int64_t)s->training.tensor_parallel * 2;
    if (s->model.kind == MODEL_TRANSFORMER && tp2 <= s->cluster.node.accelerators_per_node) {
        t = *s;
        t.training.tensor_parallel = (int)tp2;
        snprintf(text, sizeof text, "tensor parallelism %lld", (long long)tp2);
        snprintf(changes, sizeof changes, "training.tensor_parallel=%lld", (long long)tp2);
        add_suggestion(o, o->memory.per_device_gb, &t, r, text, changes);
    }
    if (s->training.micro_batch > 1) {
        t = *s;
        t.training.micro_batch = 1;
        add_suggestion(o, o->memory.per_device_gb, &t, r, "micro-batch 1", "training.micro_batch=1");
    }
    /* Scale out when no single change fits: the smallest device count
     * (whole nodes, ZeRO-3 and full recomputation) at which the model fits. */
    bool any_fits = false;
    for (int i = 0; i < o->n_suggestions; i++)
        any_fits = any_fits || o->suggestions[i].fits;
    if (!any_fits && o->n_suggestions < SUGGESTION_MAX) {
        t = *s;
        t.training.zero_stage = 3;
        if (t.model.kind == MODEL_TRANSFORMER)
            t.training.recompute = RECOMPUTE_FULL;
        t.training.tensor_parallel = 1;
        t.training.pipeline_parallel = 1;
        int64_t per = at_least_one(t.cluster.node.accelerators_per_node);
        int64_t mb = at_least_one(s->training.micro_batch);
        for (int64_t nodes = at_least_one(s->cluster.nodes); nodes <= SCALE_OUT_MAX_NODES;
             nodes *= 2) {
            int64_t dev = nodes * per, unit = dev * mb, batch = s->training.global_batch;
            if (unit > INT_MAX)
                break; /* the batch would not fit the setup's field */
            t.cluster.nodes = (int)nodes;
            t.training.global_batch = (int)(batch < unit ? unit : batch / unit * unit);
            if (dev > 1 && memory_of(&t, r) <= r->accel->mem_gb) {
                snprintf(text, sizeof text,
                         "scale out to %lld devices (%lld nodes) with ZeRO stage 3%s",
                         (long long)dev, (long long)nodes,
                         t.model.kind == MODEL_TRANSFORMER ? " and full recomputation" : "");
                snprintf(changes, sizeof changes,
                         "cluster.nodes=%lld training.zero_stage=3 training.tensor_parallel=1 "
                         "training.pipeline_parallel=1 training.global_batch=%d%s",
                         (long long)nodes, t.training.global_batch,
                         t.model.kind == MODEL_TRANSFORMER ? " training.recompute=full" : "");
                add_suggestion(o, o->memory.per_device_gb, &t, r, text, changes);
                break;
            }
        }
    }
}

/* The part of the step that reached the time ceiling, for the message. */
static const char *stalled_part(const struct model_report *o)
{
    const struct stage_times *st = &o->stages;
    if (st->read_s >= MODEL_TIME_CEILING_S)
        return "storage reads (storage bandwidth)";
    if (st->preprocess_s >= MODEL_TIME_CEILING_S)
        return "loader workers (CPU cores, preprocessing time)";
    if (st->h2d_s >= MODEL_TIME_CEILING_S)
        return "host-to-device copies (host link, PCIe lanes)";
    if (o->breakdown.tp_comm + o->breakdown.cp_comm + o->breakdown.ep_comm + o->breakdown.pp_p2p +
            o->breakdown.dp_comm_exposed >=
        MODEL_TIME_CEILING_S)
        return "communication (link or network bandwidth)";
    return "the device step (compute, memory bandwidth, efficiencies)";
}

/* Adds a reason a setup cannot run; several may apply. */
static void cannot_run(struct model_report *o, const char *fmt, ...)
{
    o->runnable = false;
    size_t used = strlen(o->why_not);
    if (used && used + 2 < sizeof o->why_not) {
        memcpy(o->why_not + used, "; ", 3);
        used += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->why_not + used, sizeof o->why_not - used, fmt, ap);
    va_end(ap);
}

/* Copies a string into a fixed buffer, truncating (no printf: every
 * evaluation does this). */
static void copy_text(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (n >= size)
        n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* ---- the whole report ------------------------------------------------------------- */

void model_eval(const struct setup *s, const struct resolved *r, struct model_report *o)
{
    memset(o, 0, sizeof *o);
    struct ctx c;
    make_ctx(s, r, &c);
    o->devices = report_int(c.devices);
    o->nodes = report_int(c.nodes);
    o->racks = report_int(setup_racks(s));
    o->dp = report_int(c.dp);
    o->tp = report_int(c.tp);
    o->pp = report_int(c.pp);
    o->cp = report_int(c.cp);
    o->ep = report_int(c.ep);
    o->micro_batches = report_int(c.m);
    /* The resolved layout, echoed (eval text and JSON). */
    o->vp = s->model.kind == MODEL_TRANSFORMER ? s->training.virtual_stages : 1;
    o->zero_stage = s->training.zero_stage;
    copy_text(o->recompute, sizeof o->recompute, recompute_names[s->training.recompute]);
    copy_text(o->precision, sizeof o->precision, train_precision_names[s->training.precision]);
    copy_text(o->software, sizeof o->software, r->software->head.id);
    o->params = model_params(s);
    o->peak_tflops = c.peak_flops / 1e12;
    o->runnable = true;

    memory_model(&c, &o->memory);

    /* Pass 1 at full clocks gives utilization, hence power; if the racks
     * overheat, pass 2 reruns the step at the throttled clocks. */
    struct device_step d;
    device_step_model(&c, &d);
    struct data_path dpth;
    data_path_model(&c, d.total, &dpth);
    double busy = ratio(d.compute + d.recompute + d.optimizer, maxd(d.total, 1e-12));
    /* A device waiting on communication or in a pipeline bubble keeps its
     * clocks up and runs NCCL kernels: it draws DEVICE_WAIT_DYNAMIC_SHARE of
     * its dynamic power, not idle. */
    busy = mind(1.0, busy) + DEVICE_WAIT_DYNAMIC_SHARE * (1.0 - mind(1.0, busy));
    double cpu_util = mind(1.0, ratio(dpth.cores_busy, maxd(dpth.cores_total, 1.0)));
    power_model(&c, mind(1.0, busy), cpu_util, &o->power);
    double f = throttle_for_cooling(&c, &o->power);
    bool cannot_cool = false;
    if (f < 1.0) {
        o->power.throttled = true;
        o->power.throttle_factor = f;
        if (f <= 0.0) {
            cannot_cool = true;
            cannot_run(o,
                       "racks make %.1f kW of heat but %s removes %.1f kW per rack: even idle "
                       "devices overheat (fewer nodes per rack or better cooling)",
                       o->power.per_rack_kw, r->cooling->head.name,
                       o->power.rack_cooling_limit_kw);
            f = 1.0; /* times below are what it would do if it could be cooled */
        }
        c.throttle = f;
        device_step_model(&c, &d);
        data_path_model(&c, d.total, &dpth);
        /* At the balance point the rack draws exactly its cooling capacity;
         * the devices shed the whole excess (CPUs, NICs and the rest of the
         * node keep their draw). */
        double keep = o->power.throttle_factor;
        power_model(&c, mind(1.0, busy), cpu_util, &o->power);
        o->power.throttled = true;
        o->power.throttle_factor = keep;
        double rack_nodes = nodes_in_rack(&c);
        double rest_w = o->power.node_w - o->power.device_w * c.per_node;
        o->power.per_rack_kw = o->power.rack_cooling_limit_kw;
        o->power.node_w = o->power.per_rack_kw * 1000.0 / rack_nodes;
        o->power.device_w = (o->power.node_w - rest_w) / (double)c.per_node;
        o->power.it_kw = o->power.node_w * c.nodes / 1000.0;
        o->power.facility_kw = o->power.it_kw * o->power.pue;
        o->power.cooling_headroom = 0.0;
        o->power.rack_temp_c = r->cooling->limit_c;
    }

    /* Combine device step and data path. */
    double data_period = maxd(dpth.read_s, maxd(dpth.preprocess_s, dpth.h2d_s));
    struct step_breakdown *k = &o->breakdown;
    k->compute = d.compute;
    k->recompute = d.recompute;
    k->tp_comm = d.tp_comm;
    k->cp_comm = d.cp_comm;
    k->ep_comm = d.ep_comm;
    k->pp_bubble = d.bubble;
    k->pp_p2p = d.p2p;
    k->dp_comm_exposed = d.dp_exposed;
    k->optimizer = d.optimizer;
    k->straggler = d.straggler;
    k->overhead = d.overhead;
    o->device_step_s = d.total;
    if (dpth.serial) {
        /* Without workers or prefetch the step waits for every part. */
        k->data_read = dpth.read_s;
        k->preprocess = dpth.preprocess_s;
        k->host_to_device = dpth.h2d_s;
        o->step_time_s = d.total + dpth.read_s + dpth.preprocess_s + dpth.h2d_s;
    } else {
        /* Prefetch overlaps the data path with compute; only the excess of
         * its slowest stage shows, as starvation. */
        double excess = maxd(0.0, data_period - d.total);
        if (dpth.read_s >= dpth.preprocess_s && dpth.read_s >= dpth.h2d_s)
            k->data_read = excess;
        else if (dpth.preprocess_s >= dpth.h2d_s)
            k->preprocess = excess;
        else
            k->host_to_device = excess;
        o->step_time_s = d.total + excess;
    }
    o->starvation = ratio(o->step_time_s - d.total, o->step_time_s);

    struct stage_times *st = &o->stages;
    st->read_s = dpth.read_s;
    st->preprocess_s = dpth.preprocess_s;
    st->h2d_s = dpth.h2d_s;
    st->device_s = d.total;
    st->forward_s = d.forward;
    st->backward_s = d.backward;
    st->dp_comm_s = d.dp_total;
    st->tp_comm_s = d.tp_comm;
    st->storage_bw_gbs = dpth.bw_gbs;
    double bytes = s->training.global_batch * s->data.sample_bytes * (1.0 - s->data.cache_hit);
    st->need_bw_gbs = ratio(bytes, d.total) / 1e9;
    st->cpu_cores_total = dpth.cores_total;
    st->cpu_cores_busy = mind(dpth.cores_total, dpth.cores_busy * ratio(d.total, o->step_time_s));
    o->pcie_lanes_needed = dpth.lanes_need;
    o->pcie_lanes_have = dpth.lanes_have;
    o->pcie_lanes_ok = dpth.lanes_have >= dpth.lanes_need;
    o->host_ram_ok = s->cluster.node.host_ram_gb >= r->accel->mem_gb * c.per_node;

    /* Throughput and efficiency. */
    double tokens_per_sample = s->model.kind == MODEL_TRANSFORMER ? s->model.seq_len : 1.0;
    o->samples_per_s = ratio(s->training.global_batch, o->step_time_s);
    o->tokens_per_s = o->samples_per_s * tokens_per_sample;
    o->flops_per_step = d.executed_flops;
    o->model_flops_per_step = d.model_flops;
    double peak_all = c.peak_flops * c.devices;
    o->tflops_per_device = ratio(d.executed_flops, o->step_time_s * c.devices) / 1e12;
    o->mfu = ratio(d.model_flops, o->step_time_s * peak_all);
    o->hfu = ratio(d.hardware_flops, o->step_time_s * peak_all);
    double compute_time = d.compute + d.recompute;
    o->achieved_fraction = compute_time > 0
                               ? ratio(d.executed_flops, c.devices * compute_time * c.peak_flops)
                               : 0.0;

    o->utilization[STAGE_DATA] = mind(1.0, ratio(dpth.read_s, o->step_time_s));
    o->utilization[STAGE_CPUS] =
        mind(1.0, ratio(maxd(dpth.preprocess_s, dpth.h2d_s), o->step_time_s));
    o->utilization[STAGE_ACCELERATORS] =
        mind(1.0, ratio(d.compute + d.recompute + d.optimizer, o->step_time_s));
    o->utilization[STAGE_INTERCONNECT] =
        mind(1.0, ratio(d.tp_comm + d.cp_comm + d.ep_comm + d.p2p + d.dp_total, o->step_time_s));
    o->utilization[STAGE_INFRASTRUCTURE] = mind(1.0, rack_load(&o->power));

    /* Energy, reliability, cost. */
    o->power.energy_per_step_j = o->power.facility_kw * 1000.0 * o->step_time_s;
    o->power.energy_per_token_j =
        ratio(o->power.energy_per_step_j, s->training.global_batch * tokens_per_sample);
    double write_scale = s->cluster.storage_bw_gbs > 0 && r->storage->read_gbs > 0
                             ? s->cluster.storage_bw_gbs / r->storage->read_gbs
                             : 1.0;
    reliability_model(&c, write_scale, &o->reliability);
    if (o->reliability.goodput <= 0.0)
        cannot_run(o,
                   "failures every %.2g h leave no time to make progress between checkpoints "
                   "(%.0f s each)",
                   o->reliability.mtbf_h, o->reliability.checkpoint_write_s);
    double per_hour = s->facility.device_usd_per_hour >= 0 ? s->facility.device_usd_per_hour
                                                           : r->accel->usd_per_hour;
    struct cost_report *cost = &o->cost;
    cost->usd_per_hour = c.devices * per_hour +
                         o->power.facility_kw * s->facility.electricity_usd_per_kwh;
    double useful_rate = o->samples_per_s * tokens_per_sample * maxd(o->reliability.goodput, 1e-9);
    double seconds = time_for(s->training.tokens, useful_rate);
    cost->days_to_train = seconds / SECONDS_PER_DAY;
    double hours = seconds / SECONDS_PER_HOUR;
    cost->energy_mwh = o->power.facility_kw * hours / 1000.0;
    cost->usd_energy = cost->energy_mwh * 1000.0 * s->facility.electricity_usd_per_kwh;
    cost->usd_devices = c.devices * per_hour * hours;
    cost->usd_total = cost->usd_energy + cost->usd_devices;

    if (!o->memory.fits) {
        /* Built without printf: this runs on every evaluation that does
         * not fit, which sweeps do by the thousand. */
        char msg[160];
        struct text m = {msg, sizeof msg};
        put(&m, "needs ");
        put_num(&m, o->memory.per_device_gb);
        put(&m, " GB per device but ");
        put(&m, r->accel->head.id);
        put(&m, " has ");
        put_num(&m, o->memory.capacity_gb);
        put(&m, " GB");
        cannot_run(o, "%s", msg);
        suggest_fits(s, r, o);
    }
    name_bottleneck(&c, o);
    if (cannot_cool) {
        /* Racks that cannot be cooled make no progress at all. A setup that
         * only fails to fit keeps its would-be throughput (flagged by
         * runnable = false and why_not) so that it can be compared. */
        o->tokens_per_s = o->samples_per_s = o->tflops_per_device = 0.0;
        o->mfu = o->hfu = 0.0;
    }
    if (cannot_cool || o->reliability.goodput <= 0.0) {
        cost->days_to_train = cost->energy_mwh = cost->usd_total = 0.0;
        cost->usd_energy = cost->usd_devices = 0.0;
    }

    if (o->step_time_s >= MODEL_TIME_CEILING_S)
        cannot_run(o, "%s: a capacity of the setup or catalog is zero or too small to model (a "
                      "step would take longer than %.0g years)",
                   stalled_part(o), MODEL_TIME_CEILING_S / (365.25 * SECONDS_PER_DAY));

    /* Every number finite, whatever the input; one that is not shows that
     * the input is outside what the model can describe. */
    const char *bad = report_sanitize(o);
    if (bad)
        cannot_run(o, "the model gives no finite %s for this setup (an input is outside what it "
                      "can describe)",
                   bad);
}

/* ---- memory alone (the planner's cheap first check) ------------------------------- */

void model_memory(const struct setup *s, const struct resolved *r, struct memory_report *out)
{
    struct ctx c;
    make_ctx(s, r, &c);
    memory_model(&c, out);
}
