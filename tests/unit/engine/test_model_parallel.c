/* Modern parallelism in the setup and the model: context and expert
 * parallelism, mixture-of-experts layers, uneven pipeline stages, scale-up
 * domains, low-precision formats and what each software stack refuses.
 * Hand-computed cases; tests run from the repository root. */
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
#include "report.h"

#include "../../catalog_fixture.h"

#include "assert_close.h"

/* Loading `text` must fail at line:col with a message containing `what`. */
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
    if (!strstr(err, what))
        fail_msg("expected '%s' in '%s'", what, err);
}

static void loads(const char *text, struct setup *s)
{
    char err[1024];
    setup_defaults(s);
    if (!setup_load_string(s, "s.yaml", text, cat, err, sizeof err))
        fail_msg("%s\n%s", err, text);
}

static void eval(const struct setup *s, struct model_report *o)
{
    struct resolved r;
    char err[1024];
    if (!setup_resolve(s, cat, &r, err, sizeof err))
        fail_msg("%s", err);
    model_eval(s, &r, o);
}

/* Loads a setup written by `format` with one %d filled in, and evaluates it. */
static void eval_variant(const char *format, int value, struct model_report *o)
{
    char text[512];
    struct setup s;
    snprintf(text, sizeof text, format, value);
    loads(text, &s);
    eval(&s, o);
}

static void test_low_precision_refusals(void **state)
{
    (void)state;
    /* TPU v5p has no FP8 matrix path (the catalog's fp8_tflops is null). */
    refused("cluster:\n  node: {accelerator: tpu-v5p, accelerators_per_node: 4}\n"
            "training:\n  precision: fp8\n",
            4, 14, "tpu-v5p has no fp8 support");
    /* H100: FP8 yes, FP4 and MX block scaling no. */
    refused("training:\n  precision: fp4\n", 2, 14, "h100-sxm has no fp4 support");
    refused("training:\n  precision: mxfp8\n", 2, 14, "h100-sxm has no mxfp8 support");
    /* NVFP4 is NVIDIA's format: an AMD device with FP4 still lacks it. */
    refused("cluster:\n  node: {accelerator: mi355x}\ntraining:\n  precision: nvfp4\n"
            "  software: megatron-core\n",
            4, 14, "mi355x has no nvfp4 support");
    /* The stack must have a recipe for the format. */
    refused("training:\n  precision: fp8\n  software: fairseq\n", 2, 14,
            "fairseq has no FP8 training recipe");
    refused("cluster:\n  node: {accelerator: b200}\ntraining:\n  precision: nvfp4\n"
            "  software: deepspeed\n",
            4, 14, "deepspeed has no nvfp4 training recipe");
    struct setup s;
    loads("cluster:\n  node: {accelerator: b200}\ntraining:\n  precision: nvfp4\n"
          "  software: megatron-core\n",
          &s);
    loads("cluster:\n  node: {accelerator: b200}\ntraining:\n  precision: mxfp8\n"
          "  software: nemo\n",
          &s);
}

