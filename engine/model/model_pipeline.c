/* model_pipeline: the costs of every pipeline stage, per micro-batch, for the
 * step-schedule simulator (engine/sched), and the closed form of the
 * schedule. Both take their stages from model_stage_cost (model_stage.c),
 * so the simulator and the closed form see the same costs and differ only
 * in how the schedule puts them together. Nothing here allocates. */
#include <stddef.h>

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
    memset(pf, 0, offsetof(struct pipe_form, at));
    pf->p = report_int(c->pp);
    pf->v = v < 1 ? 1 : v;
    pf->m = (double)c->m;
    pf->link = c->pp > 1 ? model_pp_send_time(c) : 0.0;
    pf->e = (1.0 - c->r->software->pp_p2p_overlap) * pf->link;
    pf->r.gap_in = pf->r.gap_around = pf->r.gap_ring = -1.0;
    pf->r.arrive = -INFINITY;
    pf->ring_run[0] = pf->ring_run[1] = -INFINITY;
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
    double phi = (st->fwd_s - st->edge_fwd_s) / pf->v, beta = (st->bwd_s - st->edge_bwd_s) / pf->v;
    pf->sum_phi += phi;
    pf->sum_beta += beta;
    if (k < pf->p - 1)
        pf->mid_pair += phi + beta;
    else
        pf->edge_last = st->edge_fwd_s + st->edge_bwd_s;
}

/* 1F1B's steady state, between the warm-up's round trip and the
 * cool-down's: stage k's forward of micro-batch x reaches stage j > k,
 * which runs it and then the backward of its pair, which comes back to k
 * in time for k's pair j - k + 1 micro-batches later. That cycle carries
 * 2 (j - k) whole transfers (a send holds its stream only for its blocking
 * part, but the next stage waits for all of it) and the passes of the
 * stages between, where k's own stream runs j - k pairs; where it is
 * longer, k waits once per cycle, as often as the cycle fits in the
 * micro-batches between the two round trips. The longest over j. */
static double steady_cycles(const struct pipe_form *pf, int k, const struct model_stage_cost *st,
                            double e_f, double e_b)
{
    if (pf->v > 1 || pf->p > PIPE_STAGES_FOLLOWED)
        return 0.0;
    double span = pf->m - (pf->p - 1 - k) - 2.0, own = st->fwd_s + st->bwd_s + e_f + e_b;
    double between = 0.0, best = 0.0;
    for (int j = k + 1; j < pf->p; j++) {
        double hops = j - k, cycles = floor(span / (hops + 1.0));
        if (cycles < 1.0)
            break;
        double e_j = j < pf->p - 1 ? pf->e : 0.0;
        double trip = between + pf->at.pair[j] + e_j + 2.0 * hops * pf->link;
        best = maxd(best, cycles * maxd(0.0, trip - e_f - hops * own));
        between += pf->at.pair[j];
    }
    return best;
}

/* Interleaved, in pass 2 (the last stage first): the part of stage k's
 * round through a later stage j that depends on j (stage_waits). From
 * stage k's F(v-1, 0), micro-batch 0 goes down to the last stage and its
 * backward back up to j; j runs its stream from that backward to its
 * forward F(c, p) of the second group, 2 p (c + 1) - 4 (p - j - 1)
 * passes, whose micro-batch goes on down, round the ring and through the
 * stages before k to k's F(c + 1, p). The stages after j: their forwards of
 * chunk c and backwards of the last chunk; the sends: 3 p - 2 - 2 j. Both
 * j's passes and k's grow by p pairs per chunk, so the longest wait is at
 * one end: c = v - 2 (ring_run[0]) or c = 0 (ring_run[1]). */
