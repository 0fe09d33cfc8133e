/* Unit tests of the serving model (engine/model/infer.h): exact KV-cache
 * sizes, the room the engine leaves for the cache, the memory-bound decode
 * floor, refusals, and the directions every figure must move in. Expected
 * values are worked out here from the published shapes, not taken from
 * the code under test. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "infer.h"
#include "model.h"
#include "serve.h"

#include "../../catalog_fixture.h"

/* Llama 2 70B (Touvron et al. 2023, table 1 and the released config):
 * 80 layers, hidden 8192, 64 heads, 8 KV heads, FFN 28672, vocab 32000. */
static void llama2_70b(struct setup *s)
{
    setup_defaults(s);
    s->model.layers = 80;
    s->model.hidden = 8192;
    s->model.heads = 64;
    s->model.kv_heads = 8;
    s->model.ffn_hidden = 28672;
    s->model.vocab = 32000;
    s->model.mlp = MLP_SWIGLU;
    s->model.tied_embeddings = false;
    s->inference.tensor_parallel = 8;
}

/* Llama 2 7B: 32 layers, hidden 4096, 32 heads (no GQA), FFN 11008. */
static void llama2_7b(struct setup *s)
{
    setup_defaults(s);
    s->model.layers = 32;
    s->model.hidden = 4096;
    s->model.heads = 32;
    s->model.kv_heads = 0;
    s->model.ffn_hidden = 11008;
    s->model.vocab = 32000;
    s->model.mlp = MLP_SWIGLU;
    s->model.tied_embeddings = false;
}

static bool resolve(const struct setup *s, struct resolved *r, char *err, size_t len)
{
    return setup_resolve(s, cat, r, err, len);
}

static void serve(const struct setup *s, struct infer_report *o)
{
    struct resolved r;
    char err[512];
    if (!resolve(s, &r, err, sizeof err))
        fail_msg("resolve: %s", err);
    infer_eval(s, &r, o);
}

static void test_kv_bytes_per_token(void **state)
{
    (void)state;
    struct setup s;
    struct infer_report o;
    llama2_70b(&s);
    serve(&s, &o);
    /* 2 (K and V) x 80 layers x 8 heads x 128 x 2 bytes */
    assert_true(o.kv_bytes_per_token == 327680.0);
    s.inference.kv_precision = INFER_FP8;
    serve(&s, &o);
    assert_true(o.kv_bytes_per_token == 163840.0);
    llama2_7b(&s);
    serve(&s, &o);
    /* no GQA: 2 x 32 x 32 x 128 x 2 = 512 KiB */
    assert_true(o.kv_bytes_per_token == 524288.0);
}

/* Multi-head latent attention caches the 512-wide latent and the 64-wide
 * rotary key per layer (DeepSeek-V3's config: kv_lora_rank 512,
 * qk_rope_head_dim 64, 61 layers): 61 x 576 x 2 bytes, far below 2 x
 * layers x 128 heads x 128 that ordinary attention would keep. */
