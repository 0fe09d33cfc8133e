/* The mechanisms of issue 11's second pass (docs/MODEL.md, sections 1-4),
 * each against a case computed by hand: the attention width of heads that
 * are not hidden / heads wide, the output layer in 16 bits with the stack's
 * cross-entropy traffic, the GEMM output write after the main loop, the
 * token permutations of the all-to-all dispatcher and ZeRO-3's per-layer
 * gathers. The internal functions are driven through a context built here
 * with round numbers, so that every expected value can be checked on paper.
 * Tests run from the repository root. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "collective.h"
#include "model.h"
#include "model_internal.h"

#include "../../catalog_fixture.h"

#include "assert_close.h"

/* A device of round numbers: 4 compute units and 128-wide tiles (so the
 * shapes below fill whole waves), 1 PFLOP/s at 16 bits and 2 at FP8, half
 * of it reached by large GEMMs, 10 TB/s of memory, no kernel overhead. */
struct bench {
    struct setup s;
    struct accelerator accel;
    struct software sw;
    struct link intra;
    struct resolved r;
    struct ctx c;
};

static void bench_init(struct bench *b)
{
    memset(b, 0, sizeof *b);
    setup_defaults(&b->s);
    b->accel.compute_units = 4;
    b->accel.gemm_tile = 128;
    b->sw.loss_bytes_per_logit = 52;
    b->sw.loss_logit_bytes = 6; /* the catalog's default: fused cross entropy */
    b->sw.dp_overlap_window = 1.0;
    b->intra.bw_gbs = 100;
    b->intra.nccl_efficiency = 1.0;
    b->r.accel = &b->accel;
    b->r.software = &b->sw;
    b->r.intra_link = &b->intra;
    struct ctx *c = &b->c;
    c->s = &b->s;
    c->r = &b->r;
    c->devices = c->per_node = c->nodes = c->tp = c->pp = c->dp = c->mb = c->m = 1;
    c->cp = c->ep = 1;
    c->domain = 8;
    c->peak_flops = 2e15; /* FP8 */
    c->vector_peak_flops = 1e15;
    c->gemm_eff = 0.5;
    c->mem_bw = 1e13;
    c->kernel_s = 0.0;
    c->act_bytes = 2.0;
    c->gemm_in_bytes = 1.0;
    c->w_bytes = 2.0;
    c->grad_bytes = 4.0;
    c->throttle = 1.0;
}

/* Qwen3-30B-A3B: 32 heads of 128 on a hidden size of 2048, 4 KV heads; its
 * output layer is not tied to the embedding. */
static void test_attention_width(void **state)
{
    (void)state;
    struct setup s;
    setup_defaults(&s);
    s.model.hidden = 2048;
    s.model.heads = 32;
    s.model.kv_heads = 4;
    s.model.head_dim = 128;
    double q, kv;
    model_attention_dims(&s, &q, &kv);
    assert_close(q, 4096.0, 1e-12);
    assert_close(kv, 512.0, 1e-12);
    /* Without head_dim the heads split the hidden size: 2048 / 32 = 64. */
    s.model.head_dim = 0;
    model_attention_dims(&s, &q, &kv);
    assert_close(q, 2048.0, 1e-12);
    assert_close(kv, 256.0, 1e-12);

    /* One layer: Q and O 2048 x 4096 each, K and V 2048 x 512 each, two
     * norms of 2 x 2048 = 18,882,560; GeLU MLP 2 x 2048 x 8192 =
     * 33,554,432; embedding 1000 x 2048 = 2,048,000. */
    char err[1024];
    const char *text = "model: {layers: 1, hidden: 2048, heads: 32, kv_heads: 4, head_dim: 128,\n"
                       "        ffn_hidden: 8192, mlp: gelu, vocab: 1000}\n";
    setup_defaults(&s);
    if (!setup_load_string(&s, "s.yaml", text, cat, err, sizeof err))
        fail_msg("%s", err);
    assert_close(model_params(&s), 54484992.0, 1e-12);
    /* An untied output layer (Llama, Qwen3) is a second 1000 x 2048 matrix. */
    s.model.tied_embeddings = false;
    assert_close(model_params(&s), 56532992.0, 1e-12);
    /* On a single stage it is a second copy in memory too: 2,048,000
     * parameters x (2 + 4 + 12) bytes of Megatron-Core states on one
     * device, 36.864 MB more. */
    struct resolved r1;
    struct model_report tied, untied;
    snprintf(s.training.software, sizeof s.training.software, "megatron-core");
    s.cluster.nodes = 1;
    s.cluster.node.accelerators_per_node = 1;
    s.training.global_batch = 1;
    if (!setup_resolve(&s, cat, &r1, err, sizeof err))
        fail_msg("%s", err);
    model_eval(&s, &r1, &untied);
    s.model.tied_embeddings = true;
    model_eval(&s, &r1, &tied);
    double states_gb =
        (untied.memory.params_gb + untied.memory.grads_gb + untied.memory.optimizer_gb) -
        (tied.memory.params_gb + tied.memory.grads_gb + tied.memory.optimizer_gb);
    assert_close(states_gb, 0.036864, 1e-9);

    /* head_dim frees the hidden size from dividing by the heads: 2048 / 24
     * is refused without it and accepted with it. */
    setup_defaults(&s);
    assert_false(setup_load_string(&s, "s.yaml", "model: {hidden: 2048, heads: 24, kv_heads: 8}\n",
                                   cat, err, sizeof err));
    assert_non_null(strstr(err, "not divisible by model.heads"));
    setup_defaults(&s);
    if (!setup_load_string(&s, "s.yaml",
                           "model: {hidden: 2048, heads: 24, kv_heads: 8, head_dim: 128}\n", cat,
                           err, sizeof err))
        fail_msg("%s", err);
}