static void ring_back(struct pipe_form *pf, int k, double phi, double beta)
{
    double p = pf->p, v = pf->v;
    for (int end = 0; end < 2; end++) {
        if (k < PIPE_STAGES_FOLLOWED)
            pf->at.ring_back[end][k] = k < pf->p - 1 ? pf->ring_run[end] : -INFINITY;
        double c = end == 0 ? v - 2.0 : 0.0, passes = 2.0 * p * (c + 1.0) - 4.0 * (p - k - 1);
        if (k < pf->p - 1 && passes > 0) {
            double run = 0.5 * passes * (phi + beta) + (passes - 1.0) * pf->e;
            pf->ring_run[end] = maxd(pf->ring_run[end], pf->suffix_beta + pf->suffix_phi + run +
                                                            (3.0 * p - 2.0 - 2.0 * k) * pf->link);
        }
    }
    pf->suffix_phi += phi;
    if (k < pf->p - 1)
        pf->suffix_beta += beta;
    else
        pf->beta_last = beta, pf->phi_last = phi;
}

/* The send after stage k's last pass (a backward, which sends but out of
 * the first stage): it holds the stage's stream, not the path to the
 * stage before, so a stage's end (`at.end`) is its last pass's end and
 * its tail starts after this send. */
static double last_send(const struct pipe_form *pf, int k)
{
    return k > 0 ? pf->e : 0.0;
}

/* 1F1B: stage k's last forward ends `last_fwd` after the chain that
 * brings micro-batch 0 to it and its own first forward; `to_end`: from
 * its fill through its last forward to its end. A later stage's end waits
 * for an earlier stage's last forward (model_pipe_finish). */
static void follow_last_fwd(struct pipe_form *pf, int k, const struct model_stage_cost *st,
                            double last_fwd, double to_end)
{
    if (k >= PIPE_STAGES_FOLLOWED)
        return;
    pf->at.last_fwd[k] = last_fwd;
    pf->at.from_last_fwd[k] = to_end + last_send(pf, k) + st->dp_tail_s;
}

/* Interleaved: a stage's last backward of the last chunk, B(v-1, m-1),
 * ends no earlier than its own path there or the next stage's plus the
 * chain up, and the stage ends after what it runs after it. The backward
 * ring out of the first stage reaches every other stage's last pass too:
 * the first stage's B(1, m-1), (v - 2) p of its passes after its
 * B(v-1, m-1), goes round to the last stage's B(0, m-1) and up the stages
 * to stage 1's. */
static void round_ends(struct pipe_form *pf)
{
    double to_last = -INFINITY;
    for (int k = pf->p - 1; k >= 0; k--) {
        to_last = maxd(pf->at.last_bwd[k], to_last + pf->link + pf->at.beta[k]);
        pf->at.last_bwd[k] = to_last;
        pf->at.end[k] = maxd(pf->at.end[k], to_last + pf->at.after_last_bwd[k]);
    }
    double ring = to_last + (pf->v - 2.0) * pf->p * (pf->at.beta[0] + pf->e);
    for (int k = pf->p - 1; k > 0; k--) {
        ring += pf->link + pf->at.beta[k];
        pf->at.end[k] = maxd(pf->at.end[k], ring);
    }
}

/* The step waits for the stage whose DP tail ends last. A stage ends no
 * earlier than its own longest path, than a later stage's end plus the
 * backward chain up to it, and (1F1B) than an earlier stage's last forward
 * plus the chain down to it and its own passes after its last forward: a
 * light stage waits for the bottleneck's pace, so its end (and the window
 * its tail hides in) follows the bottleneck's, not its own compute.
 * Interleaved, the gradient sync starts with the last micro-batch's first
 * backward, B(v-1, m-1), and runs on through the waits of the cool-down
 * after it: the tail ends after that backward, the stage's own passes
 * after it and the tail, or with the stage, whichever is later. */
void model_pipe_finish(struct pipe_form *pf)
{
    if (pf->p > PIPE_STAGES_FOLLOWED) {
        pf->tail = maxd(0.0, pf->tail_drained);
        return;
    }
    /* Every path of the closed form ends at the first stage's last
     * backward, the pipeline's last pass. */
    pf->at.end[0] = maxd(pf->at.end[0], pf->makespan);
    bool rounds = model_pipe_rounds(pf);
    if (rounds)
        round_ends(pf);
    double later = -INFINITY, from_fwd = -INFINITY, finish = 0.0;
    for (int k = pf->p - 1; k >= 0; k--) {
        double end = maxd(pf->at.end[k], later - pf->at.drain[k]);
        if (rounds)
            finish = maxd(finish, maxd(end, pf->at.last_bwd[k] + pf->at.after_last_bwd[k] +
                                                pf->at.dp_tail[k]) +
                                      last_send(pf, k));
        else
            finish = maxd(finish, end + last_send(pf, k) + pf->at.dp_tail[k]);
        later = maxd(later, end + pf->at.drain[k]);
        finish = maxd(finish, pf->at.last_fwd[k] + from_fwd);
        from_fwd = maxd(from_fwd, pf->at.from_last_fwd[k]);
    }
    pf->tail = maxd(0.0, finish - pf->makespan);
}

