/* model_shapes: the widths of the attention projections. Most models have
 * heads x head size = hidden, but some do not (Qwen3-30B-A3B: 32 heads of
 * 128 on a hidden size of 2048; Gemma). Megatron-Core calls the head size
 * kv_channels and sizes the query, key, value and output projections from
 * it (TransformerConfig.kv_channels, default hidden / heads). Formulas:
 * docs/MODEL.md, section 1. */
#include "model_internal.h"

#include <string.h>

void model_attention_dims(const struct setup *s, double *q_dim, double *kv_dim)
{
    struct attention_widths w;
    model_attention_widths(s, &w);
    *q_dim = w.q;
    *kv_dim = (w.k + w.v) / 2.0; /* q_dim + 2 kv_dim: the query, key and value widths */
}

/* Multi-head latent attention (DeepSeek-V2, Liu et al. 2024, section 2.1;
 * Megatron-Core MLASelfAttention): the hidden state is projected down to a
 * key/value latent of kv_lora_rank plus one shared rotary key of
 * qk_rope_head_dim, normalised, and projected up to every head's key
 * (head_dim) and value (v_head_dim); queries go down to q_lora_rank and up
 * to heads x (head_dim + qk_rope_head_dim), or straight from the hidden
 * state when q_lora_rank is 0. Training materialises the full keys and
 * values (no absorption of the up-projections), so the attention core sees
 * ordinary heads of head_dim + qk_rope_head_dim for scores and v_head_dim
 * for values; the latents are extra stored activations. */
void model_attention_widths(const struct setup *s, struct attention_widths *w)
{
    double h = s->model.hidden, heads = s->model.heads, head = setup_head_dim(s);
    memset(w, 0, sizeof *w);
    if (s->model.kv_lora_rank <= 0) {
        w->q = head * heads;
        w->k = w->v = head * setup_kv_heads(s);
        w->out = w->q;
        w->weights = h * (w->q + w->k + w->v) + w->out * h;
        return;
    }
    double rope = s->model.qk_rope_head_dim, kvr = s->model.kv_lora_rank;
    double qr = s->model.q_lora_rank, dv = s->model.v_head_dim > 0 ? s->model.v_head_dim : head;
    w->q = w->k = heads * (head + rope);
    w->v = w->out = heads * dv;
    double query = qr > 0 ? h * qr + qr * w->q : h * w->q;
    double kv = h * (kvr + rope) + kvr * heads * (head + dv);
    w->weights = query + kv + w->out * h;
    w->latent = kvr + rope + qr;
    w->norms = kvr + qr; /* the latents' RMSNorm weights */
}

/* The embedding and the output layer are one V x h matrix when tied (GPT-2
 * and GPT-3, Megatron-LM's default; --untie-embeddings-and-output-weights
 * separates them) and two when not (Llama 2 and 3, Qwen3, DeepSeek-V3:
 * tie_word_embeddings false in their configs). A pipeline keeps one copy on
 * its first stage and one on its last either way (Megatron-Core
 * synchronises the tied pair's gradients with an all-reduce). */
double model_embedding_copies(const struct setup *s)
{
    return s->model.tied_embeddings ? 1.0 : 2.0;
}
