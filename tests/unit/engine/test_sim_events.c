/* The step loop's events (engine/sim/sim_events.c): event files loaded
 * strictly with file:line:col messages, sim_schedule validation, set events
 * that fail at their time, callbacks in time and insertion order. Moved
 * from test_sim.c unchanged. Tests run from the repository root. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim_fixture.h"

/* ---- events ------------------------------------------------------------------------ */

static void test_events_files(void **state)
{
    (void)state;
    struct setup s;
    load_preset("default", &s);
    struct sim_event *ev;
    size_t n;
    char err[1024];
    assert_true(sim_events_load_file(EVENTS_DIR "/good.yaml", &s, &ev, &n, err, sizeof err));
    assert_int_equal(n, 9);
    assert_int_equal(ev[0].kind, SIM_EVENT_FAIL_DEVICE);
    assert_true(ev[0].time_s == HOUR);
    assert_int_equal(ev[2].kind, SIM_EVENT_COOLING_LOSS);
    assert_true(ev[2].value == 0.5);
    assert_int_equal(ev[6].kind, SIM_EVENT_SET);
    assert_string_equal(ev[6].path, "training.global_batch");
    assert_string_equal(ev[6].text, "256");
    assert_int_equal(ev[8].kind, SIM_EVENT_STOP);

    /* Run them: the stop at 7 h ends the run early. */
    struct sim_options o;
    sim_default_options(&o);
    struct sim *sim = make_sim(&s, &o);
    for (size_t i = 0; i < n; i++)
        assert_true(sim_schedule(sim, &ev[i], err, sizeof err));
    free(ev);
    run(sim, 10 * HOUR);
    struct sim_counters c;
    sim_counters(sim, &c);
    assert_true(c.stopped);
    assert_true(fabs(c.time_s - 7 * HOUR) < 1);
    assert_true(c.failures >= 2 && c.node_failures >= 1 && c.device_failures >= 1);
    assert_int_equal(sim_setup(sim)->training.global_batch, 256);
    assert_int_equal(sim_setup(sim)->data.prefetch_batches, 4);
    check_conservation(sim, "good events");
    sim_free(sim);

    assert_true(sim_events_load_file(EVENTS_DIR "/empty.yaml", &s, &ev, &n, err, sizeof err));
    assert_int_equal(n, 0);
    free(ev);

    static const struct {
        const char *file;
        const char *pos;  /* ":line:col:" */
        const char *text; /* part of the message */
    } bad[] = {
        {"bad-unknown-event.yaml", ":1:19:", "did you mean 'fail_device'"},
        {"bad-unknown-key.yaml", ":1:33:", "did you mean 'value'"},
        {"bad-duration.yaml", ":2:8:", "90s, 15m, 6h or 2d"},
        {"bad-value-range.yaml", ":1:40:", "0 to 1"},
        {"bad-storage-zero.yaml", ":1:40:", "above 0"},
        {"bad-set-path.yaml", ":1:30:", "training.micro_batch"},
        {"bad-set-value.yaml", ":1:59:", "training.micro_batch"},
        {"bad-missing-at.yaml", ":1:3:", "'at:'"},
        {"bad-missing-value.yaml", ":1:3:", "needs 'value:'"},
        {"bad-extra-value.yaml", ":1:39:", "takes no 'value'"},
        {"bad-not-list.yaml", ":1:1:", "list of events"},
        {"bad-item-scalar.yaml", ":1:3:", "mapping"},
        {"bad-value-word.yaml", ":1:40:", "must be a number"},
        {"bad-callback.yaml", ":1:19:", "Lua"},
        {"bad-yaml.yaml", ":", "bad-yaml.yaml"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, EVENTS_DIR "/%s", bad[i].file);
        err[0] = '\0';
        ev = (struct sim_event *)1;
        if (sim_events_load_file(path, &s, &ev, &n, err, sizeof err))
            fail_msg("%s loaded", bad[i].file);
        assert_null(ev);
        char want[300];
        snprintf(want, sizeof want, "%s%s", path, bad[i].pos);
        if (strncmp(err, want, strlen(want)) != 0 || !strstr(err, bad[i].text))
            fail_msg("%s: got '%s', want '%s...%s'", bad[i].file, err, want, bad[i].text);
    }
}

