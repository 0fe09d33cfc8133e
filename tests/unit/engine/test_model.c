/* Unit tests of the analytic model: each formula against a hand-computed case. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "model.h"
#include "report.h"

#include "../../catalog_fixture.h"

#define assert_close(a, b, rel)                                                                    \
    do {                                                                                           \
        double a_ = (a), b_ = (b);                                                                 \
        if (!(fabs(a_ - b_) <= (rel)*fabs(b_))) {                                                  \
            fail_msg("%s = %.10g, expected %.10g (rel %g)", #a, a_, b_, (double)(rel));            \
        }                                                                                          \
    } while (0)

/* GPT-3 175B shape (Brown et al. 2020) on 1,024 A100s, as in the Megatron paper. */
static void gpt3(struct setup *s)
{
    setup_defaults(s);
    snprintf(s->cluster.node.accelerator, FIELD_STR_LEN, "a100-sxm-80gb");
    snprintf(s->cluster.node.cpu, FIELD_STR_LEN, "epyc-7742");
    snprintf(s->cluster.node.nic, FIELD_STR_LEN, "ib-hdr");
    snprintf(s->facility.cooling, FIELD_STR_LEN, "direct-liquid");
    s->cluster.nodes = 128;
    s->model.layers = 96;
    s->model.hidden = 12288;
    s->model.heads = 96;
    s->model.seq_len = 2048;
    s->model.vocab = 51200;
    s->training.global_batch = 1536;
    s->training.tensor_parallel = 8;
    s->training.pipeline_parallel = 8;
    s->training.zero_stage = 0;
    s->training.recompute = RECOMPUTE_NONE;
}

static void eval(const struct setup *s, struct model_report *o)
{
    struct resolved r;
    char err[512];
    if (!setup_resolve(s, cat, &r, err, sizeof err))
        fail_msg("resolve: %s", err);
    model_eval(s, &r, o);
}

static void test_params_gpt3(void **state)
{
    (void)state;
    struct setup s;
    gpt3(&s);
    /* 96 x (12 h^2 + 4 h) + V h, h = 12288, V = 51200 */
    double h = 12288;
    double expect = 96 * (12 * h * h + 4 * h) + 51200 * h;
    assert_close(model_params(&s), expect, 1e-12);
    assert_close(model_params(&s), 174580039680.0, 1e-12);
}

static void test_params_gqa_swiglu(void **state)
{
    (void)state;
    struct setup s;
    setup_defaults(&s);
    /* Llama-3-8B: 32 layers, h 4096, 32 heads, 8 KV heads, SwiGLU 14336,
     * untied vocab 128256 counted once here (tied embedding). */
    s.model.layers = 32;
    s.model.hidden = 4096;
    s.model.heads = 32;
    s.model.kv_heads = 8;
    s.model.ffn_hidden = 14336;
    s.model.mlp = MLP_SWIGLU;
    s.model.vocab = 128256;
    double h = 4096, kv = 1024, f = 14336;
    double layer = 2 * h * h + 2 * h * kv + 3 * h * f + 4 * h;
    assert_close(model_params(&s), 32 * layer + 128256 * h, 1e-12);
}

static void test_megatron_flops_no_recompute(void **state)
{
    (void)state;
    struct setup s;
    gpt3(&s);
    struct model_report o;
    eval(&s, &o);
    /* Narayanan et al. 2021: 72 B s l h^2 (1 + s/6h + V/12lh) without
     * recomputation. */
    double B = 1536, sq = 2048, l = 96, h = 12288, V = 51200;
    double f72 = 72 * B * sq * l * h * h * (1 + sq / (6 * h) + V / (12 * l * h));
    assert_close(o.model_flops_per_step, f72, 1e-9);
    assert_close(o.flops_per_step, f72, 1e-9);
}

static void test_megatron_flops_full_recompute(void **state)
{
    (void)state;
    struct setup s;
    gpt3(&s);
    s.training.recompute = RECOMPUTE_FULL;
    struct model_report o;
    eval(&s, &o);
    double B = 1536, sq = 2048, l = 96, h = 12288, V = 51200;
    double f96 = 96 * B * sq * l * h * h * (1 + sq / (6 * h) + V / (16 * l * h));
    assert_close(o.flops_per_step, f96, 1e-9);
    /* MFU counts the model's FLOPs only; HFU counts the recomputation too. */
    assert_close(o.hfu / o.mfu, f96 / o.model_flops_per_step, 1e-9);
    assert_true(o.hfu > o.mfu);
}

