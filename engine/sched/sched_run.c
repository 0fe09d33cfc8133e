/* sched_run: the event loop of the step-schedule simulator. Every schedule
 * here fixes the order in which each stage issues its passes (the software
 * does: Megatron-Core's tables, ZB-H1's handcrafted order), so the time of
 * each event follows from two earlier ones: a pass starts when its stage's
 * compute stream is free and its input has arrived (the producing pass's
 * end plus one transfer). The loop walks the stages, running each as far
 * as its inputs are known, until all have run everything. Nothing here
 * reads a setup: the costs come in struct model_stage_cost
 * (model_pipeline_costs). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sched_internal.h"

/* ---- passes ---- */

static size_t slot(const struct sim *sm, int s, int chunk, int mb)
{
    return ((size_t)s * sm->v + chunk) * sm->m + mb;
}

/* When the input of pass `ps` on stage s is there: 0 when it needs none,
 * -1 while its producer has not run. */
static double input_ready(const struct sim *sm, int s, const struct pass *ps)
{
    int p = sm->p, c = ps->chunk, j = ps->mb;
    double r;
    if (ps->kind == SCHED_OP_WGRAD)
        return 0.0;
    if (ps->kind == SCHED_OP_FORWARD) {
        if (s > 0)
            r = sm->fwd_ready[slot(sm, s - 1, c, j)];
        else if (c > 0)
            r = sm->fwd_ready[slot(sm, p - 1, c - 1, j)];
        else
            return 0.0;
    } else if (s < p - 1) {
        r = sm->bwd_ready[slot(sm, s + 1, c, j)];
    } else if (c < sm->v - 1) {
        r = sm->bwd_ready[slot(sm, 0, c + 1, j)];
    } else { /* the loss: this stage's own forward */
        return sm->fwd_ready[slot(sm, s, c, j)];
    }
    return r < 0 ? -1.0 : r + sm->send_s;
}

/* The stage that consumes the output of pass `ps` on stage s, or -1. */
static int consumer(const struct sim *sm, int s, const struct pass *ps)
{
    int p = sm->p;
    if (ps->kind == SCHED_OP_WGRAD || p == 1)
        return -1;
    if (ps->kind == SCHED_OP_FORWARD)
        return s < p - 1 ? s + 1 : ps->chunk < sm->v - 1 ? 0 : -1;
    return s > 0 ? s - 1 : ps->chunk > 0 ? p - 1 : -1;
}

/* A pass of one chunk: its share of the stage's layers, and the embedding
 * (first chunk of the first stage) or the output layer and loss (last
 * chunk of the last stage) whole where they belong. */
static double pass_time(const struct sim *sm, int s, const struct pass *ps)
{
    const struct model_stage_cost *c = &sm->cost[s];
    double split = sm->kind == SCHED_ZB_H1 ? c->wgrad_s : 0.0;
    bool edge = (s == 0 && ps->chunk == 0) || (s == sm->p - 1 && ps->chunk == sm->v - 1);
    double v = sm->v;
    if (ps->kind == SCHED_OP_FORWARD)
        return (c->fwd_s - c->edge_fwd_s) / v + (edge ? c->edge_fwd_s : 0.0);
    if (ps->kind == SCHED_OP_BACKWARD)
        return (c->bwd_s - c->edge_bwd_s - split) / v + (edge ? c->edge_bwd_s : 0.0);
    return split;
}

/* Runs pass `ps` on stage s from `start`. */
static void run_pass(struct sim *sm, int s, const struct pass *ps, double start)
{
    struct stage_state *st = &sm->st[s];
    struct sched_stage *rs = &sm->out->stages[s];
    double end = start + pass_time(sm, s, ps);
    size_t at = slot(sm, s, ps->chunk, ps->mb);
    bool frees =
        sm->kind == SCHED_ZB_H1 ? ps->kind == SCHED_OP_WGRAD : ps->kind == SCHED_OP_BACKWARD;
    if (ps->kind == SCHED_OP_FORWARD) {
        sm->fwd_ready[at] = end;
        if (++st->inflight > rs->peak_chunks)
            rs->peak_chunks = st->inflight;
    } else if (ps->kind == SCHED_OP_BACKWARD) {
        sm->bwd_ready[at] = end;
    }
    if (frees)
        st->inflight--;
    rs->busy_s += end - start;
    st->t_free = end;
    if (consumer(sm, s, ps) >= 0) {
        st->t_free += sm->block_s;
        rs->send_s += sm->block_s;
    }
    if (sm->out->ops) {
        struct sched_op *op = &sm->out->ops[sm->out->n_ops++];
        op->stage = s;
        op->chunk = ps->chunk;
        op->micro_batch = ps->mb;
        op->kind = ps->kind;
        op->start_s = start;
        op->end_s = end;
    }
}