static void test_parallel_refusals(void **state)
{
    (void)state;
    /* 8 devices: TP 2 x CP 3 does not divide them. */
    refused("training:\n  tensor_parallel: 2\n  context_parallel: 3\n", 3, 21,
            "context_parallel 3 x pipeline_parallel 1 = 6 does not divide the 8 devices");
    /* Causal load balancing needs 2 x CP chunks of equal size. */
    refused("model:\n  seq_len: 4100\ntraining:\n  context_parallel: 4\n  global_batch: 256\n", 4,
            21, "2 x context_parallel = 8 equal chunks");
    refused("training:\n  context_parallel: 2\n  software: deepspeed\n", 2, 21,
            "deepspeed does not implement ring-attention context parallelism");
    refused("model:\n  top_k: 2\n", 2, 10, "mixture-of-experts fields need model.experts > 0");
    refused("model:\n  experts: 8\n  top_k: 9\n", 3, 10, "model.top_k 9 must be between 1 and");
    refused("model:\n  experts: 6\n  top_k: 2\ntraining:\n  expert_parallel: 4\n", 5, 20,
            "expert_parallel 4 must divide model.experts 6");
    /* 8 devices at TP 4: DP 2 cannot hold EP 4. */
    refused("model:\n  experts: 8\n  top_k: 2\ntraining:\n  tensor_parallel: 4\n"
            "  expert_parallel: 4\n",
            6, 20, "= 16 must divide the 8 ranks of a pipeline stage");
    refused("training:\n  expert_parallel: 2\n", 2, 20, "needs a mixture-of-experts model");
    refused("model:\n  experts: 8\n  top_k: 2\ntraining:\n  software: pytorch-eager\n", 5, 13,
            "pytorch-eager does not implement mixture-of-experts layers");
    /* Megatron-FSDP: megatron-core takes ZeRO-3 since 2025 (issue 21). */
    refused("training:\n  moe_dispatcher: deepep\n  software: megatron-core\n", 2, 19,
            "deepep needs expert_parallel above 1");
    refused("training:\n  capacity_factor: 1.25\n", 2, 20, "applies to mixture-of-experts");
    /* 32 layers on 4 stages: 30 pinned leave 2 for 2 stages, fine; 31 not. */
    struct setup s;
    loads("cluster: {nodes: 1}\ntraining:\n  pipeline_parallel: 4\n  first_stage_layers: 15\n"
          "  last_stage_layers: 15\n",
          &s);
    refused("training:\n  pipeline_parallel: 4\n  first_stage_layers: 16\n"
            "  last_stage_layers: 15\n",
            3, 23, "every stage needs at least one");
    refused("training:\n  first_stage_layers: 3\n", 2, 23, "needs pipeline_parallel > 1");
    refused("cluster:\n  scaleup_domain: 12\n", 2, 19, "multiple or a divisor");
    /* An HGX H100 NVSwitch joins 8 GPUs; NVL72 needs NVLink 5. */
    refused("cluster:\n  nodes: 18\n  scaleup_domain: 72\n  node: {accelerators_per_node: 4}\n"
            "training: {global_batch: 72}\n",
            3, 19, "nvlink4 joins at most 8 devices in one domain");
    loads("cluster:\n  nodes: 18\n  scaleup_domain: 72\n  node: {accelerator: gb200, "
          "accelerators_per_node: 4}\ntraining: {global_batch: 72}\n",
          &s);
    /* A slice that holds every device needs no network. */
    loads("cluster:\n  nodes: 16\n  scaleup_domain: 64\n  node: {accelerator: tpu-v5p, "
          "accelerators_per_node: 4, nic: '', nics_per_node: 0}\ntraining:\n"
          "  software: maxtext\n  zero_stage: 3\n",
          &s);
    refused("cluster:\n  nodes: 16\n  scaleup_domain: 32\n  node: {accelerator: tpu-v5p, "
            "accelerators_per_node: 4, nic: '', nics_per_node: 0}\n",
            4, 63, "16 nodes need a network");
}

static void test_device_count(void **state)
{
    (void)state;
    /* Devices = TP x CP x PP x DP. */
    struct setup s;
    loads("cluster: {nodes: 4}\ntraining:\n  tensor_parallel: 2\n  context_parallel: 2\n"
          "  pipeline_parallel: 2\n  global_batch: 64\n",
          &s);
    assert_int_equal(setup_data_parallel(&s), 4);
    struct model_report o;
    eval(&s, &o);
    assert_int_equal(o.dp, 4);
    assert_int_equal(o.cp, 2);
    assert_int_equal(o.micro_batches, 16);
}

static void test_stage_layers(void **state)
{
    (void)state;
    struct setup s;
    setup_defaults(&s);
    /* Llama 3 405B: 126 layers, 16 stages, 7 on the first and the last. */
    s.model.layers = 126;
    s.training.pipeline_parallel = 16;
    s.training.first_stage_layers = 7;
    s.training.last_stage_layers = 7;
    int total = 0;
    for (int i = 0; i < 16; i++) {
        int n = setup_stage_layers(&s, i);
        assert_int_equal(n, i == 0 || i == 15 ? 7 : 8);
        total += n;
    }
    assert_int_equal(total, 126);
    /* 10 over 4, nothing pinned: 2 3 3 2 (the extra layers in the middle). */
    s.model.layers = 10;
    s.training.pipeline_parallel = 4;
    s.training.first_stage_layers = s.training.last_stage_layers = 0;
    static const int ten[4] = {2, 3, 3, 2}, eleven[4] = {3, 3, 3, 2};
    for (int i = 0; i < 4; i++)
        assert_int_equal(setup_stage_layers(&s, i), ten[i]);
    /* 11 over 4: the middle first, then the first stage. */
    s.model.layers = 11;
    for (int i = 0; i < 4; i++)
        assert_int_equal(setup_stage_layers(&s, i), eleven[i]);
}