void model_pipe_stage(struct pipe_form *pf, int k, const struct model_stage_cost *st)
{
    int after = pf->p - 1 - k;
    double cf = chain_f(pf, st), cb = chain_b(pf, st);
    double per_mb = st->fwd_s + st->bwd_s + stage_sends(pf, k) * pf->e;
    double fill = pf->chain_f - pf->after_f - cf + k * pf->link;
    double drain = pf->chain_b - pf->after_b - cb + k * pf->link;
    /* Beyond the stages followed, the stage's tail starts at its last
     * backward, at most `drain` before the first stage's. */
    pf->tail_drained = maxd(pf->tail_drained, st->dp_tail_s - drain);
    double round_trip = pf->after_f + pf->after_b + 2.0 * after * pf->link;
    double phi = (st->fwd_s - st->edge_fwd_s) / pf->v, beta = (st->bwd_s - st->edge_bwd_s) / pf->v;
    /* The passes a wait skips: without chunks, every one carries the
     * stage's embedding or output layer. */
    double own_f = pf->v == 1 ? cf : phi, own_b = pf->v == 1 ? cb : beta;
    /* The sends that hold the stream after a forward and after a backward
     * (none out of the ends of the whole model). */
    double e_f = pf->p > 1 && (k < pf->p - 1 || pf->v > 1) ? pf->e : 0.0;
    double e_b = pf->p > 1 && (k > 0 || pf->v > 1) ? pf->e : 0.0;
    /* The last backward's send is not on the path: the drain's whole
     * transfer to the stage before is. */
    double e_last = last_send(pf, k);
    double path = 0.0;
    if (model_pipe_rounds(pf)) {
        /* Interleaved rounds: the third pass (model_pipe_round). */
    } else if (after < pf->m) {
        /* The warm-up's forwards (and the send of the one before the first
         * backward) cover the round trip through the stages after k, as
         * far as they last; at the end the last forward's send and the
         * cool-down's backwards do. A path waits for both only when a
         * steady forward lies between them (after <= m - 2). */
        double warm = maxd(0.0, round_trip - after * (own_f + e_f) - e_f);
        double cool = maxd(0.0, round_trip - e_f - after * (own_b + e_b));
        bool both = after + 2.0 <= pf->m;
        double steady = both ? steady_cycles(pf, k, st, e_f, e_b) : 0.0;
        path = fill + drain + pf->m * per_mb - e_last +
               (both ? warm + cool + steady : maxd(warm, cool));
        /* Its last forward ends before its last after + 1 backwards (with
         * their sends) and the cool-down's wait; from there to its end,
         * the stream or the round trip. */
        double last_fwd =
            pf->m * per_mb - e_f - (after + 1.0) * (cb + e_b) + (both ? warm + steady : 0.0);
        follow_last_fwd(pf, k, st, last_fwd - cf,
                        fill + cf + maxd(e_f + after * (cb + e_b), round_trip) + cb);
    } else if (pf->v > 1) {
        /* Interleaved with fewer micro-batches than stages: each chunk's
         * round waits for the micro-batches to come round the ring, so the
         * first one goes through every chunk of every stage in turn, the
         * others a chunk behind each other (with equal stages p (f + b) +
         * (m - 1)(f + b) / v, which meets the rounds at m = p). */
        path =
            pf->work_total + 2.0 * (pf->p * pf->v - 1) * pf->link + (pf->m - 1.0) * per_mb / pf->v;
    } else {
        /* Every forward before the first backward returns: then the
         * backwards at the pace of this stage or of the slowest after it. */
        double first_back = maxd(pf->m * (cf + e_f), cf + round_trip);
        path = fill + drain + first_back + (cb + e_b) +
               maxd((pf->m - 1.0) * (cb + e_b), pf->after_max) - e_last;
        follow_last_fwd(pf, k, st, pf->m * (cf + e_f) - e_f - cf,
                        fill + cf + e_f + (pf->m - 1.0) * (cb + e_b) + cb);
    }
    pf->makespan = maxd(pf->makespan, path);
    if (k < PIPE_STAGES_FOLLOWED) {
        pf->at.pair[k] = st->fwd_s + st->bwd_s;
        pf->at.drain[k] = drain;
        pf->at.dp_tail[k] = st->dp_tail_s;
        pf->at.end[k] = path - drain;
        if (model_pipe_rounds(pf) || (pf->v > 1 && pf->p > 1))
            pf->at.last_fwd[k] = pf->at.from_last_fwd[k] = -INFINITY;
    }
    if (model_pipe_rounds(pf))
        ring_back(pf, k, phi, beta);
    pf->after_f += cf;
    pf->after_b += cb;
    /* How long this stage takes to send all backwards after its first:
     * its steady 1F1B pairs, then its cool-down's backwards alone. */
    double emit = after < pf->m ? (pf->m - after - 1.0) * per_mb + after * (cb + e_b)
                                : (pf->m - 1.0) * (cb + e_b);
    pf->after_max = maxd(pf->after_max, emit);
}

