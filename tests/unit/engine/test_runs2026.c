/* The 2026 fields (issue 21): each reaches the model through the field
 * table, changes what its mechanism says it changes, and a setup asking for
 * what its device or stack cannot do is refused naming the field. */
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

static void set(struct setup *s, const char *path, const char *value)
{
    char err[512];
    if (!setup_set(s, path, value, err, sizeof err))
        fail_msg("%s=%s: %s", path, value, err);
}

/* Evaluates; fails with the message when the setup is refused. */
static void eval(const struct setup *s, struct model_report *o)
{
    struct resolved r;
    char err[1024];
    if (!setup_resolve(s, cat, &r, err, sizeof err))
        fail_msg("%s", err);
    model_eval(s, &r, o);
}

/* The message of a refused setup (empty when it resolves). */
static const char *refusal(const struct setup *s)
{
    static char err[1024];
    struct resolved r;
    err[0] = '\0';
    if (setup_resolve(s, cat, &r, err, sizeof err))
        err[0] = '\0';
    return err;
}

static void test_fields_in_table(void **state)
{
    (void)state;
    static const char *const paths[][2] = {
        {"cluster.node.power_limit_w", "500"},
        {"model.mtp_layers", "1"},
        {"training.grad_reduce_precision", "bf16"},
        {"training.activation_offload_layers", "4"},
        {"training.expert_tensor_parallel", "2"},
        {"training.moe_dispatcher", "deepep"},
        {"training.lora_rank", "16"},
        {"training.account_for_embedding_in_pipeline_split", "true"},
        {"training.account_for_loss_in_pipeline_split", "true"},
    };
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        struct setup s;
        setup_defaults(&s);
        set(&s, paths[i][0], paths[i][1]);
        char buf[64], err[256];
        assert_true(setup_get(&s, paths[i][0], buf, sizeof buf, err, sizeof err));
        assert_string_equal(buf, paths[i][1]);
    }
}

static void test_power_limit(void **state)
{
    (void)state;
    struct setup s;
    struct model_report full, capped;
    setup_defaults(&s);
    set(&s, "training.precision", "bf16");
    eval(&s, &full);
    set(&s, "cluster.node.power_limit_w", "500");
    eval(&s, &capped);
    /* H100 (no gemm_power_w): clock share (425/625)^(1/3) on compute. */
    double share = cbrt((500.0 - 75.0) / (700.0 - 75.0));
    assert_true(fabs(capped.breakdown.compute * share - full.breakdown.compute) <
                0.15 * full.breakdown.compute);
    assert_true(capped.breakdown.compute > full.breakdown.compute * 1.04);
    assert_true(capped.power.device_w <= 500.0 + 1e-9);
    set(&s, "cluster.node.power_limit_w", "900");
    assert_non_null(strstr(refusal(&s), "cluster.node.power_limit_w"));
    set(&s, "cluster.node.power_limit_w", "50");
    assert_non_null(strstr(refusal(&s), "idle"));
    /* Same nominal FP8 peak, different power: GB300 ahead of GB200. */
    struct model_report g2, g3;
    setup_defaults(&s);
    set(&s, "cluster.node.accelerator", "gb200");
    set(&s, "cluster.node.host_link", "nvlink-c2c");
    set(&s, "cluster.node.cpu", "grace");
    set(&s, "training.precision", "fp8");
    set(&s, "training.software", "nemo");
    set(&s, "training.flash_attention", "true");
    eval(&s, &g2);
    set(&s, "cluster.node.accelerator", "gb300");
    eval(&s, &g3);
    assert_true(g2.breakdown.compute > 1.03 * g3.breakdown.compute);
    assert_true(g2.peak_tflops == g3.peak_tflops);
}

/* No device runs below its lowest clock (docs/MODEL.md, section 6): a
 * power limit or a rack's cooling that would hold the clocks there leaves
 * the setup unable to run, named so, timed at the floor; just above it, it
 * runs. */
