/* model_stage: the costs of one pipeline stage, per micro-batch and after
 * its last backward, and the device step built from them. The closed form
 * of the schedule (model_pipeline.c) and the step-schedule simulator
 * (engine/sched, through model_pipeline_costs) both take their stages from
 * model_stage_cost: the overlap rules, the data-parallel hiding window and
 * the slowdown beside overlapped communication are defined here once.
 * See docs/MODEL.md, sections 2, 3 and 3a. Nothing here allocates. */

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "model.h"
#include "model_internal.h"

/* One stage's times per micro-batch. */
struct stage_time {
    double fwd, bwd, re, tp, cp, ep;
    double tp_f;           /* of tp, the forward's */
    double hidden;         /* i20: communication hidden beside this stage's compute */
    double hidden_f;       /* of it, beside the forward */
    double hidden_idle;    /* of it, beside the host wait: no kernel to slow */
    double ep_total;       /* the all-to-alls before overlap (ep: what stays exposed) */
    double edge_f, edge_b; /* of fwd and bwd, the embedding or output layer */
    double cp_f;           /* of cp, the forward's */
    double ep_f;           /* of ep, the forward's */
    double off_f, off_b;   /* of fwd and bwd, the waits for offloaded activations */
};

/* What the first and last stages run beside their layers: the output
 * layer (logits GEMM) and the cross entropy on the last (model_output.c),
 * with each multi-token prediction module's one more layer and shared
 * output layer on the same tokens (DeepSeek-V3, 2.2); the embedding lookup
 * on the first (a gather and scatter-add of s b h). */
static void stage_edges(const struct ctx *c, const struct stage *st, const struct layer_times *ld,
                        const struct layer_times *lm, double *fwd, double *bwd)
{
    const struct setup *s = c->s;
    double tokens_mb = (double)s->model.seq_len / c->cp * c->mb;
    *fwd = *bwd = 0.0;
    if (st->last) {
        double out_f, out_b, mtp = s->model.mtp_layers;
        const struct layer_times *l = s->model.experts > 0 ? lm : ld;
        model_output_layer(c, tokens_mb, &out_f, &out_b);
        double proj = mtp > 0 ? model_mtp_projection(c, tokens_mb) : 0.0; /* model_output.c */
        *fwd = (1.0 + mtp) * out_f + mtp * (l->fwd + proj);
        *bwd = (1.0 + mtp) * out_b + mtp * (l->bwd + (c->lora ? 1.0 : 2.0) * proj);
    }
    if (st->first)
        *fwd += time_for(2.0 * tokens_mb * s->model.hidden * c->act_bytes, c->mem_bw);
}

/* Splits a stage's per-micro-batch time into its two passes: the
 * forward's exposed tensor-parallel all-reduces (`t->tp_f`; a recomputed
 * forward's run with the backward), the forward's share of the exposed expert all-to-alls
 * (`t->ep_f`) and the ring-attention exchange of the forward (`cp_fwd`). */
static void split_passes(const struct stage_time *t, double cp_fwd, double *f, double *b)
{
    *f = t->fwd + t->tp_f + cp_fwd + t->ep_f;
    *b = t->bwd + t->re + (t->tp - t->tp_f) + (t->cp - cp_fwd) + (t->ep - t->ep_f);
}

/* The expert all-to-alls of one MoE layer and micro-batch: what stays
 * exposed, and of what hides, the part in each pass. */
struct ep_cost {
    double exposed, exposed_f, hidden_f, hidden_b;
};

/* i20: a second of compute hides at most one second of communication: the
 * all-to-alls of a layer (dispatch and combine forward, their transposes
 * backward, again with the recomputed forward when `again` is 1) hide
 * under what its TP and CP traffic leave free of both passes (the forward
 * of one micro-batch runs beside the backward of another, docs/MODEL.md
 * section 2; else a faster device could make a slower step). Each pass
 * hides its own all-to-alls first; what one pass cannot hide (its
 * overflow) hides in the other's spare compute, which that pass then
 * spends beside the first one's all-to-alls: the first pass's wall holds
 * its overflow, the other's shrinks by the spare it lent. So neither
 * pass's wall nor its window for the gradient sync (stage_sync) grows when
 * the compute of either shrinks. Without the overlap each pass waits for
 * its own all-to-alls. */
