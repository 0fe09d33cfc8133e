/* The step loop (engine/sim/sim.c): the invariants of issue 4.
 *
 * - With jitter and failures off, long-run throughput equals the analytic
 *   model's within 2% on every preset, and on data-bound and serial variants.
 * - Conservation (in = out + inside) for every stage at every sample.
 * - Utilizations in [0, 1]; no NaN or Inf in any series, also after 30
 *   simulated days of a 16,384-device setup with failures.
 * - Failure counts agree with the MTBF rate (Poisson, within 4 sigma).
 * - Goodput over the checkpoint interval peaks near Young/Daly.
 * - A cooling fault on a dense air-cooled rack heats, throttles, recovers.
 * - Same seed, same bytes; different seeds, different jitter.
 * - Stragglers: the mean step grows as the expected maximum of N normals.
 * (Events: test_sim_events.c.)
 *
 * Tests run from the repository root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "model.h"
#include "setup.h"
#include "sim.h"

#include "sim_fixture.h"

static const char *const presets[] = {"default", "gpt3-175b-a100", "tpu-v4-pod", "workstation",
                                      "laptop-cpu"};
enum { N_PRESETS = 5 };

/* Options of the "equals the model" runs. */
static void steady_options(struct sim_options *o)
{
    sim_default_options(o);
    o->jitter = false;
    o->failures = false;
    o->thermal = true;
}

static double achieved_tokens_per_s(const struct sim *sim)
{
    struct sim_counters c;
    sim_counters(sim, &c);
    return c.time_s > 0 ? c.tokens / c.time_s : 0.0;
}

/* Long enough for the start-up transient and the step granularity to stay
 * far below 2%: at least 500 steps and at least 6 hours. */
static double long_run_s(const struct sim *sim)
{
    double step = sim_report(sim)->step_time_s;
    double t = 500.0 * step;
    return t > 6 * HOUR ? t : 6 * HOUR;
}

static void assert_matches_model_tick(const struct setup *s, const char *what, double tick_s)
{
    struct sim_options o;
    steady_options(&o);
    if (tick_s > 0)
        o.tick_s = tick_s;
    struct sim *sim = make_sim(s, &o);
    run(sim, long_run_s(sim));
    double got = achieved_tokens_per_s(sim);
    double want = sim_report(sim)->tokens_per_s;
    double rel = fabs(got / want - 1.0);
    if (!(rel <= 0.02))
        fail_msg("%s: sim %.6g tokens/s vs model %.6g (%.2f%% off, limit 2%%)", what, got, want,
                 100 * rel);
    sim_free(sim);
}

static void assert_matches_model(const struct setup *s, const char *what)
{
    assert_matches_model_tick(s, what, 0);
}

/* ---- throughput equals the analytic model ----------------------------------- */

static void test_presets_match_model(void **state)
{
    (void)state;
    for (int i = 0; i < N_PRESETS; i++) {
        struct setup s;
        load_preset(presets[i], &s);
        assert_matches_model(&s, presets[i]);
    }
}

/* Data-bound variants: storage, loaders and host link as the bottleneck,
 * and the serial data path (no prefetch), where the step waits for all. */
static void test_data_bound_match_model(void **state)
{
    (void)state;
    struct setup s;
    load_preset("default", &s);
    struct resolved r;
    struct model_report o;
    char err[512];

    struct setup a = s; /* storage-bound: a slow shared tier */
    set_field(&a, "cluster.storage_bw_gbs", "0.0002");
    assert_true(setup_resolve(&a, cat, &r, err, sizeof err));
    model_eval(&a, &r, &o);
    assert_true(o.stages.read_s > 1.5 * o.device_step_s); /* really storage-bound */
    assert_matches_model(&a, "storage-bound");

    struct setup b = s; /* loader-bound: expensive preprocessing */
    set_field(&b, "data.preprocess_us_per_sample", "8000000");
    assert_true(setup_resolve(&b, cat, &r, err, sizeof err));
    model_eval(&b, &r, &o);
    assert_true(o.stages.preprocess_s > 1.5 * o.device_step_s);
    assert_matches_model(&b, "loader-bound");

    struct setup c = s; /* serial: no prefetch, everything in sequence */
    set_field(&c, "data.prefetch_batches", "0");
    set_field(&c, "data.preprocess_us_per_sample", "20000");
    assert_matches_model(&c, "serial data path");

    struct setup d = s; /* laptop with its slow loader */
    load_preset("laptop-cpu", &d);
    set_field(&d, "data.loader_workers_per_device", "0");
    assert_matches_model(&d, "laptop serial");

    /* Steps shorter than a tick: several steps per tick, queues widened. */
    struct setup e;
    load_preset("laptop-cpu", &e); /* 0.71 s steps */
    assert_matches_model_tick(&e, "laptop, 5 s ticks", 5.0);
    assert_matches_model_tick(&a, "storage-bound, 20 s ticks", 20.0);
}

