/* bench_sim: speed of the step loop (issue 4). Prints exactly (each figure
 * in CPU time, then in wall time; tests/bench/bench.h):
 *   sim_ticks_per_s: N    ticks per second, jitter + failures + thermal
 *                         on, tick = 1 ms, default preset (goal >= 20,000,000)
 *   sim_scale_ratio: R    ticks/s of a 100,000-device setup / ticks/s of an
 *                         8-device one (goal >= 0.9)
 *   sim_hour_1024_ms: T   ms to simulate 1 hour of the 1,024-device
 *                         GPT-3 preset (goal <= 200)
 *   sim_auto_tick_ms: T   ms to choose the automatic tick of a 30-day
 *                         run of that preset (sim_auto_tick: its probes)
 *   sim_30d_gpt3_s: T     s to choose the tick and simulate those 30 days
 *                         headless, as `mlviz sim gpt3-175b-a100
 *                         --duration 30d` does (issue 23: 15 s at 1 ms)
 * Run from the repository root (or with MLVIZ_DATA set). About 10 s. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "catalog.h"
#include "setup.h"
#include "sim.h"

/* Each throughput figure is the best of this many timed runs of at least
 * MIN_WALL_S of CPU time each (the best run is the one least disturbed by the OS). */
#define REPEATS    3
#define MIN_WALL_S 0.6
#define CHUNK_S    600.0 /* simulated seconds per sim_run call */

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

/* Ticks per CPU second and per wall second of one setup, the best of
 * REPEATS runs of each (the run least disturbed by the OS). */
static struct bench_clock ticks_per_s(const struct setup *s)
{
    struct bench_clock best = {0, 0};
    char err[1024];
    for (int r = 0; r < REPEATS; r++) {
        struct sim *sim = make(s);
        struct bench_clock t0 = bench_now(), t;
        do {
            if (!sim_run(sim, CHUNK_S, err, sizeof err))
                die("sim_run", err);
        } while ((t = bench_since(t0)).cpu_s < MIN_WALL_S);
        struct sim_counters c;
        sim_counters(sim, &c);
        if ((double)c.ticks / t.cpu_s > best.cpu_s)
            best.cpu_s = (double)c.ticks / t.cpu_s;
        if ((double)c.ticks / t.wall_s > best.wall_s)
            best.wall_s = (double)c.ticks / t.wall_s;
        sim_free(sim);
    }
    return best;
}

/* The 30-day GPT-3 run headless: the automatic tick (as `mlviz sim`
 * chooses it, a minute's samples) and the run at it. */
static void month_at_auto_tick(const struct setup *s)
{
    char err[1024];
    const double month_s = 30 * 86400.0;
    struct sim_options o;
    sim_default_options(&o);
    o.sample_interval_s = 60;
    o.series_capacity = 43201;
    struct sim_tick_choice k;
    struct bench_clock t0 = bench_now();
    if (!sim_auto_tick(s, cat, &o, month_s, NULL, 0, &k, err, sizeof err))
        die("sim_auto_tick", err);
    struct bench_clock choose = bench_since(t0);
    o.tick_s = k.tick_s;
    struct sim *sim = sim_new(s, cat, &o, err, sizeof err);
    if (!sim || !sim_run(sim, month_s, err, sizeof err))
        die("30 days", err);
    struct bench_clock all = bench_since(t0);
    sim_free(sim);
    printf("sim_auto_tick_ms: %.1f %.1f\n", choose.cpu_s * 1e3, choose.wall_s * 1e3);
    printf("sim_30d_gpt3_s: %.2f %.2f\n", all.cpu_s, all.wall_s);
    fprintf(stderr, "(30 days of GPT-3 at the automatic %g s tick)\n", k.tick_s);
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

    struct bench_clock small_rate = ticks_per_s(&small);
    struct bench_clock big_rate = ticks_per_s(&big);
    printf("sim_ticks_per_s: %.0f %.0f\n", small_rate.cpu_s, small_rate.wall_s);
    printf("sim_scale_ratio: %.3f %.3f\n",
           small_rate.cpu_s > 0 ? big_rate.cpu_s / small_rate.cpu_s : 0.0,
           small_rate.wall_s > 0 ? big_rate.wall_s / small_rate.wall_s : 0.0);

    struct bench_clock best = {INFINITY, INFINITY};
    for (int r = 0; r < REPEATS; r++) {
        struct sim *sim = make(&gpt);
        struct bench_clock t0 = bench_now();
        if (!sim_run(sim, 3600.0, err, sizeof err))
            die("sim_run", err);
        struct bench_clock t = bench_since(t0);
        best.cpu_s = t.cpu_s < best.cpu_s ? t.cpu_s : best.cpu_s;
        best.wall_s = t.wall_s < best.wall_s ? t.wall_s : best.wall_s;
        sim_free(sim);
    }
    printf("sim_hour_1024_ms: %.1f %.1f\n", best.cpu_s * 1e3, best.wall_s * 1e3);
    month_at_auto_tick(&gpt);
    catalog_free(cat);
    return 0;
}
