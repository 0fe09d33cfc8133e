/* model_shapes: the widths of the attention projections. Most models have
 * heads x head size = hidden, but some do not (Qwen3-30B-A3B: 32 heads of
 * 128 on a hidden size of 2048; Gemma). Megatron-Core calls the head size
 * kv_channels and sizes the query, key, value and output projections from
 * it (TransformerConfig.kv_channels, default hidden / heads). Formulas:
 * docs/MODEL.md, section 1. */
#include "model_internal.h"

void model_attention_dims(const struct setup *s, double *q_dim, double *kv_dim)
{
    double head = setup_head_dim(s);
    *q_dim = head * s->model.heads;
    *kv_dim = head * setup_kv_heads(s);
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
