/* model_parallel: mixture-of-experts layers, expert and context parallelism
 * and the layer layout of uneven pipelines. Formulas and sources:
 * docs/MODEL.md, sections 1, 3 and 4. Nothing here allocates. */
#include "model_internal.h"

#include <math.h>

static double mlp_matrices(const struct setup *s)
{
    return s->model.mlp == MLP_SWIGLU ? 3.0 : 2.0;
}

/* Attention (Q and O h x h, K and V h x kv_dim; grouped-query attention,
 * Ainslie et al. 2023) and two layer norms; the MLP is dense (two matrices
 * for GeLU, three for SwiGLU, Shazeer 2020) or a mixture of experts: a router
 * h x E, E routed experts and the shared experts, each an MLP of inner size
 * expert_ffn_hidden (GShard, Lepikhin et al. 2021; DeepSeekMoE, Dai et al.
 * 2024). */
void model_layer_params(const struct setup *s, bool moe, struct layer_params_split *out)
{
    double h = s->model.hidden;
    struct attention_widths w; /* head_dim, latent attention: model_shapes.c */
    model_attention_widths(s, &w);
    /* Biases: one vector per biased projection, as wide as its output. */
    int bias = s->model.attention_bias;
    double attention = w.weights + w.norms + 4.0 * h +
                       (bias != ATTN_BIAS_NONE ? w.q + w.k + w.v : 0.0) +
                       (bias == ATTN_BIAS_ALL ? h : 0.0);
    double mats = mlp_matrices(s), mb = s->model.mlp_bias ? 1.0 : 0.0;
    if (!moe) {
        double f = setup_ffn_hidden(s);
        out->dense = attention + mats * h * f + mb * ((mats - 1.0) * f + h);
        out->experts = 0.0;
        return;
    }
    double fe = setup_expert_ffn_hidden(s), expert = mats * h * fe + mb * ((mats - 1.0) * fe + h);
    double experts = s->model.experts;
    out->dense = attention + experts * (h + mb) + s->model.shared_experts * expert;
    out->experts = experts * expert;
}

/* 2 FLOPs per multiply-add over every GEMM. Dense layers: with kv = heads,
 * f = 4h and GeLU this is 24Th^2 + 4Tsh (Narayanan et al. 2021, eq. 3). An
 * MoE layer runs the router and, per token, top_k routed plus the shared
 * experts: only the active parameters count. */
double model_layer_fwd_flops(const struct setup *s, bool moe, double tokens)
{
    double h = s->model.hidden, seq = s->model.seq_len;
    struct attention_widths w; /* head_dim, latent attention: model_shapes.c */
    model_attention_widths(s, &w);
    double proj = 2.0 * tokens * w.weights;
    double attn = 2.0 * tokens * seq * (w.q + w.out); /* QK^T and attention x V, full s x s */
    double mats = mlp_matrices(s);
    double mlp;
    if (moe) {
        double active = (double)s->model.top_k + s->model.shared_experts;
        mlp = 2.0 * tokens * h * setup_expert_ffn_hidden(s) * mats * active +
              2.0 * tokens * h * s->model.experts;
    } else {
        mlp = 2.0 * tokens * h * setup_ffn_hidden(s) * mats;
    }
    return proj + attn + mlp;
}

int64_t model_group_in_domain(const struct ctx *c, int64_t n, int64_t stride)
{
    if (stride < 1)
        stride = 1;
    if ((double)n * stride <= c->domain)
        return n;
    int64_t inside = c->domain / stride;
    return inside < 1 ? 1 : (inside > n ? n : inside);
}

int64_t model_ep_stride(const struct ctx *c)
{
    /* With MoE parallel folding the expert ranks are etp apart. */
    return c->s->training.expert_tensor_parallel > 0 ? c->etp : c->tp * c->cp;
}

double model_alltoall_time(const struct ctx *c, double bytes, int64_t n, int64_t stride)
{
    if (n <= 1 || bytes <= 0)
        return 0.0;
    struct collective_net net;
    model_make_net(c, n, model_group_in_domain(c, n, stride), &net);
    return collective_time(COLL_ALL_TO_ALL, ALLREDUCE_AUTO, bytes, &net, NULL);
}

/* Tokens of the busiest expert-parallel rank over the mean. Dropless routing
 * (Megatron-Core's default) sends every token to its experts: with routing
 * balanced in expectation (auxiliary loss, Fedus et al. 2022) the load of a
 * rank is a sum of M k Bernoulli draws and the busiest of ep ranks sits about
 * sqrt(2 ln ep) standard deviations above the mean (expected maximum of
 * normals, as the step loop's stragglers). With a capacity factor the
 * experts are padded to capacity (Megatron-Core
 * --moe-pad-expert-input-to-capacity; GShard's capacity): every rank does
 * capacity_factor times the mean. */
static double load_factor(const struct ctx *c, double tokens_k)
{
    double cf = c->s->training.capacity_factor;
    if (cf > 0)
        return cf;
    if (c->ep <= 1 || tokens_k <= 0)
        return 1.0;
    return 1.0 + sqrt(2.0 * log((double)c->ep) / tokens_k);
}

