/* invariants: the physical invariants of issue 20 (see invariants.h). */
#include "invariants.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define REL 1e-9

static bool le(double a, double b)
{
    return a <= b * (1.0 + REL) + 1e-12;
}

bool inv_rates(const struct model_report *o, char *msg, size_t len)
{
    /* The peak at the clock the model runs the GEMMs at: the power limit's
     * share of the boost clock, times the cooling throttle's share of that
     * (model_power.c, model_throttle.c). */
    double clock = o->power.clock_share * o->power.throttle_factor;
    if (!le(o->tflops_per_device, o->peak_tflops * clock)) {
        snprintf(msg, len,
                 "executed rate %.6g TFLOP/s above the peak %.6g at the clocks run (%.4g of %.6g)",
                 o->tflops_per_device, o->peak_tflops * clock, clock, o->peak_tflops);
        return false;
    }
    if (!le(o->hfu, 1.0) || (o->achieved_fraction > 0 && !le(o->hfu, o->achieved_fraction))) {
        snprintf(msg, len, "hfu %.6g above 1 or above the executed rate %.6g", o->hfu,
                 o->achieved_fraction);
        return false;
    }
    if (!le(o->achieved_fraction, 1.0)) {
        snprintf(msg, len, "compute-phase rate %.6g of peak", o->achieved_fraction);
        return false;
    }
    if (!le(o->mfu, o->hfu_model_convention)) {
        snprintf(msg, len, "mfu %.6g above hfu %.6g in its own convention (%s)", o->mfu,
                 o->hfu_model_convention, o->flops_convention);
        return false;
    }
    return true;
}

bool inv_layers_placed(const struct setup *s, char *msg, size_t len)
{
    if (s->model.kind != MODEL_TRANSFORMER)
        return true;
    long placed = 0;
    int pp = s->training.pipeline_parallel > 0 ? s->training.pipeline_parallel : 1;
    for (int st = 0; st < pp && st < 4096; st++)
        placed += setup_stage_layers(s, st);
    if (placed == s->model.layers)
        return true;
    snprintf(msg, len, "pipeline stages hold %ld layers of %d", placed, s->model.layers);
    return false;
}

/* The part of the step breakdown that grew most from a to b. */
static const char *grew_most(const struct model_report *a, const struct model_report *b, double *by)
{
    static const char *const names[] = {
        "data_read", "preprocess", "host_to_device", "compute",   "recompute",
        "tp_comm",   "cp_comm",    "ep_comm",        "pp_bubble", "pp_p2p",
        "dp_comm",   "optimizer",  "straggler",      "overhead",
    };
    enum { N = sizeof(struct step_breakdown) / sizeof(double) };
    const double *x = (const double *)&a->breakdown, *y = (const double *)&b->breakdown;
    int best = 0;
    for (int i = 1; i < N && i < (int)(sizeof names / sizeof names[0]); i++)
        if (y[i] - x[i] > y[best] - x[best])
            best = i;
    *by = y[best] - x[best];
    return names[best];
}

bool inv_still_runs(const char *what, const struct model_report *base,
                    const struct model_report *better, char *msg, size_t len)
{
    /* A setup that makes progress (throughput above zero: it can be
     * cooled and its clocks stay at or above the device's lowest) keeps
     * making progress when a part gets better. */
    if (!(base->tokens_per_s > 0) || better->tokens_per_s > 0)
        return true;
    snprintf(msg, len, "%s made a setup that runs unable to run: %s", what, better->why_not);
    return false;
}

bool inv_not_slower(const char *what, const struct model_report *base,
                    const struct model_report *better, char *msg, size_t len)
{
    if (!inv_still_runs(what, base, better, msg, len))
        return false;
    /* Pipelines included: the closed form of the schedule is a longest
     * path whose every term grows with the stage costs (model_pipeline.c),
     * and each pass's DP/ZeRO window shrinks by at most what the traffic
     * hidden beside it grows (model_stage.c). Under a cooling limit the
     * throttle keeps the fastest step within the rack's heat budget
     * (model_throttle.c), so a faster part is never slower there either. */
    if (le(better->step_time_s, base->step_time_s))
        return true;
    double by;
    const char *part = grew_most(base, better, &by);
    snprintf(msg, len,
             "%s made the step slower: %.9g s -> %.9g s (%s +%.3g s; clocks %.3g -> %.3g)", what,
             base->step_time_s, better->step_time_s, part, by, base->power.throttle_factor,
             better->power.throttle_factor);
    return false;
}