static void test_clock_floor(void **state)
{
    (void)state;
    struct setup s;
    struct model_report o;
    setup_defaults(&s); /* 8 x H100 SXM: idle 75 W, TDP 700 W, lowest clock 345 of 1,980 MHz */
    set(&s, "cluster.node.power_limit_w", "77"); /* clock share (2/625)^(1/3) = 0.147 */
    eval(&s, &o);
    assert_false(o.runnable);
    assert_true(o.tokens_per_s == 0 && o.step_time_s > 0);
    assert_non_null(strstr(o.why_not, "power limit of 77 W"));
    assert_non_null(strstr(o.why_not, "minimum sustained clock, 17.4%"));
    assert_true(fabs(o.power.clock_share - 345.0 / 1980.0) < 1e-12); /* timed at the floor */
    assert_true(o.power.below_min_clock && o.power.min_clock_share == o.power.clock_share);
    set(&s, "cluster.node.power_limit_w", "80"); /* (5/625)^(1/3) = 0.2 */
    eval(&s, &o);
    assert_true(o.runnable && o.tokens_per_s > 0);
    /* A device that publishes no lowest clock: MODEL_MIN_CLOCK_SHARE_UNPUBLISHED. */
    set(&s, "cluster.node.accelerator", "b200");  /* idle 130 W, GEMMs 1,400 W at boost */
    set(&s, "cluster.node.power_limit_w", "131"); /* (1/1270)^(1/3) = 0.092 */
    eval(&s, &o);
    assert_false(o.runnable);
    assert_non_null(strstr(o.why_not, "publishes none"));
    set(&s, "cluster.node.power_limit_w", "132"); /* 0.116 */
    eval(&s, &o);
    assert_true(o.runnable);
    /* Eight DGX H100 in an air-cooled rack (20 kW): with 1,300 W for the
     * rest of each node the cooling holds the clocks at 37% of rated; with
     * 1,400 W the racks would make 20.3 kW with the devices computing at
     * their lowest clock and the loaders busy, so the setup cannot run
     * (idle devices still fit: not the overheating refusal). */
    setup_defaults(&s);
    set(&s, "cluster.nodes", "16");
    set(&s, "facility.cooling", "air");
    set(&s, "facility.nodes_per_rack", "8");
    set(&s, "cluster.node.other_w", "1300");
    eval(&s, &o);
    assert_true(o.runnable && o.power.throttled && !o.power.below_min_clock);
    assert_true(o.power.throttle_factor > 0.3 && o.power.throttle_factor < 0.4);
    set(&s, "cluster.node.other_w", "1400");
    eval(&s, &o);
    assert_false(o.runnable);
    assert_true(o.tokens_per_s == 0);
    assert_non_null(strstr(o.why_not, "removes 20.0 kW per rack, but the racks make 20.3 kW"));
    assert_non_null(strstr(o.why_not, "minimum sustained clock, 17.4%"));
    assert_true(fabs(o.power.throttle_factor - 345.0 / 1980.0) < 1e-12); /* timed there */
    assert_true(o.power.below_min_clock);
    assert_non_null(strstr(o.bottleneck_reason, "cannot run: even at the lowest clock"));
}

/* The power limit at which the setup's device keeps `share` of its clock
 * on GEMMs (the model's law, docs/MODEL.md section 12): idle + (GEMM power
 * - idle) x share^3, written into `buf`. */
static const char *same_clock_limit(const struct setup *s, double share, char *buf, size_t len)
{
    struct resolved r;
    char err[1024];
    if (!setup_resolve(s, cat, &r, err, sizeof err))
        fail_msg("%s", err);
    double idle = r.accel->idle_w, full = r.accel->gemm_power_w;
    snprintf(buf, len, "%.3f", idle + (full - idle) * share * share * share);
    return buf;
}

/* Blackwell Ultra's doubled exponential rate: at the same clock GB200 and
 * GB300 differ only in their special-function units, which fused
 * attention's softmax uses once per score each way (model_attention.c).
 * The two dies draw different GEMM power (catalog gemm_power_w), so the
 * GB300 is capped where its clock equals the GB200's at 1,200 W. Long
 * sequences make attention the larger part. */