/* ---- interleaved: Megatron-Core's rounds -----------------------------------
 * With m >= p micro-batches, stage k runs w_k = 2 (p - k - 1) + (v - 1) p
 * warm-up chunk forwards, then pairs, then the cool-down (get_schedule_table
 * in megatron/core/pipeline_parallel/schedules.py: micro-batches in groups
 * of p, each group through chunk 0, 1, ..., backwards in reverse). Every
 * term below is the length of a path through that order, so the step is at
 * least each of them (and with equal stages one of them is the textbook
 * m (f + b) + (p - 1)(f + b) / v). A path enters stage k at its first
 * forward of the last chunk, F(v-1, 0): along its stream (micro-batch 0's
 * chunk 0 reaching it, then (v - 1) p chunk forwards) or down the stages
 * before it; it leaves at its last backward of the last chunk, B(v-1, m-1):
 * along its stream ((v - 1) p chunk backwards, then the last micro-batch's
 * chunk 0 going back up) or up to the stages before it. Between the two it
 * runs its own stream, waiting where the round trip of micro-batch 0 (and
 * of the last) through the stages after it outlasts the 2 (p - k - 1)
 * chunk passes that the order puts before the answer; the last stage, whose
 * last chunk carries the output layer and pairs the forwards and backwards
 * of that chunk in one round of p micro-batches every v rounds, may instead
 * wait in every cycle for another stage j: the longest cycle through j
 * (down and back up, round the ring through the first stage, or once round
 * the whole ring either way) crosses a fixed number of j's passes, which
 * the order of both stages sets. docs/MODEL.md, "The step schedule". */

bool model_pipe_rounds(const struct pipe_form *pf)
{
    return pf->p > 1 && pf->v > 1 && pf->m >= pf->p;
}

/* The cycles of the last stage through stage j < p - 1, less what depends
 * on the last stage itself (added in last_stage_stream). */
static void round_cycles(struct pipe_form *pf, int j, const struct model_stage_cost *st, double phi,
                         double beta)
{
    struct pipe_rounds *r = &pf->r;
    double p = pf->p, v = pf->v, L = pf->link, e = pf->e;
    double pair = (st->fwd_s + st->bwd_s + stage_sends(pf, j) * e) / v;
    /* Down to the last stage and back: j's passes from B(v-1, last of a
     * group) to F(v-1, first of the next). */
    double n_in = p * v - p - 2.0 * (p - j - 1) + 1.0;
    if (n_in > 0)
        r->gap_in = maxd(r->gap_in, pf->mid_pair - r->pre_pair - phi - beta +
                                        2.0 * (p - 1 - j) * L + n_in * pair - e);
    /* Round the ring through the first stage: 2 p v - 4 j - 2 passes of the
     * two stages, the last stage's heavy round and a pass either side of it
     * among them. */
    double n_around = p * v - 2.0 * j - p - 2.0;
    if (n_around > 0)
        r->gap_around = maxd(r->gap_around, r->pre_pair + 2.0 * j * L + n_around * (phi + beta) +
                                                (2.0 * n_around - 1.0) * e);
    /* Once round the ring, backwards or forwards: 2 p v - 2 p + 2 passes of
     * the two stages, one pass of each other stage. */
    double n_ring = p * v - 2.0 * p + 1.0;
    if (n_ring > 0) {
        double rest = (n_ring - 1.0) * (phi + beta) + (2.0 * n_ring - 2.0) * e;
        r->gap_ring = maxd(r->gap_ring, rest);
    }
}

