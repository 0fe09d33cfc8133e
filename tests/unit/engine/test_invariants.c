/* The property tests of issues 20 and 21: 20,000 random valid setups
 * (gen_setup.c: every field of the table, dense and MoE, every precision
 * and stack, the 2026 mechanisms, 1 to 100,000 devices; more with
 * MLVIZ_PROPERTY_SETUPS, each violation's setup printed with
 * MLVIZ_PROPERTY_VERBOSE) through every physical invariant (invariants.c),
 * zero violations; each invariant's predicate shown to fail on a report
 * that breaks it; every field of the table drawn or listed as not drawn;
 * and the ZeRO-3-versus-ZeRO-1 case of issue 20. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model.h"
#include "setup.h"

#include "../../catalog_fixture.h"
#include "gen_setup.c"
#include "invariants.c"

enum { SETUPS = 20000, KINDS_MAX = 32 };

/* The number of setups: 20,000, or MLVIZ_PROPERTY_SETUPS (a longer run
 * while developing; the draws allowed grow with it). */
static long setups_wanted(void)
{
    const char *env = getenv("MLVIZ_PROPERTY_SETUPS");
    long n = env ? strtol(env, NULL, 10) : 0;
    return n > 0 ? n : SETUPS;
}

/* Violations counted by kind: the message up to its first number or colon. */
struct kinds {
    char name[KINDS_MAX][64];
    long count[KINDS_MAX];
    int n;
};

static void count_kind(struct kinds *k, const char *msg)
{
    char name[64];
    size_t i = 0;
    while (msg[i] && msg[i] != ':' && !(msg[i] >= '0' && msg[i] <= '9') && i < sizeof name - 1)
        name[i] = msg[i], i++;
    name[i] = '\0';
    for (int j = 0; j < k->n; j++)
        if (strcmp(k->name[j], name) == 0) {
            k->count[j]++;
            return;
        }
    if (k->n < KINDS_MAX) {
        snprintf(k->name[k->n], sizeof k->name[0], "%s", name);
        k->count[k->n++] = 1;
    }
}

/* The 2026 mechanisms a setup uses, for a violation's line. */
static void mechanisms(const struct setup *s, char *out, size_t len)
{
    snprintf(
        out, len, "%s pp %d %s%s%s%s%s%s%s%s", train_precision_names[s->training.precision],
        s->training.pipeline_parallel, s->training.lora_rank ? "lora " : "",
        s->model.mtp_layers ? "mtp " : "", s->training.activation_offload_layers ? "offload " : "",
        s->training.expert_tensor_parallel ? "etp " : "",
        s->training.capacity_factor > 0 ? "capacity " : "",
        s->training.moe_dispatcher == MOE_DISPATCH_DEEPEP ? "deepep " : "",
        s->cluster.node.power_limit_w > 0 ? "power-cap " : "", s->model.kv_lora_rank ? "mla " : "");
}

/* Per field of the table, the setups whose value differs from the default
 * (and for enums, each choice seen): the coverage test reads it. */
struct coverage {
    long varied[256];
    bool choice_seen[256][16];
};

static void note_coverage(struct coverage *cv, const struct setup *s)
{
    const struct field_table *t = setup_fields();
    static struct setup d;
    static bool have_d;
    if (!have_d)
        setup_defaults(&d), have_d = true;
    for (size_t i = 0; i < t->count && i < 256; i++) {
        const struct field *f = &t->fields[i];
        const char *p = (const char *)s + f->offset, *q = (const char *)&d + f->offset;
        size_t n = f->type == FIELD_NUM || f->type == FIELD_NUM_AUTO ? sizeof(double)
                   : f->type == FIELD_BOOL                           ? sizeof(bool)
                   : f->type == FIELD_INT || f->type == FIELD_ENUM   ? sizeof(int)
                                                                     : (size_t)FIELD_STR_LEN;
        cv->varied[i] += memcmp(p, q, n) != 0;
        if (f->type == FIELD_ENUM) {
            int v = *(const int *)p;
            if (v >= 0 && v < 16)
                cv->choice_seen[i][v] = true;
        }
    }
}

