/* plan_infer: the search behind `mlviz plan --infer`: the cheapest (or
 * fastest) way to serve a model on a cluster within latency objectives.
 *
 * The space: every field the user varies (--vary PATH=a,b,c; the
 * accelerator, the cluster, any inference field), and, unless varied, the
 * serving layout: tensor ranks 1..64 and pipeline stages 1..8 (powers of
 * two that fit the devices), weight formats (the device's 16 bits, fp8,
 * fp4), KV formats (16 bits, fp8) and the batch (powers of two up to 4096,
 * and auto). Every candidate passes the setup checks (setup_resolve) and
 * is evaluated by infer_eval; one that cannot serve, or breaks a --max, is
 * dropped. The space is small (a few thousand candidates per device): it is
 * searched whole, on one thread, and the candidate number breaks ties. */
#ifndef MLVIZ_PLAN_INFER_H
#define MLVIZ_PLAN_INFER_H

#include <stdbool.h>
#include <stddef.h>

#include "infer.h"

enum plan_infer_figure {
    PLAN_INFER_USD_PER_MTOK,
    PLAN_INFER_OUTPUT_TOKENS_PER_S,
    PLAN_INFER_TTFT_S,
    PLAN_INFER_TPOT_S,
    PLAN_INFER_LATENCY_S,
    PLAN_INFER_DEVICES,
    PLAN_INFER_FIGURE_COUNT
};
extern const char *const plan_infer_figure_names[]; /* "usd_per_mtok", ... NULL */
double plan_infer_figure(const struct infer_report *o, int figure);

enum { PLAN_INFER_DIMS_MAX = 12, PLAN_INFER_VALUES_MAX = 64, PLAN_INFER_TOP_MAX = 100 };

struct plan_infer_dim {
    const struct field *field;
    int count;
    char values[PLAN_INFER_VALUES_MAX][FIELD_STR_LEN]; /* as typed: "fp8", "4", "auto" */
};

struct plan_infer_spec {
    int objective; /* enum plan_infer_figure; usd_per_mtok by default */
    int top;       /* 1..PLAN_INFER_TOP_MAX */
    bool has_max[PLAN_INFER_FIGURE_COUNT];
    double max[PLAN_INFER_FIGURE_COUNT];
    struct plan_infer_dim vary[PLAN_INFER_DIMS_MAX];
    int n_vary;
};

void plan_infer_spec_init(struct plan_infer_spec *spec);
/* "NAME" of a figure; "NAME=VALUE" an upper bound; "PATH=a,b,c" a field's
 * values (checked against the field table). Messages name the option. */
bool plan_infer_objective(struct plan_infer_spec *spec, const char *name, char *err, size_t len);
bool plan_infer_max(struct plan_infer_spec *spec, const char *arg, char *err, size_t len);
bool plan_infer_vary(struct plan_infer_spec *spec, const char *arg, char *err, size_t len);

/* Adds the serving layout's default dimensions (those not varied) to the
 * spec; plan_infer_run searches exactly the spec's dimensions. */
bool plan_infer_complete(struct plan_infer_spec *spec, char *err, size_t len);

struct plan_infer_row {
    struct setup setup;
    struct infer_report report;
    double objective;
    unsigned long long index; /* candidate number: ties go to the smaller */
};

struct plan_infer_result {
    unsigned long long candidates, valid, serving, feasible;
    int n; /* rows, best first */
    struct plan_infer_row rows[PLAN_INFER_TOP_MAX];
};

/* The search (allocates nothing; `out` is large: keep it off small stacks). */
bool plan_infer_run(const struct setup *base, const struct catalog *cat,
                    const struct plan_infer_spec *spec, struct plan_infer_result *out, char *err,
                    size_t len);

#endif