static void ep_hiding(const struct ctx *c, const struct layer_times *l, double again,
                      struct ep_cost *o)
{
    double e_f = l->ep_fwd, e_b = (1.0 + again) * l->ep_fwd;
    double free_f = maxd(0.0, l->fwd - 2.0 * l->tp_hidden - l->cp_hidden_f);
    double free_b = maxd(0.0, l->bwd - 2.0 * l->tp_hidden_b - l->cp_hidden_b);
    o->exposed = model_moe_exposed_a2a(c, e_f + e_b, free_f + free_b);
    double over_f = maxd(0.0, e_f - free_f), over_b = maxd(0.0, e_b - free_b);
    double spare_f = maxd(0.0, free_f - e_f);
    bool overlap = c->s->training.ep_comm_overlap;
    o->exposed_f = overlap ? over_f - mind(spare_f, over_b) : e_f;
    double hidden = e_f + e_b - o->exposed;
    o->hidden_f = mind(hidden, mind(free_f, e_f + over_b));
    o->hidden_b = hidden - o->hidden_f;
}

/* The communication of the multi-token prediction modules on the last
 * stage: each is a whole transformer layer (DeepSeek-V3, 2.2), with its
 * tensor-parallel all-reduces, ring exchange and expert all-to-alls, run
 * once forward and once backward (not recomputed, as their compute in
 * stage_edges). */
static void mtp_comm(const struct ctx *c, const struct stage *st, const struct layer_times *ld,
                     const struct layer_times *lm, struct stage_time *o)
{
    double mtp = c->s->model.mtp_layers;
    if (!st->last || !(mtp > 0))
        return;
    bool moe = c->s->model.experts > 0;
    const struct layer_times *l = moe ? lm : ld;
    o->tp += 2.0 * mtp * (l->tp_comm + l->tp_comm_b);
    o->tp_f += 2.0 * mtp * l->tp_comm;
    o->cp += mtp * (l->cp_fwd + l->cp_bwd);
    o->cp_f += mtp * l->cp_fwd;
    o->hidden += mtp * (2.0 * (l->tp_hidden + l->tp_hidden_b) + l->cp_hidden_f + l->cp_hidden_b);
    o->hidden_f += mtp * (2.0 * l->tp_hidden + l->cp_hidden_f);
    o->hidden_idle += mtp * (2.0 * (l->tp_idle_f + l->tp_idle_b) + l->cp_idle_f + l->cp_idle_b);
    if (moe) {
        struct ep_cost e;
        ep_hiding(c, l, 0.0, &e);
        o->ep_total += mtp * 2.0 * l->ep_fwd, o->ep += mtp * e.exposed;
        o->ep_f += mtp * e.exposed_f;
        o->hidden += mtp * (e.hidden_f + e.hidden_b), o->hidden_f += mtp * e.hidden_f;
    }
}