static void test_uneven_pipeline_time_and_memory(void **state)
{
    (void)state;
    /* Two stages, 9 layers: the last stage also runs the logits, so moving
     * layers onto it makes the step slower; the first stage keeps more
     * micro-batches in flight, so moving layers onto it costs memory. */
    static const char base[] =
        "cluster: {nodes: 1}\nmodel: {layers: 9}\ntraining:\n  pipeline_parallel: 2\n"
        "  global_batch: 64\n  recompute: none\n  flash_attention: true\n"
        "  software: megatron-core\n";
    char text[512];
    struct setup light_last, heavy_last;
    snprintf(text, sizeof text, "%s  first_stage_layers: 8\n  last_stage_layers: 1\n", base);
    loads(text, &light_last);
    snprintf(text, sizeof text, "%s  first_stage_layers: 1\n  last_stage_layers: 8\n", base);
    loads(text, &heavy_last);
    struct model_report a, b;
    eval(&light_last, &a);
    eval(&heavy_last, &b);
    assert_true(b.step_time_s > a.step_time_s);
    assert_true(a.memory.activations_gb > b.memory.activations_gb);
    /* The slowest stage sets the pace: 8 layers + logits vs 8 layers. */
    assert_true(b.breakdown.compute > a.breakdown.compute);
}

static void test_moe_params_and_flops(void **state)
{
    (void)state;
    /* h 1024, 8 heads, 4 layers (1 dense), 8 experts of 512, top-2, one
     * shared expert, SwiGLU, vocab 1000, f = 4h = 4096. */
    struct setup s;
    loads("model: {layers: 4, hidden: 1024, heads: 8, vocab: 1000, mlp: swiglu, seq_len: 1024,\n"
          "        experts: 8, top_k: 2, expert_ffn_hidden: 512, shared_experts: 1,\n"
          "        dense_layers: 1}\n",
          &s);
    double h = 1024, attention = 2 * h * h + 2 * h * h + 4 * h;
    double dense = attention + 3 * h * 4096;
    double moe = attention + 8 * h + 1 * 3 * h * 512 + 8 * 3 * h * 512;
    double expect = dense + 3 * moe + 1000 * h;
    assert_close(model_params(&s), expect, 1e-12);
    /* Model FLOPs count the active experts only: top-2 + 1 shared. */
    struct model_report o;
    eval(&s, &o);
    double T = 1024.0 * s.training.global_batch, seq = 1024;
    double proj = 2 * T * h * (h + 2 * h) + 2 * T * h * h, attn = 4 * T * seq * h;
    double fwd = (proj + attn + 2 * T * h * 4096 * 3) +
                 3 * (proj + attn + 2 * T * h * 512 * 3 * 3 + 2 * T * h * 8) + 2 * T * h * 1000;
    assert_close(o.model_flops_per_step, 3 * fwd, 1e-12);
}

static void test_expert_memory_sharded_by_ep(void **state)
{
    (void)state;
    /* 8 devices, 8 experts, no ZeRO: expert states per device scale 1/EP. */
    static const char text[] =
        "model: {layers: 4, hidden: 1024, heads: 8, vocab: 1000, mlp: swiglu, seq_len: 1024,\n"
        "        experts: 8, top_k: 2, expert_ffn_hidden: 512}\n"
        "training: {zero_stage: 0, software: megatron-core, expert_parallel: %d}\n";
    struct model_report a, b;
    eval_variant(text, 1, &a);
    eval_variant(text, 8, &b);
    /* 4 MoE layers x 8 experts x 3 x 1024 x 512 parameters x 18 bytes. */
    double experts = 4 * 8 * 3 * 1024.0 * 512;
    assert_close(a.memory.experts_gb, experts * 18 / 1e9, 1e-12);
    assert_close(b.memory.experts_gb, experts / 8 * 18 / 1e9, 1e-12);
    /* Dispatch and combine cross devices only with EP. */
    assert_true(a.breakdown.ep_comm == 0.0);
    assert_true(b.breakdown.ep_comm > 0.0);
}