static void test_attention_exp_rate(void **state)
{
    (void)state;
    struct setup s;
    struct model_report g2, g3;
    setup_defaults(&s);
    set(&s, "cluster.node.host_link", "nvlink-c2c");
    set(&s, "cluster.node.cpu", "grace");
    set(&s, "cluster.node.power_limit_w", "1200");
    set(&s, "training.precision", "fp8");
    set(&s, "training.software", "nemo");
    set(&s, "training.flash_attention", "true");
    set(&s, "training.recompute", "full");
    set(&s, "model.seq_len", "32768");
    set(&s, "cluster.node.accelerator", "gb200");
    eval(&s, &g2);
    char limit[32];
    set(&s, "cluster.node.accelerator", "gb300");
    set(&s, "cluster.node.power_limit_w",
        same_clock_limit(&s, g2.power.clock_share, limit, sizeof limit));
    eval(&s, &g3);
    assert_true(g2.power.clock_share < 0.99); /* a clock the GB300 must be capped to */
    assert_true(fabs(g2.power.clock_share - g3.power.clock_share) < 0.002);
    assert_true(g2.breakdown.compute > 1.05 * g3.breakdown.compute);
    /* Without a fused kernel the softmax is memory traffic: no difference
     * beyond the clocks'. */
    set(&s, "training.flash_attention", "false");
    set(&s, "model.seq_len", "4096");
    eval(&s, &g3);
    set(&s, "cluster.node.accelerator", "gb200");
    set(&s, "cluster.node.power_limit_w", "1200");
    eval(&s, &g2);
    assert_true(g2.breakdown.compute < 1.01 * g3.breakdown.compute);
}

static void test_grad_reduce_and_lora(void **state)
{
    (void)state;
    struct setup s;
    struct model_report fp32, bf16, lora;
    setup_defaults(&s);
    set(&s, "training.software", "megatron-core");
    set(&s, "training.zero_stage", "0");
    eval(&s, &fp32);
    set(&s, "training.grad_reduce_precision", "bf16");
    eval(&s, &bf16);
    assert_true(fabs(bf16.memory.grads_gb * 2.0 - fp32.memory.grads_gb) < 1e-6);
    set(&s, "training.lora_rank", "16");
    eval(&s, &lora);
    assert_true(lora.memory.optimizer_gb < 0.02 * fp32.memory.optimizer_gb);
    assert_true(lora.memory.grads_gb < 0.02 * fp32.memory.grads_gb);
    assert_true(lora.breakdown.compute < 0.9 * fp32.breakdown.compute);
    set(&s, "training.precision", "fp32");
    set(&s, "training.lora_rank", "0");
    assert_non_null(strstr(refusal(&s), "training.grad_reduce_precision"));
}

static void test_offload_and_zero3(void **state)
{
    (void)state;
    struct setup s;
    struct model_report base, off;
    setup_defaults(&s);
    set(&s, "training.software", "nemo");
    set(&s, "training.zero_stage", "3"); /* Megatron-FSDP */
    set(&s, "training.recompute", "none");
    eval(&s, &base);
    set(&s, "training.activation_offload_layers", "16");
    eval(&s, &off);
    assert_true(off.memory.activations_gb < 0.6 * base.memory.activations_gb);
    assert_true(off.memory.host_offload_gb > 0.4 * base.memory.activations_gb);
    assert_true(base.memory.host_offload_gb == 0.0);
    assert_true(off.step_time_s >= base.step_time_s);
    set(&s, "training.activation_offload_layers", "32");
    assert_non_null(strstr(refusal(&s), "training.activation_offload_layers"));
    set(&s, "training.activation_offload_layers", "4");
    set(&s, "training.software", "pytorch-eager");
    set(&s, "training.zero_stage", "0");
    assert_non_null(strstr(refusal(&s), "training.activation_offload_layers"));
}

static void moe_setup(struct setup *s)
{
    setup_defaults(s);
    set(s, "cluster.nodes", "4");
    set(s, "model.experts", "64");
    set(s, "model.top_k", "4");
    set(s, "model.expert_ffn_hidden", "1024");
    set(s, "training.software", "nemo");
    set(s, "training.tensor_parallel", "4");
    set(s, "training.global_batch", "64");
}

static void test_moe_folding_deepep_mtp(void **state)
{
    (void)state;
    struct setup s;
    struct model_report plain, deepep, mtp;
    moe_setup(&s);
    /* 32 devices, TP 4: DP 8. EP 16 does not divide DP, but EP 16 x ETP 2
     * folds over the 32 ranks of the stage. */
    set(&s, "training.expert_parallel", "16");
    set(&s, "training.expert_tensor_parallel", "2");
    eval(&s, &plain);
    assert_true(plain.runnable || !plain.memory.fits);
    set(&s, "training.expert_tensor_parallel", "4");
    assert_non_null(strstr(refusal(&s), "expert_tensor_parallel"));
    set(&s, "training.expert_tensor_parallel", "1");
    set(&s, "training.expert_parallel", "8");
    eval(&s, &plain);
    set(&s, "training.moe_dispatcher", "deepep");
    eval(&s, &deepep);
    assert_true(deepep.stages.ep_comm_s > 0);
    assert_true(deepep.stages.ep_comm_s < plain.stages.ep_comm_s);
    set(&s, "model.mtp_layers", "1");
    eval(&s, &mtp);
    assert_true(mtp.params > deepep.params);
    assert_true(mtp.step_time_s > deepep.step_time_s);
    set(&s, "cluster.node.accelerator", "mi300x");
    set(&s, "cluster.node.intra_link", "");
    assert_non_null(strstr(refusal(&s), "DeepEP"));
}

