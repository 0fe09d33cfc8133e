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

/* Megatron-Core's expert-parallel communication overlap
 * (--overlap-moe-expert-parallel-comm, with --delay-wgrad-compute; the
 * "combined 1F1B" schedule): in the steady state of the pipeline each
 * layer's forward of one micro-batch runs beside the backward of another,
 * so one's dispatch and combine all-to-alls proceed while the other
 * computes. Per layer, what the all-to-alls of both passes (`a2a_s`) exceed
 * that layer's compute of both passes (`compute_s`) stays exposed. The
 * warm-up and cool-down of the pipeline, where passes are not paired, are
 * taken as steady state. Without the overlap every all-to-all is exposed. */
double model_moe_exposed_a2a(const struct ctx *c, double a2a_s, double compute_s)
{
    if (!c->s->training.ep_comm_overlap)
        return a2a_s;
    double left = a2a_s - compute_s;
    return left > 0 ? left : 0.0;
}

/* The GEMMs of `local` experts, each M x N x K, as the stack issues them.
 * Transformer Engine's GroupedLinear (Megatron-Core's TEGroupedMLP) runs one
 * cuBLAS GEMM per expert, round-robin over `expert_gemm_streams` compute
 * streams (4: multi_stream_cublas_gemm), so the experts run in rounds of
 * that many concurrent GEMMs: each round pays one kernel's fixed cost and
 * its own partly empty last wave. Without streams (0) one grouped kernel
 * covers them all. */
double model_moe_expert_gemms(const struct ctx *c, double local, double M, double N, double K)
{
    double streams = c->r->software->expert_gemm_streams;
    if (streams < 1 || local <= streams)
        return model_gemm_time(c, local, M, N, K);
    double rounds = floor(local / streams);
    double rest = local - rounds * streams;
    return rounds * model_gemm_time(c, streams, M, N, K) + model_gemm_time(c, rest, M, N, K);
}

/* Megatron-Core adds the experts' fc2 bias after the grouped GEMM in an
 * eager loop over the local experts (TEGroupedMLP._apply_bias): per expert
 * `t + b * p` on its slice of the output, then one concatenation (software
 * expert_bias_loop; the byte and kernel counts in software.yaml). Forward:
 * 12 bytes per output element and 2 kernels per local expert + 1; backward
 * 16 bytes and 4 kernels per local expert + 2. */
bool model_moe_bias_loop_applies(const struct ctx *c)
{
    return c->s->model.mlp_bias && c->s->model.experts > 0 && c->r->software->expert_bias_loop;
}

void model_moe_bias_loop(const struct ctx *c, double local, double out_elems, double *fwd,
                         double *bwd)
{
    *fwd = *bwd = 0.0;
    if (!model_moe_bias_loop_applies(c) || !(out_elems > 0) || !(local > 0))
        return;
    double scale = c->act_bytes / 2.0; /* the counts are for 16-bit activations */
    *fwd = model_time_for(12.0 * out_elems * scale, c->mem_bw) + (2.0 * local + 1.0) * c->kernel_s;
    *bwd = model_time_for(16.0 * out_elems * scale, c->mem_bw) + (4.0 * local + 2.0) * c->kernel_s;
}
