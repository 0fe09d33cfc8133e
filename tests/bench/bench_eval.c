/* bench_eval: analytic evaluations per second on one core over a sweep of
 * varied setups (issue 3 goal: at least 1,000,000), and over mixture-of-
 * experts setups (issue 11 goal: at least 500,000). Prints `eval_per_s: N`
 * and `moe_eval_per_s: N`. */
#include <stdio.h>

#include "bench.h"
#include "model.h"

enum { SETUPS = 64, MIN_SECONDS = 1 };

/* Prints NAME: evaluations per CPU second and per wall second, over at
 * least MIN_SECONDS of CPU time. */
static void evals_per_s(const char *name, const struct setup *setups,
                        const struct resolved *resolved, int n, double *sink)
{
    struct model_report o;
    long evals = 0;
    struct bench_clock t0 = bench_now();
    do {
        for (int k = 0; k < 10000; k++) {
            model_eval(&setups[k % n], &resolved[k % n], &o);
            *sink += o.step_time_s;
        }
        evals += 10000;
    } while (bench_since(t0).cpu_s < MIN_SECONDS);
    bench_rate(name, (double)evals, bench_since(t0));
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
    double sink = 0;
    evals_per_s("eval_per_s", setups, resolved, n, &sink);
    fprintf(stderr, "(%d distinct setups, checksum %.3g)\n", n, sink);
    /* Mixture of experts: the MoE preset with varied expert counts, top-k,
     * expert parallelism, capacity and context parallelism. */
    n = 0;
    for (int i = 0; n < SETUPS && i < SETUPS * 4; i++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/scenarios/presets/moe-h100.yaml", mlviz_data_dir());
        struct setup s;
        if (!setup_load_file(&s, path, cat, err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        /* Fine-grained experts (DeepSeekMoE): more, smaller experts with
         * the same parameters and more of them per token. */
        s.model.experts = 8 << (i % 4);
        s.model.expert_ffn_hidden = 14336 >> (i % 4);
        s.model.top_k = (1 + i % 2) << (i % 4);
        s.training.expert_parallel = 1 << (i / 4 % 4);
        s.training.capacity_factor = (i / 3) % 2 ? 1.25 : 0.0;
        s.training.context_parallel = 1 + (i / 16) % 2;
        s.training.recompute = (i / 5) % 3;
        if (!setup_resolve(&s, cat, &resolved[n], err, sizeof err))
            continue;
        setups[n++] = s;
    }
    if (n == 0) {
        fprintf(stderr, "no MoE setup resolved: %s\n", err);
        return 1;
    }
    evals_per_s("moe_eval_per_s", setups, resolved, n, &sink);
    fprintf(stderr, "(%d distinct MoE setups, checksum %.3g)\n", n, sink);
    catalog_free(cat);
    return 0;
}
