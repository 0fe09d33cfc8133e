/* plan_bound: a lower bound on the step time of every candidate of a unit,
 * and from it the best objective value the unit could reach. The search
 * cuts a unit whose best possible value is already worse than the N-th best
 * configuration known (docs/PLAN.md, Pruning, says why this is safe).
 *
 * The bound is work over speed (Williams et al. 2009, roofline: no device
 * runs faster than its peak), with the 1F1B pipeline bubble (Narayanan et
 * al. 2021) on top:
 *
 *   step >= (1 + (p - 1) / (v m)) x F / (2 D peak)
 *
 * F: the model FLOPs of one step (the MFU numerator, fixed by the model and
 * the batch); D devices; p pipeline stages, v model chunks per stage, m
 * micro-batches per step; peak: the larger of the device's GEMM and vector
 * peaks at the training precision. The factor 2 allows for a causal
 * attention kernel skipping the masked half of the s x s scores (at most
 * half of any FLOPs; every other FLOP of F must be executed, recomputation
 * only adds). The slowest pipeline stage does at least the average work,
 * and the bubble adds (p - 1) / v of its micro-batch time. */
#include "plan.h"

#include <math.h>
#include <string.h>

#include "plan_internal.h"

/* A varied field that changes F (the model, its sequence, the batch) turns
 * the bound off: F is taken from the base setup. */
static bool changes_model_flops(const struct plan_dim *d)
{
    return strncmp(d->field->path, "model.", 6) == 0 ||
           strcmp(d->field->path, "training.global_batch") == 0;
}

void plan_bound_init(struct plan_bound *b, const struct plan_space *sp,
                     const struct plan_spec *spec, const struct model_report *base)
{
    memset(b, 0, sizeof *b);
    b->model_flops = base->model_flops_per_step;
    static const int bounded[] = {PLAN_TOKENS_PER_S, PLAN_DAYS, PLAN_USD_TOTAL, PLAN_MFU};
    bool objective_ok = false;
    for (size_t i = 0; i < sizeof bounded / sizeof bounded[0]; i++)
        objective_ok = objective_ok || spec->objective == bounded[i];
    b->on = objective_ok && !spec->front && !spec->exhaustive && isfinite(b->model_flops) &&
            b->model_flops > 0;
    for (int i = 0; b->on && i < sp->n_dims; i++)
        if (changes_model_flops(&sp->dims[i]))
            b->on = false;
}

double plan_bound_step_s(const struct plan_bound *b, const struct setup *s,
                         const struct accelerator *a)
{
    double devices = (double)setup_devices(s);
    double peak = fmax(setup_gemm_peak_tflops(s, a), setup_vector_peak_tflops(s, a)) * 1e12;
    if (!(devices >= 1) || !(peak > 0))
        return 0.0;
    double bubble = 0.0;
    if (s->model.kind == MODEL_TRANSFORMER && s->training.pipeline_parallel > 1) {
        double model_ranks = (double)s->training.tensor_parallel * s->training.pipeline_parallel *
                             s->training.context_parallel;
        double dp = floor(devices / model_ranks);
        double m = floor(s->training.global_batch / (dp * s->training.micro_batch));
        double v = s->training.virtual_stages > 1 ? s->training.virtual_stages : 1;
        if (dp >= 1 && m >= 1)
            bubble = (s->training.pipeline_parallel - 1) / (v * m);
    }
    return (1.0 + bubble) * b->model_flops / (2.0 * devices * peak);
}

double plan_bound_key(const struct plan_bound *b, const struct plan_spec *spec,
                      const struct setup *s, const struct accelerator *a)
{
    double step = plan_bound_step_s(b, s, a);
    if (!b->on || !(step > 0))
        return -INFINITY;
    double tokens_per_sample = s->model.kind == MODEL_TRANSFORMER ? s->model.seq_len : 1.0;
    double tokens_per_s = s->training.global_batch * tokens_per_sample / step;
    /* Days: failures only add time (goodput <= 1). Cost: the devices' hours
     * alone (electricity only adds). */
    double days = s->training.tokens / tokens_per_s / 86400.0;
    double per_hour =
        s->facility.device_usd_per_hour >= 0 ? s->facility.device_usd_per_hour : a->usd_per_hour;
    switch (spec->objective) {
    case PLAN_TOKENS_PER_S:
        return -tokens_per_s;
    case PLAN_DAYS:
        return days;
    case PLAN_USD_TOTAL:
        return (double)setup_devices(s) * per_hour * days * 24.0;
    case PLAN_MFU:
        return -b->model_flops /
               (step * (double)setup_devices(s) * setup_gemm_peak_tflops(s, a) * 1e12);
    default:
        return -INFINITY;
    }
}
