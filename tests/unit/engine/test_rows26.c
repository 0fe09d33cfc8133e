/* The mechanisms that brought the last 2026 rows in (issue 21, docs/MODEL.md
 * section 12), each checked against a figure worked out by hand from its
 * catalog counts, so that removing the mechanism fails the test:
 *   - eager PyTorch's unfused element-wise kernels (software `torchtitan`:
 *     every norm, rotary, residual and activation op a separate HBM round
 *     trip) against a stack whose kernels are fused;
 *   - Megatron-Core's per-expert loop that adds the experts' fc2 bias after
 *     the grouped GEMM (software `expert_bias_loop`, row 11's GPT-OSS);
 *   - the GB200's GEMM power derived from the B200's (one die, one f^3 law,
 *     rated clocks 10/9 apart; rows 3 and 6).
 * Tests run from the repository root. */
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

static void load(const char *file, struct setup *s, struct resolved *r)
{
    char path[256], err[1024];
    snprintf(path, sizeof path, "tests/validation/setups/%s", file);
    if (!setup_load_file(s, path, cat, err, sizeof err))
        fail_msg("%s", err);
    if (!setup_resolve(s, cat, r, err, sizeof err))
        fail_msg("%s", err);
}

/* Row 12 (torchtitan, Llama-3.1-8B, 2 x 8192 tokens per micro-batch): the
 * eager entry moves 118 bytes per s*b*h and 10 per SwiGLU inner element in
 * a layer's forward against the fused 22 and 6, and launches 37 kernels
 * against 16. The layer's forward grows by exactly that traffic at the
 * device's achievable bandwidth plus the extra launches; the backward by
 * twice both. */
static void test_eager_elementwise(void **state)
{
    (void)state;
    struct setup s;
    struct resolved r;
    load("torchtitan-8b-h100-96gb.yaml", &s, &r);
    const struct software *eager = r.software;
    assert_string_equal(eager->head.id, "torchtitan");
    assert_close(eager->elementwise_bytes_sbh, 118.0, 1e-12);
    assert_close(eager->swiglu_bytes_per_inner, 10.0, 1e-12);
    assert_int_equal(eager->kernels_per_layer_fwd, 37);

    struct software fused = *eager;
    fused.elementwise_bytes_sbh = 22;
    fused.swiglu_bytes_per_inner = 6;
    fused.kernels_per_layer_fwd = 16;
    struct ctx c;
    struct layer_times le, lf;
    model_make_ctx(&s, &r, &c);
    model_layer_times(&c, false, &le);
    struct resolved rf = r;
    rf.software = &fused;
    c.r = &rf;
    model_layer_times(&c, false, &lf);

    double M = 2.0 * 8192, h = 4096, f = 14336;
    double extra_bytes = (118.0 - 22.0) * M * h + (10.0 - 6.0) * M * f;
    double extra = extra_bytes / c.mem_bw + (37 - 16) * c.kernel_s;
    assert_true(extra > 1e-3); /* 7.4 GB per layer: milliseconds */
    assert_close(le.fwd - lf.fwd, extra, 1e-9);
    assert_close(le.bwd - lf.bwd, 2.0 * extra, 1e-9);

    /* Through the whole step: eager is slower, by no more than the traffic
     * of every pass (forward, backward, per-op recomputation) of every
     * layer, the loss's extra 24 bytes per logit and the straggler share. */
    struct model_report oe, of;
    model_eval(&s, &r, &oe);
    struct setup sf = s;
    snprintf(sf.training.software, sizeof sf.training.software, "fsdp");
    struct resolved r2;
    char err[1024];
    if (!setup_resolve(&sf, cat, &r2, err, sizeof err))
        fail_msg("%s", err);
    model_eval(&sf, &r2, &of);
    double logits = M * 128256;
    double bound = 1.1 * (32 * 4 * extra + logits * 24 / c.mem_bw);
    assert_true(oe.step_time_s > of.step_time_s + 0.8 * 32 * 4 * extra);
    assert_true(oe.step_time_s < of.step_time_s + bound);
}

