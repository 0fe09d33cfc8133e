/* model_flops: parameters and FLOPs of the model in a setup: the counts
 * behind MFU and HFU (docs/MODEL.md, section 1). Nothing here allocates. */
#include <math.h>

#include "model.h"
#include "model_internal.h"

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
    double total =
        p.dense + p.experts + model_embedding_copies(s) * s->model.vocab * s->model.hidden;
    if (s->model.mtp_layers > 0) { /* y2026: each module one layer and a 2h x h projection */
        struct layer_params_split m;
        model_layer_params(s, s->model.experts > 0, &m);
        total +=
            s->model.mtp_layers * (m.dense + m.experts + 2.0 * s->model.hidden * s->model.hidden);
    }
    return total;
}

/* Parameters one token passes through: the routed experts count top_k of
 * experts (the "activated parameters" of Mixtral, DeepSeek-V2/V3 and
 * Qwen3-MoE); a dense model's are all of them. */
double model_params_active(const struct setup *s)
{
    if (s->model.kind == MODEL_GENERIC || s->model.experts <= 0)
        return model_params(s);
    struct layer_params_split p;
    stack_params(s, 0, s->model.layers, &p);
    return p.dense + p.experts * (double)s->model.top_k / (double)s->model.experts +
           model_embedding_copies(s) * s->model.vocab * s->model.hidden;
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

/* FLOPs of a transformer step, whole cluster: the model's (MFU), the
 * executed ones and the hardware's (HFU). */
void model_transformer_flops(const struct ctx *c, struct device_step *d)
{
    const struct setup *s = c->s;
    double samples = s->training.global_batch;
    double tokens = (double)s->model.seq_len * samples;
    double fwd = stack_fwd_flops(s, tokens) + logits_fwd_flops(s, tokens);
    if (s->model.mtp_layers > 0) /* y2026: multi-token prediction modules */
        fwd += s->model.mtp_layers *
               (model_layer_fwd_flops(s, s->model.experts > 0, tokens) +
                logits_fwd_flops(s, tokens) + 4.0 * tokens * s->model.hidden * s->model.hidden);
    /* Executed FLOPs: a causal fused-attention kernel skips the masked
     * half, and its backward recomputes the scores (2.5x the forward,
     * not 2x); recomputation adds forward work. MFU keeps the published
     * convention (Megatron-LM: full s x s, forward + 2 x backward). */
    struct attention_widths w; /* scores over q, values over every query head (out) */
    model_attention_widths(s, &w);
    /* Every layer's attention, the MTP modules' included (their layers run
     * the same kernels); only the main layers' is recomputed. */
    double layers = s->model.layers, all = layers + s->model.mtp_layers;
    double attn_model = 3.0 * 2.0 * tokens * s->model.seq_len * (w.q + w.out) * all;
    double main = layers / all; /* the main layers' share of it */
    /* LoRA (y2026): the frozen base weights get no weight gradients, so the
     * backward of every weight GEMM is one GEMM (dgrad), not two; attention
     * has no weights and keeps its whole backward (model_lora.c). */
    d->model_flops = c->lora ? 2.0 * fwd + attn_model / 3.0 : 3.0 * fwd;
    double attn_exec = attn_model;
    if (s->training.flash_attention)
        attn_exec = attn_model / 3.0 * (s->model.causal ? 0.5 : 1.0) * 3.5;
    double attn_fwd_exec =
        main * (s->training.flash_attention ? attn_exec / 3.5 : attn_model / 3.0);
    /* Per-op checkpointing re-runs half the linear layers (y2026). */
    double op_re = 0.5 * (stack_fwd_flops(s, tokens) - main * attn_model / 3.0);
    double re = s->training.recompute == RECOMPUTE_FULL        ? stack_fwd_flops(s, tokens)
                : s->training.recompute == RECOMPUTE_SELECTIVE ? attn_fwd_exec
                : s->training.recompute == RECOMPUTE_OP        ? op_re
                                                               : 0.0;
    d->executed_flops = d->model_flops - attn_model + attn_exec + re;
    /* i20: with a capacity factor every expert runs capacity_factor times
     * its mean load (model_parallel.c): below 1 the dropped tokens are not
     * computed, above 1 the padding is. */
    double cf = s->training.capacity_factor;
    int n_moe = s->model.experts > 0 ? model_moe_layers_in(s, 0, s->model.layers) : 0;
    if (cf > 0 && n_moe > 0) {
        double mats = s->model.mlp == MLP_SWIGLU ? 3.0 : 2.0;
        double routed = 2.0 * tokens * s->model.top_k * s->model.hidden *
                        (double)setup_expert_ffn_hidden(s) * mats;
        /* forward, input gradients and (not under LoRA: frozen experts)
         * weight gradients, and the forward again under full recomputation
         * (the main layers'; the MTP modules' MoE layers are not recomputed) */
        double passes = c->lora ? 2.0 : 3.0;
        double re_passes = s->training.recompute == RECOMPUTE_FULL ? 1.0 : 0.0;
        d->executed_flops +=
            routed * (cf - 1.0) * ((passes + re_passes) * n_moe + passes * s->model.mtp_layers);
    }
    /* HFU in the MFU convention (full s^2), recomputation added
     * (Korthikanti et al. 2022), so that MFU <= HFU always. */
    d->hardware_flops =
        d->model_flops + (s->training.recompute == RECOMPUTE_FULL ? stack_fwd_flops(s, tokens)
                          : s->training.recompute == RECOMPUTE_SELECTIVE ? main * attn_model / 3.0
                          : s->training.recompute == RECOMPUTE_OP        ? op_re
                                                                         : 0.0);
}
