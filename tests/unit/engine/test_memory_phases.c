/* The memory peak is the largest of the step's phases (model_memory.c,
 * docs/MODEL.md section 4): the end of the forward pass holds the stored
 * activations and the loss's logits, the backward of the last layer the
 * stored activations and the layer rebuilt by recomputation, the optimizer
 * step the states alone. The logits and the rebuilt layer are never live
 * at once, so the peak is not their sum. Two published rows sit on either
 * side: MaxText 22B on TPU v4 peaks in the backward (the rebuilt layer is
 * larger than its logits), torchtitan's 8B at the loss (128k-entry logits
 * at 8192 tokens). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "model.h"
#include "model_internal.h"
#include "setup.h"

#include "../../catalog_fixture.h"

#define GB 1e9

static void load(const char *file, struct setup *s, struct resolved *r)
{
    char err[1024];
    if (!setup_load_file(s, file, cat, err, sizeof err))
        fail_msg("%s", err);
    if (!setup_resolve(s, cat, r, err, sizeof err))
        fail_msg("%s", err);
}

/* The phases of the only stage of a setup without a pipeline; `stored`,
 * its stored activations (one micro-batch of every layer in flight). */
static void phases_of(const struct setup *s, const struct resolved *r, double ph[MEMORY_PHASES],
                      double *stored)
{
    struct ctx c;
    model_make_ctx(s, r, &c);
    assert_int_equal(model_memory_phases(&c, 0, ph), 1);
    assert_int_equal(s->training.pipeline_parallel, 1);
    *stored = s->model.layers * c.act_dense;
}

static double largest(const double ph[MEMORY_PHASES])
{
    double m = ph[0];
    for (int p = 1; p < MEMORY_PHASES; p++)
        m = ph[p] > m ? ph[p] : m;
    return m;
}

/* The report's total is the peak phase plus the reserve, never the states
 * plus every activation the phases hold between them. */
static void check_peak_is_the_largest_phase(const char *file, int want_peak)
{
    struct setup s;
    struct resolved r;
    load(file, &s, &r);
    double ph[MEMORY_PHASES], stored;
    phases_of(&s, &r, ph, &stored);
    struct model_report o;
    model_eval(&s, &r, &o);
    const struct memory_report *m = &o.memory;
    double peak = largest(ph);
    assert_true(ph[want_peak] == peak);
    double reserve = r.software->runtime_reserved_gb * GB + r.software->fragmentation * peak;
    assert_true(fabs(m->per_device_gb * GB - (peak + reserve)) <= 1e-9 * peak);
    /* The sum charges the states once, the stored activations once, and the
     * logits and the rebuilt layer both: larger by the smaller of the two. */
    double states = ph[MEMORY_PHASE_OPTIMIZER];
    double logits = ph[MEMORY_PHASE_FORWARD_END] - states - stored;
    double rebuilt = ph[MEMORY_PHASE_BACKWARD_LAST] - states - stored;
    assert_true(logits > 1e8 && rebuilt > 1e8);
    double sum = states + stored + logits + rebuilt;
    double smaller = logits < rebuilt ? logits : rebuilt;
    assert_true(fabs(sum - peak - smaller) <= 1e-9 * sum);
    assert_true((m->per_device_gb - m->reserved_gb) * GB < sum - 0.5 * smaller);
    /* The breakdown is the peak phase's and adds up to the total. */
    double parts = m->params_gb + m->grads_gb + m->optimizer_gb + m->activations_gb + m->logits_gb +
                   m->reserved_gb;
    assert_true(fabs(parts - m->per_device_gb) <= 1e-9 * m->per_device_gb);
    assert_true(want_peak == MEMORY_PHASE_FORWARD_END ? m->logits_gb > 0 : m->logits_gb == 0);
    assert_true(fabs((m->params_gb + m->grads_gb + m->optimizer_gb) * GB - states) <=
                1e-9 * states);
}

