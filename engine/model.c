/* model: the analytic model of one training step. See docs/MODEL.md for
 * every formula with its source. Nothing here allocates. */
#include "model.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

const char *const stage_names[] = {"data", "cpus", "accelerators", "interconnect",
                                   "infrastructure", NULL};
const char *const stage_titles[] = {"Data", "CPUs", "Accelerators", "Interconnects & networking",
                                    "Supporting infrastructure", NULL};

enum { GB = 1000000000 };
#define SECONDS_PER_DAY 86400.0
#define SECONDS_PER_HOUR 3600.0

/* Everything the parts of the model share, derived once per evaluation. */
struct ctx {
    const struct setup *s;
    const struct resolved *r;
    /* Counts in 64 bits: devices x micro-batch overflows an int within
     * the accepted ranges. All at least 1. */
    int64_t devices, per_node, nodes, tp, pp, dp, mb, m;
    double peak_flops;  /* dense, chosen precision, one device */
    double gemm_eff;
    double mem_bw;      /* achievable bytes/s */
    double kernel_s;
    double act_bytes;   /* bytes per activation element */
    double w_bytes;     /* bytes per weight / gradient */
    double opt_bytes;   /* optimizer bytes per parameter (incl. fp32 master) */
    double throttle;    /* clock share kept */
};

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

static bool is_16bit(int precision)
{
    return precision == PREC_BF16 || precision == PREC_FP16 || precision == PREC_FP8 ||
           precision == PREC_INT8;
}

/* ---- parameters ----------------------------------------------------------- */

/* Parameters of one transformer layer: Q and O projections h x h, K and V
 * h x kv_dim (grouped-query attention, Ainslie et al. 2023), the MLP (two
 * matrices for GeLU, three for SwiGLU, Shazeer 2020) and two layer norms. */
static double layer_params(const struct setup *s)
{
    double h = s->model.hidden, f = setup_ffn_hidden(s);
    double kv_dim = h * setup_kv_heads(s) / s->model.heads;
    double mlp_mats = s->model.mlp == MLP_SWIGLU ? 3.0 : 2.0;
    return 2.0 * h * h + 2.0 * h * kv_dim + mlp_mats * h * f + 4.0 * h;
}

double model_params(const struct setup *s)
{
    if (s->model.kind == MODEL_GENERIC)
        return s->model.params;
    /* Embedding V x h shared with the output layer (Megatron ties them). */
    return s->model.layers * layer_params(s) + (double)s->model.vocab * s->model.hidden;
}

/* ---- FLOPs ---------------------------------------------------------------- */

/* Forward FLOPs of one layer for T tokens of sequence s: 2 FLOPs per
 * multiply-add over every GEMM. With kv = heads, f = 4h and GeLU this is
 * 24Th^2 + 4Tsh, the per-layer term of Narayanan et al. 2021 (eq. 3). */
static double layer_fwd_flops(const struct setup *s, double tokens)
{
    double h = s->model.hidden, f = setup_ffn_hidden(s), seq = s->model.seq_len;
    double kv_dim = h * setup_kv_heads(s) / s->model.heads;
    double mlp_mats = s->model.mlp == MLP_SWIGLU ? 3.0 : 2.0;
    double proj = 2.0 * tokens * h * (h + 2.0 * kv_dim) + 2.0 * tokens * h * h;
    double attn = 4.0 * tokens * seq * h; /* QK^T and attention x V, full s x s */
    double mlp = 2.0 * tokens * h * f * mlp_mats;
    return proj + attn + mlp;
}

static double logits_fwd_flops(const struct setup *s, double tokens)
{
    return 2.0 * tokens * s->model.hidden * s->model.vocab;
}

/* ---- roofline of one GEMM -------------------------------------------------- */

/* Time of `batch` GEMMs of M x N x K on one device: the slower of the compute
 * time (peak x measured large-GEMM efficiency x wave quantization) and the
 * memory time (reading both inputs, writing the output), plus one kernel's
 * fixed cost. Wave quantization: output tiles are spread over the compute
 * units in waves and the last wave runs partly empty (NVIDIA, "Matrix
 * Multiplication Background User's Guide", 2023). */