static void stage_time(const struct ctx *c, const struct stage *st, const struct layer_times *ld,
                       const struct layer_times *lm, struct stage_time *o)
{
    const struct setup *s = c->s;
    int rc = s->training.recompute;
    double nd = st->layers - st->moe_layers, nm = st->moe_layers;
    stage_edges(c, st, ld, lm, &o->edge_f, &o->edge_b);
    o->fwd = nd * ld->fwd + nm * lm->fwd + o->edge_f;
    o->bwd = nd * ld->bwd + nm * lm->bwd + o->edge_b;
    o->re = rc == RECOMPUTE_FULL        ? nd * ld->fwd + nm * lm->fwd
            : rc == RECOMPUTE_SELECTIVE ? nd * ld->attn_core + nm * lm->attn_core
            : rc == RECOMPUTE_OP        ? nd * ld->op_re + nm * lm->op_re
                                        : 0.0;
    /* Tensor parallelism: two all-reduces per layer forward and two
     * backward (Shoeybi et al. 2019), two more forward ones when the
     * forward is recomputed (run with the backward pass). */
    double fwd_ar = rc == RECOMPUTE_FULL ? 4.0 : 2.0;
    o->tp_f = 2.0 * (nd * ld->tp_comm + nm * lm->tp_comm);
    o->tp = fwd_ar * (nd * ld->tp_comm + nm * lm->tp_comm) +
            2.0 * (nd * ld->tp_comm_b + nm * lm->tp_comm_b);
    double again = rc == RECOMPUTE_FULL ? 1.0 : 0.0;
    o->cp = nd * ((1.0 + again) * ld->cp_fwd + ld->cp_bwd) +
            nm * ((1.0 + again) * lm->cp_fwd + lm->cp_bwd);
    o->cp_f = nd * ld->cp_fwd + nm * lm->cp_fwd;
    /* Expert parallelism: dispatch and combine forward, their transposes
     * backward, again when the forward is recomputed. */
    o->ep_total = nm * (2.0 + again) * lm->ep_fwd;
    struct ep_cost e;
    ep_hiding(c, lm, again, &e);
    o->ep = nm * e.exposed;
    o->ep_f = nm * e.exposed_f;
    double cp_f = lm->cp_hidden_f, cp_b = lm->cp_hidden_b;
    o->hidden = fwd_ar * (nd * ld->tp_hidden + nm * lm->tp_hidden) +
                2.0 * (nd * ld->tp_hidden_b + nm * lm->tp_hidden_b) +
                nd * ((1.0 + again) * ld->cp_hidden_f + ld->cp_hidden_b) +
                nm * ((1.0 + again) * cp_f + cp_b + e.hidden_f + e.hidden_b);
    o->hidden_f = 2.0 * (nd * ld->tp_hidden + nm * lm->tp_hidden) + nd * ld->cp_hidden_f +
                  nm * (cp_f + e.hidden_f);
    o->hidden_idle = fwd_ar * (nd * ld->tp_idle_f + nm * lm->tp_idle_f) +
                     2.0 * (nd * ld->tp_idle_b + nm * lm->tp_idle_b) +
                     nd * ((1.0 + again) * ld->cp_idle_f + ld->cp_idle_b) +
                     nm * ((1.0 + again) * lm->cp_idle_f + lm->cp_idle_b);
    mtp_comm(c, st, ld, lm, o);
    /* Activation offloading's copies (model_offload.c) run on copy engines
     * beside the SMs and NCCL: they hide under the whole pass, its exposed
     * communication included, not only under its compute. */
    double wall_f, wall_b;
    split_passes(o, o->cp_f, &wall_f, &wall_b);
    model_offload_exposed(c, st, wall_f, wall_b, &o->off_f, &o->off_b);
    o->fwd += o->off_f;
    o->bwd += o->off_b;
}

/* A generic model: FLOPs per sample from the user, two thirds in the
 * backward pass (Kaplan et al. 2020: 6N per token = 2N + 4N), as a roofline
 * against the stated memory traffic per FLOP; every stage alike. */
static void generic_time(const struct ctx *c, struct stage_time *t)
{
    const struct setup *s = c->s;
    double flops_mb = s->model.flops_per_sample * c->mb;
    double t_c = time_for(flops_mb, c->peak_flops * c->gemm_eff * c->throttle);
    double t_m = time_for(flops_mb * s->model.bytes_per_flop, c->mem_bw);
    double one = maxd(t_c, t_m) + c->kernel_s;
    memset(t, 0, sizeof *t);
    t->fwd = one / 3.0;
    t->bwd = 2.0 * one / 3.0;
    t->re = s->training.recompute == RECOMPUTE_FULL ? t->fwd : 0.0;
}

static void generic_flops(const struct ctx *c, struct device_step *d)
{
    const struct setup *s = c->s;
    d->model_flops = s->model.flops_per_sample * s->training.global_batch;
    d->executed_flops =
        d->model_flops * (s->training.recompute == RECOMPUTE_FULL ? 4.0 / 3.0 : 1.0);
    d->hardware_flops = d->executed_flops;
}

/* The parameters a stage trains and syncs (LoRA: its adapters). */
static void trained_params(const struct ctx *c, const struct stage *st, double *dense,
                           double *experts)
{
    *dense = c->lora ? model_lora_stage_params(c, st) : st->params.dense;
    *experts = c->lora ? 0.0 : st->params.experts;
}

/* The expert-data-parallel group: with MoE parallel folding, what is left
 * of tp x cp x dp after etp x ep. */
