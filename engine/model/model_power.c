/* model_power: the sustained clock of a device under its power limit
 * (y2026). A GPU raises its clock until the board power reaches its limit
 * (NVIDIA's GPU Boost; nvidia-smi -pl sets the limit). Dynamic power grows
 * with f V^2 and the voltage tracks the clock in the DVFS range, so power
 * above idle grows as f^3 (Weste & Harris, CMOS VLSI Design, 4th ed.,
 * section 5.1; the same law the cooling throttle uses, model_facility.c).
 * Dense low-precision GEMMs are the heaviest load a training step runs: the
 * catalog's gemm_power_w is what they draw at the boost clock. Under a limit
 * L below it the clock settles where idle + (gemm_power - idle) (f/f_boost)^3
 * = L. A catalog entry without gemm_power_w has its GEMM efficiency
 * measured at the TDP: there the clock share is 1 at the TDP and the cube
 * law gives what a lower limit costs. No device runs below its lowest
 * clock (its lowest DVFS state, the catalog's min_clock_mhz): a limit that
 * would push the clock below it leaves the setup unable to run. Formulas:
 * docs/MODEL.md, sections 6 and 12. */
#include "model_internal.h"

double model_power_limit_w(const struct setup *s, const struct accelerator *a)
{
    double limit = s->cluster.node.power_limit_w;
    if (!(limit > 0) || limit > a->tdp_w)
        limit = a->tdp_w;
    return limit;
}

/* The lowest clock the device sustains, as a share of its boost clock:
 * the catalog's min_clock_mhz (its lowest DVFS state) where published, else
 * MODEL_MIN_CLOCK_SHARE_UNPUBLISHED (docs/MODEL.md, section 6). */
double model_min_clock_share(const struct accelerator *a)
{
    if (a->min_clock_mhz > 0 && a->boost_clock_mhz > 0)
        return mind(1.0, a->min_clock_mhz / a->boost_clock_mhz);
    return MODEL_MIN_CLOCK_SHARE_UNPUBLISHED;
}

/* The clock share the limit leaves, before the floor: 0 for a limit at or
 * below idle power. The caller holds it at the device's minimum clock and
 * refuses the setup below it (model.c). */
double model_clock_share(const struct setup *s, const struct accelerator *a)
{
    double demand = a->gemm_power_w > 0 ? a->gemm_power_w : a->tdp_w;
    double limit = model_power_limit_w(s, a);
    double dynamic = demand - a->idle_w;
    if (limit >= demand || !(dynamic > 0))
        return 1.0;
    double share = cbrt((limit - a->idle_w) / dynamic);
    return share > 0 ? share : 0.0;
}
