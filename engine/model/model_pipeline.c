/* model_pipeline: the costs of every pipeline stage, per micro-batch, for the
 * step-schedule simulator (engine/sched), and the closed form of the
 * schedule. Both take their stages from model_stage_cost (model_stage.c),
 * so the simulator and the closed form see the same costs and differ only
 * in how the schedule puts them together. Nothing here allocates. */
#include "model.h"
#include "model_internal.h"

int model_pipeline_costs(const struct setup *s, const struct resolved *r,
                         const struct model_report *o, struct model_pipeline *out,
                         struct model_stage_cost *stages, int max)
{
    struct ctx c;
    model_make_ctx(s, r, &c);
    if (o && o->power.throttled && o->power.throttle_factor > 0)
        c.throttle = o->power.throttle_factor;
    struct device_step d;
    model_device_step(&c, &d);
    memset(out, 0, sizeof *out);
    out->pp = report_int(c.pp);
    out->vp = s->model.kind == MODEL_TRANSFORMER ? s->training.virtual_stages : 1;
    if (out->vp < 1)
        out->vp = 1;
    out->m = report_int(c.m);
    out->send_s = c.pp > 1 ? model_pp_send_time(&c) : 0.0;
    out->send_blocking_s = (1.0 - r->software->pp_p2p_overlap) * out->send_s;
    out->optimizer_s = d.optimizer;
    out->straggler_s = d.straggler;
    out->overhead_s = d.overhead;
    out->closed_step_s = d.total;
    out->closed_bubble_s = d.bubble;
    out->closed_p2p_s = d.p2p;
    struct layer_times ld, lm;
    memset(&ld, 0, sizeof ld);
    if (s->model.kind == MODEL_TRANSFORMER)
        model_layer_times(&c, false, &ld);
    lm = ld;
    if (s->model.kind == MODEL_TRANSFORMER && s->model.experts > 0)
        model_layer_times(&c, true, &lm);
    int first_layer = 0, prev_key[3] = {-1, -1, -1};
    for (int i = 0; i < out->pp && i < max; i++) {
        struct stage st;
        model_make_stage(&c, i, first_layer, &st);
        first_layer += st.layers;
        /* Neighbours with the same layers and ends cost the same. */
        int key[3] = {st.layers, st.moe_layers, (st.first ? 1 : 0) + (st.last ? 2 : 0)};
        if (i > 0 && memcmp(key, prev_key, sizeof key) == 0) {
            stages[i] = stages[i - 1];
            continue;
        }
        memcpy(prev_key, key, sizeof key);
        model_stage_cost(&c, &st, &ld, &lm, &stages[i]);
    }
    return out->pp;
}

/* ---- the closed form of the schedule ---------------------------------------
 * Stage k of p with per-micro-batch forward f_k and backward b_k (chunks of
 * f_k / v, b_k / v, the embedding and output layer whole in theirs) runs m
 * micro-batches: m (f_k + b_k) of work plus its blocking sends. Around it:
 * the fill (micro-batch 0 reaching it through stages 0..k-1), the drain (the
 * last backward going back through them), and two waits for the stages
 * after it, whose round trip D_k (forward down, backward back) the warm-up
 * covers with its p - k - 1 forwards and the cool-down with as many
 * backwards. The step is the longest of these paths over k; with equal
 * stages it is (m + p - 1) (f + b) for 1F1B and m (f + b) + (p - 1)(f + b) / v
 * interleaved (Narayanan et al. 2021). docs/MODEL.md, "The step schedule". */

void model_pipe_begin(struct pipe_form *pf, const struct ctx *c, int v)
{
    memset(pf, 0, sizeof *pf);
    pf->p = report_int(c->pp);
    pf->v = v < 1 ? 1 : v;
    pf->m = (double)c->m;
    pf->link = c->pp > 1 ? model_pp_send_time(c) : 0.0;
    pf->e = (1.0 - c->r->software->pp_p2p_overlap) * pf->link;
}

/* A chunk's forward and backward on the first micro-batch's path. */
static double chain_f(const struct pipe_form *pf, const struct model_stage_cost *st)
{
    return (st->fwd_s - st->edge_fwd_s) / pf->v + st->edge_fwd_s;
}
static double chain_b(const struct pipe_form *pf, const struct model_stage_cost *st)
{
    return (st->bwd_s - st->edge_bwd_s) / pf->v + st->edge_bwd_s;
}

/* Sends the blocking part of which holds stage k's stream per micro-batch:
 * every chunk sends its forward on and its backward back, but for the ends
 * of the whole model. */
static int stage_sends(const struct pipe_form *pf, int k)
{
    return pf->p == 1 ? 0 : 2 * pf->v - (k == 0) - (k == pf->p - 1);
}