/* Stage k's stream from the start of F(v-1, 0) to the end of B(v-1, m-1)
 * waits wherever a path leaves it after one of its passes and comes back
 * before a later one, longer than the passes it skips. Each such stretch
 * runs from a pass to a pass (their places in k's order); `wait` is the
 * longest sum over stretches that do not overlap, `warm` the longest
 * ending before k's last forward. */
struct round_waits {
    double round_trip, between, warm, wait;
};

struct stretch {
    double from, to, wait;
};

/* Stage k's order: w warm-up forwards, pairs (forward w + i, backward i),
 * then the cool-down's backwards; n = m v chunk passes of each kind. */
struct stage_order {
    double w, n;
};

static double place_f(const struct stage_order *o, double i)
{
    return i < o->w ? i : o->w + 2.0 * (i - o->w);
}

static double place_b(const struct stage_order *o, double i)
{
    return i < o->n - o->w ? o->w + 2.0 * i + 1.0 : o->n + i;
}

/* Forwards among the first `place` passes. */
static double fwds_before(const struct stage_order *o, double place)
{
    return place <= o->w ? place : mind(o->n, o->w + floor((place - o->w + 1.0) / 2.0));
}

/* Of the forward (backward) table's first i entries, those of chunk 0. */
static double chunk0_fwds(const struct pipe_form *pf, double i)
{
    double g = pf->p * (double)pf->v, q = floor(i / g);
    return q * pf->p + mind(i - q * g, pf->p);
}

static double chunk0_bwds(const struct pipe_form *pf, double i)
{
    double g = pf->p * (double)pf->v, q = floor(i / g);
    return q * pf->p + maxd(0.0, i - q * g - (pf->v - 1.0) * pf->p);
}

/* Stage k's own stream from the end of the pass at `from` (its send
 * included) to the start of the pass at `to`; the first stage's chunk 0
 * carries the embedding and its chunk-0 backwards send nothing. */
static double own_stream(const struct pipe_form *pf, const struct stage_order *o, int k,
                         const struct model_stage_cost *st, double from, double to)
{
    double phi = (st->fwd_s - st->edge_fwd_s) / pf->v, beta = (st->bwd_s - st->edge_bwd_s) / pf->v;
    double f0 = fwds_before(o, from + 1.0), f1 = fwds_before(o, to);
    double b0 = from + 1.0 - f0, b1 = to - f1;
    double own = pf->e + (f1 - f0) * (phi + pf->e) + (b1 - b0) * (beta + pf->e);
    if (k == 0)
        own += (chunk0_fwds(pf, f1) - chunk0_fwds(pf, f0)) * st->edge_fwd_s +
               (chunk0_bwds(pf, b1) - chunk0_bwds(pf, b0)) * (st->edge_bwd_s - pf->e);
    return own;
}

/* The longest sum of waits over stretches that do not overlap (one may
 * end at the pass where the next starts); n is at most 7. Taken in the
 * order they start, every stretch that ends before one starts comes
 * before it. */
static double chained_waits(const struct stretch *s, int n)
{
    int order[7];
    double best[7], all = 0.0;
    for (int i = 0; i < n; i++) {
        int at = i;
        while (at > 0 && s[order[at - 1]].from > s[i].from) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = i;
    }
    for (int a = 0; a < n; a++) {
        const struct stretch *x = &s[order[a]];
        best[a] = x->wait;
        for (int b = 0; b < a; b++)
            if (s[order[b]].to <= x->from)
                best[a] = maxd(best[a], x->wait + best[b]);
        all = maxd(all, best[a]);
    }
    return all;
}

