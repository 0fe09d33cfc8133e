/* ZeRO-3 as XLA runs it over a scanned layer stack (issue 21; software
 * xla_layer_gather, model_zero.c): MaxText's layers are gathered and their
 * gradients reduce-scattered in the compute format (bf16 copies of the fp32
 * shards), with three gathered layers at the peak (the layer computing, the
 * one prefetched and the gathered gradient: MaxText layers/fsdp_prefetch.py),
 * where PyTorch FSDP holds two layers of stored weights and one of
 * gradients. The same MaxText setup is evaluated with the stack's picture
 * and with the FSDP one (the catalog entry copied, the flag cleared). */
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

/* The 22B MaxText row (v4-128: 48 layers, hidden 6144, 24 heads of 256,
 * SwiGLU 24576, fp32 weights, ZeRO-3 over 64 chips), evaluated with the
 * catalog's maxtext entry and with that entry as PyTorch FSDP pictures it. */
static void eval_both(struct setup *s, struct model_report *xla, struct model_report *fsdp)
{
    char err[1024];
    struct resolved r;
    if (!setup_load_file(s, "tests/validation/setups/maxtext-22b-v4-128.yaml", cat, err,
                         sizeof err))
        fail_msg("%s", err);
    if (!setup_resolve(s, cat, &r, err, sizeof err))
        fail_msg("%s", err);
    assert_true(r.software->xla_layer_gather);
    model_eval(s, &r, xla);
    struct software pytorch = *r.software;
    pytorch.xla_layer_gather = false;
    r.software = &pytorch;
    model_eval(s, &r, fsdp);
}

/* The gathering unit: the stage's parameters over its layers (no
 * pipeline here: all of them; the embedding and output layer shared out). */
static double layer_params(const struct setup *s, const struct model_report *o)
{
    return o->params / s->model.layers;
}

static void test_gathered_layers_in_compute_format(void **state)
{
    (void)state;
    struct setup s;
    struct model_report xla, fsdp;
    eval_both(&s, &xla, &fsdp);
    double lp = layer_params(&s, &xla), devices = xla.devices;
    /* The fp32 shards (weights are the master: 4 bytes) plus three
     * gathered bf16 layers. */
    double want_xla = (xla.params * 4.0 / devices + 3.0 * 2.0 * lp) / 1e9;
    /* FSDP: two gathered layers of stored (fp32) weights and one fp32
     * gradient. */
    double want_fsdp = (fsdp.params * 4.0 / devices + (2.0 * 4.0 + 4.0) * lp) / 1e9;
    assert_true(fabs(xla.memory.params_gb - want_xla) <= 1e-9 * want_xla);
    assert_true(fabs(fsdp.memory.params_gb - want_fsdp) <= 1e-9 * want_fsdp);
    /* What the XLA picture saves: 6 bytes per parameter of one layer. */
    assert_true(fsdp.memory.per_device_gb - xla.memory.per_device_gb >= 6.0 * lp / 1e9);
    /* Nothing else changes: gradients, optimizer state and activations. */
    assert_true(xla.memory.grads_gb == fsdp.memory.grads_gb);
    assert_true(xla.memory.optimizer_gb == fsdp.memory.optimizer_gb);
    assert_true(xla.memory.activations_gb == fsdp.memory.activations_gb);
}

static void test_gathers_move_compute_format(void **state)
{
    (void)state;
    struct setup s;
    struct model_report xla, fsdp;
    eval_both(&s, &xla, &fsdp);
    /* The per-layer all-gathers and reduce-scatters move 2 bytes per
     * parameter instead of 4: half the traffic, less a little latency. */
    double ratio = xla.stages.dp_comm_s / fsdp.stages.dp_comm_s;
    assert_true(ratio > 0.45 && ratio < 0.55);
}

/* Only the XLA stack pictures ZeRO-3 so; the PyTorch and Megatron stacks
 * keep FSDP's picture. */
static void test_only_xla_stacks(void **state)
{
    (void)state;
    for (size_t i = 0; i < cat->n_softwares; i++) {
        const struct software *sw = &cat->softwares[i];
        assert_int_equal(sw->xla_layer_gather, strcmp(sw->head.id, "maxtext") == 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gathered_layers_in_compute_format),
        cmocka_unit_test(test_gathers_move_compute_format),
        cmocka_unit_test(test_only_xla_stacks),
    };
    return cmocka_run_group_tests(tests, load_catalog, free_catalog);
}