static double gemm_time(const struct ctx *c, double batch, double M, double N, double K)
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
    double elem = c->act_bytes;
    double bytes = batch * (M * K + K * N + M * N) * elem;
    double t_memory = time_for(bytes, c->mem_bw);
    return maxd(t_compute, t_memory) + c->kernel_s;
}

/* Per-device times of one micro-batch through one layer. */
struct layer_times {
    double fwd;        /* forward: GEMMs + element-wise */
    double bwd;        /* backward: two GEMMs per forward GEMM + element-wise */
    double attn_core;  /* QK^T, softmax, attention x V (selective recompute) */
    double tp_comm;    /* one all-reduce of the layer output */
};

static double tp_allreduce_time(const struct ctx *c, double bytes);

static void layer_times(const struct ctx *c, struct layer_times *lt)
{
    const struct setup *s = c->s;
    double t = c->tp, b = c->mb, seq = s->model.seq_len, h = s->model.hidden;
    double heads = s->model.heads, d = h / heads, f = setup_ffn_hidden(s);
    double kv_dim = d * setup_kv_heads(s);
    double M = seq * b;
    double mlp_up = (s->model.mlp == MLP_SWIGLU ? 2.0 : 1.0) * f / t;

    double qkv = gemm_time(c, 1, M, (h + 2.0 * kv_dim) / t, h);
    double out = gemm_time(c, 1, M, h, h / t);
    double up = gemm_time(c, 1, M, mlp_up, h);
    double down = gemm_time(c, 1, M, h, f / t);
    double heads_local = b * heads / t;
    double scores, attn_v, softmax_s;
    const struct software *sw = c->r->software;
    if (s->training.flash_attention) {
        /* Fused attention (Dao et al. 2022) never writes the s x s scores:
         * compute-bound at the software's attention efficiency, no softmax
         * traffic; with a causal mask it skips the blocks above the
         * diagonal, half the work. */
        double flops = 4.0 * heads_local * seq * seq * d * (s->model.causal ? 0.5 : 1.0);
        scores = time_for(flops, c->peak_flops * c->gemm_eff * sw->attention_efficiency *
                                     c->throttle) +
                 c->kernel_s;
        attn_v = 0.0;
        softmax_s = 0.0;
    } else {
        scores = gemm_time(c, heads_local, seq, seq, d);
        attn_v = gemm_time(c, heads_local, seq, d, seq);
        softmax_s = time_for(sw->softmax_bytes_as2b * heads_local * seq * seq *
                                 (c->act_bytes / 2.0),
                             c->mem_bw);
    }
    /* Element-wise traffic (layer norms, residuals, dropout, activation
     * function) splits across tensor-parallel ranks the way Korthikanti et
     * al. 2022 split activations: 10 of 34 parts stay whole without sequence
     * parallelism. */
    double split = s->training.sequence_parallel ? 1.0 / t : (10.0 + 24.0 / t) / 34.0;
    /* The MLP activation function reads and writes the inner activations:
     * GeLU one 2-byte read and write per element (4 bytes), SwiGLU reads
     * gate and up and writes their product (6 bytes). */
    double act_fn_bytes = (s->model.mlp == MLP_SWIGLU ? 6.0 : 4.0) * M * f / t;
    double ew = time_for((sw->elementwise_bytes_sbh * M * h * split + act_fn_bytes) *
                             (c->act_bytes / 2.0),
                         c->mem_bw);
    double kernels = sw->kernels_per_layer_fwd * c->kernel_s;
    double gemms = qkv + out + up + down + scores + attn_v;
    lt->fwd = gemms + ew + softmax_s + kernels;
    lt->bwd = 2.0 * gemms + 2.0 * (ew + softmax_s) + 2.0 * kernels;
    lt->attn_core = scores + attn_v + softmax_s;
    lt->tp_comm = c->tp > 1 ? tp_allreduce_time(c, M * h * c->act_bytes) : 0.0;
}

