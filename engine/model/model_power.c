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
 * law gives what a lower limit costs. Formulas: docs/MODEL.md, section 12. */
#include "model_internal.h"

double model_power_limit_w(const struct setup *s, const struct accelerator *a)
{
    double limit = s->cluster.node.power_limit_w;
    if (!(limit > 0) || limit > a->tdp_w)
        limit = a->tdp_w;
    return limit;
}

double model_clock_share(const struct setup *s, const struct accelerator *a)
{
    double demand = a->gemm_power_w > 0 ? a->gemm_power_w : a->tdp_w;
    double limit = model_power_limit_w(s, a);
    double dynamic = demand - a->idle_w;
    if (limit >= demand || !(dynamic > 0))
        return 1.0;
    double share = cbrt((limit - a->idle_w) / dynamic);
    /* A limit at or below idle power leaves no clock to speak of: the
     * floor keeps every time finite (the step is then far too slow). */
    return share > 0.01 ? share : 0.01;
}