/* A rack the analytic model says throttles: the thermal loop settles at the
 * same clock and throughput. */
static void test_throttled_matches_model(void **state)
{
    (void)state;
    struct setup s;
    load_preset("default", &s);
    set_field(&s, "cluster.nodes", "4");
    set_field(&s, "facility.nodes_per_rack", "4");
    struct resolved r;
    struct model_report o;
    char err[512];
    assert_true(setup_resolve(&s, cat, &r, err, sizeof err));
    model_eval(&s, &r, &o);
    assert_true(o.power.throttled);
    assert_true(o.runnable);
    assert_matches_model(&s, "throttled rack");
    struct sim_options opt;
    steady_options(&opt);
    struct sim *sim = make_sim(&s, &opt);
    run(sim, 2 * HOUR);
    struct sim_live live;
    sim_live(sim, &live);
    assert_true(fabs(live.throttle - o.power.throttle_factor) < 0.01);
    assert_true(fabs(live.rack_temp_c - o.power.rack_temp_c) < 1.0);
    sim_free(sim);
}

/* ---- conservation, ranges, finiteness ---------------------------------------- */
static void check_series(const struct sim *sim, const char *what)
{
    size_t n = sim_series_len(sim);
    for (size_t i = 0; i < n; i++) {
        for (int id = 0; id < SERIES_COUNT; id++) {
            double v = sim_series_at(sim, (enum sim_series_id)id, i);
            if (!isfinite(v))
                fail_msg("%s: series %s sample %zu is not finite", what, sim_series_names[id], i);
        }
        for (int id = SERIES_UTIL_DATA; id <= SERIES_UTIL_INFRA; id++) {
            double u = sim_series_at(sim, (enum sim_series_id)id, i);
            if (!(u >= 0 && u <= 1))
                fail_msg("%s: %s = %g at sample %zu", what, sim_series_names[id], u, i);
        }
        double thr = sim_series_at(sim, SERIES_THROTTLE, i);
        assert_true(thr > 0 && thr <= 1);
        for (int id = SERIES_QUEUE_LOADER; id <= SERIES_QUEUE_DEVICE; id++)
            assert_true(sim_series_at(sim, (enum sim_series_id)id, i) >= 0);
    }
    struct sim_counters c;
    sim_counters(sim, &c);
    double nums[] = {c.time_s,      c.tokens,       c.lost_s,   c.starved_s,
                     c.throttled_s, c.checkpoint_s, c.energy_j, c.max_rack_temp_c};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
        assert_true(isfinite(nums[i]) && nums[i] >= 0);
    struct sim_live l;
    sim_live(sim, &l);
    assert_true(isfinite(l.rack_temp_c) && isfinite(l.step_progress));
    for (int k = 0; k < STAGE_COUNT; k++)
        assert_true(l.stage_util[k] >= 0 && l.stage_util[k] <= 1);
}

/* Every sample, with failures, rollbacks, slow storage and a data-bound
 * pipeline whose queues move. */