/* ---- networks ---------------------------------------------------------------- */

static double link_bw(const struct link *l)
{
    return l ? l->bw_gbs * l->nccl_efficiency : 0.0;
}

/* Per-device share of the node's NICs (GB/s, effective). */
static double nic_share_gbs(const struct ctx *c)
{
    const struct setup *s = c->s;
    if (!c->r->nic || s->cluster.node.nics_per_node < 1)
        return link_bw(c->r->intra_link);
    return link_bw(c->r->nic) * s->cluster.node.nics_per_node / c->per_node;
}

static void make_net(const struct ctx *c, int64_t devices, int64_t per_node,
                     struct collective_net *net)
{
    net->devices = report_int(devices);
    net->per_node = report_int(per_node < 1 ? 1 : (per_node > devices ? devices : per_node));
    net->intra_bw_gbs = link_bw(c->r->intra_link);
    net->intra_lat_s = c->r->intra_link->latency_us * 1e-6;
    net->inter_bw_gbs = nic_share_gbs(c);
    net->inter_lat_s = (c->r->nic ? c->r->nic->latency_us : c->r->intra_link->latency_us) * 1e-6;
}

/* Tensor-parallel groups are consecutive ranks (Megatron's ordering), so a
 * group stays inside a node when it fits. */
static double tp_allreduce_time(const struct ctx *c, double bytes)
{
    struct collective_net net;
    make_net(c, c->tp, c->tp <= c->per_node ? c->tp : c->per_node, &net);
    return collective_time(COLL_ALL_REDUCE, ALLREDUCE_RING, bytes, &net, NULL);
}

/* Data-parallel members per node: tensor-parallel groups fill a node first,
 * then data-parallel ranks. */
static int64_t dp_per_node(const struct ctx *c)
{
    int64_t groups = c->per_node / c->tp;
    if (groups < 1)
        groups = 1;
    return groups < c->dp ? groups : c->dp;
}

/* ---- memory ------------------------------------------------------------------ */

/* Activation bytes of one layer for one micro-batch on one device,
 * Korthikanti et al. 2022 (Table 2), generalised to grouped-query attention
 * and SwiGLU by counting the same stored tensors. */
static double layer_activation_bytes(const struct ctx *c)
{
    const struct setup *s = c->s;
    double t = c->tp, seq = s->model.seq_len, b = c->mb, h = s->model.hidden;
    double a = s->model.heads, g = (double)setup_kv_heads(s) / a;
    double f = setup_ffn_hidden(s);
    double sbh = seq * b * h;
    double scale = c->act_bytes / 2.0; /* the paper counts 16-bit activations */
    bool sp = s->training.sequence_parallel;
    if (s->training.recompute == RECOMPUTE_FULL)
        return 2.0 * sbh / (sp ? t : 1.0) * scale; /* only each layer's input is kept */
    double whole = 10.0 * sbh; /* layer-norm inputs, QKV and MLP inputs, dropout masks */
    double mlp = (s->model.mlp == MLP_SWIGLU ? 6.0 : 4.0) * seq * b * f;
    double split = (4.0 + 4.0 * g) * sbh + mlp; /* Q, K, V, attention output, MLP inner */
    double scores = 5.0 * a * seq * seq * b;  /* softmax output, mask, dropout output */
    if (s->training.recompute == RECOMPUTE_SELECTIVE || s->training.flash_attention)
        scores = 0.0;
    return ((sp ? whole / t : whole) + (split + scores) / t) * scale;
}

/* Full activations of one layer (what a fully recomputed layer rebuilds
 * during its backward pass). */
static double layer_activation_bytes_full(const struct ctx *c)
{
    struct setup tmp = *c->s;
    tmp.training.recompute = RECOMPUTE_NONE;
    struct ctx c2 = *c;
    c2.s = &tmp;
    return layer_activation_bytes(&c2);
}