void model_moe_layer(const struct ctx *c, struct moe_times *out)
{
    const struct setup *s = c->s;
    double t = c->tp, h = s->model.hidden, fe = setup_expert_ffn_hidden(s);
    double et = c->etp; /* y2026: the experts' own tensor-parallel size */
    double M = (double)s->model.seq_len * c->mb / c->cp; /* tokens on this device */
    double k = s->model.top_k, experts = s->model.experts;
    double local = experts / c->ep;
    double up_mats = s->model.mlp == MLP_SWIGLU ? 2.0 : 1.0;
    double load = load_factor(c, M * k);
    /* The expert GEMMs of an expert-tensor group run on the tokens of its
     * et ranks, each holding M / t of them under sequence parallelism (the
     * tensor group's tokens split over it), each rank 1/et of the width:
     * M et / t tokens (M when et = t; MoE parallel folding, Liu et al. 2025,
     * arXiv 2504.14960, section 3). */
    double M_e = M * et / t;
    /* Each expert-parallel rank brings M_e tokens with k choices each; the
     * ep ranks' experts share them: ep M_e k / E tokens per expert. */
    double per_expert = c->ep * M_e * k / experts * load;
    double router = model_gemm_time(c, 1, M, experts, h);
    double up =
        model_moe_expert_gemms(c, local, per_expert, up_mats * fe / et, h); /* model_moe.c */
    double down = model_moe_expert_gemms(c, local, per_expert, h, fe / et);
    double shared = 0.0;
    if (s->model.shared_experts > 0) {
        double fs = s->model.shared_experts * fe;
        shared =
            model_gemm_time(c, 1, M, up_mats * fs / t, h) + model_gemm_time(c, 1, M, h, fs / t);
    }
    /* Element-wise traffic: the activation function on every routed inner
     * element (the stack's SwiGLU count, 4 for GeLU, as the dense MLP), the
     * permutations of tokens into expert order and back (model_moe.c), the router's softmax/top-k
     * on M x E scores. */
    double act_fn = s->model.mlp == MLP_SWIGLU ? c->r->software->swiglu_bytes_per_inner : 4.0;
    double ew_elems = act_fn * M_e * k * load * fe / et + model_moe_permute_bytes(c, M) +
                      4.0 * M * experts; /* i11 hook: model_moe.c */
    if (s->model.shared_experts > 0)
        ew_elems += act_fn * M * s->model.shared_experts * fe / t;
    double ew = model_time_for(ew_elems / 2.0 * c->act_bytes, c->mem_bw); /* 16-bit counts */
    /* Issue 21: the fc2 bias added per local expert after the GEMMs
     * (model_moe.c); the fc2 output is h wide on every expert-tensor rank. */
    model_moe_bias_loop(c, local, M_e * k * load * h, &out->bias_fwd, &out->bias_bwd);
    out->fwd = router + up + down + shared + ew + 4.0 * c->kernel_s + out->bias_fwd;
    out->load_factor = load;
    /* Dispatch and combine (Megatron-Core alltoall token dispatcher): each
     * device sends its M/t tokens (sequence parallel splits them over the
     * tensor group) to k experts, h 16-bit values each; ranks are tp x cp
     * apart. */
    double bytes = M / t * k * h * 2.0;
    int64_t stride = model_ep_stride(c);
    out->a2a_fwd = s->training.moe_dispatcher == MOE_DISPATCH_DEEPEP
                       ? model_deepep_time(c, bytes, c->ep, stride)
                       : 2.0 * model_alltoall_time(c, bytes, c->ep, stride);
}

/* Ring attention (Liu et al. 2023; Megatron-Core context parallelism): each
 * of the cp - 1 steps passes this rank's K and V block (s/cp tokens, the
 * rank's kv heads) to the next rank. Ranks are tp apart. */
double model_cp_ring_fwd(const struct ctx *c)
{
    if (c->cp <= 1)
        return 0.0;
    const struct setup *s = c->s;
    double q_dim, kv_dim;
    model_attention_dims(s, &q_dim, &kv_dim); /* i11 hook: head_dim */
    double bytes = 2.0 * (double)s->model.seq_len / c->cp * c->mb * kv_dim / c->tp * 2.0;
    bool inside = model_group_in_domain(c, c->cp, c->tp) == c->cp;
    const struct link *intra = c->r->intra_link;
    double bw = (inside ? model_link_bw(intra) : model_nic_share_gbs(c)) * 1e9;
    double lat = (inside || !c->r->nic ? intra->latency_us : c->r->nic->latency_us) * 1e-6;
    return (c->cp - 1) * (lat + model_time_for(bytes, bw));
}

int model_moe_layers_in(const struct setup *s, int first, int n)
{
    if (s->model.experts <= 0)
        return 0;
    int start = first > s->model.dense_layers ? first : s->model.dense_layers;
    int end = first + n;
    return end > start ? end - start : 0;
}
