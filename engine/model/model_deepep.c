/* model_deepep: DeepEP's expert-parallel dispatch and combine (y2026;
 * deepseek-ai/DeepEP README; DeepSeek-V3 report, section 3.2.2). Its
 * "normal" kernels send each token once over RDMA to every remote node
 * that holds one of its experts, to the GPU of the same index there, which
 * forwards it over NVLink to the experts' GPUs; inside one NVLink domain
 * everything moves over NVLink. The README measures, on H800 with
 * ConnectX-7 400 Gb/s NICs, 153-158 GB/s of NVLink's ~160 GB/s inside a
 * node and 43-47 GB/s of RDMA's ~50 GB/s between nodes: about 95% and 90%
 * of the line rates, against NCCL's all-to-all, whose cost the model takes
 * from the links' nccl_efficiency and one latency per peer. DeepEP pays one
 * kernel's latency per call. Formulas: docs/MODEL.md, section 12. */
#include <string.h>

#include "model.h"
#include "model_internal.h"

#define DEEPEP_NVLINK_SHARE 0.95 /* 153-158 of ~160 GB/s (README, intranode) */
#define DEEPEP_RDMA_SHARE   0.90 /* 43-47 of ~50 GB/s (README, internode) */

/* Per-device bandwidth (bytes/s) of DeepEP's NVLink path and of its RDMA
 * path (the node's NICs shared by its GPUs; 0 without NICs). */
static double deepep_nvlink_bw(const struct ctx *c)
{
    return c->r->intra_link->bw_gbs * DEEPEP_NVLINK_SHARE * 1e9;
}

static double deepep_rdma_bw(const struct ctx *c)
{
    const struct setup *s = c->s;
    if (!c->r->nic || s->cluster.node.nics_per_node <= 0)
        return 0.0;
    return c->r->nic->bw_gbs * DEEPEP_RDMA_SHARE * 1e9 * s->cluster.node.nics_per_node /
           (double)c->per_node;
}

double model_deepep_time(const struct ctx *c, double bytes, int64_t n, int64_t stride)
{
    if (n <= 1 || !(bytes > 0))
        return 0.0;
    const struct setup *s = c->s;
    double k = s->model.top_k > 0 ? s->model.top_k : 1;
    double g = (double)model_group_in_domain(c, n, stride); /* ranks on one NVLink fabric */
    double domains = (double)n / g;
    const struct link *intra = c->r->intra_link;
    double nvlink_bw = deepep_nvlink_bw(c);
    /* Every copy that leaves this GPU crosses NVLink once (directly, or when
     * forwarded on the remote node). */
    double nvlink_bytes = bytes * (n - 1.0) / n;
    double t = model_time_for(nvlink_bytes, nvlink_bw);
    double lat = intra->latency_us * 1e-6;
    if (domains > 1.0 && deepep_rdma_bw(c) > 0) {
        /* Distinct remote domains a token's k experts fall in, each sent
         * one copy over RDMA. */
        double distinct = domains * (1.0 - pow(1.0 - 1.0 / domains, k));
        double remote = distinct * (domains - 1.0) / domains;
        double rdma_bytes = bytes / k * remote;
        t = maxd(t, model_time_for(rdma_bytes, deepep_rdma_bw(c)));
        lat = c->r->nic->latency_us * 1e-6;
    }
    return 2.0 * (t + lat); /* dispatch and combine */
}

void model_ep_dispatch_paths(const struct setup *s, const struct resolved *r,
                             struct ep_dispatch_paths *out)
{
    struct ctx c;
    model_make_ctx(s, r, &c);
    memset(out, 0, sizeof *out);
    out->deepep = s->training.moe_dispatcher == MOE_DISPATCH_DEEPEP;
    out->ranks = report_int(c.ep);
    int64_t inside = model_group_in_domain(&c, c.ep, model_ep_stride(&c));
    out->ranks_in_domain = report_int(inside);
    out->domains = report_int((c.ep + inside - 1) / inside);
    if (out->deepep) {
        out->inside_gbs = deepep_nvlink_bw(&c) / 1e9;
        out->across_gbs = out->domains > 1 ? deepep_rdma_bw(&c) / 1e9 : 0.0;
    } else {
        /* NCCL's all-to-all (model_make_net): the links' NCCL efficiency. */
        out->inside_gbs = model_link_bw(r->intra_link);
        out->across_gbs = out->domains > 1 ? model_nic_share_gbs(&c) : 0.0;
    }
}
