/* model_throttle: the clocks a cooling-limited rack keeps (issue 20). The
 * rack may draw no more than its cooling removes; devices lower their
 * clocks until the mean power over a step fits. Dynamic power at clock
 * share f goes as f^3 (DVFS: f V^2 with V tracking f; Weste & Harris, CMOS
 * VLSI Design, ch. 5), computing or waiting (a waiting device draws
 * `wait_share` of it: NCCL kernels, clocks up); the step at f is the
 * model's own (compute-bound kernels slow by 1/f, memory-bound ones and the
 * traffic do not). The clock share is where the mean dynamic share
 * f^3 (b_f + w (1 - b_f)), b_f the compute share of the step at f, meets
 * what the rack allows (regula falsi): the fastest step within the power, so a faster
 * link or memory never lengthens it (docs/MODEL.md, section 6). Nothing
 * here allocates. */
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
    /* The root of share(f) - want on [0, 1] by regula falsi with the
     * Illinois step (a handful of step evaluations; the share is smooth and
     * increasing, 0 at f = 0). The result keeps share(f) <= want. */
    double keep = c->throttle, lo = 0.0, hi = 1.0;
    double g_lo = -want, g_hi = dynamic_share(c, 1.0, wait_share) - want;
    int side = 0;
    for (int i = 0; i < 60 && g_hi > 0 && hi - lo > 1e-13; i++) {
        double f = (lo * g_hi - hi * g_lo) / (g_hi - g_lo);
        if (!(f > lo && f < hi))
            f = 0.5 * (lo + hi);
        double g = dynamic_share(c, f, wait_share) - want;
        if (g > 0) {
            hi = f, g_hi = g;
            if (side < 0)
                g_lo *= 0.5;
            side = -1;
        } else {
            lo = f, g_lo = g;
            if (side > 0)
                g_hi *= 0.5;
            side = 1;
            if (g > -1e-12 * want)
                break;
        }
    }
    c->throttle = keep;
    return g_hi > 0 ? lo : 1.0;
}
