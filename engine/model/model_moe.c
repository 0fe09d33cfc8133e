/* model_moe: the token copies of Megatron-Core's all-to-all token
 * dispatcher (megatron/core/transformer/moe/token_dispatcher.py,
 * MoEAlltoAllTokenDispatcher). Before the experts: "permutation 1" gathers
 * each token's k copies into the order of their expert-parallel ranks, and
 * after the all-to-all, when a rank holds more than one expert,
 * "permutation 2" re-sorts the received chunks from source-rank order into
 * local-expert order (sort_chunks_by_idxs, or a transpose of the padded
 * buffer with a capacity factor). After the experts the same two copies run
 * in reverse (unsort, unpermute). Each copy reads and writes every routed
 * h-vector. Formulas: docs/MODEL.md, section 2. */
#include "model_internal.h"

double model_moe_permute_bytes(const struct ctx *c, double tokens)
{
    const struct setup *s = c->s;
    double local_experts = (double)s->model.experts / (double)c->ep;
    double passes = local_experts > 1.0 ? 4.0 : 2.0;
    /* a 2-byte read and write of k h-vectors per token, sharded over the
     * tensor group */
    return passes * 4.0 * tokens * s->model.top_k * s->model.hidden / (double)c->tp;
}

/* Transformer Engine's grouped expert GEMMs (GroupedLinear) save their FP8
 * inputs for the weight gradients, as the dense layers do: the permuted
 * tokens (k h-vectors per token) and the fc2 inputs of the routed (padded
 * to capacity) and shared experts take 1 byte instead of 2. The permutation
 * itself is an index operation and keeps no copy. Returns the bytes saved
 * for `tokens` tokens. */
double model_moe_fp8_saved_bytes_saving(const struct setup *s, double tokens)
{
    double cf = s->training.capacity_factor > 1.0 ? s->training.capacity_factor : 1.0;
    double routed = s->model.top_k * cf + s->model.shared_experts;
    return tokens *
           ((double)setup_expert_ffn_hidden(s) * routed + (double)s->model.top_k * s->model.hidden);
}
