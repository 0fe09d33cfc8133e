/* figures: the live figures every view shows, computed from the read-only
 * view context (the steady-state report corrected by the live sample). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "views.h"

int view_bottleneck(const struct view_ctx *v, char *why, size_t why_len, bool *live)
{
    const struct model_report *r = v->report;
    *live = false;
    if (!r->runnable) {
        snprintf(why, why_len, "%s", r->why_not);
        return -1;
    }
    int steady = r->bottleneck >= 0 && r->bottleneck < STAGE_COUNT ? r->bottleneck : 0;
    const struct sim_live *l = v->live;
    /* A throttle deeper than the steady state's by more than rounding. */
    bool hot = v->sim && isfinite(l->throttle) && l->throttle < r->power.throttle_factor - 0.01;
    bool down = v->sim && (l->failed_devices > 0 || l->phase == SIM_PHASE_RESTARTING);
    if (down) {
        *live = true;
        snprintf(why, why_len, "now: %d device%s down, restarting (steady: %s)", l->failed_devices,
                 l->failed_devices == 1 ? "" : "s", stage_table[steady].title);
        return STAGE_INFRASTRUCTURE;
    }
    if (hot) {
        *live = true;
        snprintf(why, why_len, "now: clocks %.0f%%, rack %.0f C (steady: %s)", 100 * l->throttle,
                 l->rack_temp_c, stage_table[steady].title);
        return STAGE_INFRASTRUCTURE;
    }
    snprintf(why, why_len, "%s", r->bottleneck_reason);
    return steady;
}

double view_live_util(const struct view_ctx *v, double steady)
{
    const struct model_report *r = v->report;
    double keep = r->power.throttle_factor;
    if (!v->sim || !(keep > 0) || !isfinite(v->live->throttle))
        return steady;
    double x = steady * v->live->throttle / keep;
    return isfinite(x) && x > 0 ? x : 0;
}

bool view_syncing(const struct view_ctx *v)
{
    enum { FRAMES_PER_S = 30 };
    const struct model_report *r = v->report;
    if (!v->sim || v->paused || r->dp <= 1 || !(r->stages.dp_comm_s > 0))
        return false;
    int ph = v->live->phase;
    if (ph == SIM_PHASE_SYNC || v->speed / FRAMES_PER_S >= r->step_time_s)
        return true;
    if (!v->setup->training.overlap_grad_sync)
        return false;
    /* Overlapped: gradients go out during the backward; ZeRO-3 gathers the
     * weights during the forward too (engine/model, data-parallel time). */
    return ph == SIM_PHASE_BACKWARD ||
           (ph == SIM_PHASE_FORWARD && v->setup->training.zero_stage >= 3);
}

double view_live_sample(const struct view_ctx *v, enum sim_series_id id, double steady)
{
    size_t len = v->sim ? sim_series_len(v->sim) : 0;
    if (len == 0)
        return steady;
    double x = sim_series_at(v->sim, id, len - 1);
    return isfinite(x) && x >= 0 ? x : steady;
}

double view_live_it_kw(const struct view_ctx *v)
{
    return view_live_sample(v, SERIES_IT_KW, v->report->power.it_kw);
}

double view_live_rack_kw(const struct view_ctx *v)
{
    const struct power_report *p = &v->report->power;
    double x = p->it_kw > 0 ? p->per_rack_kw * view_live_it_kw(v) / p->it_kw : p->per_rack_kw;
    return isfinite(x) && x >= 0 ? x : p->per_rack_kw;
}

size_t view_series(const struct view_ctx *v, struct view_out *out, enum sim_series_id id, size_t n)
{
    if (!v->sim)
        return 0;
    if (n > UI_SERIES_MAX)
        n = UI_SERIES_MAX;
    return sim_series_tail(v->sim, id, out->series, n);
}

/* Tokens only move when a step completes. Between the first and the last
 * completion seen in a window lie whole steps, so that is the rate; with
 * fewer than two completions in the window (a long or stalled step), the
 * plain average over the window. */
static double whole_steps_rate(const double *tot, const double *tim, size_t lo, size_t i)
{
    size_t first = 0, last = 0;
    for (size_t k = lo + 1; k <= i; k++)
        if (tot[k] > tot[k - 1]) {
            if (!first)
                first = k;
            last = k;
        }
    if (first && last > first && tim[last] > tim[first])
        return (tot[last] - tot[first]) / (tim[last] - tim[first]);
    double span = tim[i] - tim[lo];
    return span > 0 ? (tot[i] - tot[lo]) / span : 0;
}

size_t view_throughput(const struct view_ctx *v, struct view_out *out, size_t n)
{
    /* The window: a few steps, and enough samples that a sample's worth of
     * uncertainty at each end stays small against it. */
    enum { WINDOW_MAX = UI_SERIES_MAX, WINDOW_MIN = 24, WINDOW_STEPS = 3 };
    static double tot[UI_SERIES_MAX + WINDOW_MAX], tim[UI_SERIES_MAX + WINDOW_MAX];
    if (!v->sim)
        return 0;
    if (n > UI_SERIES_MAX)
        n = UI_SERIES_MAX;
    size_t len = sim_series_len(v->sim);
    if (len < 2)
        return 0;
    /* The step as long as it runs now: throttled clocks stretch it. */
    double step = v->report->step_time_s;
    double keep = v->report->power.throttle_factor, now = v->live->throttle;
    if (keep > 0 && now > 0 && isfinite(now) && now < keep)
        step *= keep / now;
    double dt = sim_series_at(v->sim, SERIES_TIME_S, len - 1) -
                sim_series_at(v->sim, SERIES_TIME_S, len - 2);
    double want = dt > 0 && isfinite(step) ? ceil(WINDOW_STEPS * step / dt) : 1;
    size_t w = want < WINDOW_MIN ? WINDOW_MIN : want > WINDOW_MAX ? WINDOW_MAX : (size_t)want;
    size_t got = sim_series_tail(v->sim, SERIES_TOKENS_TOTAL, tot, n + w);
    sim_series_tail(v->sim, SERIES_TIME_S, tim, n + w);
    /* The newest n readings, each over the window before it. */
    size_t made = 0;
    for (size_t i = got > n ? got - n : 1; i < got; i++)
        out->series[made++] = whole_steps_rate(tot, tim, i >= w ? i - w : 0, i);
    return made;
}

const char *view_fmt_busy(double x, char *buf, size_t len)
{
    if (!isfinite(x) || x <= 0)
        snprintf(buf, len, "0");
    else if (x < 0.1)
        snprintf(buf, len, "%.2g", x);
    else if (x < 10)
        snprintf(buf, len, "%.1f", x);
    else
        snprintf(buf, len, "%.0f", x);
    return buf;
}

const char *view_dp_traffic_label(const struct view_ctx *v, bool brief)
{
    if (v->setup->training.zero_stage >= 3)
        return brief ? "ZeRO-3 w+g" : "ZeRO-3 weights+grads";
    return brief ? "grad sync" : "gradient sync";
}

const char *view_short_name(const char *name, char *buf, size_t len)
{
    static const char *const vendors[] = {"NVIDIA ", "AMD ",   "Intel ", "Google ",
                                          "AWS ",    "Apple ", "Habana "};
    const char *p = name ? name : "";
    for (size_t i = 0; i < sizeof vendors / sizeof vendors[0]; i++)
        if (strncmp(p, vendors[i], strlen(vendors[i])) == 0)
            p += strlen(vendors[i]);
    snprintf(buf, len, "%s", p);
    return buf;
}
