/* bench_infer: serving-model evaluations per CPU-second over varied
 * deployments (issue 25 goal: at least 500,000). Prints
 * `infer_eval_per_cpu_s: N` (CPU time, so other work on the machine does
 * not move it much). */
#include <stdio.h>

#include "bench.h"
#include "infer.h"
#include "serve.h"

enum { SETUPS = 48, MIN_CPU_SECONDS = 1 };

int main(void)
{
    char err[1024];
    struct catalog *cat = catalog_new();
    if (!catalog_load_default(cat, NULL, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    static const char *const presets[] = {"default", "moe-h100", "tpu-v4-pod"};
    static const int tps[] = {1, 2, 4, 8};
    static struct setup setups[SETUPS];
    static struct resolved resolved[SETUPS];
    int n = 0;
    for (int i = 0; n < SETUPS && i < SETUPS * 4; i++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/scenarios/presets/%s.yaml", mlviz_data_dir(),
                 presets[i % 3]);
        struct setup s;
        if (!setup_load_file(&s, path, cat, err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        s.inference.tensor_parallel = tps[(i / 3) % 4];
        s.inference.batch = (i / 12) % 2 ? FIELD_AUTO : 1 << (i % 7);
        s.inference.prompt_tokens = 128 << (i % 4);
        s.inference.kv_precision = (i / 2) % 2 ? INFER_FP8 : INFER_AUTO;
        if (!setup_resolve(&s, cat, &resolved[n], err, sizeof err))
            continue;
        setups[n++] = s;
    }
    struct infer_report o;
    double sink = 0;
    long evals = 0;
    struct bench_clock t0 = bench_now();
    do {
        for (int k = 0; k < 10000; k++) {
            infer_eval(&setups[k % n], &resolved[k % n], &o);
            sink += o.tpot_s;
        }
        evals += 10000;
    } while (bench_since(t0).cpu_s < MIN_CPU_SECONDS);
    bench_rate("infer_eval_per_cpu_s", (double)evals, bench_since(t0));
    fprintf(stderr, "(%d distinct deployments, checksum %.3g)\n", n, sink);
    /* One simulated hour of serving at 100 requests/s (goal: at most 1 s
     * of CPU): the default preset, eight Llama-8B replicas. */
    struct setup s = setups[0];
    s.inference.batch = FIELD_AUTO;
    s.inference.tensor_parallel = 1;
    s.inference.arrival_rate = 100;
    struct resolved r;
    if (!setup_resolve(&s, cat, &r, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    static struct serve_report sr;
    t0 = bench_now();
    infer_serve(&s, &r, 3600, 42, &sr);
    struct bench_clock dt = bench_since(t0);
    printf("serve_hour_100rps_cpu_s: %.3f %.3f\n", dt.cpu_s, dt.wall_s);
    fprintf(stderr, "(%.0f requests completed, %.0f steps)\n", sr.completed, sr.steps);
    catalog_free(cat);
    return 0;
}
