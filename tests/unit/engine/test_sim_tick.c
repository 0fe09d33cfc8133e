/* The automatic tick (engine/sim/sim_tick.c, sim.h "the automatic tick"):
 * - a run at the chosen tick agrees with the same run at a tenth of it,
 *   failures on, over the whole run (the promise: results within 0.01%);
 * - it is coarser than the old fixed 1 ms where the setup allows it (GPT-3:
 *   30 s steps) and at most a tenth of a short step;
 * - it divides the run, the sample interval and every event's time;
 * - more failures make it finer; the probe refuses the ticks a
 *   storage-bound run would feel;
 * - sim_counters_agree's own thresholds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim_fixture.h"

static double choose(const struct setup *s, const struct sim_options *o, double duration_s,
                     const struct sim_event *ev, size_t n, struct sim_tick_choice *k)
{
    char err[1024];
    if (!sim_auto_tick(s, cat, o, duration_s, ev, n, k, err, sizeof err))
        fail_msg("sim_auto_tick: %s", err);
    return k->tick_s;
}

/* The counters of a whole run of s at tick t, with the events. */
static void run_at(const struct setup *s, const struct sim_options *o, double t, double duration_s,
                   const struct sim_event *ev, size_t n, struct sim_counters *c)
{
    struct sim_options po = *o;
    po.tick_s = t;
    struct sim *sim = make_sim(s, &po);
    char err[512];
    for (size_t i = 0; i < n; i++)
        assert_true(sim_schedule(sim, &ev[i], err, sizeof err));
    assert_true(sim_run(sim, duration_s, err, sizeof err));
    sim_counters(sim, c);
    sim_free(sim);
}

/* The chosen tick's whole run agrees with a run at a tenth of it. */
static void assert_agrees(const struct setup *s, const struct sim_options *o, double duration_s,
                          const struct sim_event *ev, size_t n, const char *what)
{
    struct sim_tick_choice k;
    double t = choose(s, o, duration_s, ev, n, &k);
    struct sim_counters coarse, fine;
    run_at(s, o, t, duration_s, ev, n, &coarse);
    run_at(s, o, t / 10, duration_s, ev, n, &fine);
    if (!sim_counters_agree(&coarse, &fine, SIM_AUTO_TICK_TOLERANCE))
        fail_msg("%s: at the automatic %g s tick %llu steps, %.9g tokens, %.6g s lost, %.6g s "
                 "starved; at %g s %llu, %.9g, %.6g, %.6g",
                 what, t, (unsigned long long)coarse.steps, coarse.tokens, coarse.lost_s,
                 coarse.starved_s, t / 10, (unsigned long long)fine.steps, fine.tokens, fine.lost_s,
                 fine.starved_s);
}

static void test_gpt3_coarse_and_unchanged(void **state)
{
    (void)state;
    struct setup s;
    load_preset("gpt3-175b-a100", &s);
    struct sim_options o;
    sim_default_options(&o);
    o.sample_interval_s = 60;
    struct sim_tick_choice k;
    /* 30 s steps: far coarser than the old 1 ms, checked by a probe. */
    double t = choose(&s, &o, 2 * DAY, NULL, 0, &k);
    assert_true(t >= 0.1);
    assert_true(k.probe_s > 0 && k.probe_tick_s == t / 10);
    assert_agrees(&s, &o, 2 * DAY, NULL, 0, "gpt3, 2 days");
    /* Ten failures an hour: a finer tick, the run still unchanged. */
    set_field(&s, "reliability.device_mtbf_h", "100");
    struct sim_tick_choice many;
    assert_true(choose(&s, &o, 6 * HOUR, NULL, 0, &many) < t);
    assert_string_equal(many.bound_by, "the failures");
    assert_agrees(&s, &o, 6 * HOUR, NULL, 0, "gpt3 failing ten times an hour, 6 hours");
}

static void test_presets_unchanged(void **state)
{
    (void)state;
    static const char *const names[] = {"default", "laptop-cpu", "moe-h100", "workstation"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        struct setup s;
        load_preset(names[i], &s);
        struct sim_options o;
        sim_default_options(&o);
        assert_agrees(&s, &o, HOUR, NULL, 0, names[i]);
    }
}