static void test_pipeline_split(void **state)
{
    (void)state;
    struct setup s;
    setup_defaults(&s);
    set(&s, "model.layers", "126");
    set(&s, "training.pipeline_parallel", "16");
    set(&s, "training.virtual_stages", "8");
    set(&s, "cluster.nodes", "16");
    set(&s, "training.account_for_embedding_in_pipeline_split", "true");
    set(&s, "training.account_for_loss_in_pipeline_split", "true");
    assert_string_equal(refusal(&s), "");
    assert_int_equal(setup_stage_layers(&s, 0), 7);
    assert_int_equal(setup_stage_layers(&s, 1), 8);
    assert_int_equal(setup_stage_layers(&s, 15), 7);
    int total = 0;
    for (int i = 0; i < 16; i++)
        total += setup_stage_layers(&s, i);
    assert_int_equal(total, 126);
    set(&s, "training.account_for_loss_in_pipeline_split", "false");
    set(&s, "training.virtual_stages", "1");
    assert_non_null(strstr(refusal(&s), "account_for_embedding"));
}

static double tokens_at(const char *file, const char *precision)
{
    struct setup s;
    struct model_report o;
    char err[1024], path[256];
    snprintf(path, sizeof path, "tests/validation/setups/%s", file);
    if (!setup_load_file(&s, path, cat, err, sizeof err))
        fail_msg("%s", err);
    set(&s, "training.fp8_scaling", "delayed");
    set(&s, "training.precision", precision);
    eval(&s, &o);
    return o.tokens_per_s;
}

/* NVFP4 well ahead of FP8 on a dense 405B, a few percent ahead of MXFP8 on
 * fine-grained experts: the quantisation traffic per element does not
 * shrink with the format (model_precision.c). */
static void test_precision_split(void **state)
{
    (void)state;
    double dense = tokens_at("mb-405b-gb300-nvfp4.yaml", "nvfp4") /
                   tokens_at("mb-405b-gb300-nvfp4.yaml", "fp8");
    double moe = tokens_at("mb-qwen3-30b-gb300.yaml", "nvfp4") /
                 tokens_at("mb-qwen3-30b-gb300.yaml", "mxfp8");
    assert_true(dense > 1.4 && dense < 2.5);
    assert_true(moe > 1.0 && moe < 1.10);
    struct setup s;
    setup_defaults(&s);
    set(&s, "training.precision", "bf16");
    set(&s, "training.fp8_scaling", "current");
    assert_non_null(strstr(refusal(&s), "training.fp8_scaling"));
}

/* torchtitan's per-op checkpointing sits between selective and full: it
 * keeps the layer input, the attention output and half the linear outputs,
 * and recomputes the rest. */
static void test_op_checkpointing(void **state)
{
    (void)state;
    struct setup s;
    struct model_report sel, op, full;
    setup_defaults(&s);
    set(&s, "training.flash_attention", "true");
    set(&s, "training.software", "fsdp");
    set(&s, "training.recompute", "selective");
    eval(&s, &sel);
    set(&s, "training.recompute", "op");
    eval(&s, &op);
    set(&s, "training.recompute", "full");
    eval(&s, &full);
    assert_true(op.memory.activations_gb < 0.8 * sel.memory.activations_gb);
    assert_true(op.memory.activations_gb > full.memory.activations_gb);
    assert_true(op.breakdown.recompute > sel.breakdown.recompute);
    assert_true(op.breakdown.recompute < full.breakdown.recompute);
    assert_true(op.hfu > op.mfu);
}

