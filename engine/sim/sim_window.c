/* sim_window: the sampled rates averaged over whole training steps.
 *
 * A step's work arrives in bursts (tokens only when a step completes, the
 * devices busy then idle while they wait for data), so a single sample of
 * a rate swings between 0 and its peak. Between two step completions lie
 * whole steps: the time-weighted mean of a rate over that span is what the
 * pipeline sustains, the figure the analytic model predicts. */
#include <math.h>

#include "sim.h"

/* A sample whose cumulative tokens grew closes a step (or several, when
 * steps are shorter than the sample interval). */
static bool completes(const struct sim *sim, size_t i)
{
    return i > 0 && sim_series_at(sim, SERIES_TOKENS_TOTAL, i) >
                        sim_series_at(sim, SERIES_TOKENS_TOTAL, i - 1);
}

/* Walks back from sample `end` to the earliest completion that keeps the
 * span within max_steps completions and max_samples samples and after
 * since_s. Returns the number of steps between *first and *last. */
static int find_span(const struct sim *sim, size_t end, double since_s, int max_steps,
                     size_t max_samples, size_t *first, size_t *last)
{
    int found = 0;
    for (size_t i = end + 1; i-- > 1;) {
        if (end - i >= max_samples || sim_series_at(sim, SERIES_TIME_S, i - 1) < since_s)
            break;
        if (!completes(sim, i))
            continue;
        if (found == 0)
            *last = i;
        *first = i;
        if (++found > max_steps)
            break;
    }
    return found > 1 ? found - 1 : 0;
}

/* Time-weighted means of the rate series over samples (first, last]. */
static void span_means(const struct sim *sim, size_t first, size_t last, double *mean)
{
    double sum[SERIES_COUNT] = {0};
    double span =
        sim_series_at(sim, SERIES_TIME_S, last) - sim_series_at(sim, SERIES_TIME_S, first);
    for (size_t i = first + 1; i <= last; i++) {
        double dt = sim_series_at(sim, SERIES_TIME_S, i) - sim_series_at(sim, SERIES_TIME_S, i - 1);
        for (int id = 0; id < SERIES_COUNT; id++)
            sum[id] += dt * sim_series_at(sim, (enum sim_series_id)id, i);
    }
    for (int id = 0; id < SERIES_COUNT; id++) {
        double x = span > 0 ? sum[id] / span : 0;
        mean[id] = isfinite(x) && x > 0 ? x : 0;
    }
}

/* The relative standard error of the span's time per token. Each interval
 * between completions (a ratio estimator: its length over the tokens it
 * made) varies by the steps' own spread and by where the completions fell
 * within their samples: up to m = min(sample interval, step) at each end,
 * a variance of m^2 / 6 per interval. That part telescopes over the span
 * (only its two ends count), the steps' spread averages over n intervals. */
static double span_rel_se(const struct sim *sim, size_t first, size_t last, int steps)
{
    double d_sum = 0, k_sum = 0, resid = 0;
    int n = 0;
    for (int pass = 0; pass < 2; pass++) {
        double ratio = k_sum > 0 ? d_sum / k_sum : 0;
        size_t prev = first;
        for (size_t i = first + 1; i <= last; i++) {
            if (!completes(sim, i))
                continue;
            double d =
                sim_series_at(sim, SERIES_TIME_S, i) - sim_series_at(sim, SERIES_TIME_S, prev);
            double k = sim_series_at(sim, SERIES_TOKENS_TOTAL, i) -
                       sim_series_at(sim, SERIES_TOKENS_TOTAL, prev);
            prev = i;
            if (pass == 0)
                d_sum += d, k_sum += k, n++;
            else
                resid += (d - ratio * k) * (d - ratio * k);
        }
    }
    if (n < 2 || !(d_sum > 0) || steps < 1)
        return NAN;
    double sample =
        (sim_series_at(sim, SERIES_TIME_S, last) - sim_series_at(sim, SERIES_TIME_S, first)) /
        (double)(last - first);
    double m = fmin(sample, d_sum / steps), quant = m * m / 6;
    double spread = fmax(0, resid / (n - 1) - quant);
    double x = sqrt(spread / n + quant / ((double)n * n)) / (d_sum / n);
    return isfinite(x) ? x : NAN;
}

/* A step far longer than the window's average (racks throttling, devices
 * down, storage slowed) is a change of pace, not noise: then the figures
 * are that step's, the newest whole one or the one still running, so they
 * follow the change within a step instead of a window of the old pace. */
/* Twice the average: storage jitter (a lognormal draw with a CV of 0.2)
 * makes a step 1.5 times the average now and then, twice it about once in
 * 5,000 steps; a throttled or broken run's steps are many times longer. */
#define PACE_CHANGE 2.0

void sim_window_at(const struct sim *sim, size_t end, double since_s, int max_steps,
                   size_t max_samples, struct sim_window *out)
{
    *out = (struct sim_window){.rel_se = NAN};
    size_t len = sim ? sim_series_len(sim) : 0;
    if (len < 2 || end >= len || max_steps < 1)
        return;
    size_t first = 0, last = 0;
    int steps = find_span(sim, end, since_s, max_steps, max_samples, &first, &last);
    double t0 = sim_series_at(sim, SERIES_TIME_S, first);
    double t1 = sim_series_at(sim, SERIES_TIME_S, last);
    if (steps < 1 || !(t1 > t0))
        return;
    double tok = sim_series_at(sim, SERIES_TOKENS_TOTAL, last) -
                 sim_series_at(sim, SERIES_TOKENS_TOTAL, first);
    double gap = (t1 - t0) / steps, per_step = tok / steps;
    size_t prev = first, p2 = last;
    if (steps > 1)
        find_span(sim, end, since_s, 1, max_samples, &prev, &p2);
    double newest = t1 - sim_series_at(sim, SERIES_TIME_S, prev);
    double running = sim_series_at(sim, SERIES_TIME_S, end) - t1;
    span_means(sim, first, last, out->mean);
    out->rel_se = span_rel_se(sim, first, last, steps);
    /* Tokens are counted, not sampled: the rate is what the steps made. */
    double rate = tok > 0 ? tok / (t1 - t0) : 0;
    if (steps > 1 && newest > PACE_CHANGE * gap) {
        double made = sim_series_at(sim, SERIES_TOKENS_TOTAL, last) -
                      sim_series_at(sim, SERIES_TOKENS_TOTAL, prev);
        span_means(sim, prev, last, out->mean);
        out->rel_se = NAN; /* one step: no spread to judge by */
        rate = fmin(rate, made > 0 ? made / newest : 0);
    }
    if (running > PACE_CHANGE * gap && end > last && per_step / running < rate) {
        span_means(sim, last, end, out->mean);
        out->rel_se = NAN;
        rate = per_step / running;
    }
    out->mean[SERIES_TOKENS_PER_S] = rate;
    out->steps = steps;
    out->from_s = t0;
    out->to_s = t1;
}

void sim_window(const struct sim *sim, double since_s, int max_steps, size_t max_samples,
                struct sim_window *out)
{
    size_t len = sim ? sim_series_len(sim) : 0;
    sim_window_at(sim, len ? len - 1 : 0, since_s, max_steps, max_samples, out);
}
