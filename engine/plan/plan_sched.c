/* plan_sched: the planner's printed rows timed by the step-schedule
 * simulator (engine/sched), and why rank 1 beats the user's own layout. The
 * closed form prunes and ranks the whole space; the simulator, about a
 * millisecond a row, times the rows that are printed (K = the --top rows)
 * and the base setup. docs/PLAN.md, "Re-scoring". */
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

void plan_simulate_rows(const struct plan_space *sp, const struct catalog *cat,
                        struct plan_result *r)
{
    double part[PLAN_WHY_PARTS];
    bool simulated;
    struct model_report o;
    for (int i = 0; i < r->n_top; i++) {
        struct setup s;
        plan_space_setup(sp, r->top[i].index, &s);
        r->top[i].sim_step_s =
            parts_of(&s, cat, part, &simulated, &o) && simulated ? part[PLAN_WHY_STEP] : 0.0;
    }
    r->base.sim_step_s = 0.0;
    if (r->base_runnable && parts_of(&sp->base, cat, part, &simulated, &o) && simulated)
        r->base.sim_step_s = part[PLAN_WHY_STEP];
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
