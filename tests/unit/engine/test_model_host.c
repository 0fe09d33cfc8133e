/* The host side of a layer (issue 21, engine/model/model_host.c,
 * docs/MODEL.md section 12): a layer's pass takes max(GPU time, host time
 * to issue its operations); a dropless MoE layer adds the GPU's wait for the
 * first launch after its synchronisation; CUDA graphs leave one launch per
 * layer, and the experts of a dropless MoE layer eager. Cases with round
 * numbers first, then a small layer through the whole model on the shipped
 * catalog, then the stack rule. Tests run from the repository root. */
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

#include "../../catalog_fixture.h"

#include "assert_close.h"

/* A host of 10 us per operation and a stack issuing 100 operations per
 * layer forward, 10 more per MoE block and one per expert GEMM over 4
 * streams; 8 experts over 2 expert ranks (4 local: 8 GEMM launches). */
struct bench {
    struct setup s;
    struct software sw;
    struct cpu cpu;
    struct resolved r;
    struct ctx c;
};

static void bench_init(struct bench *b)
{
    memset(b, 0, sizeof *b);
    setup_defaults(&b->s);
    b->s.model.experts = 8;
    b->cpu.host_op_us = 10;
    b->sw.host_ops_per_layer_fwd = 100;
    b->sw.host_ops_per_moe_fwd = 10;
    b->sw.expert_gemm_streams = 4;
    b->sw.moe_host_sync = true;
    b->r.software = &b->sw;
    b->r.cpu = &b->cpu;
    b->c.s = &b->s;
    b->c.r = &b->r;
    b->c.ep = 2;
}

static void layer(struct layer_times *lt, double fwd, double bwd)
{
    memset(lt, 0, sizeof *lt);
    lt->fwd = fwd;
    lt->bwd = bwd;
}

/* Dense layer: 100 ops, 1 ms forward and 2 ms backward on the host. A GPU
 * forward of 0.4 ms waits 0.6 ms; a backward of 0.5 ms waits 1.5 ms; a GPU
 * slower than the host waits nothing. Only computation is compared (the
 * layer's communication overlaps as the stage decides). */
static void test_dense_layer(void **state)
{
    (void)state;
    struct bench b;
    bench_init(&b);
    struct layer_times lt;
    layer(&lt, 0.4e-3, 0.5e-3);
    model_layer_host(&b.c, false, &lt);
    assert_close(lt.fwd, 1e-3, 1e-12);
    assert_close(lt.bwd, 2e-3, 1e-12);
    assert_close(lt.host_f, 0.6e-3, 1e-12);
    assert_close(lt.host_b, 1.5e-3, 1e-12);
    layer(&lt, 3e-3, 5e-3);
    model_layer_host(&b.c, false, &lt);
    assert_close(lt.fwd, 3e-3, 1e-12);
    assert_close(lt.bwd, 5e-3, 1e-12);
    layer(&lt, 0.4e-3, 0.5e-3);
    lt.tp_comm = lt.ep_fwd = 0.2e-3; /* communication does not shorten the wait */
    model_layer_host(&b.c, false, &lt);
    assert_close(lt.host_f, 0.6e-3, 1e-12);
    assert_close(lt.host_b, 1.5e-3, 1e-12);
}

/* MoE layer: 100 + 10 + 2 x 4 = 118 ops (1.18 ms forward). Dropless: the
 * forward also waits one op (10 us) after the sync; with a capacity the
 * shapes are fixed and there is no sync. Grouped GEMM kernels (no streams):
 * 2 launches, 112 ops. */