static void stage_waits(const struct pipe_form *pf, int k, const struct model_stage_cost *st,
                        struct round_waits *w)
{
    const struct pipe_rounds *r = &pf->r;
    double p = pf->p, v = pf->v, m = pf->m, after = p - 1 - k;
    double phi = (st->fwd_s - st->edge_fwd_s) / v, beta = (st->bwd_s - st->edge_bwd_s) / v;
    struct stage_order o = {mind(2.0 * after + (v - 1.0) * p, m * v), m * v};
    double groups = floor(m / p), enter = place_f(&o, (v - 1.0) * p);
    double last_b = place_b(&o, (groups - 1.0) * p * v + p - 1.0);
    /* The last chunk's passes of the stages after k, the output layer's
     * included, and the sends there and back; the last stage's heavy
     * round (its last chunk's pairs with the output layer) adds p - 1
     * pairs when the path waits there for a whole round. */
    w->round_trip = pf->sum_phi + pf->sum_beta + pf->edge_last - r->pre_pair - phi - beta +
                    2.0 * after * pf->link;
    w->between = mind(2.0 * after, m * v - (v - 1.0) * p - 1.0);
    double a = pf->phi_last, b = pf->beta_last, heavy = a + b + pf->edge_last;
    double round = w->round_trip + (p - 1.0) * (heavy + pf->e);
    struct stretch s[7];
    int n = 0;
    /* Micro-batch 0 (or the first group through the heavy round) down to
     * the last stage and back; the same for the last micro-batch (group). */
    s[n++] = (struct stretch){enter, place_b(&o, 0.0), w->round_trip};
    s[n++] = (struct stretch){enter, place_b(&o, p - 1.0), round};
    s[n++] = (struct stretch){place_f(&o, m * v - 1.0), last_b, w->round_trip};
    s[n++] = (struct stretch){place_f(&o, m * v - p), last_b, round};
    if (m >= 2.0 * p) {
        /* Micro-batch 0 back to k's F(c + 1, p) round the ring, through a
         * later stage j (ring_back) or the last stage (its stream from
         * F(v-1, 0) to F(c, p): the first group's heavy round, p c light
         * pairs and a light forward), for c = v - 2 and c = 0. */
        for (int end = 0; end < (v > 2.0 ? 2 : 1); end++) {
            double c = end == 0 ? v - 2.0 : 0.0;
            double run = p * heavy + (p * c + 1.0) * a + p * c * b + p * (2.0 * c + 1.0) * pf->e;
            double ring = pf->sum_phi - a - phi + p * pf->link + run;
            if (k < PIPE_STAGES_FOLLOWED && isfinite(pf->at.ring_back[end][k]))
                ring = maxd(ring, pf->sum_phi - phi + pf->edge_last + b + pf->at.ring_back[end][k]);
            s[n++] = (struct stretch){enter, place_f(&o, p * v + (c + 1.0) * p), ring};
        }
        /* Its mirror: k's B(1, m-p-1) up the stages before k and round the
         * ring to the last stage's B(0, m-p-1), which runs its last heavy
         * round and sends B(v-1, m-1) down to k. */
        double back = pf->sum_beta - beta + p * (heavy + pf->e + pf->link);
        s[n++] = (struct stretch){place_b(&o, (groups - 2.0) * p * v + (v - 1.0) * p - 1.0), last_b,
                                  back};
    }
    double last_f = place_f(&o, m * v - 1.0);
    w->warm = 0.0;
    for (int i = 0; i < n; i++) {
        s[i].wait = s[i].to > s[i].from
                        ? maxd(0.0, s[i].wait - own_stream(pf, &o, k, st, s[i].from, s[i].to))
                        : 0.0;
        if (s[i].to <= last_f)
            w->warm = maxd(w->warm, s[i].wait);
    }
    w->wait = chained_waits(s, n);
}

/* The last stage: its own stream, or G = m / p heavy rounds (its last
 * chunk's pairs with the output layer) and between each two the longest
 * cycle through its own light pairs or another stage. */