static void test_selective_recompute_flops(void **state)
{
    (void)state;
    struct setup s;
    gpt3(&s);
    s.training.recompute = RECOMPUTE_SELECTIVE;
    struct model_report o;
    eval(&s, &o);
    /* Selective recomputation redoes only QK^T and attention x V:
     * 4 B s^2 h per layer (Korthikanti et al. 2022). */
    double B = 1536, sq = 2048, l = 96, h = 12288;
    assert_close(o.flops_per_step - o.model_flops_per_step, l * 4 * B * sq * sq * h, 1e-9);
}

static void test_not_fitting_is_not_runnable(void **state)
{
    (void)state;
    struct setup s;
    gpt3(&s); /* no recomputation: 107 GB per device */
    struct model_report o;
    eval(&s, &o);
    assert_false(o.memory.fits);
    assert_false(o.runnable);
    assert_non_null(strstr(o.why_not, "GB per device"));
    /* The would-be throughput stays, flagged, for comparison. */
    assert_true(o.tokens_per_s > 0.0);
    assert_true(o.n_suggestions > 0);
}

/* model_eval_numbers: the numbers of model_eval, without the sentences. */
static void clear_words(struct model_report *o)
{
    memset(o->why_not, 0, sizeof o->why_not);
    memset(o->bottleneck_reason, 0, sizeof o->bottleneck_reason);
    memset(o->next_reason, 0, sizeof o->next_reason);
    memset(o->suggestions, 0, sizeof o->suggestions);
    o->n_suggestions = 0;
}

static void test_numbers_only_eval(void **state)
{
    (void)state;
    struct setup s;
    gpt3(&s);
    for (int k = 0; k < 3; k++) {
        /* does not fit (with suggestions), fits, fits on half the nodes */
        if (k == 1)
            s.training.recompute = RECOMPUTE_FULL;
        if (k == 2)
            s.cluster.nodes = 64;
        struct resolved r;
        char err[512];
        if (!setup_resolve(&s, cat, &r, err, sizeof err))
            fail_msg("resolve: %s", err);
        static struct model_report words, numbers;
        model_eval(&s, &r, &words);
        model_eval_numbers(&s, &r, &numbers);
        assert_int_equal(numbers.n_suggestions, 0);
        assert_int_equal(numbers.bottleneck_reason[0], 0);
        assert_true(k > 0 || (words.n_suggestions > 0 && words.why_not[0]));
        clear_words(&words);
        clear_words(&numbers);
        assert_memory_equal(&words, &numbers, sizeof words);
    }
}

static void test_mfu_definition(void **state)
{
    (void)state;
    struct setup s;
    gpt3(&s);
    s.training.recompute = RECOMPUTE_FULL; /* without it 175B does not fit at TP 8 PP 8 */
    struct model_report o;
    eval(&s, &o);
    double peak_all = 312e12 * 1024;
    assert_close(o.mfu, o.model_flops_per_step / o.step_time_s / peak_all, 1e-9);
    assert_close(o.tflops_per_device, o.flops_per_step / o.step_time_s / 1024 / 1e12, 1e-9);
    assert_close(o.tokens_per_s, 1536.0 * 2048 / o.step_time_s, 1e-9);
}

/* Korthikanti et al. 2022, Table 2: activation bytes per layer. */
static double activations_gb(int tp, bool sp, int recompute, bool flash)
{
    struct setup s;
    gpt3(&s);
    s.cluster.nodes = 1;
    s.training.global_batch = tp == 8 ? 1 : 8;
    s.training.tensor_parallel = tp;
    s.training.pipeline_parallel = 1;
    s.training.sequence_parallel = sp;
    s.training.recompute = recompute;
    s.training.flash_attention = flash;
    if (flash) /* the 2021-22 megatron stack has no flash attention */
        snprintf(s.training.software, sizeof s.training.software, "megatron-core");
    struct model_report o;
    eval(&s, &o);
    return o.memory.activations_gb;
}