static void test_moe_layer(void **state)
{
    (void)state;
    struct bench b;
    bench_init(&b);
    assert_close(model_layer_host_ops(&b.c, true), 118, 1e-12);
    assert_true(model_moe_syncs(&b.c));
    struct layer_times lt;
    layer(&lt, 1e-3, 3e-3);
    model_layer_host(&b.c, true, &lt);
    assert_close(lt.host_f, 0.18e-3 + 10e-6, 1e-12);
    assert_close(lt.host_b, 0.0, 1e-12);
    layer(&lt, 5e-3, 10e-3);
    model_layer_host(&b.c, true, &lt);
    assert_close(lt.fwd, 5e-3 + 10e-6, 1e-12);
    b.s.training.capacity_factor = 1.25;
    assert_false(model_moe_syncs(&b.c));
    layer(&lt, 5e-3, 10e-3);
    model_layer_host(&b.c, true, &lt);
    assert_close(lt.fwd, 5e-3, 1e-12);
    b.sw.expert_gemm_streams = 0;
    assert_close(model_layer_host_ops(&b.c, true), 112, 1e-12);
    b.sw.moe_host_sync = false;
    b.s.training.capacity_factor = 0;
    assert_false(model_moe_syncs(&b.c));
}

/* CUDA graphs: one replay per layer; a dropless MoE layer keeps its MoE
 * block eager (1 + 10 + 8 = 19), a padded one is captured whole. No host
 * figure or a compiled stack: nothing changes. */
static void test_graphs_and_no_figure(void **state)
{
    (void)state;
    struct bench b;
    bench_init(&b);
    b.s.training.cuda_graphs = true;
    assert_close(model_layer_host_ops(&b.c, false), 1, 1e-12);
    assert_close(model_layer_host_ops(&b.c, true), 19, 1e-12);
    b.s.training.capacity_factor = 1.25;
    assert_close(model_layer_host_ops(&b.c, true), 1, 1e-12);
    b.s.training.cuda_graphs = false;
    struct layer_times lt;
    b.cpu.host_op_us = 0;
    layer(&lt, 1e-6, 2e-6);
    model_layer_host(&b.c, false, &lt);
    assert_close(lt.fwd, 1e-6, 1e-12);
    b.cpu.host_op_us = 10;
    b.sw.host_ops_per_layer_fwd = 0;
    model_layer_host(&b.c, true, &lt);
    assert_close(lt.fwd, 1e-6, 1e-12);
    b.r.cpu = NULL;
    b.sw.host_ops_per_layer_fwd = 100;
    model_layer_host(&b.c, false, &lt);
    assert_close(lt.bwd, 2e-6, 1e-12);
}

/* A layer of a tiny model on the shipped catalog (H100 on Xeon 8480C,
 * nemo): the GPU finishes it in microseconds, so its forward is the host's
 * 18.5 ops of 13.48 us and its backward twice that; with CUDA graphs one
 * launch (13.48 us) is below the GPU's time and the host drops out. */
static void test_through_the_model(void **state)
{
    (void)state;
    const char *text =
        "cluster: {nodes: 1, node: {accelerator: h100-sxm, accelerators_per_node: 8, "
        "cpu: xeon-8480}}\n"
        "model: {layers: 2, hidden: 256, heads: 4, seq_len: 128, vocab: 1000}\n"
        "training: {global_batch: 8, micro_batch: 1, precision: bf16, flash_attention: true, "
        "software: nemo}\n";
    char err[1024];
    struct setup s;
    struct resolved r;
    struct ctx c;
    setup_defaults(&s);
    if (!setup_load_string(&s, "s.yaml", text, cat, err, sizeof err))
        fail_msg("%s", err);
    if (!setup_resolve(&s, cat, &r, err, sizeof err))
        fail_msg("%s", err);
    model_make_ctx(&s, &r, &c);
    struct layer_times lt;
    model_layer_times(&c, false, &lt);
    assert_close(lt.fwd, 18.5 * 13.48e-6, 1e-9);
    assert_close(lt.bwd, 2 * 18.5 * 13.48e-6, 1e-9);
    s.training.cuda_graphs = true;
    model_layer_times(&c, false, &lt);
    assert_true(lt.host_f == 0 && lt.host_b == 0);
    assert_true(lt.fwd > 13.48e-6 && lt.fwd < 18.5 * 13.48e-6);
}

/* Tensor-parallel traffic hides beside its own pass's GEMMs, the
 * backward's (data and weight gradients) twice the forward's: timed against
 * the forward's GEMMs, the backward's hiding shrank with them, and a higher
 * peak made the step slower (the fuzz input of issue 20 where a B200 capped
 * at 218 W lost 0.3% to a higher peak; this is a small copy of it). */
