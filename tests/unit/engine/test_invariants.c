/* The property tests of issue 20: 20,000 random valid setups (gen_setup.c:
 * every field of the table, dense and MoE, every precision and stack, 1 to
 * 100,000 devices) through every physical invariant (invariants.c), zero
 * violations; each invariant's predicate shown to fail on a report that
 * breaks it; and the ZeRO-3-versus-ZeRO-1 case of the issue. */
#include <math.h>
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
#include "gen_setup.c"
#include "invariants.c"

enum { SETUPS = 20000, DRAWS_MAX = 400000 };

static void test_random_setups(void **state)
{
    (void)state;
    struct gen_src g;
    gen_src_seed(&g, 20);
    long evals = 0, draws = 0, setups = 0, violations = 0, moe = 0, generic = 0;
    long prec[TRAIN_PRECISION_COUNT] = {0};
    int64_t most = 0;
    char stacks[16][FIELD_STR_LEN] = {{0}};
    int n_stacks = 0;
    while (setups < SETUPS && draws < DRAWS_MAX) {
        struct setup s;
        struct resolved r;
        draws++;
        if (!gen_setup(&g, cat, &s, &r))
            continue;
        setups++;
        moe += s.model.experts > 0;
        generic += s.model.kind == MODEL_GENERIC;
        prec[s.training.precision]++;
        most = setup_devices(&s) > most ? setup_devices(&s) : most;
        bool seen = false;
        for (int i = 0; i < n_stacks; i++)
            seen = seen || strcmp(stacks[i], s.training.software) == 0;
        if (!seen && n_stacks < 16)
            snprintf(stacks[n_stacks++], FIELD_STR_LEN, "%s", s.training.software);
        char msg[512];
        if (!inv_check_setup(&s, &r, msg, sizeof msg, &evals)) {
            if (violations++ < 40) {
                printf("VIOLATION %ld: %s\n", violations, msg);
                continue;
            }
            if (violations < 0) {
                char yaml[16384];
                setup_write_yaml(&s, yaml, sizeof yaml);
                printf("VIOLATION %ld: %s\n%s\n", violations, msg, yaml);
            }
        }
    }
    printf("  %ld setups of %ld draws, %ld evaluations: %ld MoE, %ld generic, %d stacks, up "
           "to %lld devices; precisions:",
           setups, draws, evals, moe, generic, n_stacks, (long long)most);
    for (int i = 0; i < TRAIN_PRECISION_COUNT; i++)
        printf(" %s %ld", train_precision_names[i], prec[i]);
    printf("\n  %ld violations\n", violations);
    assert_int_equal(setups, SETUPS);
    assert_int_equal(violations, 0);
    assert_true(moe > SETUPS / 10 && generic > SETUPS / 50);
    assert_true(n_stacks >= 7 && most >= 50000);
}

/* Each predicate, fed a report that breaks it, says so. */
static void test_each_invariant_breaks(void **state)
{
    (void)state;
    char msg[512];
    struct model_report a, b;
    memset(&a, 0, sizeof a);
    a.peak_tflops = 100, a.tflops_per_device = 50, a.hfu = 0.4, a.achieved_fraction = 0.6;
    a.mfu = 0.3, a.hfu_model_convention = 0.45, a.step_time_s = 10, a.memory.fits = true;
    assert_true(inv_rates(&a, msg, sizeof msg));
    b = a, b.tflops_per_device = 101; /* above peak */
    assert_false(inv_rates(&b, msg, sizeof msg));
    b = a, b.hfu = 0.7; /* above the executed rate */
    assert_false(inv_rates(&b, msg, sizeof msg));
    b = a, b.mfu = 0.5; /* above hfu in its convention */
    assert_false(inv_rates(&b, msg, sizeof msg));
    b = a, b.step_time_s = 10.5; /* an improvement that slows the step */
    assert_true(inv_not_slower("x", &b, &a, msg, sizeof msg));
    assert_false(inv_not_slower("x", &a, &b, msg, sizeof msg));
    assert_false(inv_same_step("x", &a, &b, msg, sizeof msg));
    assert_true(inv_same_step("x", &a, &a, msg, sizeof msg));
    assert_false(inv_recompute(&b, &a, msg, sizeof msg)); /* full faster than none */
    assert_true(inv_recompute(&a, &b, msg, sizeof msg));
    b = a, b.breakdown.tp_comm = 1, a.breakdown.tp_comm = 2;
    assert_false(inv_tp_overlap_domain(&b, &a, msg, sizeof msg));
}

/* The case: Llama-2-70B on 64 H100 with 8 x 400G rails, DeepSpeed,
 * TP 2, same micro-batch and recomputation: ZeRO-3 only adds work. */
static void test_zero3_never_cheaper(void **state)
{
    (void)state;
    static const char text[] =
        "cluster: {nodes: 8, node: {nic: ib-ndr, nics_per_node: 8}}\n"
        "model: {layers: 80, hidden: 8192, heads: 64, kv_heads: 8, ffn_hidden: 28672,\n"
        "        mlp: swiglu, seq_len: 4096, vocab: 32000}\n"
        "training: {global_batch: 512, micro_batch: 1, tensor_parallel: 2, zero_stage: %d,\n"
        "           recompute: full, flash_attention: true, software: deepspeed}\n";
    double step[4];
    for (int z = 1; z <= 3; z += 2) {
        char buf[1024], err[1024];
        snprintf(buf, sizeof buf, text, z);
        struct setup s;
        struct resolved r;
        setup_defaults(&s);
        if (!setup_load_string(&s, "s.yaml", buf, cat, err, sizeof err) ||
            !setup_resolve(&s, cat, &r, err, sizeof err))
            fail_msg("%s", err);
        struct model_report o;
        model_eval(&s, &r, &o);
        step[z] = o.step_time_s;
        printf("  ZeRO-%d: step %.3f s, dp exposed %.3f s, compute %.3f s\n", z, o.step_time_s,
               o.breakdown.dp_comm_exposed, o.breakdown.compute);
    }
    assert_true(step[3] >= step[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_invariant_breaks),
        cmocka_unit_test(test_zero3_never_cheaper),
        cmocka_unit_test(test_random_setups),
    };
    return cmocka_run_group_tests(tests, load_catalog, free_catalog);
}