/* DeepSeek's config key for multi-token prediction reaches model.mtp_layers. */
static void test_hf_mtp(void **state)
{
    (void)state;
    const char *path = "/tmp/mlviz-test-runs2026-mtp.json";
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("{\"architectures\": [\"DeepseekV3ForCausalLM\"], \"num_hidden_layers\": 4, "
          "\"hidden_size\": 256, \"num_attention_heads\": 4, "
          "\"vocab_size\": 1000, \"intermediate_size\": 512, \"hidden_act\": \"silu\", "
          "\"num_nextn_predict_layers\": 1}",
          f);
    fclose(f);
    char text[256], err[1024];
    snprintf(text, sizeof text, "model: {hf_config: %s}\n", path);
    struct setup s;
    setup_defaults(&s);
    bool ok = setup_load_string(&s, "mtp.yaml", text, cat, err, sizeof err);
    remove(path);
    if (!ok)
        fail_msg("%s", err);
    assert_int_equal(s.model.mtp_layers, 1);
}

/* Dropout masks are kept only when there is dropout (PyTorch's dropout
 * returns its input at p = 0): a layer keeps 2 s b h bytes fewer. Hugging
 * Face configs carry the probability (attention_dropout, resid_pdrop). */
static void test_dropout_masks(void **state)
{
    (void)state;
    struct setup s;
    struct model_report with, without;
    setup_defaults(&s);
    set(&s, "training.recompute", "none");
    set(&s, "training.software", "megatron-core");
    set(&s, "training.flash_attention", "true");
    eval(&s, &with);
    set(&s, "model.dropout", "0");
    eval(&s, &without);
    double sbh = (double)s.model.seq_len * s.training.micro_batch * s.model.hidden;
    double per_layer = (with.memory.activations_gb - without.memory.activations_gb) * 1e9 /
                       (2.0 * sbh / s.training.tensor_parallel);
    /* Whole layers in flight on the busiest stage: a whole number. */
    assert_true(per_layer >= 1.0 - 1e-6);
    assert_true(fabs(per_layer - round(per_layer)) < 1e-6);
    const char *path = "/tmp/mlviz-test-runs2026-dropout.json";
    const char *const configs[][2] = {
        {"{\"architectures\": [\"LlamaForCausalLM\"], \"attention_dropout\": 0.0}", "0"},
        {"{\"architectures\": [\"GPT2LMHeadModel\"], \"resid_pdrop\": 0.1}", "0.1"},
    };
    for (size_t i = 0; i < 2; i++) {
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        fprintf(f,
                "%.*s, \"num_hidden_layers\": 4, \"hidden_size\": 256, "
                "\"num_attention_heads\": 4, \"vocab_size\": 1000}",
                (int)strlen(configs[i][0]) - 1, configs[i][0]);
        fclose(f);
        char text[256], err[1024], buf[32];
        snprintf(text, sizeof text, "model: {hf_config: %s}\n", path);
        setup_defaults(&s);
        bool ok = setup_load_string(&s, "d.yaml", text, cat, err, sizeof err);
        remove(path);
        if (!ok)
            fail_msg("%s", err);
        assert_true(setup_get(&s, "model.dropout", buf, sizeof buf, err, sizeof err));
        assert_string_equal(buf, configs[i][1]);
    }
}

/* Loading `text` is refused at line:col with a message containing `what`. */
static void refused_at(const char *text, int line, int col, const char *what)
{
    struct setup s;
    char err[1024], prefix[64];
    setup_defaults(&s);
    if (setup_load_string(&s, "r.yaml", text, cat, err, sizeof err))
        fail_msg("loaded but should be refused (%s):\n%s", what, text);
    snprintf(prefix, sizeof prefix, "r.yaml:%d:%d: ", line, col);
    if (strncmp(err, prefix, strlen(prefix)) != 0 || !strstr(err, what))
        fail_msg("expected '%s...%s', got '%s'", prefix, what, err);
}

