/* model_offload: activation offloading to host memory (y2026;
 * Megatron-Core --cpu-offloading with --cpu-offloading-num-layers, the
 * GB300 Llama-3 70B recipe of Megatron-Bridge). The saved activations of
 * the first N layers of a stage are copied to host memory as the forward
 * pass leaves each layer and copied back before its backward, on copy
 * engines beside the compute: over NVLink-C2C on Grace superchips, PCIe
 * elsewhere (the setup's host link). A copy that outlasts the compute of
 * the pass it hides under shows in the step. One layer's activations stay
 * on the device as the staging buffer. Formulas: docs/MODEL.md, section 12. */
#include "model_internal.h"

double model_offload_layers(const struct ctx *c, const struct stage *st)
{
    int n = c->s->training.activation_offload_layers;
    if (n <= 0 || c->s->model.kind != MODEL_TRANSFORMER)
        return 0.0;
    return n < st->layers ? n : st->layers;
}

/* Bytes of one micro-batch's activations of the offloaded layers. */
static double offload_bytes(const struct ctx *c, const struct stage *st)
{
    double n = model_offload_layers(c, st);
    double dense = st->layers - st->moe_layers;
    double per_layer =
        st->layers > 0 ? (dense * c->act_dense + st->moe_layers * c->act_moe) / (double)st->layers
                       : 0.0;
    return n * per_layer;
}

double model_offload_host_bytes(const struct ctx *c, const struct stage *st, double inflight)
{
    return offload_bytes(c, st) * inflight;
}

double model_offload_device_saving(const struct ctx *c, const struct stage *st, double inflight)
{
    double n = model_offload_layers(c, st);
    if (!(n > 0))
        return 0.0;
    double bytes = offload_bytes(c, st);
    double saved = bytes * inflight - bytes / n; /* one layer stays as the staging buffer */
    return saved > 0 ? saved : 0.0;
}

void model_offload_exposed(const struct ctx *c, const struct stage *st, double fwd, double bwd,
                           double *fwd_extra, double *bwd_extra)
{
    *fwd_extra = *bwd_extra = 0.0;
    double bytes = offload_bytes(c, st);
    if (!(bytes > 0))
        return;
    double bw = model_link_bw(c->r->host_link) * 1e9;
    double copy = model_time_for(bytes, bw);
    *fwd_extra = copy > fwd ? copy - fwd : 0.0;
    *bwd_extra = copy > bwd ? copy - bwd : 0.0;
}