static void test_activations_korthikanti(void **state)
{
    (void)state;
    double sq = 2048, h = 12288, a = 96, l = 96, t = 8;
    double sbh = sq * 1 * h;
    /* No parallelism: s b h (34 + 5 a s / h). */
    assert_close(activations_gb(1, false, RECOMPUTE_NONE, false),
                 l * sbh * (34 + 5 * a * sq / h) / 1e9, 1e-9);
    /* Tensor parallel: s b h (10 + 24/t + 5 a s / (h t)). */
    assert_close(activations_gb(8, false, RECOMPUTE_NONE, false),
                 l * sbh * (10 + 24 / t + 5 * a * sq / (h * t)) / 1e9, 1e-9);
    /* Tensor + sequence parallel: s b h / t (34 + 5 a s / h). */
    assert_close(activations_gb(8, true, RECOMPUTE_NONE, false),
                 l * sbh / t * (34 + 5 * a * sq / h) / 1e9, 1e-9);
    /* Selective recomputation with sequence parallelism: 34 s b h / t. */
    assert_close(activations_gb(8, true, RECOMPUTE_SELECTIVE, false), l * sbh * 34 / t / 1e9, 1e-9);
    /* Flash attention stores no s x s scores either. */
    assert_close(activations_gb(1, false, RECOMPUTE_NONE, true), l * sbh * 34 / 1e9, 1e-9);
    /* Full recomputation: 2 s b h per layer, plus one layer rebuilt in full
     * during its backward, less its input (the stored 2 s b h it reads). */
    assert_close(activations_gb(1, false, RECOMPUTE_FULL, false),
                 (l * 2 * sbh + sbh * (34 - 2 + 5 * a * sq / h)) / 1e9, 1e-9);
}

static void test_pipeline_bubble(void **state)
{
    (void)state;
    struct setup s;
    gpt3(&s);
    struct model_report o;
    eval(&s, &o);
    double p = 8, m = o.micro_batches;
    assert_int_equal(o.micro_batches, 1536 / 16);
    /* 1F1B: the bubble is (p-1)/(m+p-1) of the pipelined time with equal
     * stages; the first and last stages (embedding, output layer) make it
     * a little smaller here (tests/unit/engine/test_sched.c checks the
     * closed form against the schedule simulator exactly). */
    const struct step_breakdown *k = &o.breakdown;
    double pipelined = k->compute + k->recompute + k->tp_comm + k->pp_bubble;
    assert_close(k->pp_bubble / pipelined, (p - 1) / (m + p - 1), 0.03);
    assert_true(k->pp_bubble / pipelined <= (p - 1) / (m + p - 1));
}

static void test_interleaved_bubble(void **state)
{
    (void)state;
    struct setup s;
    gpt3(&s);
    s.training.recompute = RECOMPUTE_FULL;
    s.training.virtual_stages = 2;
    struct model_report o;
    eval(&s, &o);
    /* Interleaved 1F1B: bubble (p-1)/v micro-batch slots (Narayanan 2021)
     * with equal stages; the lighter first and last stages shorten it. */
    const struct step_breakdown *k = &o.breakdown;
    double per_mb = (k->compute + k->recompute + k->tp_comm) / o.micro_batches;
    assert_close(k->pp_bubble, 7.0 / 2.0 * per_mb, 0.03);
    struct setup plain = s;
    plain.training.virtual_stages = 1;
    struct model_report p1;
    eval(&plain, &p1);
    assert_true(o.memory.activations_gb > p1.memory.activations_gb);
    assert_true(o.step_time_s < p1.step_time_s);
}

static void test_breakdown_adds_up(void **state)
{
    (void)state;
    struct setup s;
    gpt3(&s);
    struct model_report o;
    eval(&s, &o);
    const struct step_breakdown *k = &o.breakdown;
    double sum = k->data_read + k->preprocess + k->host_to_device + k->compute + k->recompute +
                 k->tp_comm + k->cp_comm + k->ep_comm + k->pp_bubble + k->pp_p2p +
                 k->dp_comm_exposed + k->optimizer + k->straggler + k->overhead;
    assert_close(sum, o.step_time_s, 1e-9);
}