/* Parameters held by one device of the first (heaviest) pipeline stage. */
static double device_params(const struct ctx *c)
{
    const struct setup *s = c->s;
    if (s->model.kind == MODEL_GENERIC)
        return s->model.params;
    double layers = ceil((double)s->model.layers / c->pp);
    return (layers * layer_params(s) + (double)s->model.vocab * s->model.hidden) / c->tp;
}

static void memory_model(const struct ctx *c, struct memory_report *m)
{
    const struct setup *s = c->s;
    const struct software *sw = c->r->software;
    double psi = device_params(c);
    double nd = c->dp;
    int zero = s->training.zero_stage;
    /* ZeRO (Rajbhandari et al. 2020): stage 1 shards optimizer states,
     * stage 2 also gradients, stage 3 also parameters, over Nd ranks. */
    double params = psi * c->w_bytes / (zero >= 3 ? nd : 1.0);
    double grads = psi * c->w_bytes / (zero >= 2 ? nd : 1.0);
    double optim = psi * c->opt_bytes / (zero >= 1 ? nd : 1.0);
    double acts, logits = 0.0;
    if (s->model.kind == MODEL_GENERIC) {
        acts = s->model.activation_bytes_per_sample * c->mb;
    } else {
        double layers = ceil((double)s->model.layers / c->pp);
        /* 1F1B keeps up to p micro-batches in flight on the first stage
         * (Narayanan et al. 2021), so it holds l/p layers x p micro-batches. */
        double inflight = mind(c->pp, c->m);
        /* Interleaving keeps (1 + (p-1)/(p v)) times more in flight
         * (Korthikanti et al. 2022, section 4.2.3). */
        double v = s->training.virtual_stages;
        if (v > 1)
            inflight *= 1.0 + (c->pp - 1.0) / (c->pp * v);
        double first = layers * layer_activation_bytes(c) * inflight;
        if (s->training.recompute == RECOMPUTE_FULL)
            first += layer_activation_bytes_full(c); /* the layer being recomputed */
        /* Logits of the last stage: 16-bit output plus an fp32 copy for the
         * vocabulary-parallel cross entropy, per token and vocabulary entry. */
        logits = (double)s->model.seq_len * c->mb * s->model.vocab / c->tp * (c->act_bytes + 4.0);
        double last = layers * layer_activation_bytes(c) + logits;
        if (c->pp > 1) {
            /* Report the heavier of the first and last stage. */
            if (first + 0.0 >= last) {
                logits = 0.0;
                acts = first;
            } else {
                acts = layers * layer_activation_bytes(c);
            }
        } else {
            acts = first;
        }
    }
    double used = params + grads + optim + acts + logits;
    double reserved = sw->runtime_reserved_gb * GB + sw->fragmentation * used;
    m->params_gb = params / GB;
    m->grads_gb = grads / GB;
    m->optimizer_gb = optim / GB;
    m->activations_gb = acts / GB;
    m->logits_gb = logits / GB;
    m->reserved_gb = reserved / GB;
    m->per_device_gb = (used + reserved) / GB;
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
    c->tp = at_least_one(s->training.tensor_parallel);
    c->pp = at_least_one(s->training.pipeline_parallel);
    c->dp = at_least_one(c->devices / (c->tp * c->pp));
    c->mb = at_least_one(s->training.micro_batch);
    c->m = at_least_one(s->training.global_batch / (c->dp * c->mb));
    const struct accelerator *a = r->accel;
    double peak = a->peak_tflops[s->training.precision];
    c->peak_flops = (peak > 0 ? peak : 1e-3) * 1e12;
    c->gemm_eff = a->gemm_efficiency;
    c->mem_bw = a->mem_bw_gbs * a->mem_bw_efficiency * 1e9;
    c->kernel_s = a->kernel_overhead_us * 1e-6;
    bool half = is_16bit(s->training.precision);
    c->act_bytes = half ? 2.0 : 4.0;
    c->w_bytes = half ? 2.0 : 4.0;
    /* Optimizer bytes per parameter: a 4-byte fp32 master copy in mixed
     * precision, plus the optimizer's own state: Adam m and v (8), SGD
     * momentum (4), Adafactor's factored moments (~0). Mixed-precision Adam
     * is the K = 12 of the ZeRO paper. */
    double state = s->training.optimizer == OPT_ADAM ? 8.0
                   : s->training.optimizer == OPT_SGD ? 4.0 : 0.0;
    c->opt_bytes = (half ? 4.0 : 0.0) + state;
    c->throttle = 1.0;
}