/* The power side of overlap (arXiv 2507.03114; model_throttle.c): at a
 * given clock an overlap never lengthens a pass, but the collectives it
 * runs beside the compute keep the devices busier, and a cooling-limited
 * rack's fixed heat budget then holds a lower clock. Where the overlap
 * buys no time (a pass bound by the copies of offloaded activations) the
 * step can only lose. It loses at most the clock ratio: at a clock lower by
 * a factor r the compute-bound kernels take 1/r as long, memory-bound
 * kernels and traffic no longer, so no step grows by more than 1/r. */
bool inv_overlap_not_slower(const char *what, const struct model_report *off,
                            const struct model_report *on, char *msg, size_t len)
{
    double clock_off = off->power.clock_share * off->power.throttle_factor;
    double clock_on = on->power.clock_share * on->power.throttle_factor;
    double ratio = clock_on > 0 && clock_on < clock_off ? clock_off / clock_on : 1.0;
    if (!inv_still_runs(what, off, on, msg, len))
        return false;
    if (le(on->step_time_s, off->step_time_s * ratio))
        return true;
    return inv_not_slower(what, off, on, msg, len);
}

bool inv_same_step(const char *what, const struct model_report *base,
                   const struct model_report *more, char *msg, size_t len)
{
    if (!base->memory.fits)
        return true;
    if (le(more->step_time_s, base->step_time_s) && le(base->step_time_s, more->step_time_s))
        return true;
    snprintf(msg, len, "%s changed the step of a setup that fits: %.9g s -> %.9g s", what,
             base->step_time_s, more->step_time_s);
    return false;
}

bool inv_not_more_memory(const char *what, const struct model_report *base,
                         const struct model_report *less, char *msg, size_t len)
{
    if (le(less->memory.per_device_gb, base->memory.per_device_gb))
        return true;
    snprintf(msg, len, "%s raised device memory: %.9g GB -> %.9g GB", what,
             base->memory.per_device_gb, less->memory.per_device_gb);
    return false;
}

bool inv_not_fewer_flops(const char *what, const struct model_report *base,
                         const struct model_report *more, char *msg, size_t len)
{
    if (le(base->flops_per_step, more->flops_per_step))
        return true;
    snprintf(msg, len, "%s lowered the executed FLOPs: %.9g -> %.9g", what, base->flops_per_step,
             more->flops_per_step);
    return false;
}

bool inv_recompute(const struct model_report *none, const struct model_report *full, char *msg,
                   size_t len)
{
    if (!none->memory.fits || !full->memory.fits || le(none->step_time_s, full->step_time_s))
        return true;
    double by;
    const char *part = grew_most(full, none, &by);
    snprintf(msg, len, "full recomputation faster than none: %.9g s < %.9g s (none: %s +%.3g s)",
             full->step_time_s, none->step_time_s, part, by);
    return false;
}

bool inv_tp_overlap_domain(const struct model_report *with, const struct model_report *without,
                           char *msg, size_t len)
{
    double a = with->breakdown.tp_comm, b = without->breakdown.tp_comm;
    if (le(a, b) && le(b, a))
        return true;
    snprintf(msg, len, "TP overlap credited across the scale-up domain: tp_comm %.9g vs %.9g", a,
             b);
    return false;
}

/* Copies of the catalog entries a variant changes. */
struct entries {
    struct accelerator accel;
    struct link intra, host, nic;
    struct software sw;
};

static void copy_entries(const struct resolved *r, struct resolved *v, struct entries *e)
{
    *v = *r;
    e->accel = *r->accel, v->accel = &e->accel;
    e->intra = *r->intra_link, v->intra_link = &e->intra;
    e->host = *r->host_link, v->host_link = &e->host;
    if (r->nic)
        e->nic = *r->nic, v->nic = &e->nic;
    e->sw = *r->software, v->software = &e->sw;
}

static void faster(struct link *l)
{
    l->bw_gbs *= 2.0;
    l->latency_us /= 2.0;
    l->nvls_bw_gbs *= 2.0;
    l->nvls_setup_us /= 2.0;
}