/* A 512 x 1024 x 1024 logits GEMM (512 tokens, vocabulary 1024, hidden
 * 1024) in an FP8 recipe runs at the 16-bit rate: 2 x 512 x 1024 x 1024 /
 * (1e15 x 0.5) = 2.147483648 us of math. The reference GEMM (8192^3) spends
 * 2199.023255552 us on math and 13.4217728 us storing its 16-bit output, so
 * math keeps 1 - 13.4217728 / 2199.023255552 = 0.993896484375 of its time;
 * the logits store 512 x 1024 x 2 B / 10 TB/s = 0.1048576 us. GEMM: 2.239234048
 * us. Loss: 52 B x 512 x 1024 / 10 TB/s = 2.7262976 us, half per pass. */
static void test_output_layer(void **state)
{
    (void)state;
    struct bench b;
    bench_init(&b);
    b.s.model.vocab = 1024;
    b.s.model.hidden = 1024;
    double fwd, bwd;
    model_output_layer(&b.c, 512, &fwd, &bwd);
    assert_close(fwd, 2.239234048e-6 + 1.3631488e-6, 1e-9);
    assert_close(bwd, 2.0 * 2.239234048e-6 + 1.3631488e-6, 1e-9);
    /* A fused loss (12 bytes per logit) saves 40 x 512 x 1024 / 1e13 s,
     * half in each pass. */
    b.sw.loss_bytes_per_logit = 12;
    double fwd12, bwd12;
    model_output_layer(&b.c, 512, &fwd12, &bwd12);
    assert_close(fwd - fwd12, 1.048576e-6, 1e-9);
    assert_close(bwd - bwd12, 1.048576e-6, 1e-9);
}

/* The catalog's reference GEMM keeps exactly its measured time; an 8192 x
 * 8192 x 1024 GEMM (274.877906944 us of math at 1 PFLOP/s x 0.5) keeps
 * 0.993896484375 of it and adds the 13.4217728 us store: 286.621958144 us,
 * 4.3% more than the math alone. */
static void test_gemm_epilogue(void **state)
{
    (void)state;
    struct bench b;
    bench_init(&b);
    b.c.peak_flops = 1e15;
    assert_close(model_gemm_with_epilogue(&b.c, 2199.023255552e-6, 8192.0 * 8192.0),
                 2199.023255552e-6, 1e-12);
    assert_close(model_gemm_with_epilogue(&b.c, 274.877906944e-6, 8192.0 * 8192.0),
                 286.621958144e-6, 1e-12);
    /* Through the whole GEMM: 4 x 8 tiles of 128 fill 8 waves of 4 units. */
    b.c.gemm_in_bytes = 2.0;
    assert_close(model_gemm_time(&b.c, 1, 512, 1024, 1024), 2.239234048e-6, 1e-9);
    /* Nothing to do stays nothing. */
    assert_close(model_gemm_with_epilogue(&b.c, 0.0, 0.0), 0.0, 1e-12);
}

/* Megatron-Core's all-to-all dispatcher: 8192 tokens, top-8, hidden 2048.
 * 128 experts on 8 ranks = 16 per rank: permutation 1 and the re-sort by
 * local expert, each undone after the experts: 4 copies reading and writing
 * 2 bytes of every routed h-vector, 4 x 4 x 8192 x 8 x 2048 = 2 GiB. One
 * expert per rank needs no re-sort: half of it. */
