/* training.tensor_parallel: auto (engine/model/model_auto.c): the word is
 * read from YAML and by setup_set, kept as auto through the load, and
 * settled to the smallest power of two up to the scale-up domain at which
 * the memory per device fits; refused with the reason when none does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "model.h"

#include "../../catalog_fixture.h"

static void load(const char *preset, struct setup *s)
{
    char path[256], err[1024];
    snprintf(path, sizeof path, "scenarios/presets/%s.yaml", preset);
    if (!setup_load_file(s, path, cat, err, sizeof err))
        fail_msg("%s", err);
}

static int settled_tp(struct setup *s)
{
    char err[1024];
    if (!model_settle_auto(s, cat, err, sizeof err))
        fail_msg("%s", err);
    return s->training.tensor_parallel;
}

static const struct field *tp_field(void)
{
    const struct field *f = fields_find(setup_fields(), "training.tensor_parallel");
    assert_non_null(f);
    return f;
}

/* The word is the field's: set, shown and described as auto. */
static void test_word(void **state)
{
    (void)state;
    struct setup s;
    char err[256], buf[64];
    load("default", &s);
    assert_true(setup_set(&s, "training.tensor_parallel", "auto", err, sizeof err));
    fields_format(tp_field(), &s, buf, sizeof buf);
    assert_string_equal(buf, "auto");
    fields_describe_type(tp_field(), buf, sizeof buf);
    assert_non_null(strstr(buf, "auto"));
    /* Other whole-number fields take no auto. */
    assert_false(setup_set(&s, "training.pipeline_parallel", "auto", err, sizeof err));
    /* A check before settling says so instead of dividing by zero. */
    struct resolved r;
    assert_false(setup_resolve(&s, cat, &r, err, sizeof err));
    assert_non_null(strstr(err, "auto"));
}

/* An 8B model fits one H100 whole: 1. GPT-3 175B on A100s with PP 8 needs
 * TP 8 (at 4 it wants 113 GB per device), the Megatron-LM paper's own. */
static void test_smallest_fitting_power_of_two(void **state)
{
    (void)state;
    struct setup s;
    char err[256];
    load("default", &s);
    assert_true(setup_set(&s, "training.tensor_parallel", "auto", err, sizeof err));
    assert_int_equal(settled_tp(&s), 1);
    load("gpt3-175b-a100", &s);
    assert_true(setup_set(&s, "training.tensor_parallel", "auto", err, sizeof err));
    assert_int_equal(settled_tp(&s), 8);
    /* The rule, checked directly: 4 does not fit, 8 does. */
    struct resolved r;
    struct memory_report m;
    s.training.tensor_parallel = 4;
    assert_true(setup_resolve(&s, cat, &r, err, sizeof err));
    model_memory(&s, &r, &m);
    assert_false(m.fits);
    /* A number stays as given. */
    s.training.tensor_parallel = 2;
    assert_int_equal(settled_tp(&s), 2);
}

/* YAML: `tensor_parallel: auto` loads (the other checks pass for some
 * power of two) and stays auto until settled. */
static void test_yaml(void **state)
{
    (void)state;
    const char *yaml = "name: tp auto\n"
                       "cluster: {nodes: 1, node: {accelerator: h100-sxm, "
                       "accelerators_per_node: 8}}\n"
                       "training: {global_batch: 64, tensor_parallel: auto}\n";
    struct setup s;
    char err[1024];
    if (!setup_load_string(&s, "tp.yaml", yaml, cat, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(s.training.tensor_parallel, 0);
    assert_int_equal(settled_tp(&s), 1);
}

/* Nothing fits: refused with the reason, and the field stays auto. */
static void test_nothing_fits(void **state)
{
    (void)state;
    struct setup s;
    char err[1024];
    load("gpt3-175b-a100", &s);
    assert_true(setup_set(&s, "training.tensor_parallel", "auto", err, sizeof err));
    s.training.pipeline_parallel = 1;
    s.training.global_batch = 1024;
    assert_false(model_settle_auto(&s, cat, err, sizeof err));
    assert_non_null(strstr(err, "no power of two"));
    assert_non_null(strstr(err, "GB per device"));
    assert_int_equal(s.training.tensor_parallel, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_word),
        cmocka_unit_test(test_smallest_fitting_power_of_two),
        cmocka_unit_test(test_yaml),
        cmocka_unit_test(test_nothing_fits),
    };
    return cmocka_run_group_tests(tests, load_catalog, free_catalog);
}
