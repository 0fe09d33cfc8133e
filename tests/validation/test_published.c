/* Validation: the model against published training runs and textbook cases.
 *
 * - Megatron-LM (Narayanan et al. 2021, Table 1): TFLOP/s per A100 within 15%.
 * - ZeRO (Rajbhandari et al. 2020, section 5): model-state memory of a 7.5B
 *   model over Nd = 64 within 1%.
 * - Storage 10x too slow names `data` with a starvation figure.
 * - 70B in bf16 with Adam on one 80 GB device does not fit; the suggestions
 *   make it fit. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "model.h"

#include "../catalog_fixture.h"

static void load_eval(const char *path, struct setup *s, struct model_report *o)
{
    char err[1024];
    struct resolved r;
    if (!setup_load_file(s, path, cat, err, sizeof err))
        fail_msg("%s", err);
    if (!setup_resolve(s, cat, &r, err, sizeof err))
        fail_msg("%s", err);
    model_eval(s, &r, o);
}

static void check_megatron(const char *file, double paper_tflops)
{
    struct setup s;
    struct model_report o;
    load_eval(file, &s, &o);
    double rel = (o.tflops_per_device - paper_tflops) / paper_tflops;
    printf("  %-40s model %6.1f  paper %6.1f  (%+.1f%%)\n", file, o.tflops_per_device, paper_tflops,
           100 * rel);
    assert_true(o.runnable);
    assert_true(o.memory.fits);
    if (fabs(rel) > 0.15)
        fail_msg("%s: %.1f TFLOP/s per GPU, paper %.0f (%+.1f%%)", file, o.tflops_per_device,
                 paper_tflops, 100 * rel);
}

static void test_megatron_1_7b(void **state)
{
    (void)state;
    check_megatron("tests/validation/setups/megatron-1.7b.yaml", 137);
}
static void test_megatron_18_4b(void **state)
{
    (void)state;
    check_megatron("tests/validation/setups/megatron-18.4b.yaml", 135);
}
static void test_megatron_145_6b(void **state)
{
    (void)state;
    check_megatron("tests/validation/setups/megatron-145.6b.yaml", 148);
}
static void test_megatron_1008b(void **state)
{
    (void)state;
    check_megatron("tests/validation/setups/megatron-1008b.yaml", 163);
}

static void test_zero_paper(void **state)
{
    (void)state;
    /* Rajbhandari et al. 2020: Psi = 7.5B, Nd = 64, K = 12. */
    static const double paper_gb[4] = {120, 31.4, 16.6, 1.88};
    struct setup s;
    setup_defaults(&s);
    s.cluster.nodes = 8;
    s.model.kind = MODEL_GENERIC;
    s.model.params = 7.5e9;
    s.model.flops_per_sample = 1e12;
    s.training.global_batch = 64;
    /* The ZeRO paper's accounting (2 + 2 + 12 bytes per parameter) is
     * DeepSpeed's. */
    snprintf(s.training.software, sizeof s.training.software, "deepspeed");
    struct resolved r;
    char err[512];
    for (int z = 0; z <= 3; z++) {
        s.training.zero_stage = z;
        if (!setup_resolve(&s, cat, &r, err, sizeof err))
            fail_msg("%s", err);
        struct model_report o;
        model_eval(&s, &r, &o);
        double states = o.memory.params_gb + o.memory.grads_gb + o.memory.optimizer_gb;
        printf("  ZeRO stage %d: %.3f GB (paper %.2f)\n", z, states, paper_gb[z]);
        assert_true(fabs(states - paper_gb[z]) <= 0.01 * paper_gb[z]);
    }
}

static void test_slow_storage_is_data_bottleneck(void **state)
{
    (void)state;
    struct setup s;
    struct model_report o;
    load_eval("scenarios/presets/default.yaml", &s, &o);
    assert_int_not_equal(o.bottleneck, STAGE_DATA);
    /* Make the shared tier deliver a tenth of what the devices consume. */
    double need = o.stages.need_bw_gbs;
    s.cluster.storage_bw_gbs = need / 10;
    struct resolved r;
    char err[512];
    assert_true(setup_resolve(&s, cat, &r, err, sizeof err));
    struct model_report slow;
    model_eval(&s, &r, &slow);
    assert_int_equal(slow.bottleneck, STAGE_DATA);
    assert_non_null(strstr(slow.bottleneck_reason, "storage delivers"));
    /* The devices wait about 90% of the step. */
    assert_true(fabs(slow.starvation - 0.9) < 0.01);
    assert_true(slow.breakdown.data_read > 0);
    assert_true(fabs(slow.tokens_per_s * 10 - o.tokens_per_s) < 0.02 * o.tokens_per_s);
}

/* Applies "path=value path=value" from a suggestion. */
static void apply_changes(struct setup *s, const char *changes)
{
    char buf[256], err[256];
    snprintf(buf, sizeof buf, "%s", changes);
    char *save;
    for (char *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '=');
        assert_non_null(eq);
        *eq = '\0';
        if (!setup_set(s, tok, eq + 1, err, sizeof err))
            fail_msg("%s", err);
    }
}

static void test_70b_on_one_device(void **state)
{
    (void)state;
    struct setup s;
    setup_defaults(&s);
    /* Llama-2-70B shape (Touvron et al. 2023). */
    s.model.layers = 80;
    s.model.hidden = 8192;
    s.model.heads = 64;
    s.model.kv_heads = 8;
    s.model.ffn_hidden = 28672;
    s.model.mlp = MLP_SWIGLU;
    s.model.vocab = 32000;
    s.cluster.node.accelerators_per_node = 1;
    /* A stack with ZeRO-3, so that scaling out can shard the weights. */
    snprintf(s.training.software, sizeof s.training.software, "deepspeed");
    s.training.global_batch = 16;
    struct resolved r;
    char err[512];
    assert_true(setup_resolve(&s, cat, &r, err, sizeof err));
    struct model_report o;
    model_eval(&s, &r, &o);
    assert_true(o.params > 68e9 && o.params < 70e9);
    assert_false(o.memory.fits);
    assert_false(o.runnable);
    assert_non_null(strstr(o.why_not, "per device"));
    /* Weights + grads + Adam in mixed precision: 16 bytes per parameter. */
    assert_true(o.memory.params_gb + o.memory.grads_gb + o.memory.optimizer_gb > 16 * 68);
    int fitting = -1;
    for (int i = 0; i < o.n_suggestions; i++)
        if (o.suggestions[i].fits)
            fitting = i;
    assert_true(fitting >= 0);
    printf("  suggestion: %s (%s)\n", o.suggestions[fitting].text, o.suggestions[fitting].changes);
    apply_changes(&s, o.suggestions[fitting].changes);
    assert_true(setup_resolve(&s, cat, &r, err, sizeof err));
    struct model_report after;
    model_eval(&s, &r, &after);
    assert_true(after.memory.fits);
    assert_true(after.runnable);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_megatron_1_7b),
        cmocka_unit_test(test_megatron_18_4b),
        cmocka_unit_test(test_megatron_145_6b),
        cmocka_unit_test(test_megatron_1008b),
        cmocka_unit_test(test_zero_paper),
        cmocka_unit_test(test_slow_storage_is_data_bottleneck),
        cmocka_unit_test(test_70b_on_one_device),
    };
    return cmocka_run_group_tests(tests, load_catalog, free_catalog);
}
