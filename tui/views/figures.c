/* figures: the live figures every view shows, computed from the read-only
 * view context (the steady-state report corrected by the live sample). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "glyphs.h"
#include "units.h"
#include "views.h"

/* Throttle factors closer than this are the same clocks (rounding). */
#define THROTTLE_ROUNDING 0.01

/* The racks throttle deeper than the steady state's by more than rounding. */
static bool live_hot(const struct view_ctx *v)
{
    const struct sim_live *l = v->live;
    return v->sim && isfinite(l->throttle) &&
           l->throttle < v->report->power.throttle_factor - THROTTLE_ROUNDING;
}

int view_bottleneck(const struct view_ctx *v, char *why, size_t why_len, bool *live)
{
    const struct model_report *r = v->report;
    *live = false;
    if (!r->runnable) {
        /* Why, and the first change that makes it fit (the report's
         * suggestions; a cooling or failure limit says its own remedy). */
        const char *fix = NULL;
        for (int i = 0; i < r->n_suggestions && i < SUGGESTION_MAX && !fix; i++)
            if (r->suggestions[i].fits)
                fix = r->suggestions[i].text;
        snprintf(why, why_len, "%s%s%s", r->why_not, fix ? "; runs with " : "", fix ? fix : "");
        return -1;
    }
    int steady = r->bottleneck >= 0 && r->bottleneck < STAGE_COUNT ? r->bottleneck : 0;
    const struct sim_live *l = v->live;
    bool down = v->sim && (l->failed_devices > 0 || l->phase == SIM_PHASE_RESTARTING);
    if (down) {
        *live = true;
        snprintf(why, why_len, "now: %d device%s down, restarting (steady: %s)", l->failed_devices,
                 l->failed_devices == 1 ? "" : "s", stage_table[steady].title);
        return STAGE_INFRASTRUCTURE;
    }
    if (live_hot(v)) {
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

/* Throttled clocks mean the racks make more heat than the cooling removes
 * (engine/sim/sim_thermal.c): the infrastructure runs at its limit, even
 * when the sim's share (rack heat over the cooling left) reads 0 because
 * no cooling is left at all. */
double view_live_stage_util(const struct view_ctx *v, int stage)
{
    if (stage < 0 || stage >= STAGE_COUNT)
        return 0;
    if (stage == STAGE_INFRASTRUCTURE && live_hot(v))
        return 1;
    double x = v->live->stage_util[stage];
    return isfinite(x) && x > 0 ? x : 0;
}

double view_live_cores_busy(const struct view_ctx *v)
{
    const struct model_report *r = v->report;
    double steady = r->utilization[STAGE_CPUS], cores = r->stages.cpu_cores_busy;
    if (!v->sim || !(steady > 0))
        return cores;
    double x = cores * view_live_stage_util(v, STAGE_CPUS) / steady;
    return isfinite(x) && x >= 0 ? fmin(x, r->stages.cpu_cores_total) : cores;
}

/* The finest part of a core a count of busy cores shows. */
#define CORES_FINEST 0.01

void view_fmt_cores(char *buf, size_t len, double cores)
{
    if (!(cores > 0))
        snprintf(buf, len, "0"); /* none, or unknown */
    else if (cores < CORES_FINEST)
        snprintf(buf, len, "<%.2f", CORES_FINEST);
    else if (cores < 1)
        snprintf(buf, len, "%.2f", cores);
    else
        format_significant(buf, len, cores, 2);
}

size_t view_stage_util_series(const struct view_ctx *v, struct view_out *out, int stage, size_t n)
{
    static const enum sim_series_id util_series[STAGE_COUNT] = {
        SERIES_UTIL_DATA, SERIES_UTIL_CPUS, SERIES_UTIL_ACCEL, SERIES_UTIL_NET, SERIES_UTIL_INFRA};
    static double throttle[UI_SERIES_MAX];
    if (stage < 0 || stage >= STAGE_COUNT)
        return 0;
    size_t got = view_series(v, out, util_series[stage], n);
    if (stage != STAGE_INFRASTRUCTURE || got == 0)
        return got;
    /* The same rule as view_live_stage_util, sample by sample. */
    size_t t = sim_series_tail(v->sim, SERIES_THROTTLE, throttle, got);
    double keep = v->report->power.throttle_factor - THROTTLE_ROUNDING;
    for (size_t i = 0; i < t && i < got; i++)
        if (isfinite(throttle[i]) && throttle[i] < keep)
            out->series[i] = 1;
    return got;
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

bool view_warming(const struct view_ctx *v)
{
    return v->sim && v->report->runnable && !(v->win && v->win->steps > 0);
}

bool view_settling(const struct view_ctx *v)
{
    return v->sim && v->report->runnable && v->win && v->win->steps > 0 && !v->win_steady;
}

void view_mark_settling(const struct view_ctx *v, char *buf, size_t len)
{
    size_t n = strlen(buf);
    if (!view_settling(v) || n + 2 > len)
        return;
    memmove(buf + 1, buf, n + 1);
    buf[0] = '~';
}

double view_live_sample(const struct view_ctx *v, enum sim_series_id id, double steady)
{
    if (!v->sim || view_warming(v))
        return steady;
    double x = v->win->mean[id];
    return isfinite(x) && x >= 0 ? x : steady;
}

const char *view_cost_per_hour(const struct view_ctx *v, char *buf, size_t len)
{
    char usd[32];
    if (!v->report->runnable) {
        snprintf(buf, len, "no cost");
        return buf;
    }
    format_usd(usd, sizeof usd, v->report->cost.usd_per_hour);
    snprintf(buf, len, "%s/h", usd);
    return buf;
}

const char *view_live_text(const struct view_ctx *v, double x, const char *unit, char *buf,
                           size_t len)
{
    if (view_warming(v))
        snprintf(buf, len, "warming up");
    else if (!strcmp(unit, "%"))
        format_percent(buf, len, x);
    else
        format_si(buf, len, x, unit);
    view_mark_settling(v, buf, len);
    return buf;
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
 * plain average over the window.
 * A step far longer than the window's average (racks throttling, devices
 * down) is a change of pace, not noise: then the rate is that step's, the
 * newest completed one or the one still running, so the figure follows
 * the change within a step instead of a window of the old pace. */
#define PACE_CHANGE 1.5
static double whole_steps_rate(const double *tot, const double *tim, size_t lo, size_t i)
{
    size_t first = 0, last = 0, prev = 0, count = 0;
    for (size_t k = lo + 1; k <= i; k++)
        if (tot[k] > tot[k - 1]) {
            if (!first)
                first = k;
            prev = last;
            last = k;
            count++;
        }
    if (!(first && last > first && tim[last] > tim[first])) {
        double span = tim[i] - tim[lo];
        return span > 0 ? (tot[i] - tot[lo]) / span : 0;
    }
    double rate = (tot[last] - tot[first]) / (tim[last] - tim[first]);
    double gap = (tim[last] - tim[first]) / (double)(count - 1); /* between completions */
    double per = (tot[last] - tot[first]) / (double)(count - 1); /* tokens per completion */
    double newest = tim[last] - tim[prev], running = tim[i] - tim[last];
    if (newest > PACE_CHANGE * gap && newest > 0)
        rate = fmin(rate, (tot[last] - tot[prev]) / newest);
    if (running > PACE_CHANGE * gap && running > 0)
        rate = fmin(rate, per / running);
    return rate;
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

size_t view_live_throughput(const struct view_ctx *v, struct view_out *out, size_t n, double *now)
{
    const struct model_report *r = v->report;
    size_t made = view_throughput(v, out, n);
    /* The average over whole steps since the setup changed (the steady
     * state's while warming up, shown as "warming up"). */
    *now = view_live_sample(v, SERIES_TOKENS_PER_S, r->tokens_per_s);
    if (!r->runnable)
        *now = NAN; /* shown as "-": a setup that cannot run makes no tokens */
    return made;
}

#define SPARK_HEADROOM 1.3
double view_spark_top(const double *series, size_t n, double steady)
{
    double m = isfinite(steady) && steady > 0 ? steady : 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(series[i]) && series[i] > m)
            m = series[i];
    return m * SPARK_HEADROOM;
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

int view_draw_fitting(int y, int x, int w, enum theme_role role, const char *const *wordings,
                      size_t n)
{
    if (n == 0)
        return 0;
    size_t i = 0;
    while (i + 1 < n && draw_width(wordings[i]) > w)
        i++;
    return draw_text(y, x, w, role, wordings[i]);
}

/* Text that does not fit in w columns is cut at its last space that
 * leaves a head of at most w columns; returns the head's length in bytes
 * (the whole text when it fits or has no such space). */
size_t view_fitting_head(const char *text, int w)
{
    if (draw_width(text) <= w)
        return strlen(text);
    char buf[UI_MSG_LEN * 2];
    size_t best = 0;
    for (size_t i = 0; i < sizeof buf - 1 && text[i]; i++)
        if (text[i] == ' ') {
            memcpy(buf, text, i);
            buf[i] = '\0';
            if (draw_width(buf) > w)
                break;
            best = i;
        }
    return best ? best : strlen(text);
}

void view_reason_brief(const char *reason, int level, char *buf, size_t len)
{
    size_t n = strlen(reason);
    if (level >= 1) {
        n = strcspn(reason, ";(");
        if (level >= 2 && strcspn(reason, ":") < n)
            n = strcspn(reason, ":");
        while (n > 0 && reason[n - 1] == ' ')
            n--;
        if (n == 0)
            n = strlen(reason); /* nothing before the mark: all of it */
    }
    snprintf(buf, len, "%.*s", (int)n, reason);
}

int view_wrapped_rows(const char *why, int lead_w, int w)
{
    int rows = 1, room = w - lead_w;
    while (draw_width(why) > room) {
        size_t n = view_fitting_head(why, room);
        if (!why[n] || rows > 8)
            return rows + 8; /* a word longer than a row: never fits */
        why += n + 1;
        rows++;
        room = w - 3;
    }
    return rows;
}

int view_draw_verdict(const struct view_ctx *v, int y, int x, int w, int rows, bool caps)
{
    const struct glyphs *g = glyphs_active();
    char full[UI_MSG_LEN], why[UI_MSG_LEN], head[UI_MSG_LEN];
    bool live;
    int b = view_bottleneck(v, full, sizeof full, &live);
    int used;
    enum theme_role role = b < 0 ? ROLE_FAILED : caps ? ROLE_TEXT : ROLE_DIM;
    if (b < 0)
        used = draw_textf(y, x, w, ROLE_FAILED, "%s%s CANNOT RUN: ", caps ? " " : "", g->fail);
    else
        used = draw_textf(y, x, w, ROLE_BOTTLENECK, "%s BOTTLENECK %s %s - ", g->bottleneck,
                          g->arrow_right, caps ? stage_table[b].caps : stage_table[b].title);
    /* The fullest wording that fits the rows: the whole reason, its first
     * clause, or the verdict alone ("compute-bound"), never a figure cut;
     * why a setup cannot run keeps its first clause at least. */
    int levels = b < 0 ? 2 : VIEW_REASON_LEVELS;
    for (int level = 0; level < levels; level++) {
        view_reason_brief(full, level, why, sizeof why);
        if (view_wrapped_rows(why, used, w) <= rows)
            break;
    }
    size_t n = rows > 1 ? view_fitting_head(why, w - used) : strlen(why);
    snprintf(head, sizeof head, "%.*s", (int)n, why);
    draw_text(y, x + used, w - used, role, head);
    if (!why[n])
        return 1;
    draw_textf(y + 1, x, w, role, "   %s", why + n + 1);
    return 2;
}

bool view_verdict_fits(const struct view_ctx *v, int w)
{
    char why[UI_MSG_LEN], line[UI_MSG_LEN * 2];
    bool live;
    int b = view_bottleneck(v, why, sizeof why, &live);
    snprintf(line, sizeof line, "* BOTTLENECK > %s - %s",
             b < 0 ? "CANNOT RUN:" : stage_table[b].title, why);
    return draw_width(line) <= w;
}

double view_bubble_share(const struct model_report *r)
{
    double x = r->step_time_s > 0 ? r->breakdown.pp_bubble / r->step_time_s : 0;
    return isfinite(x) && x > 0 ? x : 0;
}
