/* plan_internal: what the files of engine/plan/ share (plan.h is the public
 * face): ranking helpers, the figures of a report, applying a dimension's
 * value to a setup. */
#ifndef MLVIZ_PLAN_INTERNAL_H
#define MLVIZ_PLAN_INTERNAL_H

#include "plan.h"

/* The objective as a key where lower is better. */
double plan_key(const struct plan_spec *spec, const struct plan_entry *e);
/* Adds to the Pareto front (false when out of memory). */
bool plan_front_add(struct plan_result *r, const struct plan_entry *e);
/* Adds to the top list if it belongs there. */
void plan_top_add(struct plan_result *r, const struct plan_spec *spec, const struct plan_entry *e);
/* Every --max holds. */
bool plan_within_limits(const struct plan_spec *spec, const double fig[PLAN_FIGURE_COUNT]);
/* A runnable report: fits, can be cooled, makes progress. */
bool plan_usable(const struct model_report *o);
/* A finite number and nothing after it. */
bool plan_parse_double(const char *text, double *out);
/* Sets dimension d's k-th value in s. */
void plan_apply_value(const struct plan_dim *d, int k, struct setup *s);
/* Digits of a candidate number, last dimension fastest. */
void plan_digits_of(const struct plan_space *sp, uint64_t index, int digit[PLAN_DIMS_MAX]);
/* The units in order, each with its switches at their first value:
 * plan_space_first_unit sets *s and digit[] to unit 0, plan_space_next_unit
 * moves them to the next unit (false after the last), setting only the
 * fields whose values change. *s is then plan_space_setup's setup of
 * candidate unit * per_unit. */
void plan_space_first_unit(const struct plan_space *sp, int digit[PLAN_DIMS_MAX], struct setup *s);
bool plan_space_next_unit(const struct plan_space *sp, int digit[PLAN_DIMS_MAX], struct setup *s);

/* The step-time bound (plan_bound.c). */
struct plan_bound {
    bool on;            /* front not wanted, objective bounded, F known */
    double model_flops; /* F: model FLOPs of one step, from the base setup */
};
void plan_bound_init(struct plan_bound *b, const struct plan_space *sp,
                     const struct plan_spec *spec, const struct model_report *base);
/* A lower bound on the step time of every switch setting of unit setup s
 * (0 when unknown). */
double plan_bound_step_s(const struct plan_bound *b, const struct setup *s,
                         const struct accelerator *a);
/* The best key (plan_key: lower is better) any candidate of the unit could
 * have; -INFINITY when the bound is off or unknown. */
double plan_bound_key(const struct plan_bound *b, const struct plan_spec *spec,
                      const struct setup *s, const struct accelerator *a);

#endif