static void test_conservation_every_sample(void **state)
{
    (void)state;
    const char *variants[][2] = {
        {"cluster.storage_bw_gbs", "0.0004"},       /* storage-bound, sometimes */
        {"data.preprocess_us_per_sample", "90000"}, /* loaders near the device rate */
        {"data.prefetch_batches", "0"},             /* serial */
        {"name", "default"},
    };
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        struct setup s;
        load_preset("default", &s);
        set_field(&s, variants[v][0], variants[v][1]);
        struct sim_options o;
        sim_default_options(&o);
        o.sample_interval_s = 5.0;
        o.seed = 7 + v;
        struct sim *sim = make_sim(&s, &o);
        struct sim_event ev = {.time_s = 300, .kind = SIM_EVENT_FAIL_DEVICE};
        char err[256];
        assert_true(sim_schedule(sim, &ev, err, sizeof err));
        ev = (struct sim_event){.time_s = 1500, .kind = SIM_EVENT_STORAGE_SLOW, .value = 0.3};
        assert_true(sim_schedule(sim, &ev, err, sizeof err));
        ev = (struct sim_event){.time_s = 2000, .kind = SIM_EVENT_FAIL_NODE};
        assert_true(sim_schedule(sim, &ev, err, sizeof err));
        check_conservation(sim, variants[v][0]);
        for (int i = 0; i < 720; i++) { /* one hour, sample by sample */
            run(sim, o.sample_interval_s);
            check_conservation(sim, variants[v][0]);
        }
        check_series(sim, variants[v][0]);
        struct sim_counters c;
        sim_counters(sim, &c);
        assert_true(c.failures >= 2);
        assert_true(c.restarts >= 1);
        sim_free(sim);
    }
}

static void test_series_ranges_all_presets(void **state)
{
    (void)state;
    for (int i = 0; i < N_PRESETS; i++) {
        struct setup s;
        load_preset(presets[i], &s);
        struct sim_options o;
        sim_default_options(&o);
        o.sample_interval_s = 10;
        struct sim *sim = make_sim(&s, &o);
        struct sim_event ev = {.time_s = 1800, .kind = SIM_EVENT_COOLING_LOSS, .value = 1.0};
        char err[256];
        assert_true(sim_schedule(sim, &ev, err, sizeof err));
        ev = (struct sim_event){.time_s = 3000, .kind = SIM_EVENT_COOLING_RESTORE};
        assert_true(sim_schedule(sim, &ev, err, sizeof err));
        run(sim, 3 * HOUR);
        check_series(sim, presets[i]);
        check_conservation(sim, presets[i]);
        sim_free(sim);
    }
}

static struct setup big_setup(void)
{
    struct setup s;
    load_preset("gpt3-175b-a100", &s);
    set_field(&s, "cluster.nodes", "2048"); /* 16,384 devices */
    return s;
}

/* 30 days of 16,384 devices with failures on (coarse tick: the step is
 * 28 s), checked day by day so that every sample is seen. The same run
 * pins the failure count against the Poisson rate of the MTBFs. */
static void test_thirty_days_16k(void **state)
{
    (void)state;
    struct setup s = big_setup();
    struct sim_options o;
    sim_default_options(&o);
    o.tick_s = 0.1;
    o.sample_interval_s = 60;
    o.series_capacity = 1600; /* > one day of samples */
    struct sim *sim = make_sim(&s, &o);
    assert_int_equal(sim_report(sim)->devices, 16384);
    for (int day = 0; day < 30; day++) {
        run(sim, DAY);
        check_series(sim, "16k devices");
        check_conservation(sim, "16k devices");
    }
    struct sim_counters c;
    sim_counters(sim, &c);
    /* Poisson: failures ~ rate x time; the count must be within 4 sigma. */
    double per_h = 16384 / s.reliability.device_mtbf_h + 2048 / s.reliability.node_mtbf_h;
    double expect = per_h * c.time_s / HOUR;
    double sigma = sqrt(expect);
    if (!(fabs((double)c.failures - expect) <= 4 * sigma))
        fail_msg("%llu failures in 30 days; MTBFs imply %.1f +- %.1f",
                 (unsigned long long)c.failures, expect, sigma);
    assert_int_equal(c.failures, c.device_failures + c.node_failures);
    /* The device share is binomial: within 4 sigma too. */
    double p = (16384 / s.reliability.device_mtbf_h) / per_h;
    double n = (double)c.failures;
    assert_true(fabs((double)c.device_failures - p * n) <= 4 * sqrt(n * p * (1 - p)) + 1);
    /* A failure during a restart extends it: restarts <= failures. */
    assert_true(c.restarts <= c.failures && c.restarts >= c.failures * 3 / 4);
    assert_true(c.tokens > 0);
    sim_free(sim);
}

/* Failure counts with several seeds and a short MTBF: the mean count over
 * seeds within 4 sigma of the rate. */
