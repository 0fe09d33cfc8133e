/* Shared by the step-loop tests (test_sim.c, test_sim_events.c): the
 * catalog, preset loading, sim creation and the conservation check. Tests
 * run from the repository root. Included by test programs only. */
#ifndef MLVIZ_TESTS_SIM_FIXTURE_H
#define MLVIZ_TESTS_SIM_FIXTURE_H

#include <math.h>
#include <stdio.h>

#include "catalog.h"
#include "setup.h"
#include "sim.h"
#include "stages.h"

#define CATALOG_DIR "assets/catalog"
#define PRESET_DIR  "scenarios/presets"
#define EVENTS_DIR  "tests/setups/events"
#define HOUR        3600.0
#define DAY         86400.0

static struct catalog *cat;

static inline int group_setup(void **state)
{
    (void)state;
    char err[1024];
    cat = catalog_new();
    if (!cat || !catalog_load_dir(cat, CATALOG_DIR, err, sizeof err)) {
        fprintf(stderr, "catalog: %s\n", err);
        return -1;
    }
    return 0;
}

static inline int group_teardown(void **state)
{
    (void)state;
    catalog_free(cat);
    return 0;
}

static inline void load_preset(const char *name, struct setup *s)
{
    char path[256], err[1024];
    snprintf(path, sizeof path, PRESET_DIR "/%s.yaml", name);
    if (!setup_load_file(s, path, cat, err, sizeof err))
        fail_msg("%s", err);
}

static inline void set_field(struct setup *s, const char *path, const char *value)
{
    char err[512];
    if (!setup_set(s, path, value, err, sizeof err))
        fail_msg("%s", err);
}

static inline struct sim *make_sim(const struct setup *s, const struct sim_options *o)
{
    char err[1024];
    struct sim *sim = sim_new(s, cat, o, err, sizeof err);
    if (!sim)
        fail_msg("sim_new(%s): %s", s->name, err);
    return sim;
}

static inline void run(struct sim *sim, double seconds)
{
    char err[1024];
    if (!sim_run(sim, seconds, err, sizeof err))
        fail_msg("sim_run: %s", err);
}

/* in = out + inside for every stage (thrown-away batches count as out). */
static inline void check_conservation(const struct sim *sim, const char *what)
{
    struct sim_counters c;
    sim_counters(sim, &c);
    for (int k = 0; k < STAGE_COUNT; k++) {
        double in = c.items_in[k], out = c.items_out[k], inside = c.items_inside[k];
        double tol = 1e-6 * (1.0 + fabs(in));
        if (!(fabs(in - out - inside) <= tol) || inside < -1e-9)
            fail_msg("%s at t=%.0f s: stage %s in %.12g != out %.12g + inside %.12g", what,
                     c.time_s, stage_table[k].name, in, out, inside);
    }
}

#endif
