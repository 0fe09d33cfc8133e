/* plan_sched: the planner's top rows re-scored by the step-schedule
 * simulator (engine/sched), and why rank 1 beats the user's own layout. The
 * closed form prunes and ranks the whole space; the simulator, about a
 * millisecond a row, re-times the rows that are printed (K = the --top
 * rows) and the base setup, and they are ranked again by those times.
 * docs/PLAN.md, "Re-scoring". */
#include <math.h>
#include <string.h>

#include "plan_internal.h"
#include "schedule.h"

const char *const plan_why_names[PLAN_WHY_PARTS] = {
    "compute", "recompute", "tp_comm",   "cp_comm",  "ep_comm",    "pp_p2p",    "pp_bubble",
    "dp_comm", "optimizer", "straggler", "overhead", "data_stall", "step_time", "memory_gb"};

/* The step of one setup, part by part: the simulated schedule where it
 * runs, else the closed form's breakdown. Returns false when the setup does
 * not resolve. */
static bool parts_of(const struct setup *s, const struct catalog *cat, double part[PLAN_WHY_PARTS],
                     bool *simulated, struct model_report *o)
{
    struct resolved r;
    char err[512];
    memset(part, 0, sizeof(double) * PLAN_WHY_PARTS);
    if (!setup_resolve(s, cat, &r, err, sizeof err))
        return false;
    model_eval(s, &r, o);
    const struct step_breakdown *k = &o->breakdown;
    double data = o->step_time_s - o->device_step_s;
    struct sched_result q;
    *simulated = sched_simulate(s, &r, o, SCHED_AUTO, false, &q) == SCHED_OK;
    if (*simulated) {
        double v[] = {q.compute_s,  q.recompute_s, q.tp_s,         q.cp_s,        q.ep_s,
                      q.p2p_s,      q.bubble_s,    q.dp_s,         q.optimizer_s, q.straggler_s,
                      q.overhead_s, data,          q.step_s + data};
        memcpy(part, v, sizeof v);
        sched_free(&q);
    } else {
        double v[] = {k->compute,  k->recompute, k->tp_comm,         k->cp_comm,   k->ep_comm,
                      k->pp_p2p,   k->pp_bubble, k->dp_comm_exposed, k->optimizer, k->straggler,
                      k->overhead, data,         o->step_time_s};
        memcpy(part, v, sizeof v);
    }
    part[PLAN_WHY_MEMORY] = o->memory.per_device_gb;
    return true;
}

/* The figures that scale with the step time, re-timed. */
static void retime(double fig[PLAN_FIGURE_COUNT], double old_step, double new_step)
{
    if (!(old_step > 0) || !(new_step > 0) || !isfinite(new_step / old_step))
        return;
    double f = new_step / old_step;
    fig[PLAN_TOKENS_PER_S] /= f;
    fig[PLAN_MFU] /= f;
    fig[PLAN_DAYS] *= f;
    fig[PLAN_USD_TOTAL] *= f;
    fig[PLAN_ENERGY_MWH] *= f;
    fig[PLAN_STEP_TIME_S] = new_step;
}

static void rescore_entry(const struct plan_space *sp, const struct catalog *cat,
                          const struct setup *s, struct plan_entry *e)
{
    (void)sp;
    double part[PLAN_WHY_PARTS];
    bool simulated;
    struct model_report o;
    if (parts_of(s, cat, part, &simulated, &o) && simulated)
        retime(e->fig, e->fig[PLAN_STEP_TIME_S], part[PLAN_WHY_STEP]);
}

void plan_rescore(const struct plan_space *sp, const struct catalog *cat,
                  const struct plan_spec *spec, struct plan_result *r)
{
    struct plan_entry top[PLAN_TOP_MAX];
    int n = r->n_top;
    memcpy(top, r->top, sizeof top[0] * (size_t)n);
    for (int i = 0; i < n; i++) {
        struct setup s;
        plan_space_setup(sp, top[i].index, &s);
        rescore_entry(sp, cat, &s, &top[i]);
    }
    if (r->base_runnable)
        rescore_entry(sp, cat, &sp->base, &r->base);
    /* Ranked again, by the simulated times; a row the longer step pushes
     * past a --max leaves. */
    r->n_top = 0;
    for (int i = 0; i < n; i++)
        if (plan_within_limits(spec, top[i].fig))
            plan_top_add(r, spec, &top[i]);
}

bool plan_why(const struct plan_space *sp, const struct catalog *cat, uint64_t index,
              struct plan_why *out)
{
    memset(out, 0, sizeof *out);
    struct setup s;
    struct model_report o;
    bool sim_best, sim_base;
    plan_space_setup(sp, index, &s);
    if (!parts_of(&sp->base, cat, out->base, &sim_base, &o) ||
        !parts_of(&s, cat, out->best, &sim_best, &o))
        return false;
    out->simulated = sim_base && sim_best;
    out->ok = true;
    return true;
}
