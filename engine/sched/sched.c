/* sched: the public face of the step-schedule simulator: schedule names,
 * setting a simulation up from the model's costs, and the step's breakdown
 * from the simulated stages. The event loop is sched_run.c, the orders
 * sched_order.c. */
#include "schedule.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sched_internal.h"

static const char *const kind_names[SCHED_KIND_COUNT] = {"auto", "gpipe", "1f1b", "interleaved",
                                                         "zb-h1"};

const char *sched_kind_name(int kind)
{
    return kind >= 0 && kind < SCHED_KIND_COUNT ? kind_names[kind] : "?";
}

int sched_kind_parse(const char *name)
{
    for (int k = 0; name && k < SCHED_KIND_COUNT; k++)
        if (strcmp(name, kind_names[k]) == 0)
            return k;
    return -1;
}

void sched_free(struct sched_result *out)
{
    if (!out)
        return;
    free(out->stages);
    free(out->ops);
    out->stages = NULL;
    out->ops = NULL;
    out->n_ops = 0;
}

/* The schedule a kind runs with p stages and v chunks: interleaving needs
 * chunks, the others run whole stages. */
static int resolve_kind(int kind, int p, int v)
{
    if (kind == SCHED_AUTO)
        return v > 1 && p > 1 ? SCHED_INTERLEAVED : SCHED_1F1B;
    if (kind == SCHED_INTERLEAVED && (v <= 1 || p <= 1))
        return SCHED_1F1B;
    return kind;
}

static bool finite_costs(const struct model_stage_cost *c)
{
    double v[] = {c->fwd_s,      c->bwd_s,      c->wgrad_s,  c->dp_tail_s,
                  c->edge_fwd_s, c->edge_bwd_s, c->slow_mb_s};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (!isfinite(v[i]) || v[i] < 0)
            return false;
    return isfinite(c->slow_tail_s) && c->edge_fwd_s <= c->fwd_s &&
           c->wgrad_s + c->edge_bwd_s <= c->bwd_s * (1 + 1e-12);
}

/* The step of the busiest stage, exposed, from the simulated stages. */
static void breakdown(const struct sim *sm, const struct model_pipeline *pipe,
                      struct sched_result *o)
{
    double end = 0.0, finish = 0.0, busiest = -1.0;
    for (int s = 0; s < sm->p; s++) {
        struct sched_stage *st = &o->stages[s];
        st->end_s = sm->st[s].t_free;
        /* What the stage's waits after it started its gradient sync left
         * of the sync's exposed part (sched_loop). */
        st->dp_tail_s = fmax(0.0, sm->cost[s].dp_tail_s - sm->st[s].sync_idle);
        st->peak_micro_batches = (double)st->peak_chunks / sm->v;
        end = fmax(end, st->end_s);
        finish = fmax(finish, st->end_s + st->dp_tail_s);
        const struct model_stage_cost *c = &sm->cost[s];
        double work = c->compute_fwd_s + c->compute_bwd_s + c->recompute_s;
        if (work > busiest) {
            busiest = work;
            o->critical = s;
        }
    }
    for (int s = 0; s < sm->p; s++)
        o->stages[s].idle_s = fmax(0.0, end - o->stages[s].busy_s - o->stages[s].send_s);
    const struct model_stage_cost *c = &sm->cost[o->critical];
    double m = sm->m;
    o->pipeline_s = end;
    o->compute_s = m * (c->compute_fwd_s + c->compute_bwd_s);
    o->recompute_s = m * c->recompute_s;
    o->tp_s = m * c->tp_s;
    o->cp_s = m * c->cp_s;
    o->ep_s = m * c->ep_s;
    o->p2p_s = o->stages[o->critical].send_s;
    o->bubble_s = o->stages[o->critical].idle_s;
    /* Compute slowed beside hidden communication counts as compute: every
     * micro-batch's, and of the wait after the pipeline, the busiest
     * stage's tail slowdown (as the closed form, model_stage.c). */
    double slow_tail = fmin(c->slow_tail_s, finish - end);
    o->compute_s += m * c->slow_mb_s + slow_tail;
    /* What the busiest stage's passes hold beyond the parts above is the
     * per-micro-batch DP/ZeRO traffic; the tail is what stages finish after
     * the pipeline. */
    o->dp_s = fmax(0.0, o->stages[o->critical].busy_s - o->compute_s - o->recompute_s - o->tp_s -
                            o->cp_s - o->ep_s + slow_tail) +
              (finish - end) - slow_tail;
    o->optimizer_s = pipe->optimizer_s;
    o->straggler_s = pipe->straggler_s;
    o->overhead_s = pipe->overhead_s;
    o->step_s = finish + o->optimizer_s + o->straggler_s + o->overhead_s;
}