static void test_random_setups(void **state)
{
    (void)state;
    struct gen_src g;
    gen_src_seed(&g, 20);
    long want = setups_wanted();
    long evals = 0, draws = 0, setups = 0, violations = 0, moe = 0, generic = 0;
    long prec[TRAIN_PRECISION_COUNT] = {0};
    int64_t most = 0;
    char stacks[16][FIELD_STR_LEN] = {{0}};
    int n_stacks = 0;
    struct kinds kinds = {0};
    bool verbose = getenv("MLVIZ_PROPERTY_VERBOSE") != NULL;
    while (setups < want && draws < 20 * want) {
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
        if (inv_check_setup(&s, &r, msg, sizeof msg, &evals))
            continue;
        count_kind(&kinds, msg);
        if (violations++ < 40 || verbose) {
            char mech[256];
            mechanisms(&s, mech, sizeof mech);
            printf("VIOLATION %ld [%s]: %s\n", violations, mech, msg);
        }
        if (verbose) {
            static char yaml[16384];
            setup_write_yaml(&s, yaml, sizeof yaml);
            printf("%s\n", yaml);
        }
    }
    printf("  %ld setups of %ld draws, %ld evaluations: %ld MoE, %ld generic, %d stacks, up "
           "to %lld devices; precisions:",
           setups, draws, evals, moe, generic, n_stacks, (long long)most);
    for (int i = 0; i < TRAIN_PRECISION_COUNT; i++)
        printf(" %s %ld", train_precision_names[i], prec[i]);
    printf("\n  %ld violations\n", violations);
    for (int i = 0; i < kinds.n; i++)
        printf("    %6ld  %s\n", kinds.count[i], kinds.name[i]);
    assert_int_equal(setups, want);
    assert_int_equal(violations, 0);
    assert_true(moe > want / 10 && generic > want / 50);
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
    a.power.clock_share = a.power.throttle_factor = 1.0;
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
    /* Overlap under a cooling limit: slower only by the clocks' ratio. */
    struct model_report hot = b;
    hot.power.throttle_factor = 0.95; /* 10 -> 10.5 s, clocks 1 -> 0.95: within 1 / 0.95 */
    assert_false(inv_overlap_not_slower("x", &a, &b, msg, sizeof msg));
    assert_true(inv_overlap_not_slower("x", &a, &hot, msg, sizeof msg));
    hot.power.throttle_factor = 0.96; /* 1 / 0.96 < 1.05 */
    assert_false(inv_overlap_not_slower("x", &a, &hot, msg, sizeof msg));
    assert_false(inv_same_step("x", &a, &b, msg, sizeof msg));
    assert_true(inv_same_step("x", &a, &a, msg, sizeof msg));
    assert_false(inv_recompute(&b, &a, msg, sizeof msg)); /* full faster than none */
    assert_true(inv_recompute(&a, &b, msg, sizeof msg));
    /* A better part that leaves the setup unable to run (its clocks held
     * below the device's lowest), even at an equal step time. */
    a.tokens_per_s = 1e5;
    b = a, b.tokens_per_s = 0, b.runnable = false;
    assert_false(inv_still_runs("x", &a, &b, msg, sizeof msg));
    assert_false(inv_not_slower("x", &a, &b, msg, sizeof msg));
    assert_false(inv_overlap_not_slower("x", &a, &b, msg, sizeof msg));
    assert_true(inv_not_slower("x", &b, &a, msg, sizeof msg)); /* from refused to running */
    assert_true(inv_still_runs("x", &b, &b, msg, sizeof msg));
    b = a, b.breakdown.tp_comm = 1, a.breakdown.tp_comm = 2;
    assert_false(inv_tp_overlap_domain(&b, &a, msg, sizeof msg));
    assert_true(inv_tp_overlap_domain(&a, &a, msg, sizeof msg));
}

/* The invariants issue 21's mechanisms brought, each fed a report or setup
 * that breaks it. */
static void test_each_2026_invariant_breaks(void **state)
{
    (void)state;
    char msg[512];
    struct model_report a, b;
    memset(&a, 0, sizeof a);
    a.peak_tflops = 100, a.tflops_per_device = 50, a.hfu = 0.4, a.achieved_fraction = 0.6;
    a.mfu = 0.3, a.hfu_model_convention = 0.45, a.step_time_s = 10, a.memory.fits = true;
    a.power.clock_share = 0.8, a.power.throttle_factor = 0.9; /* GEMMs at 72 TFLOP/s */
    a.memory.per_device_gb = 40, a.flops_per_step = 1e18;
    assert_true(inv_rates(&a, msg, sizeof msg));
    b = a, b.tflops_per_device = 75; /* below the nominal peak, above the clocks run */
    assert_false(inv_rates(&b, msg, sizeof msg));
    b = a, b.memory.per_device_gb = 41; /* a memory saving that costs memory */
    assert_false(inv_not_more_memory("x", &a, &b, msg, sizeof msg));
    assert_true(inv_not_more_memory("x", &b, &a, msg, sizeof msg));
    b = a, b.flops_per_step = 0.9e18; /* more work, fewer FLOPs */
    assert_false(inv_not_fewer_flops("x", &a, &b, msg, sizeof msg));
    assert_true(inv_not_fewer_flops("x", &b, &a, msg, sizeof msg));
    /* A pipeline split that loses a layer: 3 layers, first stage 1, and the
     * loss counted in the split (the loader refuses it; the predicate must
     * see it). */
    struct setup s;
    setup_defaults(&s);
    s.model.layers = 3, s.training.pipeline_parallel = 2;
    assert_true(inv_layers_placed(&s, msg, sizeof msg));
    s.training.first_stage_layers = 1, s.training.account_for_loss_in_pipeline_split = true;
    assert_false(inv_layers_placed(&s, msg, sizeof msg));
}

/* Every field of the setup table is drawn (its value differs from the
 * default in at least COVERED_MIN of the setups, and for a choice field
 * every choice appears) or listed in gen_setup.c's gen_not_drawn with a
 * reason (and then never drawn): a new field joins the draws or the list. */