/* What a device or stack cannot do is refused at the field's place. */
static void test_refusals_located(void **state)
{
    (void)state;
    refused_at("cluster:\n  node:\n    power_limit_w: 900\n", 3, 20, "at most its TDP 700 W");
    refused_at("training:\n  fp8_scaling: current\n", 2, 16, "applies to precision fp8");
    refused_at("training:\n  software: deepspeed\n  activation_offload_layers: 2\n", 3, 30,
               "deepspeed does not offload activations");
    refused_at("training:\n  expert_tensor_parallel: 2\n", 2, 27, "needs a mixture-of-experts");
    refused_at("training:\n  lora_rank: 9999\n", 2, 14, "exceeds model.hidden");
    refused_at("model:\n  kind: generic\n  params: 1e9\n  flops_per_sample: 1e12\n  "
               "mtp_layers: 1\n",
               5, 15, "needs a transformer");
    refused_at("cluster:\n  node:\n    power_limit_w: 70\n", 3, 20, "above its idle 75 W");
    refused_at("training:\n  precision: nvfp4\n", 2, 14, "h100-sxm has no nvfp4 support");
    refused_at("cluster:\n  node: {accelerator: a100-sxm-80gb}\ntraining:\n  precision: mxfp8\n", 4,
               14, "a100-sxm-80gb has no mxfp8 support");
    refused_at("model:\n  experts: 8\n  top_k: 2\ncluster:\n  nodes: 2\ntraining:\n"
               "  software: deepspeed\n  expert_parallel: 8\n  moe_dispatcher: deepep\n",
               9, 19, "deepspeed has no DeepEP dispatcher");
    refused_at("model:\n  layers: 4\ntraining:\n  software: nemo\n  recompute: none\n"
               "  activation_offload_layers: 4\n",
               6, 30, "at least one must stay on the device");
    refused_at("training:\n  software: nemo\n  recompute: none\n  pipeline_parallel: 2\n"
               "  activation_offload_layers: 2\n",
               5, 30, "only without pipeline parallelism");
    refused_at("training:\n  software: megatron-core\n  recompute: selective\n"
               "  activation_offload_layers: 2\n",
               4, 30, "while it recomputes them");
}

/* Fuzz input hbm-compute-01: the forward of a host-bound layer waits on
 * copies of offloaded activations. Faster HBM shortens the attention, the
 * layer's wait for the host grows by as much, and that wider window hides
 * more of the forward's tensor-parallel traffic. Traffic hidden while the
 * SMs wait for the host slows no compute, and the slowdown that remains is
 * split between the passes as the passes are timed (model_stage.c); before
 * both, the backward took a share of the forward's slowdown and the step
 * grew by 0.5 ms. */
static void test_offload_faster_memory_not_slower(void **state)
{
    (void)state;
    static const char *const text =
        "cluster:\n  nodes: 1392\n  node:\n    accelerator: h100-sxm\n"
        "    accelerators_per_node: 72\n    cpu: xeon-8480\n    intra_link: nvlink-c2c\n"
        "    host_link: ib-xdr\n    nic: ib-ndr\n    nics_per_node: 8\n"
        "facility:\n  cooling: direct-liquid\n"
        "model:\n  layers: 126\n  hidden: 512\n  heads: 8\n  seq_len: 8192\n  vocab: 32000\n"
        "  kv_heads: 8\n  mlp: gelu\n  kv_lora_rank: 64\n  v_head_dim: 64\n"
        "  attention_bias: qkv\n  dropout: 0.2\n"
        "training:\n  global_batch: 7830\n  micro_batch: 1\n  precision: tf32\n"
        "  tensor_parallel: 8\n  context_parallel: 8\n  zero_stage: 1\n  recompute: none\n"
        "  sequence_parallel: true\n  overlap_grad_sync: true\n  flash_attention: false\n"
        "  software: nemo\n  activation_offload_layers: 37\n  lora_rank: 16\n";
    struct setup s;
    struct resolved r;
    char err[1024];
    setup_defaults(&s);
    if (!setup_load_string(&s, "hbm.yaml", text, cat, err, sizeof err) ||
        !setup_resolve(&s, cat, &r, err, sizeof err))
        fail_msg("%s", err);
    struct model_report base, fast;
    model_eval(&s, &r, &base);
    assert_true(base.memory.host_offload_gb > 0.0);
    struct accelerator hbm = *r.accel;
    hbm.mem_bw_gbs *= 2.0;
    r.accel = &hbm;
    model_eval(&s, &r, &fast);
    assert_true(fast.step_time_s <= base.step_time_s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fields_in_table),
        cmocka_unit_test(test_power_limit),
        cmocka_unit_test(test_clock_floor),
        cmocka_unit_test(test_attention_exp_rate),
        cmocka_unit_test(test_grad_reduce_and_lora),
        cmocka_unit_test(test_offload_and_zero3),
        cmocka_unit_test(test_offload_faster_memory_not_slower),
        cmocka_unit_test(test_moe_folding_deepep_mtp),
        cmocka_unit_test(test_pipeline_split),
        cmocka_unit_test(test_precision_split),
        cmocka_unit_test(test_op_checkpointing),
        cmocka_unit_test(test_hf_mtp),
        cmocka_unit_test(test_dropout_masks),
        cmocka_unit_test(test_refusals_located),
    };
    return cmocka_run_group_tests(tests, load_catalog, free_catalog);
}
