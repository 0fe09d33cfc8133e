/* plan: search over layouts and hardware, top N and Pareto front. */
#include "plan.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"

const char *const plan_figure_names[] = {
    "tokens_per_s", "days",      "usd_total", "energy_mwh",  "mfu", "usd_per_hour",
    "facility_kw",  "memory_gb", "devices",   "step_time_s", NULL};
/* Where each figure sits in the JSON of `mlviz eval` (report_visit keys). */
const char *const plan_figure_report_keys[] = {"tokens_per_s",
                                               "cost.days_to_train",
                                               "cost.usd_total",
                                               "cost.energy_mwh",
                                               "mfu",
                                               "cost.usd_per_hour",
                                               "power.facility_kw",
                                               "memory.per_device_gb",
                                               "layout.devices",
                                               "step_time_s",
                                               NULL};

bool plan_figure_maximized(int figure)
{
    return figure == PLAN_TOKENS_PER_S || figure == PLAN_MFU;
}

int plan_figure_find(const char *name)
{
    for (int i = 0; i < PLAN_FIGURE_COUNT; i++)
        if (strcmp(plan_figure_names[i], name) == 0)
            return i;
    return -1;
}

void plan_figures_of(const struct model_report *o, double fig[PLAN_FIGURE_COUNT])
{
    fig[PLAN_TOKENS_PER_S] = o->tokens_per_s;
    fig[PLAN_DAYS] = o->cost.days_to_train;
    fig[PLAN_USD_TOTAL] = o->cost.usd_total;
    fig[PLAN_ENERGY_MWH] = o->cost.energy_mwh;
    fig[PLAN_MFU] = o->mfu;
    fig[PLAN_USD_PER_HOUR] = o->cost.usd_per_hour;
    fig[PLAN_FACILITY_KW] = o->power.facility_kw;
    fig[PLAN_MEMORY_GB] = o->memory.per_device_gb;
    fig[PLAN_DEVICES] = o->devices;
    fig[PLAN_STEP_TIME_S] = o->step_time_s;
}

/* ---- the spec ------------------------------------------------------------------ */

void plan_spec_init(struct plan_spec *spec)
{
    memset(spec, 0, sizeof *spec);
    spec->objective = PLAN_TOKENS_PER_S;
    spec->top = 10;
    spec->threads = 1;
    spec->shard_count = 1;
    spec->front = true;
}

bool plan_spec_objective(struct plan_spec *spec, const char *name, char *err, size_t err_len)
{
    static const int allowed[] = {PLAN_TOKENS_PER_S, PLAN_DAYS, PLAN_USD_TOTAL, PLAN_ENERGY_MWH,
                                  PLAN_MFU};
    int f = plan_figure_find(name);
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++)
        if (f == allowed[i]) {
            spec->objective = f;
            return true;
        }
    snprintf(err, err_len,
             "--objective must be tokens_per_s, days, usd_total, energy_mwh or mfu (got '%s')",
             name);
    return false;
}

bool plan_parse_double(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end || errno || !isfinite(v))
        return false;
    *out = v;
    return true;
}

bool plan_spec_max(struct plan_spec *spec, const char *arg, char *err, size_t err_len)
{
    const char *eq = strchr(arg, '=');
    char name[64];
    if (!eq || (size_t)(eq - arg) >= sizeof name || strlen(arg) >= PLAN_ARG_LEN) {
        snprintf(err, err_len, "--max takes FIGURE=VALUE, e.g. --max devices=2048 (got '%.80s')",
                 arg);
        return false;
    }
    memcpy(name, arg, (size_t)(eq - arg));
    name[eq - arg] = '\0';
    int f = plan_figure_find(name);
    if (f < 0) {
        const char *near = fields_suggest_word(name, plan_figure_names, PLAN_FIGURE_COUNT);
        snprintf(err, err_len,
                 "--max: unknown figure '%s'%s%s%s (one of: tokens_per_s, days, "
                 "usd_total, energy_mwh, mfu, usd_per_hour, facility_kw, memory_gb, devices, "
                 "step_time_s)",
                 name, near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
        return false;
    }
    double v;
    if (!plan_parse_double(eq + 1, &v) || v < 0) {
        snprintf(err, err_len, "--max %s must be a number at least 0 (got '%.80s')", name, eq + 1);
        return false;
    }
    if (!spec->has_max[f]) {
        if (spec->n_maxes >= PLAN_FIGURE_COUNT)
            return false;
        snprintf(spec->maxes[spec->n_maxes++], PLAN_ARG_LEN, "%s", arg);
    } else {
        for (int i = 0; i < spec->n_maxes; i++)
            if (strncmp(spec->maxes[i], name, strlen(name)) == 0 &&
                spec->maxes[i][strlen(name)] == '=')
                snprintf(spec->maxes[i], PLAN_ARG_LEN, "%s", arg);
    }
    spec->has_max[f] = true;
    spec->max[f] = v;
    return true;
}

bool plan_spec_vary(struct plan_spec *spec, const char *arg, char *err, size_t err_len)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1] || strlen(arg) >= PLAN_ARG_LEN) {
        snprintf(err, err_len,
                 "--vary takes PATH=a,b,c or PATH=lo..hi, e.g. --vary cluster.nodes=64..1024 "
                 "(got '%.80s')",
                 arg);
        return false;
    }
    for (int i = 0; i < spec->n_vary; i++) {
        const char *other = strchr(spec->vary[i], '=');
        if ((size_t)(other - spec->vary[i]) == (size_t)(eq - arg) &&
            strncmp(spec->vary[i], arg, (size_t)(eq - arg)) == 0) {
            snprintf(err, err_len, "--vary %.*s is given twice", (int)(eq - arg), arg);
            return false;
        }
    }
    if (spec->n_vary >= PLAN_DIMS_MAX) {
        snprintf(err, err_len, "--vary: at most %d fields", PLAN_DIMS_MAX);
        return false;
    }
    snprintf(spec->vary[spec->n_vary++], PLAN_ARG_LEN, "%s", arg);
    return true;
}

