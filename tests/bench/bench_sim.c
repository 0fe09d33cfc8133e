/* bench_sim: speed of the step loop (issue 4). Prints exactly:
 *   sim_ticks_per_s: N    ticks per wall second, jitter + failures + thermal
 *                         on, tick = 1 ms, default preset (goal >= 20,000,000)
 *   sim_scale_ratio: R    ticks/s of a 100,000-device setup / ticks/s of an
 *                         8-device one (goal >= 0.9)
 *   sim_hour_1024_ms: T   wall ms to simulate 1 hour of the 1,024-device
 *                         GPT-3 preset (goal <= 200)
 * Run from the repository root (or with MLVIZ_DATA set). About 10 s. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "catalog.h"
#include "setup.h"
#include "sim.h"

/* Each throughput figure is the best of this many timed runs of at least
 * MIN_WALL_S each (the best run is the one least disturbed by the OS). */
#define REPEATS    3
#define MIN_WALL_S 0.6
#define CHUNK_S    600.0 /* simulated seconds per sim_run call */

static double wall_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static struct catalog *cat;

static void die(const char *what, const char *err)
{
    fprintf(stderr, "bench_sim: %s: %s\n", what, err);
    exit(1);
}

static void load(const char *preset, struct setup *s)
{
    char path[1200], err[1024];
    snprintf(path, sizeof path, "%s/scenarios/presets/%s.yaml", mlviz_data_dir(), preset);
    if (!setup_load_file(s, path, cat, err, sizeof err))
        die(preset, err);
}

static void set(struct setup *s, const char *path, const char *v)
{
    char err[512];
    if (!setup_set(s, path, v, err, sizeof err))
        die(path, err);
}

static struct sim *make(const struct setup *s)
{
    struct sim_options o;
    sim_default_options(&o); /* jitter, failures, thermal on; 1 ms tick */
    char err[1024];
    struct sim *sim = sim_new(s, cat, &o, err, sizeof err);
    if (!sim)
        die(s->name, err);
    return sim;
}

/* Ticks per wall second of one setup, best of REPEATS. */
static double ticks_per_s(const struct setup *s)
{
    double best = 0;
    char err[1024];
    for (int r = 0; r < REPEATS; r++) {
        struct sim *sim = make(s);
        double t0 = wall_s(), t;
        do {
            if (!sim_run(sim, CHUNK_S, err, sizeof err))
                die("sim_run", err);
        } while ((t = wall_s() - t0) < MIN_WALL_S);
        struct sim_counters c;
        sim_counters(sim, &c);
        double rate = (double)c.ticks / t;
        if (rate > best)
            best = rate;
        sim_free(sim);
    }
    return best;
}

int main(void)
{
    char err[1024];
    cat = catalog_new();
    if (!cat || !catalog_load_default(cat, NULL, err, sizeof err))
        die("catalog", err);

    struct setup small, big, gpt;
    load("default", &small); /* 8 devices */
    big = small;
    set(&big, "cluster.nodes", "12500"); /* 100,000 devices */
    set(&big, "training.global_batch", "100000");
    load("gpt3-175b-a100", &gpt); /* 1,024 devices */

    double small_rate = ticks_per_s(&small);
    double big_rate = ticks_per_s(&big);
    printf("sim_ticks_per_s: %.0f\n", small_rate);
    printf("sim_scale_ratio: %.3f\n", small_rate > 0 ? big_rate / small_rate : 0.0);

    double best_ms = INFINITY;
    for (int r = 0; r < REPEATS; r++) {
        struct sim *sim = make(&gpt);
        double t0 = wall_s();
        if (!sim_run(sim, 3600.0, err, sizeof err))
            die("sim_run", err);
        double ms = (wall_s() - t0) * 1000.0;
        if (ms < best_ms)
            best_ms = ms;
        sim_free(sim);
    }
    printf("sim_hour_1024_ms: %.1f\n", best_ms);
    catalog_free(cat);
    return 0;
}