static void test_ring_allreduce_volume(void **state)
{
    (void)state;
    /* With no latency, time x bandwidth is the bytes each device sends:
     * 2(n-1)/n of the buffer for a ring all-reduce (Patarasuk & Yuan 2009). */
    int ns[] = {2, 8, 64, 1024};
    for (size_t i = 0; i < 4; i++) {
        int n = ns[i];
        struct collective_net net = {n, n, 100.0, 0.0, 100.0, 0.0, 0.0, 0.0};
        double S = 1e9;
        double t = collective_time(COLL_ALL_REDUCE, ALLREDUCE_RING, S, &net, NULL);
        assert_close(t * 100e9, 2.0 * (n - 1) / n * S, 1e-12);
        t = collective_time(COLL_ALL_GATHER, ALLREDUCE_RING, S, &net, NULL);
        assert_close(t * 100e9, (double)(n - 1) / n * S, 1e-12);
        assert_close(collective_bus_factor(COLL_ALL_REDUCE, n), 2.0 * (n - 1) / n, 1e-12);
    }
}

static void test_ring_latency_and_tree(void **state)
{
    (void)state;
    /* 8 B over 1024 devices, one per node: latency-bound. Ring pays 2(n-1)
     * hops, the tree 2 log2(n): the tree must win by about (n-1)/log2(n). */
    struct collective_net net = {1024, 1, 100.0, 5e-6, 100.0, 5e-6, 0.0, 0.0};
    double ring = collective_time(COLL_ALL_REDUCE, ALLREDUCE_RING, 8, &net, NULL);
    double tree = collective_time(COLL_ALL_REDUCE, ALLREDUCE_TREE, 8, &net, NULL);
    assert_close(ring, 2 * 1023 * 5e-6 + 2.0 * 1023 / 1024 * 8 / 100e9, 1e-9);
    assert_close(tree, 2 * 10 * 5e-6 + 2 * 8 / 100e9, 1e-9);
    int used = -1;
    double best = collective_time(COLL_ALL_REDUCE, ALLREDUCE_AUTO, 8, &net, &used);
    assert_int_equal(used, ALLREDUCE_TREE);
    assert_close(best, tree, 1e-12);
}

static void test_hierarchical_allreduce(void **state)
{
    (void)state;
    /* 4 nodes x 8 devices: reduce-scatter in the node (7/8 S at 200 GB/s),
     * all-reduce of S/8 across 4 nodes (2 x 3/4 x S/8 at 25 GB/s), then
     * all-gather in the node (7/8 S at 200 GB/s). No latency. */
    struct collective_net net = {32, 8, 200.0, 0.0, 25.0, 0.0, 0.0, 0.0};
    double S = 8e9;
    double expect = 7.0 / 8 * S / 200e9 + 2 * 3.0 / 4 * (S / 8) / 25e9 + 7.0 / 8 * S / 200e9;
    assert_close(collective_time(COLL_ALL_REDUCE, ALLREDUCE_HIERARCHICAL, S, &net, NULL), expect,
                 1e-12);
}

static void test_young_daly(void **state)
{
    (void)state;
    struct setup s;
    gpt3(&s);
    struct model_report o;
    eval(&s, &o);
    const struct reliability_report *y = &o.reliability;
    /* Interruptions: devices / device MTBF + nodes / node MTBF. */
    double per_hour = 1024 / s.reliability.device_mtbf_h + 128 / s.reliability.node_mtbf_h;
    assert_close(y->interruptions_per_day, 24 * per_hour, 1e-12);
    /* Young 1974: tau = sqrt(2 delta M). */
    double M = 3600 / per_hour;
    assert_close(y->checkpoint_interval_min * 60, sqrt(2 * y->checkpoint_write_s * M), 1e-9);
    /* Checkpoint = weights (2 bytes) + fp32 master and Adam moments (12). */
    assert_close(y->checkpoint_gb, model_params(&s) * 14 / 1e9, 1e-12);
    /* Daly's first-order waste. */
    double tau = y->checkpoint_interval_min * 60;
    double waste = y->checkpoint_write_s / tau + (tau / 2 + s.reliability.restart_min * 60) / M;
    assert_close(y->goodput, 1 - waste, 1e-9);
}