/* Resources improved one at a time: links, HBM bandwidth, peak. */
static bool check_resources(const struct setup *s, const struct resolved *r,
                            const struct model_report *base, char *msg, size_t len, long *evals)
{
    struct resolved v;
    struct entries e;
    struct model_report o;
    for (int k = 0; k < 4; k++) {
        copy_entries(r, &v, &e);
        const char *what = "";
        if (k == 0)
            faster(&e.intra), faster(&e.host), faster(&e.nic), what = "faster links";
        else if (k == 1)
            e.accel.mem_bw_gbs *= 2.0, what = "more HBM bandwidth";
        else if (k == 2) {
            for (int p = 0; p < PREC_COUNT; p++)
                if (e.accel.peak_tflops[p] > 0)
                    e.accel.peak_tflops[p] *= 2.0;
            e.accel.fp4_tflops *= 2.0;
            what = "a higher peak";
        } else {
            e.accel.mem_gb *= 2.0, e.accel.mem_gib *= 2.0;
            model_eval(s, &v, &o);
            ++*evals;
            if (!inv_same_step("more memory capacity", base, &o, msg, len))
                return false;
            continue;
        }
        model_eval(s, &v, &o);
        ++*evals;
        if (!inv_not_slower(what, base, &o, msg, len))
            return false;
    }
    return true;
}

/* Overlaps on against off: the setup's switch and the stack's shares. */
static bool check_overlaps(const struct setup *s, const struct resolved *r,
                           const struct model_report *base, char *msg, size_t len, long *evals)
{
    struct model_report o;
    struct setup t = *s;
    t.training.overlap_grad_sync = !s->training.overlap_grad_sync;
    model_eval(&t, r, &o);
    ++*evals;
    bool on = s->training.overlap_grad_sync;
    if (!inv_overlap_not_slower("overlap_grad_sync on", on ? &o : base, on ? base : &o, msg, len))
        return false;
    struct resolved v;
    struct entries e;
    copy_entries(r, &v, &e);
    e.sw.tp_comm_overlap = e.sw.param_gather_overlap = 0.0;
    e.sw.pp_p2p_overlap = e.sw.dp_overlap_window = 0.0;
    e.sw.ep_comm_overlap = false;
    t = *s;
    t.training.ep_comm_overlap = false;
    model_eval(&t, &v, &o);
    ++*evals;
    if (!inv_overlap_not_slower("the stack's overlaps on", &o, base, msg, len))
        return false;
    if (s->training.tensor_parallel > setup_scaleup_domain(s)) {
        copy_entries(r, &v, &e);
        e.sw.tp_comm_overlap = 0.0;
        model_eval(s, &v, &o);
        ++*evals;
        if (!inv_tp_overlap_domain(base, &o, msg, len))
            return false;
    }
    return true;
}

/* Evaluates setup t (resolved as r) into o, counting the evaluation. */
static void eval_variant(const struct setup *t, const struct resolved *r, struct model_report *o,
                         long *evals)
{
    model_eval(t, r, o);
    ++*evals;
}

/* A power limit between idle and this one: never faster. */
static bool check_power_limit(const struct setup *s, const struct resolved *r,
                              const struct model_report *base, char *msg, size_t len, long *evals)
{
    const struct accelerator *a = r->accel;
    double limit = s->cluster.node.power_limit_w > 0 ? s->cluster.node.power_limit_w : a->tdp_w;
    if (!(limit > a->idle_w + 1.0))
        return true;
    struct setup t = *s;
    struct model_report o;
    t.cluster.node.power_limit_w = a->idle_w + 0.7 * (limit - a->idle_w);
    eval_variant(&t, r, &o, evals);
    return inv_not_slower("a higher power limit", &o, base, msg, len);
}

/* One offloaded layer fewer: never less device memory. */
static bool check_offload(const struct setup *s, const struct resolved *r,
                          const struct model_report *base, char *msg, size_t len, long *evals)
{
    if (s->training.activation_offload_layers <= 0)
        return true;
    struct setup t = *s;
    struct model_report o;
    t.training.activation_offload_layers--;
    eval_variant(&t, r, &o, evals);
    return inv_not_more_memory("one more offloaded layer", &o, base, msg, len);
}

/* A higher capacity factor (from dropless or from this one): never fewer
 * executed FLOPs (padding is computed). */
static bool check_capacity(const struct setup *s, const struct resolved *r,
                           const struct model_report *base, char *msg, size_t len, long *evals)
{
    if (s->model.kind != MODEL_TRANSFORMER || s->model.experts <= 0)
        return true;
    struct setup t = *s;
    struct model_report o;
    double cf = s->training.capacity_factor;
    t.training.capacity_factor = (cf > 1.0 ? cf : 1.0) * 1.5;
    eval_variant(&t, r, &o, evals);
    return inv_not_fewer_flops("a higher capacity factor", base, &o, msg, len);
}