static void test_kv_bytes_mla(void **state)
{
    (void)state;
    struct setup s;
    struct infer_report o;
    char err[1024];
    setup_defaults(&s);
    if (!setup_load_string(&s, "mla.yaml", "model: {hf_config: assets/models/deepseek-v3.json}\n",
                           cat, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(s.model.kv_lora_rank, 512);
    s.cluster.nodes = 4;
    s.inference.tensor_parallel = 32;
    s.inference.weight_precision = INFER_FP8;
    serve(&s, &o);
    assert_true(o.kv_bytes_per_token == 61.0 * 576.0 * 2.0);
}

/* vLLM's KV pool: 0.9 of device memory less weights, the profiled
 * workspace and the runtime reserve, cut into 16-token blocks; a sequence
 * of 1024 + 256 tokens takes 80 blocks. */
static void test_max_batch_llama2_7b(void **state)
{
    (void)state;
    struct setup s;
    struct infer_report o;
    llama2_7b(&s);
    s.inference.prompt_tokens = 1024;
    s.inference.output_tokens = 256;
    s.inference.batch = 8;
    serve(&s, &o);
    struct resolved r;
    char err[256];
    assert_true(resolve(&s, &r, err, sizeof err));
    /* Every weight in bf16 (the training model's count, tested there). */
    double weights = model_params(&s) * 2.0;
    double workspace = 8192.0 * (4 * 4096 + 3 * 11008) * 2.0 + 8 * 32000.0 * 4.0;
    double free = r.accel->mem_gb * 1e9 * 0.9 - weights - workspace - 1.5e9;
    double kvpt = 524288.0;
    double blocks = floor(free / (kvpt * 16));
    int expected = (int)floor(blocks * 16 / 1280.0);
    assert_int_equal(o.max_batch, expected);
    assert_true(fabs(o.weights_gb_per_device - weights / 1e9) < 1e-6);
    assert_true(o.runnable);
}

/* At one sequence a decode step reads every weight once: it cannot be
 * faster than the weights over the achievable bandwidth, and little else
 * is added on a single device. */
static void test_decode_memory_floor(void **state)
{
    (void)state;
    struct setup s;
    struct infer_report o;
    setup_defaults(&s);
    s.inference.batch = 1;
    s.inference.prompt_tokens = 128;
    s.inference.output_tokens = 128;
    serve(&s, &o);
    struct resolved r;
    char err[256];
    assert_true(resolve(&s, &r, err, sizeof err));
    double bw = r.accel->mem_bw_gbs * r.accel->mem_bw_efficiency * 1e9;
    double floor_s = o.weights_gb_per_device * 1e9 / bw;
    assert_true(o.tpot_s >= floor_s);
    assert_true(o.tpot_s < 1.5 * floor_s);
    assert_int_equal(o.decode_bottleneck, STAGE_ACCELERATORS);
    assert_non_null(strstr(o.decode_reason, "memory-bound"));
}

static void test_cannot_serve(void **state)
{
    (void)state;
    struct setup s;
    struct infer_report o;
    llama2_70b(&s);
    s.inference.tensor_parallel = 1; /* 140 GB of bf16 weights on one 80 GB device */
    serve(&s, &o);
    assert_false(o.runnable);
    assert_non_null(strstr(o.why_not, "weights"));
    assert_true(o.output_tokens_per_s == 0 && o.ttft_s == 0 && o.usd_per_mtok == 0);
    llama2_70b(&s);
    s.inference.batch = 100000;
    serve(&s, &o);
    assert_false(o.runnable);
    assert_non_null(strstr(o.why_not, "KV cache"));
    assert_true(o.max_batch > 0);
    setup_defaults(&s);
    s.model.kind = MODEL_GENERIC;
    s.model.params = 1e9;
    s.model.flops_per_sample = 1e12;
    serve(&s, &o);
    assert_false(o.runnable);
    /* A cap that would hold an H100's clocks below its lowest (345 of
     * 1,980 MHz; 77 W leaves 0.147 of the boost clock): no serving. */
    llama2_70b(&s);
    s.cluster.node.power_limit_w = 77;
    serve(&s, &o);
    assert_false(o.runnable);
    assert_non_null(strstr(o.why_not, "minimum sustained clock"));
    assert_true(o.output_tokens_per_s == 0);
    s.cluster.node.power_limit_w = 80;
    serve(&s, &o);
    assert_true(o.runnable);
}

static void test_refusals(void **state)
{
    (void)state;
    struct setup s;
    struct resolved r;
    char err[512];
    llama2_70b(&s);
    s.inference.tensor_parallel = 3;
    assert_false(resolve(&s, &r, err, sizeof err));
    assert_non_null(strstr(err, "inference.tensor_parallel"));
    llama2_70b(&s);
    s.inference.weight_precision = INFER_FP4; /* the H100 has no FP4 path */
    assert_false(resolve(&s, &r, err, sizeof err));
    if (!strstr(err, "inference.weight_precision"))
        fail_msg("%s", err);
    snprintf(s.cluster.node.accelerator, FIELD_STR_LEN, "b200");
    assert_true(resolve(&s, &r, err, sizeof err));
    llama2_70b(&s);
    s.inference.pipeline_parallel = 2;
    s.inference.tensor_parallel = 8; /* 16 devices asked of 8 */
    assert_false(resolve(&s, &r, err, sizeof err));
}

/* Batch buys throughput with latency; a longer prompt costs time to first
 * token; 8-bit weights read half the bytes. */
static void test_directions(void **state)
{
    (void)state;
    struct setup s;
    struct infer_report a, b;
    llama2_70b(&s);
    s.inference.batch = 8;
    serve(&s, &a);
    s.inference.batch = 64;
    serve(&s, &b);
    assert_true(b.tpot_s > a.tpot_s);
    assert_true(b.output_tokens_per_s > 2.0 * a.output_tokens_per_s);
    s.inference.prompt_tokens = 4096;
    serve(&s, &a);
    assert_true(a.ttft_s > b.ttft_s);
    llama2_70b(&s);
    s.inference.batch = 1;
    serve(&s, &a);
    s.inference.weight_precision = INFER_FP8;
    serve(&s, &b);
    assert_true(b.tpot_s < a.tpot_s);
    assert_true(b.weights_gb_per_device < 0.6 * a.weights_gb_per_device);
}

/* Grouped-query attention at a short context turns compute-bound at some
 * batch; past it the verdict says so. */
static void test_crossover(void **state)
{
    (void)state;
    struct setup s;
    struct infer_report o;
    llama2_70b(&s);
    s.inference.prompt_tokens = 128;
    s.inference.output_tokens = 16;
    s.inference.weight_precision = INFER_FP8;
    s.inference.kv_precision = INFER_FP8;
    s.inference.batch = 1;
    serve(&s, &o);
    assert_true(o.decode_crossover_batch > 1);
    double cross = o.decode_crossover_batch;
    s.inference.batch = ceil(cross * 1.5);
    serve(&s, &o);
    assert_non_null(strstr(o.decode_reason, "compute-bound"));
}

static void test_all_finite(void **state)
{
    (void)state;
    struct setup s;
    struct infer_report o;
    int counts[] = {1, 7, 64, 1000};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        setup_defaults(&s);
        s.inference.prompt_tokens = counts[i] * 100;
        s.inference.output_tokens = counts[i];
        serve(&s, &o);
        for (size_t k = 0; k < infer_report_field_count; k++) {
            const struct report_field *f = &infer_report_fields[k];
            if (f->type != REPORT_NUM)
                continue;
            double v = report_field_number(f, &o);
            assert_true(isfinite(v));
            assert_false(v == 0.0 && signbit(v));
            assert_true(v >= 0.0);
        }
    }
}

static void serve_run(const struct setup *s, double duration, uint64_t seed, struct serve_report *o)
{
    struct resolved r;
    char err[512];
    if (!resolve(s, &r, err, sizeof err))
        fail_msg("resolve: %s", err);
    assert_true(infer_serve(s, &r, duration, seed, o));
}

/* At a trickle of traffic no request waits and none shares a step: the
 * median TTFT is one prompt's prefill and the median TPOT one decode step
 * at batch 1, as the closed form says (graph replay and one host step
 * apart: within 10%). */
static void test_serve_light_load_matches_closed_form(void **state)
{
    (void)state;
    struct setup s;
    struct infer_report c;
    struct serve_report o;
    setup_defaults(&s);
    s.inference.prompt_tokens = 512;
    s.inference.output_tokens = 64;
    s.inference.batch = 1;
    serve(&s, &c);
    s.inference.batch = FIELD_AUTO;
    s.inference.arrival_rate = 0.05; /* one request every 20 s over 8 replicas */
    serve_run(&s, 3600, 7, &o);
    assert_true(o.ran && o.completed > 100);
    assert_true(fabs(o.ttft_p50_s - c.ttft_s) < 0.10 * c.ttft_s);
    assert_true(fabs(o.tpot_p50_s - c.tpot_s) < 0.10 * c.tpot_s);
    assert_true(o.slo_attainment > 0.99);
    assert_false(o.overloaded);
}

/* Below capacity everything that arrives is served: completed output is
 * the offered load (Poisson count noise over an hour, within 3%). Far
 * above capacity the queue grows, requests wait and miss the objective. */
static void test_serve_load(void **state)
{
    (void)state;
    struct setup s;
    struct infer_report c;
    struct serve_report o, p;
    setup_defaults(&s);
    serve(&s, &c);
    s.inference.arrival_rate = 0.5 * c.requests_per_s;
    serve_run(&s, 3600, 1, &o);
    double offered = s.inference.arrival_rate * s.inference.output_tokens;
    assert_true(fabs(o.output_tokens_per_s - offered) < 0.03 * offered);
    assert_false(o.overloaded);
    s.inference.arrival_rate = 3.0 * c.requests_per_s;
    serve_run(&s, 600, 1, &p);
    assert_true(p.overloaded);
    assert_true(p.ttft_p99_s > 10.0 * o.ttft_p99_s);
    assert_true(p.slo_attainment < 0.5);
    /* Same seed, same run; another seed, other arrivals. */
    s.inference.arrival_rate = 0.5 * c.requests_per_s;
    serve_run(&s, 600, 1, &o);
    serve_run(&s, 600, 1, &p);
    assert_memory_equal(&o, &p, sizeof o);
    serve_run(&s, 600, 2, &p);
    assert_true(o.arrived != p.arrived);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kv_bytes_per_token),
        cmocka_unit_test(test_kv_bytes_mla),
        cmocka_unit_test(test_max_batch_llama2_7b),
        cmocka_unit_test(test_decode_memory_floor),
        cmocka_unit_test(test_cannot_serve),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_directions),
        cmocka_unit_test(test_crossover),
        cmocka_unit_test(test_all_finite),
        cmocka_unit_test(test_serve_light_load_matches_closed_form),
        cmocka_unit_test(test_serve_load),
    };
    return cmocka_run_group_tests(tests, load_catalog, free_catalog);
}
