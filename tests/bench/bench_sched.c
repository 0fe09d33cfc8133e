/* bench_sched: speed and agreement of the step-schedule simulator (issue
 * 20). Prints exactly:
 *   sched_16x4x128_ms: T   CPU ms of one simulated step of 16 stages x 4
 *                          chunks x 128 micro-batches, with its timeline,
 *                          from the model's costs (goal <= 1)
 *   sched_layouts_per_s: N simulator runs per CPU second on that step
 * With MLVIZ_SCHED_LAYOUTS=N set, tests/unit/engine/test_sched is the
 * agreement run over N random layouts (the report quotes 100,000). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "catalog.h"
#include "model.h"
#include "schedule.h"
#include "setup.h"

int main(void)
{
    char err[1024];
    struct catalog *cat = catalog_new();
    if (!cat || !catalog_load_dir(cat, "assets/catalog", err, sizeof err)) {
        fprintf(stderr, "bench_sched: %s\n", err);
        return 1;
    }
    struct setup s;
    setup_defaults(&s);
    if (!setup_load_file(&s, "tests/validation/setups/llama3-405b.yaml", cat, err, sizeof err)) {
        fprintf(stderr, "bench_sched: %s\n", err);
        return 1;
    }
    /* Llama 3 405B, 16 stages x 4 chunks, 128 micro-batches. */
    s.training.pipeline_parallel = 16;
    s.training.virtual_stages = 4;
    long long dp = setup_devices(&s) /
                   ((long long)s.training.tensor_parallel * 16 * s.training.context_parallel);
    s.training.global_batch = (int)(dp * s.training.micro_batch * 128);
    struct resolved r;
    if (!setup_resolve(&s, cat, &r, err, sizeof err)) {
        fprintf(stderr, "bench_sched: %s\n", err);
        return 1;
    }
    struct model_report o;
    model_eval(&s, &r, &o);
    struct bench_clock best = {1e9, 1e9};
    long runs = 0;
    struct bench_clock t_all = bench_now();
    while (bench_since(t_all).cpu_s < 1.0 || runs < 20) {
        struct bench_clock t0 = bench_now();
        struct sched_result q;
        if (sched_simulate(&s, &r, &o, SCHED_AUTO, true, &q) != SCHED_OK || q.pp != 16 ||
            q.vp != 4 || q.m != 128) {
            fprintf(stderr, "bench_sched: the 16 x 4 x 128 step did not simulate\n");
            return 1;
        }
        sched_free(&q);
        struct bench_clock t = bench_since(t0);
        best.cpu_s = t.cpu_s < best.cpu_s ? t.cpu_s : best.cpu_s;
        best.wall_s = t.wall_s < best.wall_s ? t.wall_s : best.wall_s;
        runs++;
    }
    bench_ms("sched_16x4x128_ms", best, 1); /* the fastest run of each clock */
    bench_rate("sched_layouts_per_s", (double)runs, bench_since(t_all));
    catalog_free(cat);
    return 0;
}