/* LoRA at a rank of at most hidden / 16 against full training of the same
 * layout: the adapters' GEMMs (not timed) cost less than the skipped
 * weight gradients, and their states less than the base's gradients, so
 * never slower and, states unsharded, never more memory. */
static bool check_lora(const struct setup *s, const struct resolved *r,
                       const struct model_report *base, char *msg, size_t len, long *evals)
{
    if (s->training.lora_rank <= 0 || s->training.lora_rank * 16 > s->model.hidden)
        return true;
    struct setup t = *s;
    struct model_report o;
    t.training.lora_rank = 0;
    eval_variant(&t, r, &o, evals);
    /* Memory: where gradients and optimizer states are not sharded (ZeRO
     * 0 or 1); sharded over many ranks, full training's states can fall
     * below LoRA's adapters and their states. */
    return inv_not_slower("LoRA instead of full training", &o, base, msg, len) &&
           (s->training.zero_stage > 1 ||
            inv_not_more_memory("LoRA instead of full training", &o, base, msg, len));
}

/* One multi-token prediction module fewer: never slower, never more
 * executed FLOPs. */
static bool check_mtp(const struct setup *s, const struct resolved *r,
                      const struct model_report *base, char *msg, size_t len, long *evals)
{
    if (s->model.mtp_layers <= 0)
        return true;
    struct setup t = *s;
    struct model_report o;
    t.model.mtp_layers--;
    eval_variant(&t, r, &o, evals);
    return inv_not_slower("one MTP module fewer", base, &o, msg, len) &&
           inv_not_fewer_flops("one more MTP module", &o, base, msg, len);
}

/* Gradients reduced in bf16 against fp32: never slower, never more memory. */
static bool check_grad_reduce(const struct setup *s, const struct resolved *r,
                              const struct model_report *base, char *msg, size_t len, long *evals)
{
    int gr = s->training.grad_reduce_precision;
    if (gr == GRAD_REDUCE_AUTO)
        return true;
    struct setup t = *s;
    struct model_report o;
    t.training.grad_reduce_precision = gr == GRAD_REDUCE_BF16 ? GRAD_REDUCE_FP32 : GRAD_REDUCE_BF16;
    eval_variant(&t, r, &o, evals);
    const struct model_report *fp32 = gr == GRAD_REDUCE_BF16 ? &o : base;
    const struct model_report *bf16 = gr == GRAD_REDUCE_BF16 ? base : &o;
    return inv_not_slower("bf16 gradient reduction", fp32, bf16, msg, len) &&
           inv_not_more_memory("bf16 gradient reduction", fp32, bf16, msg, len);
}

bool inv_check_setup(const struct setup *s, const struct resolved *r, char *msg, size_t len,
                     long *evals)
{
    struct model_report base, o;
    if (!inv_layers_placed(s, msg, len))
        return false;
    model_eval(s, r, &base);
    ++*evals;
    if (!inv_rates(&base, msg, len) || !check_resources(s, r, &base, msg, len, evals) ||
        !check_overlaps(s, r, &base, msg, len, evals) ||
        !check_power_limit(s, r, &base, msg, len, evals) ||
        !check_offload(s, r, &base, msg, len, evals) ||
        !check_capacity(s, r, &base, msg, len, evals) ||
        !check_lora(s, r, &base, msg, len, evals) || !check_mtp(s, r, &base, msg, len, evals) ||
        !check_grad_reduce(s, r, &base, msg, len, evals))
        return false;
    if (s->model.kind == MODEL_TRANSFORMER) {
        struct setup none = *s, full = *s;
        none.training.recompute = RECOMPUTE_NONE;
        full.training.recompute = RECOMPUTE_FULL;
        /* Offloaded activations cross the host link in proportion to what
         * is saved, and full recomputation saves less: with offloading,
         * recomputing can be the faster choice (a physical effect), so the
         * pair is compared without it. */
        none.training.activation_offload_layers = full.training.activation_offload_layers = 0;
        struct model_report a;
        model_eval(&none, r, &a);
        model_eval(&full, r, &o);
        *evals += 2;
        if (!inv_recompute(&a, &o, msg, len))
            return false;
    }
    return true;
}
