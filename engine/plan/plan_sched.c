/* plan_sched: the planner's best rows re-scored by the step-schedule
 * simulator (engine/sched), and why rank 1 beats the user's own layout. The
 * closed form prunes the whole space and keeps its best K rows; the
 * simulator, a fraction of a millisecond to a few a row, times those K and
 * the base setup, and the printed rows are ranked by the simulated step.
 * docs/PLAN.md, "Re-scoring". */
#include <math.h>
#include <string.h>
#include <time.h>

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

void plan_entry_at_step(const struct plan_entry *closed, double step_s, struct plan_entry *out)
{
    *out = *closed;
    double was = closed->fig[PLAN_STEP_TIME_S];
    if (!(step_s > 0) || !(was > 0) || !isfinite(step_s))
        return;
    /* Throughput and MFU are work over the step; days, and with them the
     * device hours, USD and energy, grow with it (goodput, power and the
     * hourly price are the closed form's: none of them reads the step). */
    double f = step_s / was;
    out->fig[PLAN_STEP_TIME_S] = step_s;
    out->fig[PLAN_TOKENS_PER_S] = closed->fig[PLAN_TOKENS_PER_S] / f;
    out->fig[PLAN_MFU] = closed->fig[PLAN_MFU] / f;
    out->fig[PLAN_DAYS] = closed->fig[PLAN_DAYS] * f;
    out->fig[PLAN_USD_TOTAL] = closed->fig[PLAN_USD_TOTAL] * f;
    out->fig[PLAN_ENERGY_MWH] = closed->fig[PLAN_ENERGY_MWH] * f;
}

/* Entry e of setup s at its simulated step (its closed-form figures kept
 * where the schedule cannot be simulated). Returns whether it was. */
static bool rescore_entry(const struct setup *s, const struct catalog *cat, struct plan_entry *e)
{
    double part[PLAN_WHY_PARTS];
    bool simulated = false;
    struct model_report o;
    e->closed_step_s = e->fig[PLAN_STEP_TIME_S];
    e->sim_step_s = 0.0;
    if (!parts_of(s, cat, part, &simulated, &o) || !simulated)
        return false;
    e->sim_step_s = part[PLAN_WHY_STEP];
    plan_entry_at_step(e, e->sim_step_s, e);
    return true;
}

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Whether a is better than b by the objective (never equal figures). */
static bool better(const struct plan_spec *spec, const struct plan_entry *a,
                   const struct plan_entry *b)
{
    return plan_key(spec, a) < plan_key(spec, b);
}

void plan_rescore(const struct plan_space *sp, const struct catalog *cat,
                  const struct plan_spec *spec, struct plan_result *r)
{
    double t0 = wall_s();
    struct plan_entry base_closed = r->base;
    if (r->base_runnable)
        rescore_entry(&sp->base, cat, &r->base);
    /* The base's rank: rows kept here count by their simulated figures,
     * every other candidate by its closed form's, as the search counted. */
    long long ahead = (long long)r->counts.better_than_base;
    int kept = 0, simulated = 0;
    for (int i = 0; i < r->n_top; i++) {
        struct plan_entry e = r->top[i];
        struct setup s;
        plan_space_setup(sp, e.index, &s);
        bool was_ahead = r->base_runnable && better(spec, &e, &base_closed);
        simulated += rescore_entry(&s, cat, &e);
        ahead -= was_ahead;
        if (!plan_within_limits(spec, e.fig)) {
            r->counts.runnable--;
            r->counts.constraint_cut++;
            continue;
        }
        ahead += r->base_runnable && better(spec, &e, &r->base);
        /* Insertion by the objective, ties by the candidate number. */
        int k = kept++;
        while (k > 0 && plan_compare(spec, &e, &r->top[k - 1]) < 0) {
            r->top[k] = r->top[k - 1];
            k--;
        }
        r->top[k] = e;
    }
    r->n_top = kept < spec->top ? kept : spec->top;
    r->counts.better_than_base = ahead > 0 ? (uint64_t)ahead : 0;
    r->rescored = true;
    r->rescore_rows = simulated;
    r->rescore_s = wall_s() - t0;
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