/* Runs stage s's next pass of a fixed order if its input is there.
 * Returns false when it is not (or the stage has run everything). */
static bool step_fixed(struct sim *sm, int s)
{
    struct stage_state *st = &sm->st[s];
    if (st->done >= sched_passes_per_stage(sm))
        return false;
    struct pass ps;
    sched_fixed_pass(sm, s, st->done, &ps);
    double r = input_ready(sm, s, &ps);
    if (r < 0)
        return false;
    double start = fmax(st->t_free, r);
    if (st->synced)
        st->sync_idle += start - st->t_free;
    run_pass(sm, s, &ps, start);
    st->done++;
    /* Interleaved with whole rounds (Megatron-Core runs no fewer
     * micro-batches than stages): the last micro-batch's first backward
     * lets the stage's gradient sync start, which then runs on beside
     * the cool-down, its waits included. */
    if (sm->kind == SCHED_INTERLEAVED && sm->m >= sm->p && ps.kind == SCHED_OP_BACKWARD &&
        ps.chunk == sm->v - 1 && ps.mb == sm->m - 1)
        st->synced = true;
    return true;
}

/* ZB-H1 (Qi et al. 2023, section 3.1): the backward is split into B (input
 * gradients, on the critical path) and W (weight gradients, free to move).
 * Stage s runs 1F1B's warm-up and F-B pairs, but holds back its first s W
 * passes, so that every stage keeps up to p micro-batches (activations are
 * freed after W), what 1F1B's first stage holds: the peak memory stays
 * 1F1B's. The held-back W passes fill the cool-down, where 1F1B waits. */
static void zero_bubble_pass(const struct sim *sm, int s, struct pass *ps)
{
    const struct stage_state *st = &sm->st[s];
    int m = sm->m, w = sched_warmup(sm, s), nf = st->done;
    int kind;
    if (nf < w)
        kind = SCHED_OP_FORWARD;
    else if (st->last_kind == SCHED_OP_BACKWARD && (st->nb - st->nw > s || nf == m))
        kind = SCHED_OP_WGRAD;
    else if (nf < m && nf - st->nb <= w)
        kind = SCHED_OP_FORWARD;
    else if (st->nb < nf)
        kind = SCHED_OP_BACKWARD;
    else
        kind = SCHED_OP_WGRAD;
    ps->kind = kind;
    ps->chunk = 0;
    ps->mb = kind == SCHED_OP_FORWARD ? nf : kind == SCHED_OP_BACKWARD ? st->nb : st->nw;
}

static bool step_zero_bubble(struct sim *sm, int s)
{
    struct stage_state *st = &sm->st[s];
    if (st->done >= sm->m && st->nb >= sm->m && st->nw >= sm->m)
        return false;
    struct pass ps;
    zero_bubble_pass(sm, s, &ps);
    double r = input_ready(sm, s, &ps);
    if (r < 0)
        return false;
    run_pass(sm, s, &ps, fmax(st->t_free, r));
    st->done += ps.kind == SCHED_OP_FORWARD;
    st->nb += ps.kind == SCHED_OP_BACKWARD;
    st->nw += ps.kind == SCHED_OP_WGRAD;
    st->last_kind = ps.kind;
    return true;
}

/* Runs the event loop; false if a stage never finished (an order that
 * waits on itself). */
bool sched_loop(struct sim *sm)
{
    bool zb = sm->kind == SCHED_ZB_H1, progress = true;
    while (progress) {
        progress = false;
        for (int s = 0; s < sm->p; s++)
            while (zb ? step_zero_bubble(sm, s) : step_fixed(sm, s))
                progress = true;
    }
    for (int s = 0; s < sm->p; s++) {
        const struct stage_state *st = &sm->st[s];
        bool done = zb ? st->done == sm->m && st->nb == sm->m && st->nw == sm->m
                       : st->done == sched_passes_per_stage(sm);
        if (!done)
            return false;
    }
    return true;
}