/* ---- the device step ------------------------------------------------------ */

struct device_step {
    double compute, recompute, tp_comm, bubble, p2p, dp_exposed, dp_total, optimizer, overhead;
    double forward, backward;
    double total;
    double executed_flops, model_flops; /* whole cluster, per step */
    int dp_algo;
};

static void device_step_model(const struct ctx *c, struct device_step *d)
{
    const struct setup *s = c->s;
    const struct software *sw = c->r->software;
    memset(d, 0, sizeof *d);
    double samples = s->training.global_batch;
    double psi = device_params(c);
    double m = (double)c->m;
    double t_f, t_b, t_re, t_tp;
    if (s->model.kind == MODEL_GENERIC) {
        /* Generic model: FLOPs per sample from the user, two thirds in the
         * backward pass (Kaplan et al. 2020: 6N per token = 2N + 4N), as a
         * roofline against the stated memory traffic per FLOP. */
        double flops_mb = s->model.flops_per_sample * c->mb;
        double t_c = time_for(flops_mb, c->peak_flops * c->gemm_eff * c->throttle);
        double t_m = time_for(flops_mb * s->model.bytes_per_flop, c->mem_bw);
        double t = maxd(t_c, t_m) + c->kernel_s;
        t_f = t / 3.0;
        t_b = 2.0 * t / 3.0;
        t_re = s->training.recompute == RECOMPUTE_FULL ? t_f : 0.0;
        t_tp = 0.0;
        d->model_flops = s->model.flops_per_sample * samples;
        d->executed_flops = d->model_flops * (t_re > 0 ? 4.0 / 3.0 : 1.0);
    } else {
        struct layer_times lt;
        layer_times(c, &lt);
        double layers = ceil((double)s->model.layers / c->pp);
        double tokens_mb = (double)s->model.seq_len * c->mb;
        /* The last stage also runs the output layer (logits GEMM). */
        double logits_f = gemm_time(c, 1, tokens_mb, (double)s->model.vocab / c->tp,
                                    s->model.hidden);
        t_f = layers * lt.fwd + logits_f;
        t_b = layers * lt.bwd + 2.0 * logits_f;
        t_re = s->training.recompute == RECOMPUTE_FULL        ? layers * lt.fwd
               : s->training.recompute == RECOMPUTE_SELECTIVE ? layers * lt.attn_core
                                                              : 0.0;
        /* Tensor parallelism: two all-reduces per layer forward and two
         * backward (Shoeybi et al. 2019), two more when the forward is
         * recomputed. They sit on the critical path. */
        double per_layer = s->training.recompute == RECOMPUTE_FULL ? 6.0 : 4.0;
        t_tp = layers * per_layer * lt.tp_comm;
        double tokens = (double)s->model.seq_len * samples;
        double layers_all = s->model.layers;
        double fwd = layers_all * layer_fwd_flops(s, tokens) + logits_fwd_flops(s, tokens);
        d->model_flops = 3.0 * fwd;
        double re = s->training.recompute == RECOMPUTE_FULL
                        ? layers_all * layer_fwd_flops(s, tokens)
                    : s->training.recompute == RECOMPUTE_SELECTIVE
                        ? layers_all * 4.0 * tokens * s->model.seq_len * s->model.hidden
                        : 0.0;
        d->executed_flops = d->model_flops + re;
    }
    /* Mixed precision accumulates each micro-batch's weight gradients into
     * fp32 buffers (Megatron-LM main_grad): a 4-byte read and write per
     * parameter held, once per micro-batch. With ZeRO stage 2 and above only
     * this rank's shard is kept. */
    double accum_bytes = is_16bit(s->training.precision) ? 8.0 : 2.0 * c->w_bytes;
    double accum_params = s->training.zero_stage >= 2 ? psi / c->dp : psi;
    double accum = time_for(accum_params * accum_bytes, c->mem_bw);
    t_b += accum;
    double per_mb = t_f + t_b + t_re + t_tp;
    d->forward = m * t_f;
    d->backward = m * t_b;
    d->compute = m * (t_f + t_b);
    d->recompute = m * t_re;
    d->tp_comm = m * t_tp;
    /* 1F1B pipeline bubble: (p-1) micro-batch slots, i.e. (p-1)/(m+p-1) of
     * the step (Narayanan et al. 2021); the interleaved schedule with v model
     * chunks per stage divides it by v and multiplies the sends by v. */
    double v = s->model.kind == MODEL_TRANSFORMER ? s->training.virtual_stages : 1;
    d->bubble = (c->pp - 1) * per_mb / v;
    if (c->pp > 1) {
        /* Activations cross each stage boundary forward and gradients come
         * back, sharded over the tensor-parallel ranks (scatter/gather). */
        double bytes = (double)s->model.seq_len * c->mb * s->model.hidden * c->act_bytes / c->tp;
        bool inter = c->tp * c->dp >= c->per_node && c->nodes > 1;
        double bw = (inter ? nic_share_gbs(c) : link_bw(c->r->intra_link)) * 1e9;
        double lat = (inter && c->r->nic ? c->r->nic->latency_us : c->r->intra_link->latency_us) *
                     1e-6;
        double one = lat + time_for(bytes, bw);
        d->p2p = (1.0 - sw->pp_p2p_overlap) * 2.0 * (m + c->pp - 1) * v * one;
    }
    /* Data-parallel gradient sync. Stages 0-1: one all-reduce (with ZeRO-1
     * a reduce-scatter plus an all-gather of the same volume) of this
     * device's gradients after the last micro-batch, hidden under its
     * backward when overlap is on (Li et al. 2020, PyTorch DDP buckets).
     * Stages 2-3 (Rajbhandari et al. 2020) reduce-scatter during every
     * micro-batch's backward and all-gather the updated weights after the
     * optimizer; stage 3 also gathers the weights for every forward and
     * backward, prefetched under compute. */
    if (c->dp > 1) {
        struct collective_net net;
        make_net(c, c->dp, dp_per_node(c), &net);
        double bytes = psi * c->w_bytes;
        int algo = s->training.allreduce;
        double hide_b = s->training.overlap_grad_sync ? sw->dp_overlap_window * t_b : 0.0;
        double hide_fb =
            s->training.overlap_grad_sync ? sw->dp_overlap_window * (t_f + t_b) : 0.0;
        if (s->training.zero_stage <= 1) {
            d->dp_total = collective_time(COLL_ALL_REDUCE, algo, bytes, &net, &d->dp_algo);
            d->dp_exposed = maxd(0.0, d->dp_total - hide_b);
        } else {
            double rs = collective_time(COLL_REDUCE_SCATTER, algo, bytes, &net, &d->dp_algo);
            double ag = collective_time(COLL_ALL_GATHER, algo, bytes, &net, NULL);
            if (s->training.zero_stage == 2) {
                d->dp_total = m * rs + ag;
                d->dp_exposed = m * maxd(0.0, rs - hide_b) + ag;
            } else {
                d->dp_total = m * (rs + 2.0 * ag);
                d->dp_exposed = m * maxd(0.0, rs + 2.0 * ag - hide_fb);
            }
        }
    }
    /* Optimizer: memory-bound; reads and writes the optimizer state, reads
     * the gradient, writes the new weights, for this device's shard. */
    double shard = psi / (s->training.zero_stage >= 1 ? c->dp : 1);
    d->optimizer = time_for(shard * (2.0 * c->opt_bytes + 2.0 * c->w_bytes), c->mem_bw);
    d->overhead = sw->step_overhead_s;
    d->total = d->compute + d->recompute + d->tp_comm + d->bubble + d->p2p + d->dp_exposed +
               d->optimizer + d->overhead;
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
    p->lanes_need = 16.0 * (c->per_node + s->cluster.node.nics_per_node);
    p->lanes_have = (double)r->cpu->pcie_lanes * s->cluster.node.cpu_sockets;
    double share = mind(1.0, ratio(p->lanes_have, p->lanes_need));
    p->h2d_s = time_for(per_device, link_bw(r->host_link) * share * 1e9) +
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
        put(&t, "communication takes ");
        put_num(&t, k->tp_comm + k->pp_bubble + k->pp_p2p + k->dp_comm_exposed);
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
    out[STAGE_INTERCONNECT] = k->tp_comm + k->pp_bubble + k->pp_p2p + k->dp_comm_exposed;
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
            pp = s->training.pipeline_parallel;
    if (tp < 1 || pp < 1 || dev % (tp * pp) != 0)
        return false;
    if (s->model.kind == MODEL_TRANSFORMER && (s->model.heads < 1 || setup_kv_heads(s) < 1))
        return false;
    if (s->model.kind == MODEL_TRANSFORMER &&
        (s->model.heads % tp != 0 || pp > s->model.layers ||
         (setup_kv_heads(s) % tp != 0 && tp % setup_kv_heads(s) != 0)))
        return false;
    return true;
}