static void test_failure_rate_seeds(void **state)
{
    (void)state;
    struct setup s;
    load_preset("tpu-v4-pod", &s);
    set_field(&s, "reliability.device_mtbf_h", "2560"); /* 256 devices: 0.1 /h */
    set_field(&s, "reliability.node_mtbf_h", "640");    /* 64 nodes: 0.1 /h */
    double total = 0, time_h = 0;
    for (uint64_t seed = 1; seed <= 8; seed++) {
        struct sim_options o;
        sim_default_options(&o);
        o.tick_s = 0.5; /* 2.4 s steps; failures only need the clock */
        o.seed = seed;
        o.sample_interval_s = 600;
        struct sim *sim = make_sim(&s, &o);
        run(sim, 10 * DAY);
        struct sim_counters c;
        sim_counters(sim, &c);
        total += (double)c.failures;
        time_h += c.time_s / HOUR;
        sim_free(sim);
    }
    double expect = 0.2 * time_h; /* 384 */
    if (!(fabs(total - expect) <= 4 * sqrt(expect)))
        fail_msg("%.0f failures over %.0f h; the MTBFs imply %.1f +- %.1f", total, time_h, expect,
                 sqrt(expect));
}

/* ---- checkpoints: Young/Daly --------------------------------------------------- */

static double goodput_at(const struct setup *base, double interval_min)
{
    struct setup s = *base;
    char v[64];
    snprintf(v, sizeof v, "%.6g", interval_min);
    set_field(&s, "reliability.checkpoint_interval_min", v);
    struct sim_options o;
    sim_default_options(&o);
    o.jitter = false;
    o.thermal = false;
    o.tick_s = 0.5;
    o.sample_interval_s = 600;
    o.seed = 42; /* the same failure times for every interval */
    struct sim *sim = make_sim(&s, &o);
    run(sim, 400 * HOUR);
    double g = achieved_tokens_per_s(sim) / sim_report(sim)->tokens_per_s;
    sim_free(sim);
    return g;
}

static void test_young_daly(void **state)
{
    (void)state;
    struct setup s;
    load_preset("gpt3-175b-a100", &s);
    /* Frequent failures (MTBF 2 h) and slow checkpoints make the trade-off
     * visible: a tenth of the storage bandwidth -> delta ~ 160 s. */
    set_field(&s, "reliability.device_mtbf_h", "4096");
    set_field(&s, "reliability.node_mtbf_h", "512");
    set_field(&s, "reliability.restart_min", "5");
    set_field(&s, "cluster.storage_bw_gbs", "15");
    struct resolved r;
    struct model_report o;
    char err[512];
    assert_true(setup_resolve(&s, cat, &r, err, sizeof err));
    model_eval(&s, &r, &o);
    double delta = o.reliability.checkpoint_write_s;
    double mtbf_s = o.reliability.mtbf_h * HOUR;
    double tau = sqrt(2 * delta * mtbf_s); /* Young 1974 */
    assert_true(delta > 60 && tau > 20 * o.step_time_s);
    static const double scale[] = {0.125, 0.25, 0.5, 1, 2, 4, 8};
    double g[7];
    int best = 0;
    for (int i = 0; i < 7; i++) {
        g[i] = goodput_at(&s, tau * scale[i] / 60.0);
        if (g[i] > g[best])
            best = i;
    }
    if (!(scale[best] >= 0.5 && scale[best] <= 2))
        fail_msg("goodput peaks at %.3g x Young/Daly (%.0f s): %.3f %.3f %.3f %.3f %.3f %.3f %.3f",
                 scale[best], tau, g[0], g[1], g[2], g[3], g[4], g[5], g[6]);
    /* And falls off on both sides. */
    assert_true(g[3] > g[0] + 0.02 && g[3] > g[6] + 0.02);
    /* Daly's first-order waste at tau*: delta/tau + (tau/2 + R)/M. */
    double waste = delta / tau + (tau / 2 + 300) / mtbf_s;
    assert_true(fabs((1 - g[3]) - waste) < 0.05);
}

/* ---- thermal ------------------------------------------------------------------- */

