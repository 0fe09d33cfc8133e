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

#include "catalog.h"
#include "model.h"
#include "schedule.h"
#include "setup.h"

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

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
    double best = 1e9;
    long runs = 0;
    double t_all = cpu_s();
    while (cpu_s() - t_all < 1.0 || runs < 20) {
        double t0 = cpu_s();
        struct sched_result q;
        if (sched_simulate(&s, &r, &o, SCHED_AUTO, true, &q) != SCHED_OK || q.pp != 16 ||
            q.vp != 4 || q.m != 128) {
            fprintf(stderr, "bench_sched: the 16 x 4 x 128 step did not simulate\n");
            return 1;
        }
        sched_free(&q);
        double t = cpu_s() - t0;
        best = t < best ? t : best;
        runs++;
    }
    printf("sched_16x4x128_ms: %.3f\n", best * 1e3);
    printf("sched_layouts_per_s: %.0f\n", runs / (cpu_s() - t_all));
    catalog_free(cat);
    return 0;
}
