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