static void test_cooling_fault(void **state)
{
    (void)state;
    struct setup s;
    load_preset("default", &s); /* air cooled, 20 kW per rack */
    set_field(&s, "cluster.nodes", "2");
    set_field(&s, "facility.nodes_per_rack", "2"); /* ~15 kW: dense for air */
    struct sim_options o;
    steady_options(&o);
    o.sample_interval_s = 10;
    struct sim *sim = make_sim(&s, &o);
    assert_false(sim_report(sim)->power.throttled);
    char err[256];
    struct sim_event ev = {.time_s = HOUR, .kind = SIM_EVENT_COOLING_LOSS, .value = 0.6};
    assert_true(sim_schedule(sim, &ev, err, sizeof err));
    ev = (struct sim_event){.time_s = 4 * HOUR, .kind = SIM_EVENT_COOLING_RESTORE};
    assert_true(sim_schedule(sim, &ev, err, sizeof err));

    run(sim, HOUR - 60);
    struct sim_live before;
    sim_live(sim, &before);
    struct sim_counters c0;
    sim_counters(sim, &c0);
    assert_true(before.throttle == 1.0);
    double tps_before = c0.tokens / c0.time_s;

    run(sim, 3 * HOUR); /* cooling at 40% for 3 h */
    struct sim_live during;
    sim_live(sim, &during);
    struct sim_counters c1;
    sim_counters(sim, &c1);
    assert_true(during.rack_temp_c > before.rack_temp_c + 10);
    assert_true(during.rack_temp_c > 84 && during.rack_temp_c < 86.5); /* held at the limit */
    assert_true(during.throttle < 0.95);
    assert_true(c1.throttled_s > HOUR);
    /* Throughput over the last hour of the fault is lower. */
    double last[360];
    size_t n = sim_series_tail(sim, SERIES_TOKENS_PER_S, last, 360);
    assert_int_equal(n, 360);
    double mean = 0;
    for (size_t i = 0; i < n; i++)
        mean += last[i] / n;
    assert_true(mean < 0.97 * tps_before);

    run(sim, 4 * HOUR); /* restored */
    struct sim_live after;
    sim_live(sim, &after);
    assert_true(after.throttle == 1.0);
    assert_true(fabs(after.rack_temp_c - before.rack_temp_c) < 1.0);
    struct sim_counters c2;
    sim_counters(sim, &c2);
    assert_true(c2.max_rack_temp_c >= during.rack_temp_c);
    assert_true(c2.max_rack_temp_c < 90);
    check_series(sim, "cooling fault");
    sim_free(sim);
}

/* ---- determinism ---------------------------------------------------------------- */

static double *all_series(const struct sim *sim, size_t *n)
{
    *n = sim_series_len(sim) * SERIES_COUNT;
    double *v = calloc(*n ? *n : 1, sizeof *v);
    assert_non_null(v);
    size_t k = 0;
    for (int id = 0; id < SERIES_COUNT; id++)
        for (size_t i = 0; i < sim_series_len(sim); i++)
            v[k++] = sim_series_at(sim, (enum sim_series_id)id, i);
    return v;
}

static double *series_of_seed(uint64_t seed, size_t *n)
{
    struct setup s;
    load_preset("tpu-v4-pod", &s);
    struct sim_options o;
    sim_default_options(&o);
    o.seed = seed;
    struct sim *sim = make_sim(&s, &o);
    struct sim_event ev = {.time_s = 600, .kind = SIM_EVENT_FAIL_DEVICE};
    char err[256];
    assert_true(sim_schedule(sim, &ev, err, sizeof err));
    run(sim, HOUR);
    double *v = all_series(sim, n);
    sim_free(sim);
    return v;
}

static void test_determinism(void **state)
{
    (void)state;
    size_t na, nb, nc;
    double *a = series_of_seed(11, &na);
    double *b = series_of_seed(11, &nb);
    double *c = series_of_seed(12, &nc);
    assert_int_equal(na, nb);
    assert_true(na > 0);
    assert_memory_equal(a, b, na * sizeof *a);
    /* A different seed gives different jitter: the throughput series differ. */
    size_t len = na / SERIES_COUNT;
    int differ = 0;
    for (size_t i = 0; i < len && i < nc / SERIES_COUNT; i++)
        differ += a[SERIES_TOKENS_PER_S * len + i] != c[SERIES_TOKENS_PER_S * len + i];
    assert_true(differ > 0);
    free(a);
    free(b);
    free(c);
}

/* ---- stragglers: order statistics ------------------------------------------------ */

/* With jitter on and N devices, the mean step is the nominal one plus
 * cv x compute x E[max of N standard normals]. E[max] for N = 1024 is 3.2414
 * (tables of normal order statistics, e.g. Harter 1961); for N = 1 it is 0. */