static int64_t expert_dp(const struct ctx *c)
{
    return at_least_one(c->tp * c->cp * c->dp / (c->etp * c->ep));
}

/* The data-parallel gradient sync of one stage: non-expert parameters over
 * DP x CP (ranks tp apart), expert parameters over the expert-data-parallel
 * group (ranks etp x ep apart). i20: it hides under the compute the
 * per-layer traffic leaves free (one second of compute hides one second of
 * traffic), the expert gradients in what the dense ones leave of that
 * window. */
static void stage_sync(const struct ctx *c, const struct stage *st, const struct stage_time *t,
                       double layer_slow, struct device_step *d)
{
    /* Each pass's window is its own compute less the per-layer traffic
     * hidden beside it, longer by the slowdown that traffic brings
     * (stage_slowdown, in proportion to the passes) where it does not
     * fill a wait for offloaded activations. The passes split it as
     * model_stage_cost times them (their walls, exposed traffic included):
     * split by compute alone, a pass's window could shrink by more than
     * the pass itself, and a faster part lengthen the step (i20). */
    double wall_f, wall_b;
    split_passes(t, t->cp_f, &wall_f, &wall_b);
    double share = ratio(wall_f, wall_f + wall_b);
    double t_f = maxd(0.0, t->fwd - t->hidden_f) + maxd(0.0, layer_slow * share - t->off_f);
    double t_b = maxd(0.0, t->bwd - (t->hidden - t->hidden_f)) +
                 maxd(0.0, layer_slow * (1.0 - share) - t->off_b);
    double dense, experts;
    trained_params(c, st, &dense, &experts);
    model_dp_sync(c, dense, c->dp * c->cp, c->tp, t_f, t_b, d);
    /* The expert gradients take what the dense sync left of the window:
     * the dense weight gathers (ZeRO-1/2) hid under the forward, the rest
     * under the backward, spilling into the forward. */
    const struct software *sw = c->r->software;
    double gather = d->dp_hidden_gather, hid = d->dp_total - d->dp_exposed - gather;
    double w = sw->dp_overlap_window > 0 ? sw->dp_overlap_window : 1.0;
    double g = sw->param_gather_overlap > 0 ? gather / sw->param_gather_overlap : 0.0;
    double t_b2 = maxd(0.0, t_b - hid / w);
    double t_f2 = maxd(0.0, t_f - g - maxd(0.0, hid / w - t_b));
    model_dp_sync(c, experts, (int)expert_dp(c), c->etp * c->ep, t_f2, t_b2, d);
}

/* The gradient accumulation of one micro-batch on a stage (model_grads.c). */
static double grad_accum_time(const struct ctx *c, const struct stage *st)
{
    double dense, experts;
    trained_params(c, st, &dense, &experts);
    return model_grad_accum_time(c, dense + experts);
}

/* i20: compute beside overlapped communication runs slower (model_grads.c).
 * The slowdown was measured beside intra-node (NVLink) collectives: it is
 * charged where the group stays inside the scale-up domain. Per micro-batch
 * beside the per-layer traffic alone (`stage_slowdown` on a NULL `d`, the
 * longer window the gradient sync hides in), then beside all of it: the
 * per-layer traffic and the DP/ZeRO traffic of every micro-batch, and over
 * the step the rest of the hidden DP traffic (the gradient reduction under
 * the last backward, the parameter gather under the next forward), which
 * lands after the last backward. */
static double stage_slowdown(const struct ctx *c, const struct stage_time *t,
                             const struct device_step *d, struct model_stage_cost *o)
{
    bool mp_in = (double)c->tp * c->cp * c->ep <= c->domain, dp_in = c->devices <= c->domain;
    double m = (double)c->m, work = t->fwd + t->bwd + t->re;
    /* Traffic beside the host wait runs while no kernel does. */
    double layers = mp_in ? maxd(0.0, t->hidden - t->hidden_idle) : 0.0;
    if (!d)
        return model_overlap_interference(c, layers, work);
    double hid_mb = layers + (dp_in ? d->dp_mb_total - d->dp_mb_exposed : 0.0);
    double hid_step = m * layers + (dp_in ? d->dp_total - d->dp_exposed : 0.0);
    o->slow_mb_s = model_overlap_interference(c, hid_mb, work);
    o->slow_tail_s = model_overlap_interference(c, hid_step, m * work) - m * o->slow_mb_s;
    return o->slow_mb_s;
}

