/* The pipeline split of a layout (model.h, model_split_of): made once for
 * the first switch setting of a layout, it gives model_memory and
 * model_eval_numbers' own figures for every setting of recomputation,
 * ZeRO, sequence parallelism, flash attention and gradient-sync overlap
 * (the switches the planner turns inside one unit), on an even and an
 * uneven GPT-3 pipeline, an MoE model with dense first layers and a
 * generic model; and a split made for another pipeline does not. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "model.h"

#include "../../catalog_fixture.h"

static void load(const char *preset, struct setup *s)
{
    char path[256], err[1024];
    snprintf(path, sizeof path, "scenarios/presets/%s.yaml", preset);
    if (!setup_load_file(s, path, cat, err, sizeof err))
        fail_msg("%s", err);
}

static void set(struct setup *s, const char *path, const char *value)
{
    char err[512];
    if (!setup_set(s, path, value, err, sizeof err))
        fail_msg("%s", err);
}

/* Every switch setting of s against the split of its first one; the
 * number of settings that resolved. */
static int assert_split_serves(struct setup *s, const char *what)
{
    static const char *const recompute[] = {"none", "selective", "full"};
    static const char *const zero[] = {"0", "1", "2", "3"};
    static const char *const onoff[] = {"true", "false"};
    struct resolved r;
    char err[512];
    if (!setup_resolve(s, cat, &r, err, sizeof err))
        fail_msg("%s: %s", what, err);
    struct model_split split;
    model_split_of(s, &r, &split);
    assert_true(split.n >= 1 && split.n <= MODEL_SPLIT_STAGES);
    int settings = 0;
    for (int k = 0; k < 3 * 4 * 2 * 2 * 2; k++) {
        struct setup t = *s;
        set(&t, "training.recompute", recompute[k % 3]);
        set(&t, "training.zero_stage", zero[k / 3 % 4]);
        set(&t, "training.sequence_parallel", onoff[k / 12 % 2]);
        set(&t, "training.flash_attention", onoff[k / 24 % 2]);
        set(&t, "training.overlap_grad_sync", onoff[k / 48 % 2]);
        if (!setup_check_resolved(&t, &r, err, sizeof err))
            continue; /* a switch the stack lacks */
        static struct memory_report m1, m2;
        static struct model_report o1, o2;
        memset(&m1, 0, sizeof m1);
        memset(&m2, 0, sizeof m2);
        model_memory(&t, &r, &m1);
        model_memory_split(&t, &r, &split, &m2);
        if (memcmp(&m1, &m2, sizeof m1) != 0)
            fail_msg("%s, setting %d: memory %.9g GB vs %.9g GB with the split", what, k,
                     m1.per_device_gb, m2.per_device_gb);
        model_eval_numbers(&t, &r, &o1);
        model_eval_numbers_split(&t, &r, &split, &o2);
        if (memcmp(&o1, &o2, sizeof o1) != 0)
            fail_msg("%s, setting %d: %.9g tokens/s vs %.9g with the split", what, k,
                     o1.tokens_per_s, o2.tokens_per_s);
        settings++;
    }
    return settings;
}

static void test_gpt3_even_and_uneven(void **state)
{
    (void)state;
    struct setup s;
    load("gpt3-175b-a100", &s);
    assert_true(assert_split_serves(&s, "gpt3") > 10);
    set(&s, "training.first_stage_layers", "11");
    set(&s, "training.last_stage_layers", "10");
    assert_true(assert_split_serves(&s, "gpt3 uneven") > 10);
}

static void test_moe_and_generic(void **state)
{
    (void)state;
    struct setup s;
    load("moe-h100", &s);
    assert_true(assert_split_serves(&s, "moe") > 10);
    load("laptop-cpu", &s);
    assert_true(assert_split_serves(&s, "generic") > 0);
}

/* The split is the layout's: one made for another pipeline size gives
 * another memory (so the planner must make one per layout). */
static void test_split_is_the_layouts(void **state)
{
    (void)state;
    struct setup s, other;
    load("gpt3-175b-a100", &s);
    other = s;
    set(&other, "training.pipeline_parallel", "16");
    set(&other, "training.tensor_parallel", "4");
    struct resolved r, ro;
    char err[512];
    assert_true(setup_resolve(&s, cat, &r, err, sizeof err));
    assert_true(setup_resolve(&other, cat, &ro, err, sizeof err));
    struct model_split split;
    model_split_of(&other, &ro, &split);
    struct memory_report own, wrong;
    model_memory(&s, &r, &own);
    model_memory_split(&s, &r, &split, &wrong);
    assert_true(fabs(own.per_device_gb - wrong.per_device_gb) > 1e-3 * own.per_device_gb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpt3_even_and_uneven),
        cmocka_unit_test(test_moe_and_generic),
        cmocka_unit_test(test_split_is_the_layouts),
    };
    return cmocka_run_group_tests(tests, load_catalog, free_catalog);
}
