/* model_throttle: the clocks a cooling-limited rack keeps (issue 20). The
 * rack may draw no more than its cooling removes; devices lower their
 * clocks until the energy of a step over its length fits. Compute at clock
 * share f takes 1/f as long and draws dynamic power ~ f^3 (DVFS: f V^2 with
 * V tracking f; Weste & Harris, CMOS VLSI Design, ch. 5), so its energy
 * per unit of work goes as f^2; waiting (communication, bubbles) draws a
 * share of the dynamic power at the same lowered clocks (f^3) but lasts as
 * long as the traffic does. Balancing energy against time, a
 * faster link or memory never lengthens the throttled step (docs/MODEL.md,
 * section 6). Nothing here allocates. */
#include "model_internal.h"

double model_throttle_balanced(const struct ctx *c, const struct power_report *pw,
                               double compute_share, double wait_share)
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
    double b = compute_share < 0 ? 0 : compute_share > 1 ? 1 : compute_share;
    if (!(b > 0))
        return 1.0; /* nothing to slow down */
    /* Mean dynamic share at clocks f: the energy (b f^2 + w f^3 (1 - b))
     * over the time (b / f + 1 - b), per unit of full-clock step; it
     * increases with f. */
    double lo = 0.0, hi = 1.0;
    for (int i = 0; i < 60; i++) {
        double f = 0.5 * (lo + hi);
        double share = (b * f * f + wait_share * f * f * f * (1.0 - b)) / (b / f + 1.0 - b);
        if (share > want)
            hi = f;
        else
            lo = f;
    }
    return lo;
}