/* A step of 22 ms gets a tick of at most a tenth of it. */
static void test_short_steps_fine(void **state)
{
    (void)state;
    struct setup s;
    load_preset("default", &s);
    set_field(&s, "training.global_batch", "8");
    set_field(&s, "model.layers", "1");
    set_field(&s, "model.hidden", "256");
    set_field(&s, "model.seq_len", "128");
    struct sim_options o;
    sim_default_options(&o);
    struct sim_tick_choice k;
    double t = choose(&s, &o, HOUR, NULL, 0, &k);
    assert_string_equal(k.bound_by, "a step");
    assert_true(k.bound_s < 0.003 && t <= k.bound_s && t >= SIM_AUTO_TICK_MIN_S);
    assert_agrees(&s, &o, 10 * 60, NULL, 0, "22 ms steps");
}

/* Storage-bound (1 GB samples: 4.6 s to read a batch for a 3.7 s step):
 * each step starts at a tick after its batch arrived, and a tick of a
 * tenth of the read moves the throughput by 8e-4; the probe refuses it. */
static void test_probe_refuses(void **state)
{
    (void)state;
    struct setup s;
    load_preset("workstation", &s);
    set_field(&s, "data.sample_bytes", "1000000000");
    struct sim_options o;
    sim_default_options(&o);
    struct sim_tick_choice k;
    double t = choose(&s, &o, HOUR, NULL, 0, &k);
    assert_string_equal(k.bound_by, "reading a batch");
    assert_true(k.refused > 0 && t < k.bound_s / 10);
    assert_agrees(&s, &o, HOUR, NULL, 0, "storage-bound workstation");
}

static bool divides(double x, double t)
{
    double n = x / t;
    return fabs(n - nearbyint(n)) < 1e-6;
}

static void test_aligned(void **state)
{
    (void)state;
    struct setup s;
    load_preset("gpt3-175b-a100", &s);
    struct sim_options o;
    sim_default_options(&o);
    struct sim_tick_choice k;
    /* The run's length, the sample interval, an event's time. */
    assert_true(divides(1234.5, choose(&s, &o, 1234.5, NULL, 0, &k)));
    o.sample_interval_s = 0.25;
    assert_true(divides(0.25, choose(&s, &o, HOUR, NULL, 0, &k)));
    o.sample_interval_s = 1;
    struct sim_event ev = {.time_s = 1800.37, .kind = SIM_EVENT_STORAGE_SLOW, .value = 0.5};
    double t = choose(&s, &o, HOUR, &ev, 1, &k);
    assert_true(divides(1800.37, t) && t <= 0.01);
    assert_agrees(&s, &o, HOUR, &ev, 1, "gpt3 with a storage event");
    /* A failure event counts as a failure in doubt. */
    struct sim_event fail = {.time_s = 1800, .kind = SIM_EVENT_FAIL_NODE};
    o.failures = false;
    double quiet = choose(&s, &o, HOUR, NULL, 0, &k);
    assert_true(choose(&s, &o, HOUR, &fail, 1, &k) < quiet);
    assert_agrees(&s, &o, HOUR, &fail, 1, "gpt3 with a node failure");
}

static void test_counters_agree(void **state)
{
    (void)state;
    struct sim_counters a = {.time_s = 3600,
                             .steps = 1000,
                             .useful_steps = 1000,
                             .tokens = 1e9,
                             .energy_j = 1e9,
                             .max_rack_temp_c = 40,
                             .starved_s = 1,
                             .lost_s = 0};
    struct sim_counters b = a;
    assert_true(sim_counters_agree(&a, &b, 1e-4));
    b.steps = 1001; /* one step in a thousand: 1e-3 */
    assert_false(sim_counters_agree(&a, &b, 1e-4));
    a.failures = b.failures = 1; /* unless a failure ended it */
    assert_true(sim_counters_agree(&a, &b, 1e-4));
    a.failures = 0;
    b = a;
    b.useful_steps = 1001;
    assert_false(sim_counters_agree(&a, &b, 1e-4));
    b = a;
    b.tokens = 1e9 * (1 + 2e-4);
    assert_false(sim_counters_agree(&a, &b, 1e-4));
    b = a;
    b.starved_s = 1 + 0.2; /* 0.2 s of an hour: within 1e-4 of the run */
    assert_true(sim_counters_agree(&a, &b, 1e-4));
    b.starved_s = 1 + 0.5;
    assert_false(sim_counters_agree(&a, &b, 1e-4));
    b = a;
    b.stopped = true;
    assert_false(sim_counters_agree(&a, &b, 1e-4));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpt3_coarse_and_unchanged),
        cmocka_unit_test(test_presets_unchanged),
        cmocka_unit_test(test_short_steps_fine),
        cmocka_unit_test(test_probe_refuses),
        cmocka_unit_test(test_aligned),
        cmocka_unit_test(test_counters_agree),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