static void add_suggestion(struct model_report *o, const struct setup *base,
                           const struct setup *changed, const struct resolved *r,
                           const char *text, const char *changes)
{
    if (o->n_suggestions >= SUGGESTION_MAX || !shape_ok(changed))
        return;
    double after = memory_of(changed, r);
    double saves = memory_of(base, r) - after;
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
        add_suggestion(o, s, &t, r, "ZeRO stage 3: shard weights, gradients and optimizer state",
                       "training.zero_stage=3");
    }
    if (s->model.kind == MODEL_TRANSFORMER && s->training.recompute != RECOMPUTE_FULL) {
        t = *s;
        t.training.recompute = RECOMPUTE_FULL;
        add_suggestion(o, s, &t, r, "full activation recomputation", "training.recompute=full");
    }
    if (s->training.tensor_parallel > 1 && !s->training.sequence_parallel) {
        t = *s;
        t.training.sequence_parallel = true;
        add_suggestion(o, s, &t, r, "sequence parallelism", "training.sequence_parallel=true");
    }
    int64_t tp2 = (int64_t)s->training.tensor_parallel * 2;
    if (s->model.kind == MODEL_TRANSFORMER && tp2 <= s->cluster.node.accelerators_per_node) {
        t = *s;
        t.training.tensor_parallel = (int)tp2;
        snprintf(text, sizeof text, "tensor parallelism %lld", (long long)tp2);
        snprintf(changes, sizeof changes, "training.tensor_parallel=%lld", (long long)tp2);
        add_suggestion(o, s, &t, r, text, changes);
    }
    if (s->training.micro_batch > 1) {
        t = *s;
        t.training.micro_batch = 1;
        add_suggestion(o, s, &t, r, "micro-batch 1", "training.micro_batch=1");
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
                add_suggestion(o, s, &t, r, text, changes);
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
    if (o->breakdown.tp_comm + o->breakdown.pp_p2p + o->breakdown.dp_comm_exposed >=
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
    o->micro_batches = report_int(c.m);
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
    k->pp_bubble = d.bubble;
    k->pp_p2p = d.p2p;
    k->dp_comm_exposed = d.dp_exposed;
    k->optimizer = d.optimizer;
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
    o->hfu = ratio(d.executed_flops, o->step_time_s * peak_all);
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
        mind(1.0, ratio(d.tp_comm + d.p2p + d.dp_total, o->step_time_s));
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
        cannot_run(o, "needs %.1f GB per device but %s has %.0f GB", o->memory.per_device_gb,
                   r->accel->head.id, o->memory.capacity_gb);
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
