/* bench_load: loader speed on large inputs, in CPU milliseconds (the
 * machine may be shared). Prints `yaml_120k_keys_ms: N` (a 1.7 MB mapping of
 * 120,000 keys parsed into a tree with duplicate checks: about a minute while
 * keys were compared pairwise, a tenth of a second hashed) and
 * `events_100k_ms: N` (100,000 set events parsed and checked against the
 * field table). */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "setup.h"
#include "sim.h"
#include "yamldoc.h"

enum { KEYS = 120000, EVENTS = 100000 };

int main(void)
{
    size_t cap = (size_t)EVENTS * 80 + 64, used = 0;
    char *text = malloc(cap), err[512];
    if (!text)
        return 1;
    for (int i = 0; i < KEYS; i++)
        used += (size_t)snprintf(text + used, cap - used, "k%06d: %d\n", i, i);
    struct bench_clock t0 = bench_now();
    struct ydoc *doc = ydoc_load_string("bench.yaml", text, used, err, sizeof err);
    struct bench_clock keys = bench_since(t0);
    if (!doc) {
        fprintf(stderr, "bench_load: %s\n", err);
        return 1;
    }
    ydoc_free(doc);
    used = 0;
    for (int i = 0; i < EVENTS; i++)
        used += (size_t)snprintf(text + used, cap - used,
                                 "- {at: %ds, event: set, path: training.micro_batch, value: 1}\n",
                                 i + 1);
    struct setup s;
    setup_defaults(&s);
    struct sim_event *ev;
    size_t n;
    t0 = bench_now();
    bool ok = sim_events_load_string("bench.yaml", text, &s, &ev, &n, err, sizeof err);
    struct bench_clock events = bench_since(t0);
    free(text);
    if (!ok) {
        fprintf(stderr, "bench_load: %s\n", err);
        return 1;
    }
    free(ev);
    bench_ms("yaml_120k_keys_ms", keys, 1);
    bench_ms("events_100k_ms", events, 1);
    return 0;
}