static void test_zero_memory_states(void **state)
{
    (void)state;
    /* Generic 1B-parameter model on 8 devices, mixed-precision Adam. */
    struct setup s;
    setup_defaults(&s);
    s.model.kind = MODEL_GENERIC;
    s.model.params = 1e9;
    s.model.flops_per_sample = 6e9 * 2048;
    s.training.global_batch = 8;
    /* The ZeRO paper's accounting, 2 + 2 + 12 bytes, is DeepSpeed's. */
    snprintf(s.training.software, sizeof s.training.software, "deepspeed");
    double expect[4] = {16, 4 + 12.0 / 8, 2 + 14.0 / 8, 16.0 / 8};
    for (int z = 0; z <= 3; z++) {
        s.training.zero_stage = z;
        struct model_report o;
        eval(&s, &o);
        const struct memory_report *m = &o.memory;
        assert_close(m->params_gb + m->grads_gb + m->optimizer_gb, expect[z], 1e-12);
    }
}

static void test_power_and_throttle(void **state)
{
    (void)state;
    struct setup s;
    gpt3(&s);
    s.training.recompute = RECOMPUTE_FULL;
    struct model_report o;
    eval(&s, &o);
    /* Not throttled on liquid cooling at 2 nodes per rack. */
    assert_false(o.power.throttled);
    const struct accelerator *a = catalog_accelerator(cat, "a100-sxm-80gb");
    double busy =
        (o.breakdown.compute + o.breakdown.recompute + o.breakdown.optimizer) / o.step_time_s;
    /* Waiting on communication or in the bubble, a device keeps its clocks
     * and draws half its dynamic power (not idle). */
    double draw = busy + 0.5 * (1 - busy);
    assert_true(busy < 0.95);
    assert_close(o.power.device_w, a->idle_w + (a->tdp_w - a->idle_w) * draw, 1e-9);
    assert_close(o.power.facility_kw, o.power.it_kw * o.power.pue, 1e-12);
    /* Eight DGX-class nodes in one air-cooled rack: far over 20 kW. */
    s.facility.nodes_per_rack = 8;
    snprintf(s.facility.cooling, FIELD_STR_LEN, "air");
    struct model_report hot;
    eval(&s, &hot);
    assert_true(hot.power.throttled);
    assert_true(hot.power.throttle_factor > 0 && hot.power.throttle_factor < 1);
    assert_close(hot.power.per_rack_kw, hot.power.rack_cooling_limit_kw, 1e-9);
    /* The devices shed the whole excess: the rest of the node (CPUs, NICs,
     * switches, fans) draws what it drew unthrottled, and the node adds up
     * to its share of the rack's cooling capacity. */
    double rest_cool = o.power.node_w - 8 * o.power.device_w;
    double rest_hot = hot.power.node_w - 8 * hot.power.device_w;
    assert_true(fabs(rest_hot - rest_cool) < 1.0);
    assert_true(hot.power.device_w > a->idle_w && hot.power.device_w < o.power.device_w);
    assert_close(hot.power.node_w * 8 / 1000.0, hot.power.per_rack_kw, 1e-9);
    assert_true(hot.step_time_s > o.step_time_s);
    assert_int_equal(hot.bottleneck, STAGE_INFRASTRUCTURE);
    assert_non_null(strstr(hot.bottleneck_reason, "cooling removes"));
}

static void test_cannot_cool_at_all(void **state)
{
    (void)state;
    struct setup s;
    gpt3(&s);
    /* 64 nodes in one perimeter-cooled rack: even idle devices overheat. */
    s.facility.nodes_per_rack = 64;
    snprintf(s.facility.cooling, FIELD_STR_LEN, "air-perimeter");
    struct model_report o;
    eval(&s, &o);
    assert_false(o.runnable);
    assert_non_null(strstr(o.why_not, "overheat"));
    /* No progress is claimed for a setup that cannot run. */
    assert_true(o.tokens_per_s == 0.0 && o.mfu == 0.0 && o.cost.days_to_train == 0.0);
    assert_true(isfinite(o.step_time_s) && isfinite(o.tokens_per_s));
}