void model_stage_cost(const struct ctx *c, const struct stage *st, const struct layer_times *ld,
                      const struct layer_times *lm, struct model_stage_cost *o)
{
    struct stage_time t;
    double cp_fwd = 0.0;
    memset(o, 0, sizeof *o);
    o->layers = st->layers;
    if (c->s->model.kind == MODEL_GENERIC) {
        generic_time(c, &t);
        o->wgrad_s = 0.5 * t.bwd;
    } else {
        stage_time(c, st, ld, lm, &t);
        o->edge_fwd_s = t.edge_f;
        o->edge_bwd_s = t.edge_b;
        /* Weight gradients: one of the two GEMMs of each forward GEMM's
         * backward, about half of the backward outside the attention core
         * (Qi et al. 2023, section 2: B and W are equal passes). */
        double nd = st->layers - st->moe_layers, nm = st->moe_layers;
        o->wgrad_s = 0.5 * maxd(0.0, t.bwd - t.edge_b - nd * ld->attn_bwd - nm * lm->attn_bwd);
        cp_fwd = t.cp_f;
    }
    t.bwd += grad_accum_time(c, st);
    struct device_step d;
    memset(&d, 0, sizeof d);
    stage_sync(c, st, &t, stage_slowdown(c, &t, NULL, o), &d);
    stage_slowdown(c, &t, &d, o);
    double f, b;
    split_passes(&t, cp_fwd, &f, &b);
    /* The DP/ZeRO traffic of every micro-batch holds the pass it belongs
     * to (ZeRO-3 gathers the forward's weights, the backward's weights and
     * reduce-scatters the gradients; ZeRO-2's per-micro-batch
     * reduce-scatter holds the backward that issued it for what outlasts
     * that backward's window, and the forward lends it its own window,
     * model_dp_sync); the slowdown runs
     * beside both passes, in proportion to them. Where a pass waits for
     * offloaded activations the slowed compute fills that wait first (the
     * copy engines do not slow down). */
    double share = ratio(f, f + b);
    double slow_f = maxd(0.0, o->slow_mb_s * share - t.off_f);
    double slow_b = maxd(0.0, o->slow_mb_s * (1.0 - share) - t.off_b);
    o->offload_wait_s = t.off_f + t.off_b;
    o->offload_filled_s = o->slow_mb_s - slow_f - slow_b;
    o->slow_mb_s = slow_f + slow_b;
    double dp_f = maxd(d.dp_mb_fwd, o->edge_fwd_s - f); /* a forward lends what it has */
    o->fwd_s = f + dp_f + slow_f;
    o->bwd_s = b + (d.dp_mb_exposed - dp_f) + slow_b;
    /* The backward lends its spare compute to the forward's all-to-alls
     * (ep_hiding): its weight-gradient part stays within what is left. */
    o->wgrad_s = mind(o->wgrad_s, maxd(0.0, o->bwd_s - o->edge_bwd_s));
    o->recompute_s = t.re;
    o->compute_fwd_s = t.fwd;
    o->compute_bwd_s = t.bwd;
    o->tp_s = t.tp;
    o->cp_s = t.cp;
    o->ep_s = t.ep;
    o->ep_total_s = t.ep_total;
    o->dp_mb_s = d.dp_mb_exposed;
    o->dp_total_s = d.dp_total;
    double tail = d.dp_exposed - (double)c->m * d.dp_mb_exposed;
    o->dp_tail_s = maxd(0.0, tail + o->slow_tail_s);
}

/* ---- the device step ------------------------------------------------------ */

/* What the walk over the stages keeps: the busiest stage (the first of those
 * that compute longest per micro-batch, the one the simulator names: its
 * compute is at least every device's mean, so the compute-phase rate stays
 * below the peak) and the most parameters any stage trains (the
 * optimizer's wait). */
struct stage_walk {
    struct model_stage_cost busy;
    int busy_index;
    double dense, experts;
};

enum { KINDS = 8, REMEMBERED = 64 };