static void test_xla_row_peaks_in_the_backward(void **state)
{
    (void)state;
    check_peak_is_the_largest_phase("tests/validation/setups/maxtext-22b-v4-128.yaml",
                                    MEMORY_PHASE_BACKWARD_LAST);
}

static void test_torchtitan_row_peaks_at_the_loss(void **state)
{
    (void)state;
    check_peak_is_the_largest_phase("tests/validation/setups/torchtitan-8b-h100-96gb.yaml",
                                    MEMORY_PHASE_FORWARD_END);
}

/* The MaxText 22B layout ran on 32 GiB v4 chips: with the phases, XLA's
 * own 1.25 GiB reserve and no caching-allocator fragmentation it fits;
 * summing the logits and the rebuilt layer (5.1 + 6.2 GB there) it would
 * not. */
static void test_xla_22b_fits(void **state)
{
    (void)state;
    struct setup s;
    struct resolved r;
    load("tests/validation/setups/maxtext-22b-v4-128.yaml", &s, &r);
    struct model_report o;
    model_eval(&s, &r, &o);
    assert_true(o.memory.fits);
    assert_true(o.runnable);
    double ph[MEMORY_PHASES], stored;
    phases_of(&s, &r, ph, &stored);
    double states = ph[MEMORY_PHASE_OPTIMIZER];
    double sum = ph[MEMORY_PHASE_FORWARD_END] + ph[MEMORY_PHASE_BACKWARD_LAST] - states - stored +
                 r.software->runtime_reserved_gb * GB;
    assert_true(sum > o.memory.capacity_gb * GB);
}

/* Fragmentation is the caching allocator's: the PyTorch stacks have it,
 * XLA's static buffer assignment (maxtext) has none. */
static void test_fragmentation_only_on_pytorch_stacks(void **state)
{
    (void)state;
    for (size_t i = 0; i < cat->n_softwares; i++) {
        const struct software *sw = &cat->softwares[i];
        bool xla = strcmp(sw->head.id, "maxtext") == 0;
        if (xla)
            assert_true(sw->fragmentation == 0.0);
        else
            assert_true(sw->fragmentation > 0.0);
    }
}

/* Without recomputation nothing is rebuilt: the backward phase holds the
 * stored activations only, and the end of the forward pass is the peak. */
static void test_no_recompute_no_rebuilt_layer(void **state)
{
    (void)state;
    struct setup s;
    struct resolved r;
    load("tests/validation/setups/maxtext-22b-v4-128.yaml", &s, &r);
    s.training.recompute = RECOMPUTE_NONE;
    double ph[MEMORY_PHASES], stored;
    phases_of(&s, &r, ph, &stored);
    assert_true(ph[MEMORY_PHASE_FORWARD_END] > ph[MEMORY_PHASE_BACKWARD_LAST]);
    assert_true(ph[MEMORY_PHASE_BACKWARD_LAST] > ph[MEMORY_PHASE_OPTIMIZER]);
    /* The logits: s b V x (the loss's bytes per logit), MaxText bf16. */
    double logits = 2048.0 * 13 * 32000 * (r.software->loss_logit_bytes + 2.0 - 2.0);
    assert_true(fabs(ph[MEMORY_PHASE_FORWARD_END] - ph[MEMORY_PHASE_BACKWARD_LAST] - logits) <=
                1e-9 * logits);
    /* Out of range: no stage, no bytes. */
    struct ctx c;
    model_make_ctx(&s, &r, &c);
    assert_int_equal(model_memory_phases(&c, 5, ph), 1);
    assert_true(ph[0] == 0 && ph[1] == 0 && ph[2] == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xla_row_peaks_in_the_backward),
        cmocka_unit_test(test_torchtitan_row_peaks_at_the_loss),
        cmocka_unit_test(test_xla_22b_fits),
        cmocka_unit_test(test_fragmentation_only_on_pytorch_stacks),
        cmocka_unit_test(test_no_recompute_no_rebuilt_layer),
    };
    return cmocka_run_group_tests(tests, load_catalog, free_catalog);
}
