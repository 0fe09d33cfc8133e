/* model_lora: low-rank adaptation (Hu et al. 2021, "LoRA", section 4): every
 * linear layer W (d_in x d_out) is frozen and learns B A, A d_in x r and
 * B r x d_out. The frozen weights need no gradient, no master copy and no
 * optimizer state; the backward pass still computes the input gradients
 * through them (dgrad) but not their weight gradients (wgrad). The adapters
 * are trained in mixed precision like any other weights. Megatron-Bridge's
 * LoRA recipes put adapters on the attention projections (linear_qkv,
 * linear_proj) and the MLP (linear_fc1, linear_fc2). Formulas:
 * docs/MODEL.md, section 12. */
#include "model_internal.h"

double model_lora_layer_params(const struct setup *s, bool moe)
{
    double r = s->training.lora_rank;
    if (!(r > 0))
        return 0.0;
    double h = s->model.hidden, q_dim, kv_dim;
    model_attention_dims(s, &q_dim, &kv_dim);
    double up = s->model.mlp == MLP_SWIGLU ? 2.0 : 1.0;
    double f = moe ? (double)setup_expert_ffn_hidden(s) * s->model.shared_experts
                   : (double)setup_ffn_hidden(s);
    double attn = (h + q_dim + 2.0 * kv_dim) + (q_dim + h);
    double mlp = f > 0 ? (h + up * f) + (f + h) : 0.0;
    return r * (attn + mlp);
}

double model_lora_stage_params(const struct ctx *c, const struct stage *st)
{
    if (!c->lora)
        return 0.0;
    const struct setup *s = c->s;
    double n_dense = st->layers - st->moe_layers;
    return (n_dense * model_lora_layer_params(s, false) +
            st->moe_layers * model_lora_layer_params(s, true)) /
           (double)c->tp;
}
