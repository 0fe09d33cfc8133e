/* model_host: the host side of one layer (issue 21). Eager PyTorch issues
 * every kernel from the host: Python, the dispatcher and the launch cost the
 * node's CPU `host_op_us` per operation (cpus.yaml), and a layer's forward
 * issues the stack's `host_ops_per_layer_fwd` of them, an MoE block
 * `host_ops_per_moe_fwd` more and one per expert GEMM (software.yaml). The
 * host runs ahead of the GPU until something makes it wait for the GPU: a
 * dropless MoE layer does, once per forward (Megatron-Core's all-to-all
 * token dispatcher copies the tokens per expert to the host to size the
 * all-to-all and the grouped GEMMs, token_dispatcher.py). Within such a
 * stretch the GPU finishes no sooner than the host has issued its work:
 * max(GPU time, host time), and after the sync the GPU's queue is empty
 * until the host issues the first kernel. CUDA graphs replay a captured
 * layer with one launch; a dropless MoE layer cannot be captured (its
 * shapes change every step) and keeps its experts eager. Formulas:
 * docs/MODEL.md, section 12. */
#include "model_internal.h"

bool model_moe_syncs(const struct ctx *c)
{
    return c->s->model.experts > 0 && c->r->software->moe_host_sync &&
           !(c->s->training.capacity_factor > 0);
}

double model_layer_host_ops(const struct ctx *c, bool moe)
{
    const struct software *sw = c->r->software;
    if (!(sw->host_ops_per_layer_fwd > 0))
        return 0.0; /* compiled (XLA) or not counted */
    bool graphs = c->s->training.cuda_graphs;
    bool syncs = moe && model_moe_syncs(c);
    double ops = graphs ? 1.0 : sw->host_ops_per_layer_fwd; /* one replay per graph */
    if (moe && (!graphs || syncs)) {
        /* Transformer Engine's GroupedLinear issues one GEMM per local
         * expert (expert_gemm_streams > 0), fc1 and fc2; a grouped kernel
         * one for all. */
        double local = (double)c->s->model.experts / (double)c->ep;
        double gemms = c->r->software->expert_gemm_streams > 0 ? 2.0 * local : 2.0;
        ops += sw->host_ops_per_moe_fwd + gemms;
        /* The experts' output-bias loop (model_moe.c): a multiply and an
         * add per local expert, the two splits and the concatenation. */
        if (model_moe_bias_loop_applies(c))
            ops += 2.0 * local + 3.0;
    }
    return ops;
}

void model_layer_host(const struct ctx *c, bool moe, struct layer_times *lt)
{
    double op_s = c->r->cpu ? c->r->cpu->host_op_us * 1e-6 : 0.0;
    double ops = model_layer_host_ops(c, moe);
    if (!(op_s > 0) || !(ops > 0))
        return;
    /* Backward issues twice the forward's kernels (each GEMM's data and
     * weight gradients; the model's convention for kernel costs). */
    double host_f = ops * op_s, host_b = 2.0 * host_f;
    /* Compared with the layer's computation only: its communication
     * overlaps in ways the stage accounts for (model_stage.c), and a wait
     * that grew as a link got faster would make faster links slower. The
     * host side comes out no smaller for it (an upper bound). */
    double gpu_f = lt->fwd, gpu_b = lt->bwd;
    /* After the sync the GPU waits for the first launch (the all-to-all). */
    double wake = moe && model_moe_syncs(c) ? op_s : 0.0;
    lt->host_f = maxd(0.0, host_f - gpu_f) + wake;
    lt->host_b = maxd(0.0, host_b - gpu_b);
    lt->fwd += lt->host_f;
    lt->bwd += lt->host_b;
}