/* Pass 1 visits the last stage first, like pass 2. */
void model_pipe_total(struct pipe_form *pf, int k, const struct model_stage_cost *st)
{
    pf->chain_f += chain_f(pf, st);
    pf->chain_b += chain_b(pf, st);
    pf->work_total += st->fwd_s + st->bwd_s;
    double pair =
        (st->fwd_s - st->edge_fwd_s + st->bwd_s - st->edge_bwd_s + stage_sends(pf, k) * pf->e) /
        pf->v;
    if (k < pf->p - 1)
        pf->light = maxd(pf->light, pair + st->edge_fwd_s / pf->v);
    else
        pf->last = pair;
}

/* Interleaved: Megatron-Core's stages run their chunk passes in rounds of p
 * micro-batches (a round of forwards of one chunk beside a round of
 * backwards of another). The last stage (warm-up (v - 1) p) runs the
 * forwards and backwards of its last chunk, with the output layer, in the
 * same round of each cycle of v rounds; when that round is longer than the
 * other stages' chunk pairs, they wait for its backwards. In its v - 1
 * other rounds it runs light chunk pairs, but receives the forwards at the
 * pace of the slowest other stage (`light`), less the one pair the stage
 * before it ran ahead (its warm-up is two passes longer). Per micro-batch:
 * the heavy pair, then the light rounds at the slower of the two paces;
 * around the steady state, the chunk chain of the other stages fills and
 * drains. */
static double round_path(const struct pipe_form *pf, const struct model_stage_cost *last)
{
    double a = pf->last, b = pf->light, v = pf->v;
    double heavy = a + (last->edge_fwd_s + last->edge_bwd_s);
    double rest = maxd((v - 1.0) * a, (v - 1.0) * b - b / pf->p);
    return pf->m * (heavy + rest) + pf->chain_f - chain_f(pf, last) + pf->chain_b -
           chain_b(pf, last) + 2.0 * (pf->p - 1) * pf->link;
}

void model_pipe_stage(struct pipe_form *pf, int k, const struct model_stage_cost *st)
{
    int after = pf->p - 1 - k;
    double cf = chain_f(pf, st), cb = chain_b(pf, st);
    double per_mb = st->fwd_s + st->bwd_s + stage_sends(pf, k) * pf->e;
    double fill = pf->chain_f - pf->after_f - cf + k * pf->link;
    double drain = pf->chain_b - pf->after_b - cb + k * pf->link;
    /* The stage's tail starts at its last backward, `drain` before the
     * first stage's. */
    pf->tail = maxd(pf->tail, st->dp_tail_s - drain);
    double round_trip = pf->after_f + pf->after_b + 2.0 * after * pf->link;
    double phi = (st->fwd_s - st->edge_fwd_s) / pf->v, beta = (st->bwd_s - st->edge_bwd_s) / pf->v;
    /* The sends that hold the stream after a forward and after a backward
     * (none out of the ends of the whole model). */
    double e_f = pf->p > 1 && (k < pf->p - 1 || pf->v > 1) ? pf->e : 0.0;
    double e_b = pf->p > 1 && (k > 0 || pf->v > 1) ? pf->e : 0.0;
    double path;
    if (after < pf->m) {
        /* The warm-up's forwards (and the send of the one before the first
         * backward) cover the round trip through the stages after k, as
         * far as they last; at the end the last forward's send and the
         * cool-down's backwards do. A path waits for both only when a
         * steady forward lies between them (after <= m - 2). */
        double warm = maxd(0.0, round_trip - after * (phi + e_f) - e_f);
        double cool = maxd(0.0, round_trip - e_f - after * (beta + e_b));
        double waits = after + 2.0 <= pf->m ? warm + cool : maxd(warm, cool);
        path = fill + drain + pf->m * per_mb + waits;
    } else if (pf->v > 1) {
        /* Interleaved with fewer micro-batches than stages: each chunk's
         * round waits for the micro-batches to come round the ring, so the
         * first one goes through every chunk of every stage in turn, the
         * others a chunk behind each other (with equal stages p (f + b) +
         * (m - 1)(f + b) / v, which meets the formula above at m = p). */
        path =
            pf->work_total + 2.0 * (pf->p * pf->v - 1) * pf->link + (pf->m - 1.0) * per_mb / pf->v;
    } else {
        /* Every forward before the first backward returns: then the
         * backwards at the pace of this stage or of the slowest after it. */
        double first_back = maxd(pf->m * (cf + e_f), cf + round_trip);
        path = fill + drain + first_back + (cb + e_b) +
               maxd((pf->m - 1.0) * (cb + e_b), pf->after_max);
    }
    if (k == pf->p - 1 && pf->v > 1 && pf->m >= pf->p)
        path = maxd(path, round_path(pf, st));
    pf->makespan = maxd(pf->makespan, path);
    pf->after_f += cf;
    pf->after_b += cb;
    /* How long this stage takes to send all backwards after its first:
     * its steady 1F1B pairs, then its cool-down's backwards alone. */
    double emit = after < pf->m ? (pf->m - after - 1.0) * per_mb + after * (cb + e_b)
                                : (pf->m - 1.0) * (cb + e_b);
    pf->after_max = maxd(pf->after_max, emit);
}