/* Row 11 (GPT-OSS-120B, EP 8: 16 local experts, 4096 tokens with 4 copies
 * each): the fc2 bias loop adds 12 bytes per element of the experts' output
 * and 2 kernels per local expert + 1 to the forward, 16 bytes and 4 per
 * expert + 2 to the backward; nothing without the model's biases or on a
 * stack whose bias is fused. */
static void test_expert_bias_loop(void **state)
{
    (void)state;
    struct setup s;
    struct resolved r;
    load("mb-gpt-oss-120b-h100.yaml", &s, &r);
    assert_true(s.model.mlp_bias);
    assert_true(r.software->expert_bias_loop);
    struct ctx c;
    model_make_ctx(&s, &r, &c);
    struct layer_times with, without;
    struct moe_times mt;
    model_layer_times(&c, true, &with);
    model_moe_layer(&c, &mt);

    struct software fused = *r.software;
    fused.expert_bias_loop = false;
    struct resolved rf = r;
    rf.software = &fused;
    c.r = &rf;
    model_layer_times(&c, true, &without);

    double local = 128.0 / 8.0, elems = 4096.0 * 4.0 * mt.load_factor * 2880.0;
    double fwd = 12.0 * elems / c.mem_bw + (2.0 * local + 1.0) * c.kernel_s;
    double bwd = 16.0 * elems / c.mem_bw + (4.0 * local + 2.0) * c.kernel_s;
    assert_true(fwd > 2e-4); /* 0.58 GB and 33 kernels: a third of a millisecond */
    assert_close(mt.bias_fwd, fwd, 1e-9);
    assert_close(mt.bias_bwd, bwd, 1e-9);
    assert_close(with.fwd - without.fwd, fwd, 1e-9);
    assert_close(with.bwd - without.bwd, bwd, 1e-9);

    /* No biases: no loop. */
    s.model.mlp_bias = false;
    c.r = &r;
    struct layer_times nobias;
    model_layer_times(&c, true, &nobias);
    assert_close(nobias.fwd, without.fwd, 1e-9);
    assert_close(nobias.bwd, without.bwd, 1e-9);
}

/* The GB200 is the B200's die rated at a 10/9 higher clock (5 PF dense
 * FP8 against 4.5): its GEMM power at that clock is the B200's above idle
 * times (10/9)^3, so that both parts sustain what their power limits allow
 * of one die. Row 6's 8B recipe then puts the GB300 (different die, 1,400
 * W) 15-20% ahead of the GB200, as NVIDIA's tables do (19.2%), where equal
 * 1,400 W entries gave 8.5%. */
static void test_gb200_power_from_b200(void **state)
{
    (void)state;
    const struct accelerator *b = catalog_accelerator(cat, "b200");
    const struct accelerator *g = catalog_accelerator(cat, "gb200");
    assert_non_null(b);
    assert_non_null(g);
    double clock = g->peak_tflops[PREC_FP8] / b->peak_tflops[PREC_FP8];
    assert_close(clock, 10.0 / 9.0, 1e-12);
    double derived = g->idle_w + (b->gemm_power_w - b->idle_w) * clock * clock * clock;
    assert_true(fabs(g->gemm_power_w - derived) < 1.0);

    struct setup s;
    struct resolved r;
    struct model_report g2, g3;
    load("mb-8b-gb200-fp8.yaml", &s, &r);
    model_eval(&s, &r, &g2);
    double share = cbrt((1200.0 - g->idle_w) / (g->gemm_power_w - g->idle_w));
    assert_close(g2.power.clock_share, share, 1e-9);
    load("mb-8b-gb300-fp8.yaml", &s, &r);
    model_eval(&s, &r, &g3);
    double lead = g3.tokens_per_s / g2.tokens_per_s;
    assert_true(lead > 1.15 && lead < 1.20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eager_elementwise),
        cmocka_unit_test(test_expert_bias_loop),
        cmocka_unit_test(test_gb200_power_from_b200),
    };
    return cmocka_run_group_tests(tests, load_catalog, free_catalog);
}
