/* plan_infer: the serving search (plan_infer.h). */
#include "plan_infer.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const plan_infer_figure_names[] = {
    "usd_per_mtok", "output_tokens_per_s", "ttft_s", "tpot_s", "latency_s", "devices", NULL};

double plan_infer_figure(const struct infer_report *o, int figure)
{
    switch (figure) {
    case PLAN_INFER_USD_PER_MTOK:
        return o->usd_per_mtok;
    case PLAN_INFER_OUTPUT_TOKENS_PER_S:
        return o->output_tokens_per_s;
    case PLAN_INFER_TTFT_S:
        return o->ttft_s;
    case PLAN_INFER_TPOT_S:
        return o->tpot_s;
    case PLAN_INFER_LATENCY_S:
        return o->latency_s;
    default:
        return o->devices;
    }
}

static int figure_find(const char *name, size_t len)
{
    for (int i = 0; plan_infer_figure_names[i]; i++)
        if (strlen(plan_infer_figure_names[i]) == len &&
            strncmp(plan_infer_figure_names[i], name, len) == 0)
            return i;
    return -1;
}

void plan_infer_spec_init(struct plan_infer_spec *spec)
{
    memset(spec, 0, sizeof *spec);
    spec->objective = PLAN_INFER_USD_PER_MTOK;
    spec->top = 10;
}

bool plan_infer_objective(struct plan_infer_spec *spec, const char *name, char *err, size_t len)
{
    int f = figure_find(name, strlen(name));
    if (f < 0 || f == PLAN_INFER_DEVICES) {
        snprintf(err, len,
                 "--objective: '%s' is not one of usd_per_mtok, output_tokens_per_s, ttft_s, "
                 "tpot_s, latency_s (with --infer)",
                 name);
        return false;
    }
    spec->objective = f;
    return true;
}

bool plan_infer_max(struct plan_infer_spec *spec, const char *arg, char *err, size_t len)
{
    const char *eq = strchr(arg, '=');
    int f = eq ? figure_find(arg, (size_t)(eq - arg)) : -1;
    double v;
    if (f < 0 || f == PLAN_INFER_OUTPUT_TOKENS_PER_S || !fields_parse_number(eq + 1, &v) ||
        !(v > 0)) {
        snprintf(err, len,
                 "--max: '%s' is not NAME=VALUE with NAME one of usd_per_mtok, ttft_s, tpot_s, "
                 "latency_s, devices and VALUE above 0 (with --infer)",
                 arg);
        return false;
    }
    spec->has_max[f] = true;
    spec->max[f] = v;
    return true;
}

bool plan_infer_vary(struct plan_infer_spec *spec, const char *arg, char *err, size_t len)
{
    const char *eq = strchr(arg, '=');
    char path[128];
    if (!eq || (size_t)(eq - arg) >= sizeof path || spec->n_vary >= PLAN_INFER_DIMS_MAX) {
        snprintf(err, len, "--vary: '%s' is not PATH=a,b,c (at most %d fields)", arg,
                 PLAN_INFER_DIMS_MAX);
        return false;
    }
    snprintf(path, sizeof path, "%.*s", (int)(eq - arg), arg);
    struct plan_infer_dim *d = &spec->vary[spec->n_vary];
    memset(d, 0, sizeof *d);
    d->field = fields_find(setup_fields(), path);
    if (!d->field) {
        const char *near = fields_suggest(setup_fields(), path);
        snprintf(err, len, "--vary: unknown field '%s'%s%s%s", path, near ? "; did you mean '" : "",
                 near ? near : "", near ? "'?" : "");
        return false;
    }
    struct setup probe;
    setup_defaults(&probe);
    for (const char *p = eq + 1; *p;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        char msg[256];
        if (n == 0 || n >= FIELD_STR_LEN || d->count == PLAN_INFER_VALUES_MAX) {
            snprintf(err, len, "--vary %s: values are a,b,c (at most %d, each under %d bytes)",
                     path, PLAN_INFER_VALUES_MAX, FIELD_STR_LEN);
            return false;
        }
        snprintf(d->values[d->count], FIELD_STR_LEN, "%.*s", (int)n, p);
        if (!fields_set_text(d->field, &probe, d->values[d->count], msg, sizeof msg)) {
            snprintf(err, len, "--vary %s: %s", path, msg);
            return false;
        }
        d->count++;
        p = comma ? comma + 1 : p + n;
    }
    spec->n_vary++;
    return true;
}

/* The serving layout searched unless the user varies the field. */
static const struct {
    const char *path;
    const char *values;
} default_dims[] = {
    {"inference.tensor_parallel", "1,2,4,8,16,32,64"},
    {"inference.pipeline_parallel", "1,2,4,8"},
    {"inference.weight_precision", "auto,fp8,fp4"},
    {"inference.kv_precision", "auto,fp8"},
    {"inference.batch", "auto,1,2,4,8,16,32,64,128,256,512,1024,2048,4096"},
};

