/* The stack rules of issue 20: what each software entry can run, refused by
 * the one check the loader and the planner share, at file:line:col and
 * with the rule's source; the shipped presets name stacks that run them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "model.h"
#include "setup.h"

#include "../../catalog_fixture.h"

/* Loading `text` must fail at line:col with a message holding `what` and
 * the word "source:". */
static void refused(const char *text, int line, int col, const char *what)
{
    struct setup s;
    setup_defaults(&s);
    char err[1024], prefix[64];
    if (setup_load_string(&s, "s.yaml", text, cat, err, sizeof err))
        fail_msg("loaded but should be refused (%s):\n%s", what, text);
    snprintf(prefix, sizeof prefix, "s.yaml:%d:%d: ", line, col);
    if (strncmp(err, prefix, strlen(prefix)) != 0)
        fail_msg("expected '%s...', got '%s'", prefix, err);
    if (!strstr(err, what) || !strstr(err, "source: "))
        fail_msg("expected '%s' and a source in '%s'", what, err);
}

static void loads(const char *text)
{
    struct setup s;
    setup_defaults(&s);
    char err[1024];
    if (!setup_load_string(&s, "s.yaml", text, cat, err, sizeof err))
        fail_msg("%s\n%s", err, text);
}

static void test_zero_rules(void **state)
{
    (void)state;
    /* The 2021-22 megatron stack: ZeRO-1 (the distributed optimizer) at most. */
    refused("training: {zero_stage: 3, software: megatron}\n", 1, 24, "ZeRO stages up to 1");
    loads("training: {zero_stage: 1, software: megatron}\n");
    /* DeepSpeed's pipeline engine takes ZeRO-1 only. */
    static const char ds[] = "cluster: {nodes: 2}\n"
                             "training: {pipeline_parallel: 2, global_batch: 64, "
                             "zero_stage: %d, software: deepspeed}\n";
    char text[256];
    snprintf(text, sizeof text, ds, 2);
    refused(text, 2, 64, "beside pipeline parallelism");
    snprintf(text, sizeof text, ds, 1);
    loads(text);
    loads("cluster: {nodes: 2}\ntraining: {zero_stage: 3, global_batch: 64, software: "
          "deepspeed}\n");
}

static void test_flash_and_sequence_rules(void **state)
{
    (void)state;
    refused("training: {flash_attention: true, software: megatron}\n", 1, 29, "flash");
    loads("training: {flash_attention: true, software: megatron-core}\n");
    refused("training: {tensor_parallel: 2, sequence_parallel: true, software: fairseq}\n", 1, 51,
            "sequence parallelism");
    refused("model: {seq_len: 8192}\n"
            "training: {context_parallel: 2, global_batch: 64, software: deepspeed}\n",
            2, 30, "context parallelism");
}

/* Interleaving: Megatron-Core wants at least as many micro-batches as
 * stages in full groups, the 2021 schedule a multiple of them, DeepSpeed has none. */
static void test_interleave_rules(void **state)
{
    (void)state;
    static const char base[] = "cluster: {nodes: 1}\nmodel: {layers: 32}\n"
                               "training: {pipeline_parallel: 4, virtual_stages: 2, "
                               "global_batch: %d, software: %s}\n";
    char text[256];
    snprintf(text, sizeof text, base, 2 * 2, "megatron-core"); /* dp 2: 2 micro-batches */
    refused(text, 3, 50, "at least pipeline_parallel 4");
    snprintf(text, sizeof text, base, 2 * 4, "megatron-core");
    loads(text);
    /* 6 micro-batches: a group of 4, then a last group of 2 (Megatron-Core's
     * remainder check); 8 fill two groups. */
    snprintf(text, sizeof text, base, 2 * 6, "megatron-core");
    refused(text, 3, 50, "the last group would hold 2 of them");
    snprintf(text, sizeof text, base, 2 * 8, "megatron-core");
    loads(text);
    snprintf(text, sizeof text, base, 2 * 6, "megatron");
    refused(text, 3, 50, "a multiple of pipeline_parallel 4");
    snprintf(text, sizeof text, base, 2 * 8, "megatron");
    loads(text);
    snprintf(text, sizeof text, base, 2 * 8, "deepspeed");
    refused(text, 3, 50, "no interleaved pipeline");
}