static void test_host_ram_and_lanes_checks(void **state)
{
    (void)state;
    struct setup s;
    gpt3(&s);
    /* 8 x A100 "80GB" = 8 x 80 GiB = 8 x 85.9 GB = 687.2 GB of device memory. */
    s.cluster.node.host_ram_gb = 687;
    struct model_report o;
    eval(&s, &o);
    assert_false(o.host_ram_ok);
    s.cluster.node.host_ram_gb = 688;
    eval(&s, &o);
    assert_true(o.host_ram_ok);
    /* Without PCIe switches 8 GPUs + 8 NICs need 16 x 16 = 256 lanes: 2 x
     * EPYC 7742 have 256, one has 128. */
    s.cluster.node.pcie_switches = 0;
    eval(&s, &o);
    assert_true(o.pcie_lanes_ok);
    assert_close(o.pcie_lanes_needed, 256, 1e-12);
    s.cluster.node.cpu_sockets = 1;
    eval(&s, &o);
    assert_false(o.pcie_lanes_ok);
    /* Behind 4 switches (DGX A100) the CPUs see 4 x16 uplinks: one socket
     * is enough, and two devices share each uplink for host copies. */
    struct model_report direct = o;
    s.cluster.node.pcie_switches = 4;
    eval(&s, &o);
    assert_true(o.pcie_lanes_ok);
    assert_close(o.pcie_lanes_needed, 64, 1e-12);
    /* One socket: 128 of 256 lanes shared directly, or half an uplink
     * each behind the switches: the same host-copy time. */
    assert_close(o.stages.h2d_s, direct.stages.h2d_s, 1e-12);
}

static void test_all_finite(void **state)
{
    (void)state;
    /* Extreme but valid setups never produce NaN or Inf anywhere. */
    struct setup s;
    setup_defaults(&s);
    s.data.sample_bytes = 1e12;
    s.cluster.storage_bw_gbs = 1e-3;
    s.reliability.device_mtbf_h = 1e-3;
    struct model_report o;
    eval(&s, &o);
    for (size_t i = 0; i < report_field_count; i++)
        assert_true(isfinite(report_field_number(&report_fields[i], &o)));
    assert_true(isfinite(o.cost.days_to_train));
    assert_false(o.runnable);
}

/* Every double of the report through the table: finite and never -0. */
static void assert_report_clean(const struct model_report *o)
{
    for (size_t i = 0; i < report_field_count; i++) {
        double v = report_field_number(&report_fields[i], o);
        if (!isfinite(v) || (v == 0 && signbit(v)))
            fail_msg("%s = %g", report_fields[i].key, v);
    }
}

static void test_counts_do_not_overflow(void **state)
{
    (void)state;
    /* 524,288 nodes x 1,024 devices: 2^29 devices; x micro-batch 8 is 2^32,
     * which wrapped to 0 in an int and divided by zero (SIGFPE). */
    struct setup s;
    setup_defaults(&s);
    s.cluster.nodes = 524288;
    s.cluster.node.accelerators_per_node = 1024;
    s.training.micro_batch = 8;
    s.training.global_batch = 1000000000;
    assert_int_equal(setup_devices(&s), 536870912);
    assert_true(setup_devices(&s) * s.training.micro_batch == 4294967296LL);
    struct resolved r;
    char err[512];
    assert_false(setup_resolve(&s, cat, &r, err, sizeof err)); /* a message, not a crash */
    assert_true(strlen(err) > 10);
    /* The model itself never divides by a wrapped count, resolved or not. */
    s.training.global_batch = 1;
    struct setup ok;
    setup_defaults(&ok);
    assert_true(setup_resolve(&ok, cat, &r, err, sizeof err));
    struct model_report o;
    model_eval(&s, &r, &o);
    assert_int_equal(o.devices, 536870912);
    assert_int_equal(o.micro_batches, 1);
    assert_report_clean(&o);
    /* A valid cluster of that size: every count exact. */
    s.training.tensor_parallel = 8;
    s.training.pipeline_parallel = 32;
    s.training.global_batch = 536870912;
    model_eval(&s, &r, &o);
    assert_int_equal(o.dp, 2097152);
    assert_int_equal(o.micro_batches, 32);
    assert_int_equal(o.racks, 262144);
    assert_report_clean(&o);
}

