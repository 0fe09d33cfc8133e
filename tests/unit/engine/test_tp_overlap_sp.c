/* TP communication overlap needs sequence parallelism on the stacks whose
 * overlap is Transformer Engine's userbuffers (software catalog
 * `tp_overlap_needs_sp`: megatron-core, nemo): it chunks the all-gathers and
 * reduce-scatters of sequence parallelism, and Megatron-LM refuses
 * --tp-comm-overlap without --sequence-parallel (docs/MODEL.md, section 3).
 * Without sequence parallelism the TP time is what it is with no overlap;
 * with it, less; a stack without the rule keeps its credit either way. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "model.h"

#include "../../catalog_fixture.h"

/* The exposed TP time of GPT-3 175B (TP 8 in one DGX A100) on
 * megatron-core, with or without sequence parallelism, with the stack's
 * overlap share as it is or zeroed, and its rule as it is or cleared. */
static double tp_comm(bool sp, bool overlap, bool rule)
{
    char err[1024];
    struct setup s;
    struct resolved r;
    struct model_report o;
    if (!setup_load_file(&s, "scenarios/presets/gpt3-175b-a100.yaml", cat, err, sizeof err) ||
        !setup_set(&s, "training.software", "megatron-core", err, sizeof err) ||
        !setup_set(&s, "training.sequence_parallel", sp ? "true" : "false", err, sizeof err) ||
        !setup_resolve(&s, cat, &r, err, sizeof err))
        fail_msg("%s", err);
    struct software *sw = (struct software *)r.software;
    double share = sw->tp_comm_overlap;
    bool needs = sw->tp_overlap_needs_sp;
    assert_true(share > 0 && needs);
    sw->tp_comm_overlap = overlap ? share : 0.0;
    sw->tp_overlap_needs_sp = rule;
    model_eval(&s, &r, &o);
    sw->tp_comm_overlap = share;
    sw->tp_overlap_needs_sp = needs;
    assert_true(o.breakdown.tp_comm > 0);
    return o.breakdown.tp_comm;
}

static void test_overlap_needs_sequence_parallel(void **state)
{
    (void)state;
    /* No sequence parallelism: exactly no overlap. */
    assert_true(tp_comm(false, true, true) == tp_comm(false, false, true));
    /* With it, the overlap hides part of the traffic. */
    assert_true(tp_comm(true, true, true) < 0.5 * tp_comm(true, false, true));
    /* A stack without the rule (XLA's collective matmul) keeps its credit. */
    assert_true(tp_comm(false, true, false) < 0.5 * tp_comm(false, false, false));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overlap_needs_sequence_parallel),
    };
    return cmocka_run_group_tests(tests, load_catalog, free_catalog);
}
