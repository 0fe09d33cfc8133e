/* Validation: the model against published training runs and textbook cases.
 *
 * - Megatron-LM (Narayanan et al. 2021, Table 1): TFLOP/s per A100 within 15%.
 * - ZeRO (Rajbhandari et al. 2020, section 5): model-state memory of a 7.5B
 *   model over Nd = 64 within 1%.
 *   Both as a table in docs/MODEL.md section 10: what this program prints
 *   with --table (the block `generated table: test_published`).
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
#include "docs_table.h"

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

/* Megatron-LM (Narayanan et al. 2021, Table 1): TFLOP/s per A100. */
static const struct {
    const char *label, *file;
    double paper_tflops;
} megatron[] = {
    {"Megatron 1.7B, 32 A100", "tests/validation/setups/megatron-1.7b.yaml", 137},
    {"Megatron 18.4B, 256 A100, TP 8", "tests/validation/setups/megatron-18.4b.yaml", 135},
    {"Megatron 145.6B, 1536 A100, TP 8 PP 8", "tests/validation/setups/megatron-145.6b.yaml", 148},
    {"Megatron 1008B, 3072 A100, TP 8 PP 64", "tests/validation/setups/megatron-1008b.yaml", 163},
};
/* ZeRO (Rajbhandari et al. 2020, section 5): model states per device, GB. */
static const double zero_paper_gb[4] = {120, 31.4, 16.6, 1.88};

static void check_megatron(int i)
{
    struct setup s;
    struct model_report o;
    load_eval(megatron[i].file, &s, &o);
    double paper = megatron[i].paper_tflops, rel = (o.tflops_per_device - paper) / paper;
    printf("  %-40s model %6.1f  paper %6.1f  (%+.1f%%)\n", megatron[i].file, o.tflops_per_device,
           paper, 100 * rel);
    assert_true(o.runnable);
    assert_true(o.memory.fits);
    if (fabs(rel) > 0.15)
        fail_msg("%s: %.1f TFLOP/s per GPU, paper %.0f (%+.1f%%)", megatron[i].file,
                 o.tflops_per_device, paper, 100 * rel);
}

static void test_megatron_1_7b(void **state)
{
    (void)state;
    check_megatron(0);
}
static void test_megatron_18_4b(void **state)
{
    (void)state;
    check_megatron(1);
}
static void test_megatron_145_6b(void **state)
{
    (void)state;
    check_megatron(2);
}
static void test_megatron_1008b(void **state)
{
    (void)state;
    check_megatron(3);
}

/* Model-state GB per device of a 7.5B model over Nd = 64 at ZeRO stage z
 * (Psi = 7.5B, K = 12). */
static double zero_states_gb(int z)
{
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
    s.training.zero_stage = z;
    struct resolved r;
    char err[512];
    if (!setup_resolve(&s, cat, &r, err, sizeof err))
        fail_msg("%s", err);
    struct model_report o;
    model_eval(&s, &r, &o);
    return o.memory.params_gb + o.memory.grads_gb + o.memory.optimizer_gb;
}

static void test_zero_paper(void **state)
{
    (void)state;
    for (int z = 0; z <= 3; z++) {
        double states = zero_states_gb(z);
        printf("  ZeRO stage %d: %.3f GB (paper %.2f)\n", z, states, zero_paper_gb[z]);
        assert_true(fabs(states - zero_paper_gb[z]) <= 0.01 * zero_paper_gb[z]);
    }
}

/* The table of docs/MODEL.md section 10 (printed with --table). */
static void build_table(char *out, size_t len)
{
    size_t used = 0;
#define OUT(...) docs_table_append(out, len, &used, __VA_ARGS__)
    OUT("| run | paper | model |\n|---|---|---|\n");
    for (size_t i = 0; i < sizeof megatron / sizeof megatron[0]; i++) {
        struct setup s;
        struct model_report o;
        load_eval(megatron[i].file, &s, &o);
        double paper = megatron[i].paper_tflops;
        OUT("| %s | %.0f%s | %.1f (%+.1f%%) |\n", megatron[i].label, paper,
            i == 0 ? " TFLOP/s" : "", o.tflops_per_device,
            100 * (o.tflops_per_device - paper) / paper);
    }
    OUT("| ZeRO 7.5B, Nd = 64: stage 0/1/2/3 | %.3g / %.3g / %.3g / %.3g GB |", zero_paper_gb[0],
        zero_paper_gb[1], zero_paper_gb[2], zero_paper_gb[3]);
    for (int z = 0; z <= 3; z++)
        OUT("%s%.4g", z ? " / " : " ", zero_states_gb(z));
    OUT(" |\n");
#undef OUT
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

int main(int argc, char **argv)
{
    int status;
    if (docs_table_wanted(argc, argv, build_table, &status))
        return status;
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
