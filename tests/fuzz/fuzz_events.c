/* libFuzzer target: arbitrary bytes through the events-file loader (`mlviz
 * sim --events`), against the default setup and the shipped catalog (loaded
 * once), then every loaded event through a simulation.
 *
 *   FUZZ_SECONDS=60 make fuzz        (builds with clang -fsanitize=fuzzer)
 *
 * Run from the repository root (the catalog is read from assets/catalog, or
 * from $MLVIZ_DATA/assets/catalog). Inputs must never crash, hang, leak or
 * trip the sanitizers; failures carry a message naming the input; loaded
 * events are in time order with finite times and in-range values, and the
 * simulator accepts every one of them. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "fuzz_shipped_catalog.h"
#include "setup.h"
#include "sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_events: %s: %s\n", what, detail);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct catalog *cat = shipped_catalog();
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0'; /* the loader takes a C string: it stops at a NUL */
    struct setup s;
    setup_defaults(&s);
    struct sim_event *ev = NULL;
    size_t n = 0;
    char err[1024] = "";
    bool ok = sim_events_load_string("fuzz.yaml", text, &s, &ev, &n, err, sizeof err);
    free(text);
    if (!ok) {
        if (strncmp(err, "fuzz.yaml", 9) != 0 || strlen(err) < 12)
            fail("failed with a bad message", err);
        if (ev || n)
            fail("failed but returned events", err);
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(ev[i].time_s) || ev[i].time_s < 0)
            fail("event time not finite and non-negative", sim_event_names[ev[i].kind]);
        if (i > 0 && ev[i].time_s < ev[i - 1].time_s)
            fail("events out of time order", sim_event_names[ev[i].kind]);
        if (!isfinite(ev[i].value))
            fail("event value not finite", sim_event_names[ev[i].kind]);
    }
    struct sim_options o;
    sim_default_options(&o);
    o.failures = false;
    struct sim *sim = sim_new(&s, cat, &o, err, sizeof err);
    if (!sim)
        fail("the default setup does not simulate", err);
    for (size_t i = 0; i < n; i++)
        if (!sim_schedule(sim, &ev[i], err, sizeof err))
            fail("a loaded event is refused by the simulator", err);
    /* A few ticks apply the events at time 0 (set events re-resolve). A
     * set event may make the setup unrunnable: that is an error, not a crash. */
    if (sim_run(sim, 0.005, err, sizeof err)) {
        struct sim_counters c;
        sim_counters(sim, &c);
        if (!isfinite(c.energy_j) || !isfinite(c.lost_s))
            fail("counters not finite", "energy or lost time");
    }
    sim_free(sim);
    free(ev);
    return 0;
}