static double last_stage_stream(const struct pipe_form *pf, const struct model_stage_cost *st,
                                double phi, double beta, double rest)
{
    const struct pipe_rounds *r = &pf->r;
    double p = pf->p, v = pf->v, L = pf->link, e = pf->e;
    double heavy = p * (phi + beta + st->edge_fwd_s + st->edge_bwd_s) + (p - 1.0) * e;
    double gap = e + (p * v - p) * (phi + beta + 2.0 * e);
    gap = maxd(gap, r->gap_in);
    if (r->gap_around >= 0)
        gap = maxd(gap, r->gap_around + phi + beta + 2.0 * L + 2.0 * e);
    if (r->gap_ring >= 0)
        gap = maxd(gap, maxd(pf->sum_beta, pf->sum_phi) + r->gap_ring + p * L + e);
    double groups = pf->m / p;
    return maxd(rest, groups * heavy + (groups - 1.0) * gap);
}

void model_pipe_round(struct pipe_form *pf, int k, const struct model_stage_cost *st)
{
    struct pipe_rounds *r = &pf->r;
    double p = pf->p, v = pf->v, m = pf->m, L = pf->link, e = pf->e;
    double phi = (st->fwd_s - st->edge_fwd_s) / v, beta = (st->bwd_s - st->edge_bwd_s) / v;
    bool first = k == 0, last = k == pf->p - 1;
    /* The chunks before the last of the first group, and after it of the
     * last group (the first stage's chunk 0 forwards carry the embedding,
     * its chunk 0 backwards send nothing). */
    double before = (v - 1.0) * p * (phi + e) + (first ? p * st->edge_fwd_s : 0.0);
    double after = (v - 1.0) * p * (beta + e) - (first ? p * e : 0.0);
    /* Of that, what the path to its last pass takes (not its send). */
    double to_last = after - last_send(pf, k);
    double rest = m * (st->fwd_s + st->bwd_s + stage_sends(pf, k) * e) - before - after - e;
    double enter = r->fill + before;
    if (first)
        enter = maxd(enter, (v - 1.0) * (pf->sum_phi + p * L) + st->edge_fwd_s);
    else
        enter = maxd(enter, r->enter + r->phi_prev + L);
    /* The last pass's send is not on the path: the drain's whole transfer
     * to the stage before is. */
    double leave = e + to_last + r->drain;
    if (first)
        leave = maxd(leave, (v - 1.0) * (pf->sum_beta + p * L));
    else
        leave = maxd(leave, r->leave + L + r->beta_prev);
    /* Stage k's stream; where its last forward F(v-1, m-1) ends; from its
     * start to the stage's end. */
    double stream, last_fwd, to_end;
    if (last) {
        stream = last_stage_stream(pf, st, phi, beta, rest);
        last_fwd = enter + stream - beta - st->edge_bwd_s;
        to_end = phi + beta + st->edge_fwd_s + st->edge_bwd_s + e + to_last;
    } else {
        struct round_waits w;
        stage_waits(pf, k, st, &w);
        stream = rest + w.wait;
        last_fwd = enter + rest - e - w.between * (beta + e) - beta + w.warm;
        to_end = phi + maxd(e + w.between * (beta + e), w.round_trip) + beta + e + to_last;
        round_cycles(pf, k, st, phi, beta);
    }
    r->makespan = maxd(r->makespan, enter + stream + leave);
    /* The stage ends after its own stream, or after an earlier stage's
     * last forward reaches its own (model_pipe_finish). */
    if (k < PIPE_STAGES_FOLLOWED) {
        pf->at.end[k] = maxd(enter + stream + e + to_last, r->arrive + to_end);
        pf->at.last_bwd[k] = enter + stream;
        pf->at.after_last_bwd[k] = e + to_last;
        pf->at.beta[k] = beta;
    }
    r->arrive = maxd(r->arrive + phi, last_fwd) + L;
    r->enter = enter;
    r->leave = leave;
    r->fill += phi + (first ? st->edge_fwd_s : 0.0) + L;
    r->drain += beta + L;
    r->pre_pair += phi + beta;
    r->phi_prev = phi;
    r->beta_prev = beta;
    if (last)
        pf->makespan = maxd(pf->makespan, r->makespan);
}
