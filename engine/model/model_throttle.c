/* model_throttle: the clocks a cooling-limited rack keeps (issue 20). The
 * rack may draw no more than its cooling removes; devices lower their
 * clocks until the mean power over a step fits. Dynamic power at clock
 * share f goes as f^3 (DVFS: f V^2 with V tracking f; Weste & Harris, CMOS
 * VLSI Design, ch. 5), computing or waiting (a waiting device draws
 * `wait_share` of it: NCCL kernels, clocks up); the step at f is the
 * model's own (compute-bound kernels slow by 1/f, memory-bound ones and the
 * traffic do not). The clock share is where the mean dynamic share
 * f^3 (b_f + w (1 - b_f)), b_f the compute share of the step at f, meets
 * what the rack allows: the fastest step within the power, so a faster
 * link or memory never lengthens it (docs/MODEL.md, section 6). Nothing
 * here allocates. */
#include <math.h>

#include "model_internal.h"

/* What the rack leaves the devices: its cooling (W), the nodes in it, and
 * a device's idle and dynamic power and the share of it a waiting device
 * draws. */
struct heat_budget {
    double rack_w, in_rack, idle_w, dynamic_w, wait_share;
};

/* Mean dynamic power share over the step at clocks f, a share of the
 * clock the power limit leaves (model_power.c): the step runs at f times
 * that clock, as the throttled step itself does (model.c). Returned over
 * the share the rack leaves the devices at that step: the rest of the node
 * draws its own (model_node_rest_w), and its CPUs prepare the same batch
 * over a longer step when the clocks are lower; while a slower data path
 * starves them the devices idle. Above 1: too hot. */
static double heat_ratio(struct ctx *c, double f, const struct heat_budget *hb)
{
    struct device_step d;
    c->throttle = f * c->clock_share;
    model_device_step(c, &d);
    double busy = d.compute - d.offload_wait + d.recompute + d.optimizer; /* as model.c */
    double b = d.total > 0 ? busy / d.total : 1.0;
    b = b < 0 ? 0 : b > 1 ? 1 : b;
    struct data_path p;
    model_data_path(c, d.total, &p);
    /* While the data path starves them the devices idle (as model.c counts
     * the power). */
    double share = f * f * f * (b + hb->wait_share * (1.0 - b)) * model_device_step_share(&d, &p);
    double allowed =
        (hb->rack_w / hb->in_rack - model_node_rest_w(c, model_cpu_util(&p))) / (double)c->per_node;
    double want = (allowed - hb->idle_w) / hb->dynamic_w;
    return want > 0 ? share / want : 1e300;
}

double model_throttle_balanced(struct ctx *c, const struct power_report *pw, double wait_share)
{
    if (!(pw->per_rack_kw > pw->rack_cooling_limit_kw))
        return 1.0;
    const struct accelerator *a = c->r->accel;
    /* The dynamic power of a busy device at the limited clock, as
     * model_power counts it: the power limit (the TDP when none) above
     * idle. */
    struct heat_budget hb = {pw->rack_cooling_limit_kw * 1000.0, model_nodes_in_rack(c), a->idle_w,
                             model_power_limit_w(c->s, a) - a->idle_w, wait_share};
    /* Even idle CPUs leave the idle devices too little: no clock cools. */
    double floor_w = (hb.rack_w / hb.in_rack - model_node_rest_w(c, 0.0)) / (double)c->per_node;
    if (!(floor_w > a->idle_w) || !(hb.dynamic_w > 0))
        return 0.0;
    /* The heat goes nearly as f^k with k about 3 (the compute share
     * changes slowly with f): each guess solves the power law through the
     * last two evaluations (k = 3 for the first), a secant step in log-log,
     * and narrows a bracket [lo, hi] (ratio(lo) <= 1 < ratio(hi)) that no
     * guess leaves. The answer is the root, else lo (within the power). */
    double keep = c->throttle, lo = 0.0, hi = 1.0, f = 1.0, k = 3.0;
    double q = heat_ratio(c, f, &hb), f_prev = 0.0, q_prev = 0.0;
    for (int i = 0; i < 60; i++) {
        if (fabs(q - 1.0) <= 1e-9) {
            lo = f; /* the root, to a part in 1e9 of the power */
            break;
        }
        if (q > 1.0)
            hi = f;
        else
            lo = f;
        if (hi - lo < 1e-12)
            break;
        if (f_prev > 0 && q_prev > 0 && q < 1e300 && q_prev < 1e300 && f_prev != f && q_prev != q) {
            double slope = log(q / q_prev) / log(f / f_prev);
            k = slope > 0.5 && slope < 10.0 ? slope : 3.0;
        }
        double next = q < 1e300 ? f * pow(1.0 / q, 1.0 / k) : 0.5 * (lo + hi);
        f_prev = f, q_prev = q;
        f = next > lo && next < hi ? next : 0.5 * (lo + hi);
        q = heat_ratio(c, f, &hb);
    }
    c->throttle = keep;
    return lo;
}

double model_rack_kw_at_floor(const struct ctx *c, bool loaders)
{
    const struct accelerator *a = c->r->accel;
    /* Dynamic power at the lowest clock, as the power limit's law counts
     * it (model_power.c): the GEMM demand above idle when a limit holds the
     * clock, else the limit (the TDP) above idle, times the cube of the
     * clock share. The limit itself drops out below the demand. */
    double demand = a->gemm_power_w > 0 ? a->gemm_power_w : a->tdp_w;
    double limit = model_power_limit_w(c->s, a);
    double dynamic = (c->clock_share < 1.0 ? demand : limit) - a->idle_w;
    double floor = c->min_clock_share;
    double device_w = a->idle_w + maxd(0.0, dynamic) * floor * floor * floor;
    /* Every loader worker busy: the most the data path ever asks of the
     * CPUs, whatever the step (model_data.c); or, cheaper and no lower,
     * every core busy. */
    double cpu = 1.0;
    if (loaders) {
        struct data_path p;
        model_data_path(c, 1.0, &p);
        cpu = p.preprocess_s > 0 ? mind(1.0, ratio(p.workers, maxd(p.cores_total, 1.0))) : 0.0;
    }
    double node_w = device_w * (double)c->per_node + model_node_rest_w(c, cpu);
    return node_w * model_nodes_in_rack(c) / 1000.0;
}
