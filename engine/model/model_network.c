/* model_network: links, collective groups and the collectives of the step
 * (tensor-parallel all-reduce, data-parallel gradient sync, pipeline sends).
 * See docs/MODEL.md. */

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "model.h"
#include "model_internal.h"

/* ---- networks ---------------------------------------------------------------- */

double model_link_bw(const struct link *l)
{
    return l ? l->bw_gbs * l->nccl_efficiency : 0.0;
}

/* Per-device share of the node's NICs (GB/s, effective). */
double model_nic_share_gbs(const struct ctx *c)
{
    const struct setup *s = c->s;
    if (!c->r->nic || s->cluster.node.nics_per_node < 1)
        return model_link_bw(c->r->intra_link);
    return model_link_bw(c->r->nic) * s->cluster.node.nics_per_node / c->per_node;
}

void model_make_net(const struct ctx *c, int64_t devices, int64_t per_domain,
                    struct collective_net *net)
{
    net->devices = report_int(devices);
    net->per_node = report_int(per_domain < 1 ? 1 : (per_domain > devices ? devices : per_domain));
    net->intra_bw_gbs = model_link_bw(c->r->intra_link);
    net->intra_lat_s = c->r->intra_link->latency_us * 1e-6;
    net->inter_bw_gbs = model_nic_share_gbs(c);
    net->inter_lat_s = (c->r->nic ? c->r->nic->latency_us : c->r->intra_link->latency_us) * 1e-6;
    net->nvls_bw_gbs = c->r->intra_link->nvls_bw_gbs;
    net->nvls_setup_s = c->r->intra_link->nvls_setup_us * 1e-6;
}

/* Tensor-parallel groups are consecutive ranks (Megatron's ordering), so a
 * group stays on one scale-up fabric when it fits. */
double model_tp_allreduce_time(const struct ctx *c, double bytes)
{
    struct collective_net net;
    model_make_net(c, c->tp, model_group_in_domain(c, c->tp, 1), &net);
    /* Inside a node NCCL's tree is a chain, no faster than the ring: only
     * NVLink SHARP can beat the ring there. */
    int algo = net.nvls_bw_gbs > 0 ? ALLREDUCE_AUTO : ALLREDUCE_RING;
    return collective_time(COLL_ALL_REDUCE, algo, bytes, &net, NULL);
}

/* Data-parallel gradient sync of `params` parameters per device over a group
 * of `n` ranks spaced `stride` apart. Stages 0: one all-reduce after the
 * last micro-batch, hidden under its backward when overlap is on (Li et al.
 * 2020, PyTorch DDP buckets). Stage 1 (Megatron-Core's distributed
 * optimizer): one reduce-scatter of the gradients under the last backward
 * (--overlap-grad-reduce) and one all-gather of the updated weights, hidden
 * behind the next step's forward as far as the stack overlaps it
 * (--overlap-param-gather). Stages 2-3 (Rajbhandari et al. 2020): stacks that
 * reduce every micro-batch (DeepSpeed, FSDP) reduce-scatter during each
 * backward; stage 3 also gathers the weights for every forward and backward,
 * prefetched under compute. */
void model_dp_sync(const struct ctx *c, double params, int n, int stride, double t_f, double t_b,
                   struct device_step *d)
{
    const struct setup *s = c->s;
    const struct software *sw = c->r->software;
    if (n <= 1 || params <= 0)
        return;
    struct collective_net net;
    model_make_net(c, n, model_group_in_domain(c, n, stride), &net);
    double grads = params * c->grad_bytes, weights = params * model_param_gather_bytes(c);
    int algo = s->training.allreduce, m = c->m;
    double hide_b = s->training.overlap_grad_sync ? sw->dp_overlap_window * t_b : 0.0;
    double hide_fb = s->training.overlap_grad_sync ? sw->dp_overlap_window * (t_f + t_b) : 0.0;
    /* A reduce-scatter issued after one micro-batch's backward runs on its
     * own stream while the next micro-batch computes (forward and backward);
     * only the last one has just its own backward to hide behind. */
    double hide_gather = sw->param_gather_overlap * t_f;
    int zero = s->training.zero_stage;
    int used = ALLREDUCE_RING;
    if (zero == 0) {
        double ar = collective_time(COLL_ALL_REDUCE, algo, grads, &net, &used);
        d->dp_total += ar;
        d->dp_exposed += maxd(0.0, ar - hide_b);
    } else {
        double rs = collective_time(COLL_REDUCE_SCATTER, algo, grads, &net, &used);
        double ag = collective_time(COLL_ALL_GATHER, algo, weights, &net, NULL);
        if (zero == 3) { /* per-layer gathers and reduce-scatters (model_zero.c) */
            struct zero3_cost z;
            model_zero3_sync(c, &net, algo, params, t_f, t_b, &z);
            d->dp_total += z.total;
            d->dp_exposed += z.exposed;
            d->dp_mb_exposed += z.exposed / m;
            d->dp_mb_total += z.total / m;
            d->dp_mb_fwd += z.exposed_fwd / m;
        } else if (zero == 2 && sw->reduce_per_microbatch) {
            d->dp_total += m * rs + ag;
            d->dp_exposed += (m - 1) * maxd(0.0, rs - hide_fb) + maxd(0.0, rs - hide_b) +
                             maxd(0.0, ag - hide_gather);
            d->dp_mb_exposed += maxd(0.0, rs - hide_fb);
            d->dp_mb_total += rs;
            /* In the passes' times (model_stage.c) the backward that issued
             * it holds what outlasts its own window; the forward's window,
             * spent beside it, comes out of the forward. Neither pass then
             * grows when the other gets faster. */
            d->dp_mb_fwd -= mind(hide_fb - hide_b, maxd(0.0, rs - hide_b));
        } else {
            d->dp_total += rs + ag;
            d->dp_exposed += maxd(0.0, rs - hide_b) + maxd(0.0, ag - hide_gather);
        }
        d->dp_hidden_gather += zero == 3 ? 0.0 : mind(ag, hide_gather);
    }
    d->dp_algo = used;
}

/* Pipeline sends of one step: activations cross each stage boundary forward
 * and gradients come back, sharded over the tensor-parallel ranks
 * (scatter/gather); 2 (m + p - 1) v of them, as far as the software does
 * not overlap them. */
double model_pp_send_time(const struct ctx *c)
{
    const struct setup *s = c->s;
    double bytes =
        (double)s->model.seq_len / c->cp * c->mb * s->model.hidden * c->act_bytes / c->tp;
    int stage_span = c->tp * c->cp * c->dp; /* ranks between neighbouring stages */
    bool inter = stage_span >= c->domain && c->devices > c->domain;
    double bw = (inter ? model_nic_share_gbs(c) : model_link_bw(c->r->intra_link)) * 1e9;
    double lat = (inter && c->r->nic ? c->r->nic->latency_us : c->r->intra_link->latency_us) * 1e-6;
    return lat + time_for(bytes, bw);
}

double model_pp_p2p_time(const struct ctx *c, double v)
{
    const struct software *sw = c->r->software;
    double one = model_pp_send_time(c);
    return (1.0 - sw->pp_p2p_overlap) * 2.0 * (c->m + c->pp - 1) * v * one;
}