static void test_schedule_validation(void **state)
{
    (void)state;
    struct setup s;
    load_preset("workstation", &s);
    struct sim_options o;
    sim_default_options(&o);
    struct sim *sim = make_sim(&s, &o);
    char err[512];
    struct sim_event ev = {.time_s = 10, .kind = SIM_EVENT_COOLING_LOSS, .value = 1.5};
    assert_false(sim_schedule(sim, &ev, err, sizeof err));
    ev = (struct sim_event){.time_s = 10, .kind = SIM_EVENT_STORAGE_SLOW, .value = 0};
    assert_false(sim_schedule(sim, &ev, err, sizeof err));
    ev = (struct sim_event){.time_s = -1, .kind = SIM_EVENT_STOP};
    assert_false(sim_schedule(sim, &ev, err, sizeof err));
    ev = (struct sim_event){.time_s = NAN, .kind = SIM_EVENT_STOP};
    assert_false(sim_schedule(sim, &ev, err, sizeof err));
    ev = (struct sim_event){.time_s = 1, .kind = 99};
    assert_false(sim_schedule(sim, &ev, err, sizeof err));
    ev = (struct sim_event){.time_s = 10, .kind = SIM_EVENT_SET};
    snprintf(ev.path, sizeof ev.path, "training.micro_bach");
    snprintf(ev.text, sizeof ev.text, "2");
    assert_false(sim_schedule(sim, &ev, err, sizeof err));
    assert_non_null(strstr(err, "training.micro_batch"));

    /* A set event that makes the setup unrunnable fails the run at its time
     * and leaves the setup as it was. */
    snprintf(ev.path, sizeof ev.path, "training.micro_batch");
    snprintf(ev.text, sizeof ev.text, "64");
    assert_true(sim_schedule(sim, &ev, err, sizeof err));
    assert_false(sim_run(sim, 60, err, sizeof err));
    assert_true(strlen(err) > 10);
    assert_int_equal(sim_setup(sim)->training.micro_batch, s.training.micro_batch);

    /* sim_set now: capacities change, state carries over. */
    struct sim_counters c0, c1;
    sim_counters(sim, &c0);
    double old_step = sim_report(sim)->step_time_s;
    assert_true(sim_set(sim, "training.global_batch", "64", err, sizeof err));
    assert_true(sim_report(sim)->step_time_s != old_step);
    sim_counters(sim, &c1);
    assert_true(c1.tokens == c0.tokens && c1.time_s == c0.time_s);
    run(sim, HOUR);
    check_conservation(sim, "after set");
    assert_false(sim_set(sim, "no.such.field", "1", err, sizeof err));
    sim_free(sim);
}

/* Events at the same time run in the order they were scheduled; callbacks
 * run at their time and can stop the run. */
struct cb_log {
    int calls[4];
    int n;
    double when[4];
};

static bool record_cb(void *ctx, struct sim *sim, int id, char *err, size_t err_len)
{
    struct cb_log *log = ctx;
    struct sim_counters c;
    sim_counters(sim, &c);
    if (log->n < 4) {
        log->when[log->n] = c.time_s;
        log->calls[log->n++] = id;
    }
    if (id == 99) {
        snprintf(err, err_len, "callback says stop");
        return false;
    }
    return true;
}

static void test_callbacks_and_order(void **state)
{
    (void)state;
    struct setup s;
    load_preset("laptop-cpu", &s);
    struct sim_options o;
    sim_default_options(&o);
    struct sim *sim = make_sim(&s, &o);
    struct cb_log log = {0};
    sim_set_callback(sim, record_cb, &log);
    char err[256];
    int ids[] = {3, 1, 2};
    double at[] = {20, 10, 10};
    for (int i = 0; i < 3; i++) {
        struct sim_event ev = {.time_s = at[i], .kind = SIM_EVENT_CALLBACK, .callback_id = ids[i]};
        assert_true(sim_schedule(sim, &ev, err, sizeof err));
    }
    struct sim_event stop = {.time_s = 30, .kind = SIM_EVENT_CALLBACK, .callback_id = 99};
    assert_true(sim_schedule(sim, &stop, err, sizeof err));
    assert_false(sim_run(sim, 60, err, sizeof err));
    assert_non_null(strstr(err, "callback says stop"));
    assert_int_equal(log.n, 4);
    assert_int_equal(log.calls[0], 1);
    assert_int_equal(log.calls[1], 2);
    assert_int_equal(log.calls[2], 3);
    assert_true(fabs(log.when[0] - 10) < 1e-9 && fabs(log.when[2] - 20) < 1e-9);
    sim_free(sim);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_events_files),
        cmocka_unit_test(test_schedule_validation),
        cmocka_unit_test(test_callbacks_and_order),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
