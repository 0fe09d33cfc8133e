/* sim_thermal: power over time and the first-order thermal model per rack
 * with the clock governor. */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "setup.h"
#include "sim_internal.h"

/* ---- power ----------------------------------------------------------------------- */

static double device_step_w(const struct sim *S)
{
    double f = S->throttle;
    return S->cap.idle_w + S->cap.dyn_w * f * f * f;
}

/* Integrate power from the last accounting point to now. Power depends only
 * on whether the devices step and on the clock, both constant between
 * special ticks, so this is exact. */
void sim_account_power(struct sim *S)
{
    double span = (double)(S->ticks - S->power_tick) * S->tick_s;
    double stepping = min2(span, max2(0.0, S->step_total_s - S->power_step_s));
    const struct capacities *k = &S->cap;
    double dev_j = k->idle_w * span + (device_step_w(S) - k->idle_w) * stepping;
    double other_j = k->other_node_w * span;
    double it_j = dev_j * k->devices + other_j * k->nodes;
    S->e_dev_j += dev_j;
    S->e_other_j += other_j;
    S->energy_it_j += it_j;
    S->c.energy_j += it_j * k->pue;
    S->power_tick = S->ticks;
    S->power_step_s = S->step_total_s;
}

/* ---- thermal ------------------------------------------------------------------------ */

/* Change the clock share; a running step keeps its progress. */
static void set_throttle(struct sim *S, double f)
{
    if (f == S->throttle)
        return;
    double old_len = sim_step_len(S, S->throttle), new_len = sim_step_len(S, f);
    if ((S->phase == PH_STEP) && old_len > 0) {
        double ratio = new_len / old_len;
        S->rem_s *= ratio;
        S->phase_len_s *= ratio;
    }
    S->throttle = f;
}

/* Heat per rack from the energy integrated since the last update; first-
 * order model C dT/dt = P_in - P_out with P_out = cap (T - inlet)/(limit -
 * inlet), integrated exactly over the interval (P_in constant in it). Then
 * the governor: within the band below the throttle temperature, devices may
 * draw only what the cooling removes at that temperature; the clock share is
 * the cube root of the dynamic power allowed (power ~ f^3, as in the model). */
void sim_thermal_update(struct sim *S)
{
    const struct capacities *k = &S->cap;
    double span_s = (double)(S->ticks - S->last_thermal_tick) * S->tick_s;
    S->last_thermal_tick = S->ticks;
    double rack_devs = (double)k->rack_nodes * k->per_node;
    double heat_kw = 0;
    if (span_s > 0)
        heat_kw = (S->e_dev_j * rack_devs + S->e_other_j * k->rack_nodes) / span_s / 1000.0;
    S->e_dev_j = S->e_other_j = 0;
    if (S->throttle < 1.0)
        S->c.throttled_s += span_s;
    if (!S->opt.thermal) {
        S->temp_c = k->model_temp_c;
        return;
    }
    double span_c = max2(k->limit_c - k->inlet_c, 1e-6);
    double cap = k->cap_kw * S->cooling_share;
    double C = k->heat_kj_per_c; /* kJ/C: with kW gives C/s */
    double T = S->temp_c;
    if (cap > 1e-9) {
        double g = cap / span_c; /* kW per C removed */
        double T_eq = k->inlet_c + heat_kw / g;
        double a = -expm1(-span_s * g / C);
        T += (T_eq - T) * a;
    } else {
        T += heat_kw * span_s / C;
    }
    S->temp_c = finite_or(T, k->inlet_c);
    if (S->temp_c > S->c.max_rack_temp_c)
        S->c.max_rack_temp_c = S->temp_c;

    double f = 1.0;
    if (S->temp_c >= k->throttle_c - GOVERNOR_BAND_C) {
        double allowed_kw = cap * (k->throttle_c - k->inlet_c) / span_c;
        double dev_w =
            (allowed_kw * 1000.0 - k->other_node_w * k->rack_nodes) / max2(rack_devs, 1.0);
        if (S->temp_c > k->throttle_c) {
            /* Over the limit (cooling was cut): also shed the stored excess
             * heat over GOVERNOR_RECOVERY_S. */
            double excess_kw = (S->temp_c - k->throttle_c) * C / GOVERNOR_RECOVERY_S;
            dev_w -= excess_kw * 1000.0 / max2(rack_devs, 1.0);
        }
        double share = safe_div(dev_w - k->idle_w, k->dyn_w);
        f = share >= 1.0 ? 1.0 : share <= 0 ? THROTTLE_FLOOR : max2(cbrt(share), THROTTLE_FLOOR);
    }
    set_throttle(S, f);
}