static void test_moe_permutations(void **state)
{
    (void)state;
    struct bench b;
    bench_init(&b);
    b.s.model.experts = 128;
    b.s.model.top_k = 8;
    b.s.model.hidden = 2048;
    b.c.ep = 8;
    assert_close(model_moe_permute_bytes(&b.c, 8192), 2147483648.0, 1e-12);
    b.c.ep = 128;
    assert_close(model_moe_permute_bytes(&b.c, 8192), 1073741824.0, 1e-12);
    /* Tensor parallelism splits the tokens' copies over its ranks. */
    b.c.tp = 2;
    assert_close(model_moe_permute_bytes(&b.c, 8192), 536870912.0, 1e-12);
    /* FP8: the saved expert inputs take 1 byte, not 2. 8192 tokens with
     * expert FFN 768 and capacity factor 1: fc2 inputs 8 x 768 and the
     * permuted tokens 8 x 2048 per token, 8192 x 22528 = 184,549,376 bytes
     * fewer. A capacity factor of 1.5 pads the fc2 inputs: 8192 x (12 x 768
     * + 16384) = 209,715,200. */
    b.s.model.expert_ffn_hidden = 768;
    b.s.training.capacity_factor = 1.0;
    assert_close(model_moe_fp8_saved_bytes_saving(&b.s, 8192), 184549376.0, 1e-12);
    b.s.training.capacity_factor = 1.5;
    assert_close(model_moe_fp8_saved_bytes_saving(&b.s, 8192), 209715200.0, 1e-12);
}

/* Expert all-to-alls under another micro-batch (Megatron-Core
 * --overlap-moe-expert-parallel-comm): 20 ms of all-to-alls against 8.5 ms
 * of the layer's compute leave 11.5 ms; against 25 ms nothing. Off, all
 * 20 ms show. A setup asking for it without expert parallelism, or on a
 * stack without it, is refused at its value (column 49 of line 2). */
static void test_ep_overlap(void **state)
{
    (void)state;
    struct bench b;
    bench_init(&b);
    b.s.training.ep_comm_overlap = true;
    assert_close(model_moe_exposed_a2a(&b.c, 20e-3, 8.5e-3), 11.5e-3, 1e-12);
    assert_close(model_moe_exposed_a2a(&b.c, 20e-3, 25e-3), 0.0, 1e-12);
    b.s.training.ep_comm_overlap = false;
    assert_close(model_moe_exposed_a2a(&b.c, 20e-3, 8.5e-3), 20e-3, 1e-12);

    const char *moe = "model: {layers: 4, experts: 8, top_k: 2}\n"
                      "training: {expert_parallel: %d, ep_comm_overlap: true, software: %s}\n";
    const struct {
        int ep;
        const char *sw;
        bool ok;
        int col;
    } cases[] = {{2, "megatron-core", true, 0},
                 {1, "megatron-core", false, 49},
                 {2, "deepspeed", false, 49}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[256], err[1024], prefix[32];
        snprintf(text, sizeof text, moe, cases[i].ep, cases[i].sw);
        struct setup s;
        setup_defaults(&s);
        bool ok = setup_load_string(&s, "s.yaml", text, cat, err, sizeof err);
        if (ok != cases[i].ok)
            fail_msg("%s: %s", text, ok ? "loaded" : err);
        if (ok)
            continue;
        snprintf(prefix, sizeof prefix, "s.yaml:2:%d: ", cases[i].col);
        if (strncmp(err, prefix, strlen(prefix)) != 0 || !strstr(err, "ep_comm_overlap"))
            fail_msg("expected '%s...ep_comm_overlap...', got '%s'", prefix, err);
    }
}

/* ZeRO-3 over 4 ranks of one node (ring at 100 GB/s, no latency), 1e9
 * parameters per device in 4 layers, 2 micro-batches. Per layer: gather of
 * 0.5 GB of bf16 weights, 3/4 x 0.5e9 / 1e11 = 3.75 ms; reduce-scatter of
 * 1 GB of fp32 gradients, 7.5 ms. Forward 8 ms (2 ms per layer): the first
 * gather 3.75 + 3 x (3.75 - 2) = 9 ms exposed. Backward 16 ms (4 ms per
 * layer): 3 x (3.75 + 7.5 - 4) + 7.5 = 29.25 ms (the last layer of the
 * forward stays gathered for the backward). Per step: 2 x 38.25 = 76.5 ms
 * exposed of 2 x (4 x (3.75 + 7.5) + 3 x 3.75) = 112.5 ms. */