static void test_context_parallel_halves_activations(void **state)
{
    (void)state;
    /* One micro-batch in flight either way (no pipeline); flash attention
     * stores no s x s scores, so activations are linear in s / CP. */
    static const char text[] = "model: {seq_len: 8192}\n"
                               "training: {context_parallel: %d, global_batch: 64, "
                               "flash_attention: true, recompute: none, "
                               "software: megatron-core}\n";
    struct model_report a, b;
    eval_variant(text, 1, &a);
    eval_variant(text, 2, &b);
    assert_close(b.memory.activations_gb, a.memory.activations_gb / 2, 1e-12);
    assert_close(b.memory.logits_gb, a.memory.logits_gb / 2, 1e-12);
    /* The same work per step on the same devices (the ring exchange hides
     * under attention inside one NVLink node), within a few percent. */
    assert_true(fabs(b.step_time_s - a.step_time_s) < 0.1 * a.step_time_s);
}

static void test_alltoall_time(void **state)
{
    (void)state;
    /* 8 ranks on one fabric: 7/8 of S over the link plus 7 latencies. */
    struct collective_net net = {8, 8, 100.0, 2e-6, 10.0, 5e-6, 0.0, 0.0};
    double S = 1e9;
    assert_close(collective_time(COLL_ALL_TO_ALL, ALLREDUCE_AUTO, S, &net, NULL),
                 7.0 / 8 * S / 100e9 + 7 * 2e-6, 1e-12);
    /* 16 ranks, 8 per fabric: 8/16 leaves over the NIC share. */
    net.devices = 16;
    assert_close(collective_time(COLL_ALL_TO_ALL, ALLREDUCE_AUTO, S, &net, NULL),
                 8.0 / 16 * S / 10e9 + 15 * 5e-6, 1e-12);
    assert_close(collective_bus_factor(COLL_ALL_TO_ALL, 16), 15.0 / 16, 1e-12);
}

static void test_nvls_and_intra_node_tree(void **state)
{
    (void)state;
    /* Inside one node the "tree" is a chain: never faster than the ring. */
    struct collective_net net = {8, 8, 360.0, 1e-6, 45.0, 1.5e-6, 0.0, 0.0};
    int used = -1;
    collective_time(COLL_ALL_REDUCE, ALLREDUCE_AUTO, 8, &net, &used);
    assert_int_equal(used, ALLREDUCE_RING);
    /* With in-switch reduction: setup + S / nvls_bw, chosen for large S. */
    net.nvls_bw_gbs = 274.8;
    net.nvls_setup_s = 122e-6;
    double S = 1073741824.0;
    double t = collective_time(COLL_ALL_REDUCE, ALLREDUCE_AUTO, S, &net, &used);
    assert_int_equal(used, ALLREDUCE_NVLS);
    assert_close(t, 122e-6 + S / 274.8e9, 1e-12);
    /* Across nodes NVLS does not apply. */
    net.devices = 16;
    collective_time(COLL_ALL_REDUCE, ALLREDUCE_AUTO, S, &net, &used);
    assert_int_not_equal(used, ALLREDUCE_NVLS);
}

static void test_fp8_as_transformer_engine(void **state)
{
    (void)state;
    /* FP8 doubles the GEMM rate but attention stays in BF16: the step gets
     * faster, by less than 2x; MFU is counted against the FP8 peak. */
    static const char text[] = "model: {seq_len: 8192}\n"
                               "training: {precision: %s, flash_attention: true, "
                               "software: megatron-core}\n";
    char buf[256];
    struct setup b16, f8;
    snprintf(buf, sizeof buf, text, "bf16");
    loads(buf, &b16);
    snprintf(buf, sizeof buf, text, "fp8");
    loads(buf, &f8);
    struct model_report a, b;
    eval(&b16, &a);
    eval(&f8, &b);
    assert_true(b.breakdown.compute < a.breakdown.compute);
    assert_true(b.breakdown.compute > a.breakdown.compute / 2);
    assert_close(b.peak_tflops, 1979, 1e-3);
    /* Executed rate never above the device's own ceiling. */
    assert_true(b.tflops_per_device < b.peak_tflops);
    assert_true(a.tflops_per_device < a.peak_tflops);
}