static void test_tp_hiding_per_pass(void **state)
{
    (void)state;
    const char *text =
        "cluster: {nodes: 64, node: {accelerator: b200, accelerators_per_node: 8, cpu: xeon-8480, "
        "intra_link: usb3-gen1, power_limit_w: 218}}\n"
        "model: {layers: 61, hidden: 2048, heads: 16, seq_len: 256, vocab: 32000, causal: false, "
        "kv_lora_rank: 64, q_lora_rank: 384, v_head_dim: 64, dropout: 0.3, mtp_layers: 1}\n"
        "training: {global_batch: 8, micro_batch: 1, precision: fp32, optimizer: adafactor, "
        "tensor_parallel: 8, context_parallel: 8, sequence_parallel: true, zero_stage: 1, "
        "software: megatron-core, lora_rank: 4}\n";
    char err[1024];
    struct setup s;
    struct resolved r;
    setup_defaults(&s);
    if (!setup_load_string(&s, "s.yaml", text, cat, err, sizeof err))
        fail_msg("%s", err);
    if (!setup_resolve(&s, cat, &r, err, sizeof err))
        fail_msg("%s", err);
    struct accelerator fast = *r.accel;
    struct resolved rf = r;
    rf.accel = &fast;
    for (int p = 0; p < PREC_COUNT; p++)
        fast.peak_tflops[p] *= 2.0;
    struct model_report o, of;
    model_eval(&s, &r, &o);
    model_eval(&s, &rf, &of);
    assert_true(of.step_time_s <= o.step_time_s);
    struct ctx c, cf;
    model_make_ctx(&s, &r, &c);
    model_make_ctx(&s, &rf, &cf);
    struct layer_times lt, lf;
    model_layer_times(&c, false, &lt);
    model_layer_times(&cf, false, &lf);
    /* LoRA halves the backward's GEMMs: it waits on the host, whose wait
     * widens its window; a faster forward leaves it no narrower. */
    assert_true(lt.host_f == 0 && lt.host_b > 0 && lt.tp_hidden_b > lt.tp_hidden);
    assert_true(lf.tp_hidden < lt.tp_hidden && lf.tp_hidden_b >= lt.tp_hidden_b);
    /* Full training: the backward's GEMMs are twice the forward's. */
    s.training.lora_rank = 0;
    model_make_ctx(&s, &r, &c);
    model_layer_times(&c, false, &lt);
    assert_close(lt.tp_hidden_b, 2.0 * lt.tp_hidden, 1e-12);
}

/* The stack must capture graphs (training.software's cuda_graphs), on an
 * NVIDIA GPU: refused at the field with its line and column. */
static void test_graphs_rule(void **state)
{
    (void)state;
    const char *fmt = "cluster: {nodes: 1, node: {accelerator: %s, accelerators_per_node: 8}}\n"
                      "training: {cuda_graphs: true, software: %s}\n";
    const struct {
        const char *accel, *sw;
        bool ok;
    } cases[] = {{"h100-sxm", "megatron-core", true},
                 {"h100-sxm", "torchtitan", false},
                 {"mi300x", "megatron-core", false}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[256], err[1024];
        snprintf(text, sizeof text, fmt, cases[i].accel, cases[i].sw);
        struct setup s;
        setup_defaults(&s);
        bool ok = setup_load_string(&s, "s.yaml", text, cat, err, sizeof err);
        if (ok != cases[i].ok)
            fail_msg("%s: %s", text, ok ? "loaded" : err);
        if (!ok && (strncmp(err, "s.yaml:", 7) != 0 || !strstr(err, "cuda_graphs")))
            fail_msg("expected 's.yaml:L:C: ...cuda_graphs...', got '%s'", err);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dense_layer),          cmocka_unit_test(test_moe_layer),
        cmocka_unit_test(test_graphs_and_no_figure), cmocka_unit_test(test_through_the_model),
        cmocka_unit_test(test_graphs_rule),          cmocka_unit_test(test_tp_hiding_per_pass),
    };
    return cmocka_run_group_tests(tests, load_catalog, free_catalog);
}
