/* model_zero: what ZeRO stage 3 (fully sharded data parallelism) costs per
 * micro-batch. DeepSpeed ZeRO-3 (Rajbhandari et al. 2020, section 5.3;
 * DeepSpeed docs, stage3_prefetch_bucket_size) and PyTorch FSDP (Zhao et al.
 * 2023, sections 3.2-3.4) gather the parameters one unit at a time, a
 * transformer layer in practice: forward, one all-gather per layer, the next
 * prefetched while the current one computes; backward, the layer gathered
 * again (resharded after forward) and its gradient reduce-scattered. Each of
 * these is its own collective, so each pays its own latency, and the first
 * gather of the forward and the last reduce-scatter of the backward have no
 * compute to hide behind. XLA (MaxText's scan over layers, software
 * xla_layer_gather) gathers and reduce-scatters in the compute format
 * instead (below). Formulas: docs/MODEL.md, sections 3 and 4. Nothing here
 * allocates. */
#include "model_internal.h"

static double max0(double x)
{
    return x > 0 ? x : 0.0;
}

double model_zero3_units(const struct ctx *c)
{
    const struct setup *s = c->s;
    if (s->model.kind != MODEL_TRANSFORMER)
        return 1.0;
    double units = (double)s->model.layers / (double)c->pp;
    return units < 1.0 ? 1.0 : units;
}

/* y2026: XLA's SPMD partitioner over a scanned layer stack (MaxText; XLA's
 * collective pipeliner, MaxText layers/fsdp_prefetch.py): each layer's
 * shard is cast to the compute dtype where the layer reads it, so the
 * all-gather moves the compute format and the gathered layer's gradient is
 * reduce-scattered in it, before the cast back to the stored dtype. */
static double xla_compute_bytes(const struct ctx *c)
{
    return c->r->software->xla_layer_gather ? c->act_bytes : 0.0;
}

void model_zero3_sync(const struct ctx *c, const struct collective_net *net, int algo,
                      double params, double t_f, double t_b, struct zero3_cost *out)
{
    const struct software *sw = c->r->software;
    double units = model_zero3_units(c);
    double xla = xla_compute_bytes(c);
    double gather_b = xla > 0 ? xla : model_param_gather_bytes(c);
    double ag = collective_time(COLL_ALL_GATHER, algo, params * gather_b / units, net, NULL);
    double rs = collective_time(COLL_REDUCE_SCATTER, algo,
                                params * (xla > 0 ? xla : c->grad_bytes) / units, net, NULL);
    /* Without overlap every collective waits for the compute before it. */
    double w = c->s->training.overlap_grad_sync ? sw->dp_overlap_window : 0.0;
    double f_unit = t_f / units, b_unit = t_b / units;
    /* Forward: the first layer's gather starts the pass; each later one is
     * prefetched under the previous layer's forward. */
    double fwd = ag + (units - 1.0) * max0(ag - w * f_unit);
    /* Backward: one layer's gather and the previous layer's reduce-scatter
     * share the network under one layer's backward; the last reduce-scatter
     * (the first layer's gradients) runs after the backward has ended. The
     * last layer of the forward is kept gathered for the backward. */
    double bwd = (units - 1.0) * max0(ag + rs - w * b_unit) + rs;
    double m = (double)c->m;
    out->total = m * (units * (ag + rs) + (units - 1.0) * ag);
    out->exposed = m * (fwd + bwd);
    out->exposed_fwd = m * fwd;
}

double model_zero3_buffer_bytes(const struct ctx *c, double layer_params)
{
    double xla = xla_compute_bytes(c);
    if (xla > 0) {
        /* XLA: forward, the layer computing and the one prefetched; backward,
         * W(k), the prefetched W(k-1) and dW(k) until its reduce-scatter:
         * three gathered layers in the compute format at the peak (MaxText
         * layers/fsdp_prefetch.py; the collective pipeliner holds the same
         * one extra iteration). */
        return layer_params * 3.0 * xla;
    }
    /* Two layers' weights whole at once (the one computing and the one
     * prefetched: FSDP's limit_all_gathers, DeepSpeed's prefetch bucket)
     * and one layer's unsharded gradient until its reduce-scatter ends. */
    return layer_params * (2.0 * model_linear_weight_bytes(c) + c->grad_bytes);
}