static void test_tiny_capacities(void **state)
{
    (void)state;
    struct setup s;
    setup_defaults(&s);
    struct resolved r;
    char err[512];
    assert_true(setup_resolve(&s, cat, &r, err, sizeof err));
    struct model_report o;
    /* A denormal storage bandwidth: the step takes "forever", not 0 us. */
    s.cluster.storage_bw_gbs = 4.9e-324;
    model_eval(&s, &r, &o);
    assert_false(o.runnable);
    assert_true(o.step_time_s > 1e6);
    assert_true(o.tokens_per_s < 1e-3);
    assert_report_clean(&o);
    s.cluster.storage_bw_gbs = -1; /* auto again */

    /* A CPU without PCIe lanes, a link of 1e-300 GB/s, no cooling at all,
     * zero memory bandwidth: finite everywhere, reported as not runnable. */
    struct cpu cpu = *r.cpu;
    cpu.pcie_lanes = 0;
    struct link link = *r.intra_link;
    link.bw_gbs = 1e-300;
    struct cooling cool = *r.cooling;
    cool.rack_kw_max = 0;
    struct accelerator acc = *r.accel;
    acc.mem_bw_gbs = 0;
    struct resolved bad = r;
    bad.cpu = &cpu;
    model_eval(&s, &bad, &o);
    assert_false(o.runnable);
    assert_report_clean(&o);
    bad = r;
    bad.intra_link = &link;
    bad.host_link = &link;
    model_eval(&s, &bad, &o);
    assert_false(o.runnable);
    assert_report_clean(&o);
    bad = r;
    bad.cooling = &cool;
    model_eval(&s, &bad, &o);
    assert_false(o.runnable);
    assert_report_clean(&o);
    bad = r;
    bad.accel = &acc;
    model_eval(&s, &bad, &o);
    assert_false(o.runnable);
    assert_report_clean(&o);

    /* Collectives over a link that carries nothing: a finite ceiling. */
    struct collective_net net = {8, 8, 1e-300, 1e-6, 0.0, 1e-6, 0.0, 0.0};
    for (int algo = ALLREDUCE_AUTO; algo <= ALLREDUCE_NVLS; algo++) {
        double t = collective_time(COLL_ALL_REDUCE, algo, 1e9, &net, NULL);
        assert_true(isfinite(t) && t <= COLLECTIVE_TIME_CEILING_S);
    }
    net.per_node = 2;
    double t = collective_time(COLL_BROADCAST, ALLREDUCE_HIERARCHICAL, 1e9, &net, NULL);
    assert_true(isfinite(t) && t <= COLLECTIVE_TIME_CEILING_S);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_params_gpt3),
        cmocka_unit_test(test_params_gqa_swiglu),
        cmocka_unit_test(test_megatron_flops_no_recompute),
        cmocka_unit_test(test_megatron_flops_full_recompute),
        cmocka_unit_test(test_selective_recompute_flops),
        cmocka_unit_test(test_mfu_definition),
        cmocka_unit_test(test_not_fitting_is_not_runnable),
        cmocka_unit_test(test_numbers_only_eval),
        cmocka_unit_test(test_activations_korthikanti),
        cmocka_unit_test(test_pipeline_bubble),
        cmocka_unit_test(test_interleaved_bubble),
        cmocka_unit_test(test_breakdown_adds_up),
        cmocka_unit_test(test_ring_allreduce_volume),
        cmocka_unit_test(test_ring_latency_and_tree),
        cmocka_unit_test(test_hierarchical_allreduce),
        cmocka_unit_test(test_young_daly),
        cmocka_unit_test(test_zero_memory_states),
        cmocka_unit_test(test_power_and_throttle),
        cmocka_unit_test(test_cannot_cool_at_all),
        cmocka_unit_test(test_host_ram_and_lanes_checks),
        cmocka_unit_test(test_all_finite),
        cmocka_unit_test(test_counts_do_not_overflow),
        cmocka_unit_test(test_tiny_capacities),
    };
    return cmocka_run_group_tests(tests, load_catalog, free_catalog);
}