/* Every shipped stack states each rule with a source. */
static void test_every_rule_has_a_source(void **state)
{
    (void)state;
    size_t n = catalog_count(cat, CATALOG_SOFTWARE);
    assert_true(n >= 7);
    for (size_t i = 0; i < n; i++) {
        const struct software *sw = catalog_entry(cat, CATALOG_SOFTWARE, i);
        const char *srcs[] = {sw->zero_source, sw->flash_attention_source, sw->interleave_source,
                              sw->sequence_parallel_source, sw->tp_overlap_source};
        for (size_t k = 0; k < sizeof srcs / sizeof srcs[0]; k++)
            if (!srcs[k][0])
                fail_msg("software %s: rule source %zu is empty", sw->head.id, k);
        if (sw->context_parallel && !sw->context_parallel_source[0])
            fail_msg("software %s: context_parallel has no source", sw->head.id);
    }
}

/* A refused suggestion is no suggestion: the memory advice of a setup that
 * does not fit stays within what its stack runs. */
static void test_suggestions_obey_the_stack(void **state)
{
    (void)state;
    struct setup s;
    setup_defaults(&s);
    s.model.layers = 80, s.model.hidden = 8192, s.model.heads = 64, s.model.kv_heads = 8;
    s.model.ffn_hidden = 28672;
    snprintf(s.training.software, sizeof s.training.software, "megatron");
    s.training.zero_stage = 0;
    struct resolved r;
    char err[512];
    assert_true(setup_resolve(&s, cat, &r, err, sizeof err));
    struct model_report o;
    model_eval(&s, &r, &o);
    assert_false(o.memory.fits);
    for (int i = 0; i < o.n_suggestions; i++)
        if (strstr(o.suggestions[i].changes, "zero_stage=2") ||
            strstr(o.suggestions[i].changes, "zero_stage=3"))
            fail_msg("megatron cannot run: %s", o.suggestions[i].changes);
}

/* The planner's check asks for no message (err_len 0): the verdict is the
 * loader's, and the buffer it passes is left alone. */
static void test_silent_check_gives_the_same_verdict(void **state)
{
    (void)state;
    struct setup base;
    setup_defaults(&base);
    struct resolved r;
    char err[512];
    assert_true(setup_resolve(&base, cat, &r, err, sizeof err));
    for (int k = 0; k < 4; k++) {
        struct setup s = base;
        if (k == 1) { /* a stack rule: ZeRO-3 on the 2021 stack */
            snprintf(s.training.software, sizeof s.training.software, "megatron");
            s.training.zero_stage = 3;
        } else if (k == 2) { /* a layout rule: heads over tensor ranks */
            s.training.tensor_parallel = 3;
        } else if (k == 3) { /* interleaving without enough micro-batches */
            s.cluster.nodes = 4;
            s.training.pipeline_parallel = 4;
            s.training.virtual_stages = 2;
            s.training.global_batch = s.training.micro_batch;
        }
        char untouched[8] = "intact";
        err[0] = 0;
        bool loud = setup_check_resolved(&s, &r, err, sizeof err);
        bool silent = setup_check_resolved(&s, &r, untouched, 0);
        assert_int_equal(loud, silent);
        assert_int_equal(loud, k == 0);
        if (k > 0)
            assert_true(err[0] != 0);
        assert_string_equal(untouched, "intact");
        assert_int_equal(setup_check_resolved(&s, &r, NULL, 0), loud);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_rules),
        cmocka_unit_test(test_flash_and_sequence_rules),
        cmocka_unit_test(test_interleave_rules),
        cmocka_unit_test(test_every_rule_has_a_source),
        cmocka_unit_test(test_suggestions_obey_the_stack),
        cmocka_unit_test(test_silent_check_gives_the_same_verdict),
    };
    return cmocka_run_group_tests(tests, load_catalog, free_catalog);
}