static void test_causal_rate_below_ceiling(void **state)
{
    (void)state;
    /* Llama-8B shape at 128k context on one H100 node: the executed rate
     * must stay below the device's peak (it used to read 850 TFLOP/s). */
    struct setup s;
    loads("model: {seq_len: 131072, kv_heads: 8, ffn_hidden: 14336, mlp: swiglu}\n"
          "training: {global_batch: 8, flash_attention: true, recompute: full,\n"
          "           tensor_parallel: 8, sequence_parallel: true, software: megatron-core}\n",
          &s);
    struct model_report o;
    eval(&s, &o);
    assert_true(o.tflops_per_device < 0.8 * o.peak_tflops);
    /* i20: HFU is the executed rate over the step; MFU counts full s x s
     * attention, so it is bounded by HFU in its own convention only. */
    assert_true(o.hfu <= o.achieved_fraction + 1e-12);
    assert_true(o.mfu <= o.hfu_model_convention + 1e-12);
    assert_true(o.mfu > o.hfu); /* the causal half skipped: the 131K case */
}

/* A report visitor that fails on a NaN, an infinity or a negative zero. */
static int bad_numbers;
static void v_begin(void *c, const char *k)
{
    (void)c, (void)k;
}
static void v_end(void *c)
{
    (void)c;
}
static void v_num(void *c, const char *key, double v)
{
    (void)c;
    if (!isfinite(v) || (v == 0 && signbit(v))) {
        printf("  %s = %g\n", key, v);
        bad_numbers++;
    }
}
static void v_str(void *c, const char *k, const char *v)
{
    (void)c, (void)k, (void)v;
}
static void v_bool(void *c, const char *k, bool v)
{
    (void)c, (void)k, (void)v;
}

static void test_extremes_stay_finite(void **state)
{
    (void)state;
    /* Valid but extreme setups of the new fields: every reported number is
     * finite and no zero is negative. */
    static const char *const texts[] = {
        /* 65536 tiny experts, all of them per token, capacity 1000 */
        ("model: {layers: 2, hidden: 64, heads: 1, seq_len: 2, vocab: 1, experts: 65536,\n"
         "        top_k: 65536, expert_ffn_hidden: 1, shared_experts: 10000, dense_layers: 1}\n"
         "training: {global_batch: 8, expert_parallel: 8, capacity_factor: 1000,\n"
         "           software: megatron-core}\n"),
        /* context parallel 4096 over a 2-token-per-rank sequence, one fabric */
        ("cluster: {nodes: 1024, scaleup_domain: 4096,\n"
         "          node: {accelerator: tpu-v5p, accelerators_per_node: 4}}\n"
         "model: {seq_len: 8192}\n"
         "training: {global_batch: 1, context_parallel: 4096, software: nemo}\n"),
        /* the largest TPU v5p domain, pipeline of 4096 one-layer stages */
        ("cluster: {nodes: 1024, scaleup_domain: 8960,\n"
         "          node: {accelerator: tpu-v5p, accelerators_per_node: 4}}\n"
         "model: {layers: 4096}\n"
         "training: {global_batch: 4096, pipeline_parallel: 4096, first_stage_layers: 1,\n"
         "           last_stage_layers: 1}\n"),
        /* FP4 on Blackwell with a tiny micro-batch count */
        ("cluster: {node: {accelerator: b200}}\n"
         "training: {precision: nvfp4, global_batch: 8, software: megatron-core}\n"),
    };
    struct report_visitor v = {NULL, v_begin, v_end, v_begin, v_end, v_num, v_str, v_bool};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        struct setup s;
        struct resolved r;
        struct model_report o;
        char err[1024];
        loads(texts[i], &s);
        assert_true(setup_resolve(&s, cat, &r, err, sizeof err));
        model_eval(&s, &r, &o);
        bad_numbers = 0;
        report_visit(&s, &r, &o, &v);
        if (bad_numbers)
            fail_msg("setup %zu reports %d non-finite or negative-zero numbers", i, bad_numbers);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_low_precision_refusals),
        cmocka_unit_test(test_parallel_refusals),
        cmocka_unit_test(test_device_count),
        cmocka_unit_test(test_stage_layers),
        cmocka_unit_test(test_uneven_pipeline_time_and_memory),
        cmocka_unit_test(test_moe_params_and_flops),
        cmocka_unit_test(test_expert_memory_sharded_by_ep),
        cmocka_unit_test(test_context_parallel_halves_activations),
        cmocka_unit_test(test_alltoall_time),
        cmocka_unit_test(test_nvls_and_intra_node_tree),
        cmocka_unit_test(test_fp8_as_transformer_engine),
        cmocka_unit_test(test_causal_rate_below_ceiling),
        cmocka_unit_test(test_extremes_stay_finite),
    };
    return cmocka_run_group_tests(tests, load_catalog, free_catalog);
}
