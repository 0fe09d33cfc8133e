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

/* Mean dynamic power share over the step at clocks f. */
static double dynamic_share(struct ctx *c, double f, double wait_share)
{
    struct device_step d;
    c->throttle = f;
    model_device_step(c, &d);
    double busy = d.compute + d.recompute + d.optimizer;
    double b = d.total > 0 ? busy / d.total : 1.0;
    b = b < 0 ? 0 : b > 1 ? 1 : b;
    return f * f * f * (b + wait_share * (1.0 - b));
}

double model_throttle_balanced(struct ctx *c, const struct power_report *pw, double wait_share)
{
    if (!(pw->per_rack_kw > pw->rack_cooling_limit_kw))
        return 1.0;
    const struct accelerator *a = c->r->accel;
    double in_rack = model_nodes_in_rack(c);
    double excess_w = (pw->per_rack_kw - pw->rack_cooling_limit_kw) * 1000.0;
    double allowed = pw->device_w - excess_w / (in_rack * c->per_node);
    double dyn = a->tdp_w - a->idle_w;
    if (!(allowed > a->idle_w) || !(dyn > 0))
        return 0.0;
    double want = (allowed - a->idle_w) / dyn; /* mean dynamic share the rack allows */
    /* The share goes nearly as f^k with k about 3 (the compute share
     * changes slowly with f): each guess solves the power law through the
     * last two evaluations (k = 3 for the first), a secant step in log-log,
     * and narrows a bracket [lo, hi] (share(lo) <= want < share(hi)) that
     * no guess leaves. The answer is the root, else lo (within the power). */
    double keep = c->throttle, lo = 0.0, hi = 1.0, f = 1.0, k = 3.0;
    double share = dynamic_share(c, f, wait_share), f_prev = 0.0, share_prev = 0.0;
    for (int i = 0; i < 60; i++) {
        if (fabs(share - want) <= 1e-9 * want) {
            lo = f; /* the root, to a part in 1e9 of the power */
            break;
        }
        if (share > want)
            hi = f;
        else
            lo = f;
        if (hi - lo < 1e-12)
            break;
        if (f_prev > 0 && share_prev > 0 && f_prev != f && share_prev != share) {
            double slope = log(share / share_prev) / log(f / f_prev);
            k = slope > 0.5 && slope < 10.0 ? slope : 3.0;
        }
        double next = f * pow(want / share, 1.0 / k);
        f_prev = f, share_prev = share;
        f = next > lo && next < hi ? next : 0.5 * (lo + hi);
        share = dynamic_share(c, f, wait_share);
    }
    c->throttle = keep;
    return lo;
}