static bool varied(const struct plan_infer_spec *spec, const char *path)
{
    for (int i = 0; i < spec->n_vary; i++)
        if (strcmp(spec->vary[i].field->path, path) == 0)
            return true;
    return false;
}

/* Two rows that serve alike (batch: auto resolved to a value also searched). */
static bool same_deployment(const struct plan_infer_row *a, const struct plan_infer_row *b)
{
    const struct infer_report *x = &a->report, *y = &b->report;
    return x->tp == y->tp && x->pp == y->pp && x->batch == y->batch && x->devices == y->devices &&
           strcmp(x->weight_precision, y->weight_precision) == 0 &&
           strcmp(x->kv_precision, y->kv_precision) == 0 && x->ttft_s == y->ttft_s &&
           x->tpot_s == y->tpot_s && x->usd_per_mtok == y->usd_per_mtok &&
           strcmp(a->setup.cluster.node.accelerator, b->setup.cluster.node.accelerator) == 0;
}

/* Inserts a row into the best-first list of at most `top`. */
static void keep(struct plan_infer_result *out, int top, bool maximize,
                 const struct plan_infer_row *row)
{
    for (int i = 0; i < out->n; i++)
        if (same_deployment(&out->rows[i], row))
            return; /* the earlier candidate stands for both */
    int pos = out->n;
    while (pos > 0) {
        const struct plan_infer_row *prev = &out->rows[pos - 1];
        bool better =
            maximize ? row->objective > prev->objective : row->objective < prev->objective;
        if (!better)
            break;
        pos--;
    }
    if (pos >= top)
        return;
    int last = out->n < top ? out->n : top - 1;
    memmove(&out->rows[pos + 1], &out->rows[pos], (size_t)(last - pos) * sizeof out->rows[0]);
    out->rows[pos] = *row;
    if (out->n < top)
        out->n++;
}

enum { CANDIDATES_MAX = 5000000 };

bool plan_infer_complete(struct plan_infer_spec *spec, char *err, size_t len)
{
    for (size_t i = 0; i < sizeof default_dims / sizeof default_dims[0]; i++) {
        if (varied(spec, default_dims[i].path))
            continue;
        char arg[256];
        snprintf(arg, sizeof arg, "%s=%s", default_dims[i].path, default_dims[i].values);
        if (!plan_infer_vary(spec, arg, err, len))
            return false;
    }
    return true;
}

bool plan_infer_run(const struct setup *base, const struct catalog *cat,
                    const struct plan_infer_spec *spec, struct plan_infer_result *out, char *err,
                    size_t len)
{
    const struct plan_infer_spec *full = spec;
    unsigned long long total = 1;
    for (int d = 0; d < full->n_vary; d++) {
        total *= (unsigned long long)full->vary[d].count;
        if (total > CANDIDATES_MAX) {
            snprintf(err, len, "--infer: more than %d candidates; vary fewer values",
                     CANDIDATES_MAX);
            return false;
        }
    }
    memset(out, 0, sizeof *out);
    bool maximize = spec->objective == PLAN_INFER_OUTPUT_TOKENS_PER_S;
    struct setup_resolve_memo memo;
    memset(&memo, 0, sizeof memo);
    struct plan_infer_row row;
    for (unsigned long long k = 0; k < total; k++) {
        row.setup = *base;
        row.index = k;
        unsigned long long rest = k;
        bool ok = true;
        char msg[256];
        for (int d = full->n_vary - 1; d >= 0 && ok; d--) {
            const struct plan_infer_dim *dim = &full->vary[d];
            int v = (int)(rest % (unsigned long long)dim->count);
            rest /= (unsigned long long)dim->count;
            ok = fields_set_text(dim->field, &row.setup, dim->values[v], msg, sizeof msg);
        }
        out->candidates++;
        struct resolved r;
        if (!ok || !setup_resolve_memo(&row.setup, cat, &memo, &r, msg, sizeof msg))
            continue;
        out->valid++;
        infer_eval(&row.setup, &r, &row.report);
        if (!row.report.runnable)
            continue;
        out->serving++;
        bool within = true;
        for (int f = 0; f < PLAN_INFER_FIGURE_COUNT; f++)
            if (spec->has_max[f] && plan_infer_figure(&row.report, f) > spec->max[f])
                within = false;
        if (!within)
            continue;
        out->feasible++;
        row.objective = plan_infer_figure(&row.report, spec->objective);
        keep(out, spec->top, maximize, &row);
    }
    return true;
}