static void test_zero3_per_layer(void **state)
{
    (void)state;
    struct bench b;
    bench_init(&b);
    b.s.model.kind = MODEL_TRANSFORMER;
    b.s.model.layers = 4;
    b.s.training.overlap_grad_sync = true;
    b.c.m = 2;
    struct collective_net net = {4, 4, 100, 0.0, 100, 0.0, 0.0, 0.0};
    struct zero3_cost z;
    model_zero3_sync(&b.c, &net, ALLREDUCE_RING, 1e9, 8e-3, 16e-3, &z);
    assert_close(model_zero3_units(&b.c), 4.0, 1e-12);
    assert_close(z.exposed, 76.5e-3, 1e-9);
    assert_close(z.total, 112.5e-3, 1e-9);
    /* Every per-layer collective pays its own latency: 10 us per ring step,
     * 3 steps, 11 collectives per micro-batch (4 + 3 gathers, 4
     * reduce-scatters), 2 micro-batches: 0.66 ms more in all. */
    net.intra_lat_s = 10e-6;
    struct zero3_cost zl;
    model_zero3_sync(&b.c, &net, ALLREDUCE_RING, 1e9, 8e-3, 16e-3, &zl);
    assert_close(zl.total - z.total, 0.66e-3, 1e-6);
    /* Without overlap nothing hides: everything is exposed. */
    b.s.training.overlap_grad_sync = false;
    model_zero3_sync(&b.c, &net, ALLREDUCE_RING, 1e9, 8e-3, 16e-3, &zl);
    assert_close(zl.exposed, zl.total, 1e-9);
    /* Memory: two layers' bf16 weights and one layer's fp32 gradient,
     * 1e9 x (2 x 2 + 4) = 8 GB. */
    assert_close(model_zero3_buffer_bytes(&b.c, 1e9), 8e9, 1e-12);
}

/* End to end on one H100 (no stragglers, no data-parallel traffic): the
 * megatron-core entry's unfused cross entropy (52 bytes per logit) against
 * nemo's fused one (12), which is the only difference between the two
 * entries. 4 micro-batches of 1024 tokens, vocabulary 32000, memory at
 * 3350 GB/s x 0.9: 4 x 40 x 1024 x 32000 / 3.015e12 = 1.7391 ms. */
static void test_loss_traffic_by_stack(void **state)
{
    (void)state;
    const struct software *mc = catalog_software(cat, "megatron-core");
    const struct software *nemo = catalog_software(cat, "nemo");
    assert_non_null(mc);
    assert_non_null(nemo);
    assert_close(mc->loss_bytes_per_logit, 52.0, 1e-12);
    assert_close(nemo->loss_bytes_per_logit, 12.0, 1e-12);
    const char *fmt = "cluster:\n  nodes: 1\n  node: {accelerators_per_node: 1}\n"
                      "model: {layers: 2, hidden: 1024, heads: 8, seq_len: 1024, vocab: 32000}\n"
                      "training: {global_batch: 4, micro_batch: 1, zero_stage: 1,\n"
                      "           software: %s}\n";
    double step[2];
    const char *stacks[2] = {"megatron-core", "nemo"};
    for (int i = 0; i < 2; i++) {
        char text[512], err[1024];
        snprintf(text, sizeof text, fmt, stacks[i]);
        struct setup s;
        struct resolved r;
        struct model_report o;
        setup_defaults(&s);
        if (!setup_load_string(&s, "s.yaml", text, cat, err, sizeof err) ||
            !setup_resolve(&s, cat, &r, err, sizeof err))
            fail_msg("%s", err);
        model_eval(&s, &r, &o);
        step[i] = o.device_step_s;
    }
    assert_close(step[0] - step[1], 4.0 * 40.0 * 1024.0 * 32000.0 / 3.015e12, 1e-6);
}

/* A fused-attention call whose thread blocks loop over n tiles of 128 with
 * a fixed cost of c iterations each: causal n / (n + 1 + 2c), full
 * n / (n + c). 512 causal tokens (n = 4) with c = 1: 4/7; a full 2048-long
 * loop (n = 16) with c = 2.9: 16/18.9; 64 tokens still cost one whole
 * tile: 1/4; an empty call costs nothing extra. */
static void test_attention_call_share(void **state)
{
    (void)state;
    assert_close(model_attention_call_share(512, true, 1.0), 4.0 / 7.0, 1e-12);
    assert_close(model_attention_call_share(2048, false, 2.9), 16.0 / 18.9, 1e-12);
    assert_close(model_attention_call_share(64, true, 1.0), 0.25, 1e-12);
    assert_close(model_attention_call_share(0, true, 1.0), 1.0, 1e-12);
}