static int setup_sim(struct sim *sm, const struct model_pipeline *pipe,
                     const struct model_stage_cost *stages, int kind, bool timeline,
                     struct sched_result *out)
{
    int p = pipe->pp, v = pipe->vp < 1 ? 1 : pipe->vp, m = pipe->m;
    if (p < 1 || m < 1 || !stages || !isfinite(pipe->send_s) || pipe->send_s < 0 ||
        !isfinite(pipe->send_blocking_s) || pipe->send_blocking_s < 0)
        return SCHED_BAD_INPUT;
    for (int s = 0; s < p; s++)
        if (!finite_costs(&stages[s]))
            return SCHED_BAD_INPUT;
    kind = resolve_kind(kind, p, v);
    if (kind != SCHED_INTERLEAVED)
        v = 1;
    if ((int64_t)p * v * m > SCHED_MAX_SLOTS)
        return SCHED_TOO_BIG;
    *sm = (struct sim){.p = p, .v = v, .m = m, .kind = kind, .cost = stages, .out = out};
    sm->send_s = p > 1 ? pipe->send_s : 0.0;
    sm->block_s = p > 1 ? fmin(pipe->send_blocking_s, pipe->send_s) : 0.0;
    out->kind = kind;
    out->pp = p;
    out->vp = v;
    out->m = m;
    size_t slots = (size_t)p * v * m, passes = slots * 2 + (kind == SCHED_ZB_H1 ? slots : 0);
    sm->fwd_ready = malloc(slots * sizeof *sm->fwd_ready);
    sm->bwd_ready = malloc(slots * sizeof *sm->bwd_ready);
    sm->st = calloc((size_t)p, sizeof *sm->st);
    out->stages = calloc((size_t)p, sizeof *out->stages);
    if (timeline)
        out->ops = malloc(passes * sizeof *out->ops);
    if (!sm->fwd_ready || !sm->bwd_ready || !sm->st || !out->stages || (timeline && !out->ops))
        return SCHED_NO_MEMORY;
    for (size_t i = 0; i < slots; i++)
        sm->fwd_ready[i] = sm->bwd_ready[i] = -1.0;
    return SCHED_OK;
}

int sched_run(const struct model_pipeline *pipe, const struct model_stage_cost *stages, int kind,
              bool timeline, struct sched_result *out)
{
    struct sim sm;
    memset(out, 0, sizeof *out);
    memset(&sm, 0, sizeof sm);
    if (!pipe)
        return SCHED_BAD_INPUT;
    int rc = setup_sim(&sm, pipe, stages, kind, timeline, out);
    if (rc == SCHED_OK && !sched_loop(&sm))
        rc = SCHED_DEADLOCK;
    if (rc == SCHED_OK)
        breakdown(&sm, pipe, out);
    free(sm.fwd_ready);
    free(sm.bwd_ready);
    free(sm.st);
    if (rc != SCHED_OK)
        sched_free(out);
    return rc;
}

int sched_simulate(const struct setup *s, const struct resolved *r, const struct model_report *o,
                   int kind, bool timeline, struct sched_result *out)
{
    memset(out, 0, sizeof *out);
    int p = s->training.pipeline_parallel < 1 ? 1 : s->training.pipeline_parallel;
    struct model_stage_cost *stages = calloc((size_t)p, sizeof *stages);
    if (!stages)
        return SCHED_NO_MEMORY;
    struct model_pipeline pipe;
    model_pipeline_costs(s, r, o, &pipe, stages, p);
    int rc = sched_run(&pipe, stages, kind, timeline, out);
    free(stages);
    return rc;
}

double sched_bubble_s(const struct model_report *o)
{
    return o && isfinite(o->breakdown.pp_bubble) && o->breakdown.pp_bubble > 0
               ? o->breakdown.pp_bubble
               : 0.0;
}

double sched_bubble_share(const struct model_report *o)
{
    double b = sched_bubble_s(o);
    return o && o->step_time_s > 0 && isfinite(b / o->step_time_s) ? b / o->step_time_s : 0.0;
}
