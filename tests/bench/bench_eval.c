/* bench_eval: analytic evaluations per second on one core over a sweep of
 * varied setups (issue 3 goal: at least 1,000,000). Prints `eval_per_s: N`. */
#include <stdio.h>
#include <time.h>

#include "model.h"

enum { SETUPS = 64, MIN_SECONDS = 2 };

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(void)
{
    char err[1024];
    struct catalog *cat = catalog_new();
    if (!catalog_load_default(cat, NULL, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    static const char *const presets[] = {"default", "gpt3-175b-a100", "tpu-v4-pod", "workstation",
                                          "laptop-cpu"};
    static const char *const devices[] = {"h100-sxm", "a100-sxm-80gb", "h200-sxm", "b200",
                                          "mi300x"};
    struct setup setups[SETUPS];
    struct resolved resolved[SETUPS];
    int n = 0;
    for (int i = 0; n < SETUPS && i < SETUPS * 4; i++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/scenarios/presets/%s.yaml", mlviz_data_dir(),
                 presets[i % 5]);
        struct setup s;
        if (!setup_load_file(&s, path, cat, err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        /* Vary the setups: device model, batch, micro-batch, recomputation, ZeRO. */
        if (s.model.kind == MODEL_TRANSFORMER && s.cluster.node.accelerators_per_node == 8)
            snprintf(s.cluster.node.accelerator, FIELD_STR_LEN, "%s", devices[(i / 5) % 5]);
        s.training.global_batch *= 1 + (i / 25) % 3;
        s.training.recompute = (i / 3) % 3;
        s.training.zero_stage = (i / 7) % 4;
        if (!setup_resolve(&s, cat, &resolved[n], err, sizeof err))
            continue;
        setups[n++] = s;
    }
    struct model_report o;
    double sink = 0;
    long evals = 0;
    double t0 = now_s(), t = t0;
    while (t - t0 < MIN_SECONDS) {
        for (int k = 0; k < 10000; k++) {
            model_eval(&setups[k % n], &resolved[k % n], &o);
            sink += o.step_time_s;
        }
        evals += 10000;
        t = now_s();
    }
    printf("eval_per_s: %.0f\n", evals / (t - t0));
    fprintf(stderr, "(%d distinct setups, checksum %.3g)\n", n, sink);
    catalog_free(cat);
    return 0;
}