/* The kinds of stage seen so far: stages with the same layers and ends cost
 * the same, so a few are computed and the rest reused. */
struct kind_cache {
    int n;
    int key[KINDS][3];
    struct model_stage_cost cost[KINDS];
    struct model_stage_cost spare; /* a stage of a kind beyond KINDS */
};

/* The costs of stage i, its layers from `first_layer`; `kind`: its place in
 * the cache, -1 if it found none. */
static const struct model_stage_cost *stage_kind(const struct ctx *c, const struct layer_times *ld,
                                                 const struct layer_times *lm, int i,
                                                 int first_layer, struct kind_cache *kc,
                                                 struct stage_walk *w, int *kind)
{
    const struct setup *s = c->s;
    bool generic = s->model.kind == MODEL_GENERIC;
    int layers = generic ? 0 : setup_stage_layers(s, i);
    int k[3] = {layers, generic ? 0 : model_moe_layers_in(s, first_layer, layers),
                generic ? 0 : (i == 0 ? 1 : 0) + (i == c->pp - 1 ? 2 : 0)};
    for (int j = 0; j < kc->n; j++) {
        if (memcmp(kc->key[j], k, sizeof k) == 0) {
            *kind = j;
            return &kc->cost[j];
        }
    }
    struct stage st;
    model_make_stage(c, i, first_layer, &st);
    double dense, experts;
    trained_params(c, &st, &dense, &experts);
    w->dense = maxd(w->dense, dense);
    w->experts = maxd(w->experts, experts);
    *kind = kc->n < KINDS ? kc->n : -1;
    struct model_stage_cost *o = kc->n < KINDS ? &kc->cost[kc->n] : &kc->spare;
    model_stage_cost(c, &st, ld, lm, o);
    if (kc->n < KINDS)
        memcpy(kc->key[kc->n++], k, sizeof k);
    return o;
}

/* The passes of the closed form over every stage (model_pipeline.c): two
 * the last stage first, the first of which notes the busiest stage, and for
 * interleaved rounds a third, the first stage first. */
static void stage_walk(const struct ctx *c, const struct layer_times *ld,
                       const struct layer_times *lm, struct pipe_form *pf, struct stage_walk *w)
{
    struct kind_cache kc;
    kc.n = 0;
    signed char kind_of[REMEMBERED]; /* pass 2 finds stage p - 1 - n's kind here */
    bool remember = c->pp <= REMEMBERED;
    double longest = -1.0;
    for (int pass = 0; pass < 2; pass++) {
        int layer_end = c->s->model.kind == MODEL_TRANSFORMER ? c->s->model.layers : 0;
        for (int n = 0; n < c->pp; n++) {
            int i = (int)c->pp - 1 - n, kind = -1;
            layer_end -= c->s->model.kind == MODEL_TRANSFORMER ? setup_stage_layers(c->s, i) : 0;
            const struct model_stage_cost *sc;
            if (pass == 1 && remember && kind_of[n] >= 0)
                sc = &kc.cost[kind_of[n]];
            else
                sc = stage_kind(c, ld, lm, i, layer_end, &kc, w, &kind);
            if (pass == 1) {
                model_pipe_stage(pf, i, sc);
                continue;
            }
            if (remember)
                kind_of[n] = (signed char)kind;
            model_pipe_total(pf, i, sc);
            double work = sc->compute_fwd_s + sc->compute_bwd_s + sc->recompute_s;
            if (work >= longest) {
                longest = work;
                w->busy = *sc;
                w->busy_index = i;
            }
        }
    }
    if (!model_pipe_rounds(pf)) {
        model_pipe_finish(pf);
        return;
    }
    /* Interleaved rounds: a third pass, the first stage first. */
    int first_layer = 0;
    for (int i = 0; i < c->pp; i++) {
        int n = (int)c->pp - 1 - i, kind = -1;
        const struct model_stage_cost *sc;
        if (remember && kind_of[n] >= 0)
            sc = &kc.cost[kind_of[n]];
        else
            sc = stage_kind(c, ld, lm, i, first_layer, &kc, w, &kind);
        first_layer += c->s->model.kind == MODEL_TRANSFORMER ? setup_stage_layers(c->s, i) : 0;
        model_pipe_round(pf, i, sc);
    }
    model_pipe_finish(pf);
}