enum { COVERAGE_SETUPS = 10000, COVERED_MIN = 10 };

static void test_field_coverage(void **state)
{
    (void)state;
    static struct coverage cover;
    memset(&cover, 0, sizeof cover);
    struct gen_src g;
    gen_src_seed(&g, 21);
    long setups = 0;
    for (long draws = 0; setups < COVERAGE_SETUPS && draws < 20L * COVERAGE_SETUPS; draws++) {
        struct setup s;
        struct resolved r;
        if (gen_setup(&g, cat, &s, &r))
            note_coverage(&cover, &s), setups++;
    }
    assert_int_equal(setups, COVERAGE_SETUPS);
    const struct field_table *t = setup_fields();
    assert_true(t->count <= 256);
    int missing = 0;
    for (size_t i = 0; i < t->count; i++) {
        const struct field *f = &t->fields[i];
        const char *reason = gen_not_drawn_reason(f->path);
        if (reason) {
            if (cover.varied[i] > 0)
                printf("  %s is listed as not drawn (%s) but %ld setups changed it\n", f->path,
                       reason, cover.varied[i]),
                    missing++;
            continue;
        }
        if (cover.varied[i] < COVERED_MIN)
            printf("  %s: drawn in %ld of %ld setups (at least %d): draw it or list it in "
                   "gen_not_drawn with a reason\n",
                   f->path, cover.varied[i], setups, COVERED_MIN),
                missing++;
        for (int k = 0; f->type == FIELD_ENUM && f->choices && f->choices[k] && k < 16; k++)
            if (!cover.choice_seen[i][k])
                printf("  %s: choice %s never drawn\n", f->path, f->choices[k]), missing++;
    }
    assert_int_equal(missing, 0);
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

/* Issue 20's fuzz case throttle-hbm-01: a rack cooled by air throttles
 * the clocks to about 0.8; each layer waits for the host (512 wide) and
 * the forward for its offloaded activations' copies. Twice the HBM
 * bandwidth, or twice the peak, shortened the kernels, so the host wait
 * grew and more TP traffic hid beside it: charged the overlap slowdown as
 * if it ran beside compute, and the slowdown split between the passes
 * otherwise than the passes themselves, the ZeRO-3 backward window shrank
 * by more than the backward, and the step grew (by 1e-5 and 6e-7). */
static void test_cooled_faster_parts(void **state)
{
    (void)state;
    static const char text[] =
        "cluster: {nodes: 1392, node: {accelerator: h100-sxm, accelerators_per_node: 72,\n"
        "  cpu: xeon-8480, cpu_sockets: 2, host_ram_gb: 2048, intra_link: infinity-fabric-mi355x,\n"
        "  host_link: pcie5-x16, nic: ib-ndr, nics_per_node: 8, pcie_switches: 4,\n"
        "  local_storage: nvme-gen4, other_w: 1500}, storage: lustre}\n"
        "facility: {cooling: air, nodes_per_rack: 1}\n"
        "model: {layers: 128, hidden: 512, heads: 8, seq_len: 8192, vocab: 32000, kv_heads: 1,\n"
        "  mlp: gelu, bytes_per_flop: 0.02, activation_bytes_per_sample: 15.75, head_dim: 128,\n"
        "  tied_embeddings: true, mtp_layers: 1, dropout: 0.1}\n"
        "training: {global_batch: 100224, micro_batch: 1, precision: bf16, tensor_parallel: 8,\n"
        "  context_parallel: 8, zero_stage: 3, recompute: none, sequence_parallel: true,\n"
        "  overlap_grad_sync: true, flash_attention: false, software: nemo,\n"
        "  activation_offload_layers: 67}\n"
        "data: {source: shared, sample_bytes: 16384, preprocess_us_per_sample: 50,\n"
        "  loader_workers_per_device: 4, prefetch_batches: 2, cache_hit: 0}\n";
    char err[1024], msg[512] = "";
    struct setup s;
    struct resolved r;
    setup_defaults(&s);
    if (!setup_load_string(&s, "s.yaml", text, cat, err, sizeof err) ||
        !setup_resolve(&s, cat, &r, err, sizeof err))
        fail_msg("%s", err);
    struct model_report base;
    model_eval(&s, &r, &base);
    assert_true(base.power.throttled && base.power.throttle_factor < 0.9);
    long evals = 0;
    bool ok = check_resources(&s, &r, &base, msg, sizeof msg, &evals);
    printf("  step %.9f s at clocks %.4f%s%s\n", base.step_time_s, base.power.throttle_factor,
           ok ? "" : ": ", msg);
    assert_true(ok);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_invariant_breaks),
        cmocka_unit_test(test_each_2026_invariant_breaks),
        cmocka_unit_test(test_field_coverage),
        cmocka_unit_test(test_zero3_never_cheaper),
        cmocka_unit_test(test_cooled_faster_parts),
        cmocka_unit_test(test_random_setups),
    };
    return cmocka_run_group_tests(tests, load_catalog, free_catalog);
}