static void test_straggler_order_statistics(void **state)
{
    (void)state;
    static const struct {
        const char *preset;
        double e_max;
    } cases[] = {{"gpt3-175b-a100", 3.2414}, {"workstation", 0.0}};
    for (size_t i = 0; i < 2; i++) {
        struct setup s;
        load_preset(cases[i].preset, &s);
        set_field(&s, "reliability.checkpoint_interval_min", "100000");
        struct sim_options o;
        sim_default_options(&o);
        o.failures = false;
        o.thermal = false;
        o.compute_jitter_cv = 0.05;
        o.tick_s = 0.01; /* steps of 3 s and 28 s */
        struct sim *sim = make_sim(&s, &o);
        const struct model_report *r = sim_report(sim);
        double compute = r->breakdown.compute + r->breakdown.recompute;
        double steps_wanted = 3000;
        run(sim, steps_wanted * r->step_time_s);
        struct sim_counters c;
        sim_counters(sim, &c);
        double mean_step = c.time_s / (double)c.steps;
        /* The model's step holds the expected wait at its own CV; the step
         * loop replaces it by the draw at the option's CV. */
        double expect = r->step_time_s +
                        (o.compute_jitter_cv - MODEL_COMPUTE_JITTER_CV) * compute * cases[i].e_max;
        double sd_mean = o.compute_jitter_cv * compute / sqrt((double)c.steps); /* generous */
        if (!(fabs(mean_step - expect) <= 0.002 * expect + 5 * sd_mean))
            fail_msg("%s: mean step %.6g s, expected %.6g s", cases[i].preset, mean_step, expect);
        sim_free(sim);
    }
}
/* Series access helpers and the live view. */
/* The default preset starved by its storage (issue 22's classroom case):
 * HDD and 64 MB samples. */
static void load_starved(struct setup *s)
{
    load_preset("default", s);
    set_field(s, "cluster.storage", "hdd");
    set_field(s, "data.sample_bytes", "64e6");
}

/* The whole-step window (sim_window): on a storage-starved setup whose
 * single samples swing between idle and busy, the averages over whole steps
 * read the analytic model's figures at every sample; before a whole step
 * has passed since a change, the window is empty (warming up). */
static void test_whole_step_window(void **state)
{
    (void)state;
    struct setup s;
    load_starved(&s);
    struct sim_options o;
    steady_options(&o);
    struct sim *sim = make_sim(&s, &o);
    const struct model_report *r = sim_report(sim);
    assert_true(r->starvation > 0.4); /* really starved */
    run(sim, 1200);
    struct sim_window w;
    sim_window(sim, 1200, 16, 4096, &w);
    assert_int_equal(w.steps, 0); /* nothing since "now" */
    static const struct {
        enum sim_series_id id;
        int stage;
    } util[] = {{SERIES_UTIL_DATA, STAGE_DATA},
                {SERIES_UTIL_ACCEL, STAGE_ACCELERATORS},
                {SERIES_UTIL_NET, STAGE_INTERCONNECT},
                {SERIES_UTIL_INFRA, STAGE_INFRASTRUCTURE}};
    size_t len = sim_series_len(sim);
    for (size_t end = len - 10; end < len; end++) {
        sim_window_at(sim, end, 600, 16, 4096, &w);
        assert_true(w.steps >= 10);
        assert_true(fabs(w.mean[SERIES_TOKENS_PER_S] / r->tokens_per_s - 1) < 0.03);
        assert_true(fabs(w.mean[SERIES_IT_KW] / r->power.it_kw - 1) < 0.03);
        for (size_t i = 0; i < sizeof util / sizeof util[0]; i++)
            assert_true(fabs(w.mean[util[i].id] - r->utilization[util[i].stage]) < 0.03);
    }
    /* The series' own tokens/s is a whole-step rate too: no comb of 0
     * and bursts (sim --series, Lua's sim:series, the stories' plots). */
    double tps[300];
    size_t got = sim_series_tail(sim, SERIES_TOKENS_PER_S, tps, 300);
    assert_int_equal(got, 300);
    for (size_t i = 0; i < got; i++)
        assert_true(fabs(tps[i] / r->tokens_per_s - 1) < 0.05);
    sim_free(sim);
}

/* With storage jitter on (each batch's read time a random draw, CV 0.2)
 * the whole-step window states how uncertain its mean is: its relative
 * standard error shrinks as steps add up (about 0.2 / sqrt(steps)), and
 * storage counts as busy whenever it reads, so a starved pipeline's data
 * stage reads 100% busy as in the model, jittered or not. */