/* The optimizer (memory-bound: reads and writes the optimizer state, reads
 * the gradient, writes the new weights, for this device's shard), the
 * fixed overhead and the straggler wait. */
static void step_update(const struct ctx *c, const struct stage_walk *w, struct device_step *d)
{
    const struct setup *s = c->s;
    bool sharded = s->training.zero_stage >= 1;
    double shard = w->dense / (sharded ? (double)c->dp * c->cp : 1.0) +
                   w->experts / (sharded ? (double)expert_dp(c) : 1.0);
    d->optimizer = time_for(shard * (2.0 * c->opt_bytes + c->grad_bytes + c->w_bytes), c->mem_bw);
    d->overhead = c->r->software->step_overhead_s;
    /* Every synchronous step waits for the slowest device: the compute of
     * each varies by MODEL_COMPUTE_JITTER_CV, and the expected maximum of N
     * normals grows as sqrt(2 ln N), one of the losses that grow with scale.
     * The waits for offloaded activations are copies, not compute. */
    double waits = (double)c->m * w->busy.offload_wait_s;
    d->straggler = maxd(0.0, d->compute - waits + d->recompute) * MODEL_COMPUTE_JITTER_CV *
                   model_expected_max_normal(c->devices);
}

void model_device_step(const struct ctx *c, struct device_step *d)
{
    const struct setup *s = c->s;
    memset(d, 0, sizeof *d);
    struct layer_times ld, lm;
    memset(&ld, 0, sizeof ld);
    if (s->model.kind == MODEL_GENERIC) {
        generic_flops(c, d);
    } else {
        model_layer_times(c, false, &ld);
        model_transformer_flops(c, d); /* model_flops.c */
    }
    lm = ld;
    if (s->model.kind == MODEL_TRANSFORMER && s->model.experts > 0)
        model_layer_times(c, true, &lm);
    struct pipe_form pf;
    model_pipe_begin(&pf, c, s->model.kind == MODEL_TRANSFORMER ? s->training.virtual_stages : 1);
    struct stage_walk w;
    memset(&w, 0, sizeof w);
    stage_walk(c, &ld, &lm, &pf, &w);
    /* The step of the busiest stage, part by part. */
    const struct model_stage_cost *b = &w.busy;
    double m = (double)c->m;
    d->params_device = w.dense + w.experts;
    d->forward = m * b->compute_fwd_s;
    d->backward = m * b->compute_bwd_s;
    d->compute = m * (b->compute_fwd_s + b->compute_bwd_s);
    d->recompute = m * b->recompute_s;
    d->tp_comm = m * b->tp_s;
    d->cp_comm = m * b->cp_s;
    d->ep_comm = m * b->ep_s;
    d->ep_total = m * b->ep_total_s;
    d->dp_total = b->dp_total_s;
    d->dp_mb_exposed = b->dp_mb_s;
    step_update(c, &w, d);
    /* The pipeline: its bubble and blocking sends from the closed form of
     * the schedule (model_pipeline.c), which the step-schedule simulator
     * checks. */
    if (c->pp > 1) {
        int sends = 2 * pf.v - (w.busy_index == 0) - (w.busy_index == c->pp - 1);
        d->p2p = m * sends * pf.e;
        d->bubble = maxd(0.0, pf.makespan - m * (b->fwd_s + b->bwd_s) - d->p2p);
    }
    /* After the pipeline the step waits for the stage whose tail (the DP
     * traffic left after its last backward, and the slowdown beside what
     * was hidden) ends last; of that wait, the busiest stage's slowdown
     * counts as compute. */
    double slow_tail = mind(b->slow_tail_s, pf.tail);
    d->interference = m * b->slow_mb_s + slow_tail;
    d->compute += d->interference;
    d->backward += d->interference;
    d->offload_wait = m * (b->offload_wait_s - b->offload_filled_s);
    d->dp_exposed = m * b->dp_mb_s + pf.tail - slow_tail;
    d->total = d->compute + d->recompute + d->tp_comm + d->cp_comm + d->ep_comm + d->bubble +
               d->p2p + d->dp_exposed + d->optimizer + d->straggler + d->overhead;
}