/* ---- ranking --------------------------------------------------------------------- */

double plan_key(const struct plan_spec *spec, const struct plan_entry *e)
{
    double v = e->fig[spec->objective];
    return plan_figure_maximized(spec->objective) ? -v : v;
}

int plan_compare(const struct plan_spec *spec, const struct plan_entry *a,
                 const struct plan_entry *b)
{
    double ka = plan_key(spec, a), kb = plan_key(spec, b);
    if (ka < kb)
        return -1;
    if (ka > kb)
        return 1;
    return a->index < b->index ? -1 : a->index > b->index ? 1 : 0;
}

/* a dominates b on (days, usd_total, energy_mwh); equal points: the lower
 * number wins, which keeps the front the same whatever the order of arrival. */
static bool dominates(const struct plan_entry *a, const struct plan_entry *b)
{
    static const int axes[] = {PLAN_DAYS, PLAN_USD_TOTAL, PLAN_ENERGY_MWH};
    bool strict = false;
    for (int i = 0; i < 3; i++) {
        if (a->fig[axes[i]] > b->fig[axes[i]])
            return false;
        strict = strict || a->fig[axes[i]] < b->fig[axes[i]];
    }
    return strict || a->index < b->index;
}

bool plan_front_add(struct plan_result *r, const struct plan_entry *e)
{
    for (size_t i = 0; i < r->n_front; i++)
        if (r->front[i].index == e->index || dominates(&r->front[i], e))
            return true;
    size_t kept = 0;
    for (size_t i = 0; i < r->n_front; i++)
        if (!dominates(e, &r->front[i]))
            r->front[kept++] = r->front[i];
    r->n_front = kept;
    if (r->n_front == r->cap_front) {
        size_t cap = r->cap_front ? 2 * r->cap_front : 64;
        struct plan_entry *p = realloc(r->front, cap * sizeof *p);
        if (!p)
            return false;
        r->front = p;
        r->cap_front = cap;
    }
    r->front[r->n_front++] = *e;
    return true;
}

int plan_rescore_rows(const struct plan_spec *spec)
{
    int k = spec->top > PLAN_TOP_MAX / PLAN_RESCORE_FACTOR ? PLAN_TOP_MAX
                                                           : PLAN_RESCORE_FACTOR * spec->top;
    return k < PLAN_RESCORE_MIN ? PLAN_RESCORE_MIN : k;
}

/* The search keeps the K rows that plan_rescore re-ranks. */
void plan_top_add(struct plan_result *r, const struct plan_spec *spec, const struct plan_entry *e)
{
    int keep = plan_rescore_rows(spec);
    if (r->n_top == keep && plan_compare(spec, e, &r->top[r->n_top - 1]) >= 0)
        return;
    int i = r->n_top < keep ? r->n_top++ : r->n_top - 1;
    while (i > 0 && plan_compare(spec, e, &r->top[i - 1]) < 0) {
        r->top[i] = r->top[i - 1];
        i--;
    }
    r->top[i] = *e;
}

bool plan_result_add(struct plan_result *r, const struct plan_spec *spec,
                     const struct plan_entry *e)
{
    for (int i = 0; i < r->n_top; i++)
        if (r->top[i].index == e->index)
            return plan_front_add(r, e);
    plan_top_add(r, spec, e);
    return plan_front_add(r, e);
}

void plan_result_free(struct plan_result *r)
{
    free(r->front);
    r->front = NULL;
    r->n_front = r->cap_front = 0;
}

bool plan_within_limits(const struct plan_spec *spec, const double fig[PLAN_FIGURE_COUNT])
{
    for (int f = 0; f < PLAN_FIGURE_COUNT; f++)
        if (spec->has_max[f] && fig[f] > spec->max[f])
            return false;
    return true;
}

/* A runnable report: fits, can be cooled, makes progress. */
bool plan_usable(const struct model_report *o)
{
    return o->runnable && o->cost.days_to_train > 0 && o->tokens_per_s > 0;
}

bool plan_eval_setup(const struct setup *s, const struct catalog *cat, struct plan_entry *e)
{
    struct resolved r;
    struct model_report o;
    char err[512];
    memset(e->fig, 0, sizeof e->fig);
    e->sim_step_s = e->closed_step_s = 0.0;
    if (!setup_resolve(s, cat, &r, err, sizeof err))
        return false;
    model_eval_numbers(s, &r, &o);
    plan_figures_of(&o, e->fig);
    return plan_usable(&o);
}

bool plan_eval_candidate(const struct plan_space *sp, const struct catalog *cat, uint64_t index,
                         struct plan_entry *e)
{
    struct setup s;
    plan_space_setup(sp, index, &s);
    e->index = index;
    return plan_eval_setup(&s, cat, e);
}