static void test_window_spread(void **state)
{
    (void)state;
    struct setup s;
    load_starved(&s);
    struct sim_options o;
    sim_default_options(&o);
    o.failures = false;
    o.series_capacity = 16384;
    struct sim *sim = make_sim(&s, &o);
    const struct model_report *r = sim_report(sim);
    run(sim, 3 * 3600);
    struct sim_window few, many;
    sim_window(sim, 600, 4, 16384, &few);
    sim_window(sim, 600, 200, 16384, &many);
    assert_int_equal(few.steps, 4);
    assert_int_equal(many.steps, 200);
    assert_true(few.rel_se > 0.01);
    assert_true(many.rel_se > 0.007 && many.rel_se < 0.05 / 3);
    assert_true(fabs(many.mean[SERIES_TOKENS_PER_S] / r->tokens_per_s - 1) < 0.05);
    assert_true(many.mean[SERIES_UTIL_DATA] > 0.98);
    sim_free(sim);
}

static void test_series_api(void **state)
{
    (void)state;
    assert_int_equal(sim_series_find("time_s"), SERIES_TIME_S);
    assert_int_equal(sim_series_find("failures"), SERIES_FAILURES);
    assert_int_equal(sim_series_find("nope"), -1);
    for (int i = 0; i < SERIES_COUNT; i++)
        assert_int_equal(sim_series_find(sim_series_names[i]), i);
    assert_null(sim_series_names[SERIES_COUNT]);
    assert_null(sim_event_names[SIM_EVENT_KIND_COUNT]);

    struct setup s;
    load_preset("default", &s);
    struct sim_options o;
    sim_default_options(&o);
    o.series_capacity = 8;
    struct sim *sim = make_sim(&s, &o);
    run(sim, 20.5);
    assert_int_equal(sim_series_len(sim), 8);
    assert_true(sim_series_at(sim, SERIES_TIME_S, 0) == 13.0); /* the newest 8 of 20 */
    assert_true(sim_series_at(sim, SERIES_TIME_S, 7) == 20.0);
    double tail[3];
    assert_int_equal(sim_series_tail(sim, SERIES_TIME_S, tail, 3), 3);
    assert_true(tail[0] == 18.0 && tail[2] == 20.0);
    struct sim_live l;
    sim_live(sim, &l);
    assert_true(l.phase >= 1 && l.phase <= 4); /* compute-bound: stepping */
    assert_true(l.step_progress >= 0 && l.step_progress <= 1);
    assert_true(l.queue_cap[1] >= 2);
    assert_int_equal(l.failed_devices, 0);
    char err[128];
    struct sim_event ev = {.time_s = 21, .kind = SIM_EVENT_FAIL_NODE};
    assert_true(sim_schedule(sim, &ev, err, sizeof err));
    run(sim, 1);
    sim_live(sim, &l);
    assert_int_equal(l.phase, 6);
    assert_int_equal(l.failed_devices, 8);
    sim_free(sim);

    /* Bad options are refused with a message. */
    o.tick_s = 0;
    assert_null(sim_new(&s, cat, &o, err, sizeof err));
    assert_true(err[0] != '\0');
    /* So is a power cap that would hold the clocks below the device's
     * lowest (docs/MODEL.md, section 6). */
    o.tick_s = 0.001;
    assert_non_null(sim = sim_new(&s, cat, &o, err, sizeof err));
    sim_free(sim);
    s.cluster.node.power_limit_w = 77;
    assert_null(sim_new(&s, cat, &o, err, sizeof err));
    assert_non_null(strstr(err, "power limit of 77 W"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_presets_match_model),
        cmocka_unit_test(test_data_bound_match_model),
        cmocka_unit_test(test_throttled_matches_model),
        cmocka_unit_test(test_conservation_every_sample),
        cmocka_unit_test(test_series_ranges_all_presets),
        cmocka_unit_test(test_thirty_days_16k),
        cmocka_unit_test(test_failure_rate_seeds),
        cmocka_unit_test(test_young_daly),
        cmocka_unit_test(test_cooling_fault),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_straggler_order_statistics),
        cmocka_unit_test(test_series_api),
        cmocka_unit_test(test_whole_step_window),
        cmocka_unit_test(test_window_spread),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