/* Attention time by call length against the 16K reference (n = 128).
 * Forward, c = 1, sequence 8192 in one causal call (n = 64):
 * (128/131) / (64/67) = 134/131. With CP 2 (Transformer Engine's ring,
 * two steps of equal work): the first causal over 4096 (n = 32):
 * (128/131)(35/32) = 140/131; the second full with the slowest rank's loop
 * over 2048 (n = 16): (128/131)(17/16) = 136/131; mean 276/262. Backward,
 * c = 3 (reference 128/135): (128/135)(39/32) = 156/135 and
 * (128/135)(19/16) = 152/135, mean 308/270. A stack without the figure: 1.
 * The merges of CP 2 at q_dim 4096 and kv_dim 1024 on 4096 local tokens:
 * forward 6 bytes x 2 steps x 4096 x 4096 = 201,326,592; backward over Q,
 * K and V: 6 x 2 x 4096 x 6144 = 301,989,888; none without CP. */
static void test_attention_length_factor(void **state)
{
    (void)state;
    struct bench b;
    bench_init(&b);
    b.s.model.seq_len = 8192;
    b.s.model.causal = true;
    b.s.model.hidden = 4096;
    b.s.model.heads = 32;
    b.s.model.kv_heads = 8;
    b.s.model.head_dim = 0;
    b.sw.attention_fwd_tile_overhead = 1.0;
    b.sw.attention_bwd_tile_overhead = 3.0;
    assert_close(model_attention_length_factor(&b.c, false), 134.0 / 131.0, 1e-12);
    double fwd, bwd;
    model_cp_merge_bytes(&b.c, &fwd, &bwd);
    assert_close(fwd + bwd, 0.0, 1e-12);
    b.c.cp = 2;
    assert_close(model_attention_length_factor(&b.c, false), 276.0 / 262.0, 1e-12);
    assert_close(model_attention_length_factor(&b.c, true), 308.0 / 270.0, 1e-12);
    model_cp_merge_bytes(&b.c, &fwd, &bwd);
    assert_close(fwd, 201326592.0, 1e-12);
    assert_close(bwd, 301989888.0, 1e-12);
    b.sw.attention_fwd_tile_overhead = 0.0;
    assert_close(model_attention_length_factor(&b.c, false), 1.0, 1e-12);
}

/* Expert GEMMs of 128 x 128 x 1024 (FP8 inputs, one tile each) with a 1 us
 * kernel cost. Four at once fill the 4 units in one wave: 134.217728 ns of
 * math at 1 PFLOP/s, of which the 8192^3 reference keeps 0.98779296875,
 * plus the 4 x 128 x 128 x 2-byte store (13.1072 ns) and the kernel:
 * 1.145686528 us. Transformer Engine's 4 streams run 16 experts as 4 such
 * rounds: 4.582746112 us; 6 experts as one round of 4 and one of 2 (half
 * a wave: the same math time, half the store, 1.139132928 us):
 * 2.284819456 us. One grouped kernel over 16: 4 full waves, one kernel:
 * 4 x 145.686528 ns + 1 us = 1.582746112 us. */
static void test_expert_gemm_rounds(void **state)
{
    (void)state;
    struct bench b;
    bench_init(&b);
    b.c.kernel_s = 1e-6;
    b.sw.expert_gemm_streams = 4;
    assert_close(model_moe_expert_gemms(&b.c, 4, 128, 128, 1024), 1.145686528e-6, 1e-9);
    assert_close(model_moe_expert_gemms(&b.c, 16, 128, 128, 1024), 4.582746112e-6, 1e-9);
    assert_close(model_moe_expert_gemms(&b.c, 6, 128, 128, 1024), 2.284819456e-6, 1e-9);
    b.sw.expert_gemm_streams = 0;
    assert_close(model_moe_expert_gemms(&b.c, 16, 128, 128, 1024), 1.582746112e-6, 1e-9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_attention_width),
        cmocka_unit_test(test_output_layer),
        cmocka_unit_test(test_gemm_epilogue),
        cmocka_unit_test(test_moe_permutations),
        cmocka_unit_test(test_zero3_per_layer),
        cmocka_unit_test(test_loss_traffic_by_stack),
        cmocka_unit_test(test_ep_overlap),
        cmocka_unit_test(test_attention_call_share),
        cmocka_unit_test(test_attention_length_factor),
        cmocka_unit_test(test_expert_gemm_rounds),
    };
    return cmocka_run_group_tests(tests, load_catalog, free_catalog);
}
