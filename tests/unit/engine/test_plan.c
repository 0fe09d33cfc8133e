/* The planner (engine/plan/plan.c): pruning is safe (identical answers to the
 * exhaustive reference search), thread counts and shards do not change the
 * answer, constraints hold, bad options are refused with a named argument. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "plan.h"
#include "plan_internal.h"

#include "../../catalog_fixture.h"

static struct plan_space space; /* large: not on the stack */
static struct plan_result res_a, res_b;

static void load(const char *path, struct setup *s)
{
    char err[1024];
    struct resolved r;
    if (!setup_load_file(s, path, cat, err, sizeof err))
        fail_msg("%s", err);
    if (!setup_resolve(s, cat, &r, err, sizeof err))
        fail_msg("%s", err);
}

/* A 70B-class model on 4 nodes of 8 devices: memory decides most layouts. */
static void tight_setup(struct setup *s)
{
    char err[512];
    setup_defaults(s);
    static const char *const changes[][2] = {{"cluster.nodes", "4"},
                                             {"model.layers", "80"},
                                             {"model.hidden", "8192"},
                                             {"model.heads", "64"},
                                             {"model.kv_heads", "8"},
                                             {"model.ffn_hidden", "28672"},
                                             {"model.mlp", "swiglu"},
                                             {"training.global_batch", "64"},
                                             {"cluster.node.accelerator", "a100-sxm-80gb"}};
    for (size_t i = 0; i < sizeof changes / sizeof changes[0]; i++)
        if (!setup_set(s, changes[i][0], changes[i][1], err, sizeof err))
            fail_msg("%s", err);
}

/* Fields a newer model adds to the search (context parallelism) multiply
 * the space; tests that are not about them keep them at 1. */
static void pin_optional(struct plan_spec *spec)
{
    char err[256];
    if (fields_find(setup_fields(), "training.context_parallel"))
        assert_true(plan_spec_vary(spec, "training.context_parallel=1", err, sizeof err));
}

/* Uneven pipeline splits: the first and last stage as even as possible or
 * one layer fewer than the even share. */
static void vary_uneven(struct plan_spec *spec)
{
    char err[256];
    assert_true(plan_spec_vary(spec, "training.first_stage_layers=0,even-1", err, sizeof err));
    assert_true(plan_spec_vary(spec, "training.last_stage_layers=0,even-1", err, sizeof err));
}

static void build(const struct setup *s, struct plan_spec *spec)
{
    char err[1200];
    if (!plan_space_build(&space, s, spec, cat, err, sizeof err))
        fail_msg("%s", err);
}

/* GPT-3 175B on the preset's A100s, top N, one optional --vary, the
 * optional fields pinned; the space is built (limits may be added after). */
static void gpt3_spec(struct plan_spec *spec, int top, const char *vary)
{
    struct setup s;
    char err[256];
    load("scenarios/presets/gpt3-175b-a100.yaml", &s);
    plan_spec_init(spec);
    spec->top = top;
    if (vary)
        assert_true(plan_spec_vary(spec, vary, err, sizeof err));
    pin_optional(spec);
    build(&s, spec);
}

static void run(const struct plan_spec *spec, struct plan_result *r)
{
    char err[512];
    if (!plan_run(&space, cat, spec, r, NULL, NULL, NULL, err, sizeof err))
        fail_msg("%s", err);
}

static void assert_same_answer(const struct plan_result *a, const struct plan_result *b)
{
    assert_int_equal(a->counts.runnable, b->counts.runnable);
    assert_int_equal(a->counts.better_than_base, b->counts.better_than_base);
    assert_int_equal(a->n_top, b->n_top);
    for (int i = 0; i < a->n_top; i++) {
        assert_int_equal(a->top[i].index, b->top[i].index);
        for (int f = 0; f < PLAN_FIGURE_COUNT; f++)
            assert_true(a->top[i].fig[f] == b->top[i].fig[f]);
        assert_true(a->top[i].sim_step_s == b->top[i].sim_step_s);
    }
    assert_int_equal(a->n_front, b->n_front);
    /* Fronts as sets: every member of one is in the other. */
    for (size_t i = 0; i < a->n_front; i++) {
        bool found = false;
        for (size_t j = 0; j < b->n_front && !found; j++)
            found = a->front[i].index == b->front[j].index;
        assert_true(found);
    }
}

/* Pruned and exhaustive searches agree (top N, front, counts of runnable). */
static void compare_pruned_exhaustive(const struct setup *s, struct plan_spec *spec)
{
    build(s, spec);
    assert_true(space.candidates > 0 && space.candidates < 400000);
    spec->exhaustive = true;
    run(spec, &res_a);
    spec->exhaustive = false;
    run(spec, &res_b);
    assert_true(res_a.n_top > 0);
    /* The pruned search really cut something. */
    assert_true(res_b.counts.evaluated < res_a.counts.evaluated);
    assert_int_equal(res_a.counts.candidates, res_b.counts.candidates);
    assert_same_answer(&res_a, &res_b);
    plan_result_free(&res_a);
    plan_result_free(&res_b);
}

static void test_pruning_safe_default(void **state)
{
    (void)state;
    struct setup s;
    struct plan_spec spec;
    load("scenarios/presets/default.yaml", &s);
    plan_spec_init(&spec);
    spec.top = 20;
    char err[256];
    /* A few thousand candidates: micro-batches cut to three values. */
    assert_true(plan_spec_vary(&spec, "training.micro_batch=1,2,4", err, sizeof err));
    vary_uneven(&spec);
    pin_optional(&spec);
    compare_pruned_exhaustive(&s, &spec);
    assert_true(plan_spec_objective(&spec, "usd_total", err, sizeof err));
    compare_pruned_exhaustive(&s, &spec);
}

static void test_pruning_safe_tight_memory(void **state)
{
    (void)state;
    struct setup s;
    struct plan_spec spec;
    char err[256];
    tight_setup(&s);
    for (int objective = 0; objective < 3; objective++) {
        plan_spec_init(&spec);
        spec.top = 10;
        assert_true(plan_spec_vary(&spec, "cluster.node.accelerator=a100-sxm-80gb,h100-sxm", err,
                                   sizeof err));
        assert_true(plan_spec_vary(&spec, "training.micro_batch=1,2", err, sizeof err));
        if (fields_find(setup_fields(), "training.context_parallel")) {
            /* Context parallelism joins the pruning check on a smaller space. */
            assert_true(plan_spec_vary(&spec, "training.context_parallel=1,2", err, sizeof err));
            assert_true(
                plan_spec_vary(&spec, "training.pipeline_parallel=1,2,4,8", err, sizeof err));
        }
        static const char *const names[] = {"tokens_per_s", "days", "energy_mwh"};
        assert_true(plan_spec_objective(&spec, names[objective], err, sizeof err));
        compare_pruned_exhaustive(&s, &spec);
    }
    /* Memory really pruned here. */
    build(&s, &spec);
    run(&spec, &res_a);
    assert_true(res_a.counts.memory_cut > 0);
    plan_result_free(&res_a);
}

static void test_threads_same_answer(void **state)
{
    (void)state;
    struct plan_spec spec;
    gpt3_spec(&spec, 25, NULL);
    spec.threads = 1;
    run(&spec, &res_a);
    spec.threads = 2;
    run(&spec, &res_b);
    assert_same_answer(&res_a, &res_b);
    assert_int_equal(res_a.counts.evaluated, res_b.counts.evaluated);
    plan_result_free(&res_b);
    spec.threads = 5;
    run(&spec, &res_b);
    assert_same_answer(&res_a, &res_b);
    plan_result_free(&res_a);
    plan_result_free(&res_b);
}

/* Three shards written as partial results, read back and merged, give the
 * single run's answer. */
static void test_shards_merge(void **state)
{
    (void)state;
    struct plan_spec spec;
    char err[1024];
    gpt3_spec(&spec, 15, "cluster.nodes=96");
    run(&spec, &res_a);
    memset(&res_b, 0, sizeof res_b);
    for (int i = 0; i < 3; i++) {
        struct plan_spec part = spec;
        part.shard_index = i;
        part.shard_count = 3;
        struct plan_result *r = calloc(1, sizeof *r);
        assert_non_null(r);
        run(&part, r);
        char path[] = "/tmp/mlviz-plan-test-XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        FILE *f = fdopen(fd, "w");
        assert_true(plan_write_partial(f, &space, &part, r));
        fclose(f);
        struct plan_partial p;
        if (!plan_read_partial(path, &p, err, sizeof err))
            fail_msg("%s", err);
        remove(path);
        assert_int_equal(p.shard_index, i);
        assert_int_equal(p.counts.candidates, r->counts.candidates);
        res_b.counts.runnable += p.counts.runnable;
        res_b.counts.better_than_base += p.counts.better_than_base;
        for (size_t k = 0; k < p.n_top + p.n_front; k++) {
            struct plan_entry e;
            uint64_t idx = k < p.n_top ? p.top[k] : p.front[k - p.n_top];
            assert_true(plan_eval_candidate(&space, cat, idx, &e));
            assert_true(plan_result_add(&res_b, &spec, &e));
        }
        plan_partial_free(&p);
        plan_result_free(r);
        free(r);
    }
    /* The merge re-scores the combined rows, as a whole search does. */
    res_b.base_runnable = plan_eval_setup(&space.base, cat, &res_b.base);
    plan_rescore(&space, cat, &spec, &res_b);
    assert_true(res_a.rescored && res_b.rescored);
    assert_true(res_a.base.fig[PLAN_STEP_TIME_S] == res_b.base.fig[PLAN_STEP_TIME_S]);
    assert_same_answer(&res_a, &res_b);
    plan_result_free(&res_a);
    plan_result_free(&res_b);
}

static void test_constraints(void **state)
{
    (void)state;
    struct plan_spec spec;
    char err[256];
    gpt3_spec(&spec, 50, "cluster.nodes=64,128,256");
    assert_true(plan_spec_max(&spec, "devices=1024", err, sizeof err));
    assert_true(plan_spec_max(&spec, "usd_per_hour=2110", err, sizeof err));
    run(&spec, &res_a);
    assert_true(res_a.n_top > 0);
    assert_true(res_a.counts.constraint_cut > 0);
    for (int i = 0; i < res_a.n_top; i++) {
        assert_true(res_a.top[i].fig[PLAN_DEVICES] <= 1024);
        assert_true(res_a.top[i].fig[PLAN_USD_PER_HOUR] <= 2110);
    }
    for (size_t i = 0; i < res_a.n_front; i++)
        assert_true(res_a.front[i].fig[PLAN_DEVICES] <= 1024);
    plan_result_free(&res_a);
    /* Nothing can meet an impossible limit. */
    assert_true(plan_spec_max(&spec, "days=0.001", err, sizeof err));
    run(&spec, &res_a);
    assert_int_equal(res_a.n_top, 0);
    assert_int_equal(res_a.n_front, 0);
    plan_result_free(&res_a);
}

/* The front: no member is dominated by any runnable candidate of the top
 * list, and every member is mutually non-dominated. */
static void test_front_non_dominated(void **state)
{
    (void)state;
    struct plan_spec spec;
    gpt3_spec(&spec, 200, "cluster.nodes=32..256");
    run(&spec, &res_a);
    assert_true(res_a.n_front >= 2);
    static const int axes[] = {PLAN_DAYS, PLAN_USD_TOTAL, PLAN_ENERGY_MWH};
    for (size_t i = 0; i < res_a.n_front; i++)
        for (int j = 0; j < res_a.n_top; j++) {
            const struct plan_entry *f = &res_a.front[i], *t = &res_a.top[j];
            /* A printed row is re-timed by the simulator; where it agrees
             * with the closed form to rounding, its figures may differ from
             * its own front entry's in the last bit. */
            if (t->index == f->index)
                continue;
            bool all_le = true, one_lt = false;
            for (int k = 0; k < 3; k++) {
                all_le = all_le && t->fig[axes[k]] <= f->fig[axes[k]];
                one_lt = one_lt || t->fig[axes[k]] < f->fig[axes[k]];
            }
            assert_false(all_le && one_lt);
        }
    plan_result_free(&res_a);
}

static void test_bad_options(void **state)
{
    (void)state;
    struct plan_spec spec;
    struct setup s;
    char err[1200];
    plan_spec_init(&spec);
    assert_false(plan_spec_objective(&spec, "speed", err, sizeof err));
    assert_non_null(strstr(err, "--objective"));
    assert_false(plan_spec_max(&spec, "devics=3", err, sizeof err));
    assert_non_null(strstr(err, "did you mean 'devices'"));
    assert_false(plan_spec_max(&spec, "days=-1", err, sizeof err));
    assert_false(plan_spec_max(&spec, "days", err, sizeof err));
    assert_false(plan_spec_vary(&spec, "cluster.nodes", err, sizeof err));
    assert_true(plan_spec_vary(&spec, "cluster.nodes=1,2", err, sizeof err));
    assert_false(plan_spec_vary(&spec, "cluster.nodes=4", err, sizeof err)); /* twice */
    setup_defaults(&s);
    static const char *const bad[][2] = {
        {"training.tensor_paralel=2", "did you mean 'training.tensor_parallel'"},
        {"cluster.nodes=0..4", "--vary cluster.nodes"},
        {"cluster.nodes=8..2", "lo <= hi"},
        {"cluster.nodes=1..8+0", "lo..hi+step"},
        {"cluster.node.accelerator=h100-sxn", "did you mean 'h100-sxm'"},
        {"training.recompute=some", "--vary training.recompute"},
        {"cluster.nodes=1..100000+1", "at most 64 values"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        plan_spec_init(&spec);
        assert_true(plan_spec_vary(&spec, bad[i][0], err, sizeof err));
        if (plan_space_build(&space, &s, &spec, cat, err, sizeof err))
            fail_msg("accepted --vary %s", bad[i][0]);
        if (!strstr(err, bad[i][1]))
            fail_msg("--vary %s: '%s' lacks '%s'", bad[i][0], err, bad[i][1]);
    }
}

/* Partial files are input: every defect is refused with file:line. */
static void test_bad_partials(void **state)
{
    (void)state;
    static const char *const bad[][2] = {
        {"", ":1: not a partial"},
        {"mlviz-plan-partial 1\nshard 3 2\n", ":2: expected 'shard I N'"},
        {"mlviz-plan-partial 1\nshard 0 1\nobjective speed\n", ":3: --objective"},
        {"mlviz-plan-partial 1\nshard 0 1\ntop 0\n", ":3: top must be"},
        {"mlviz-plan-partial 1\nshard 0 1\nbogus\n", ":3: unknown line"},
        {"mlviz-plan-partial 1\nshard 0 1\nsetup 99999999\n", ":3: setup length"},
        {"mlviz-plan-partial 1\nshard 0 1\nsetup 2\nx\ntop-entries 1\nabc\n",
         ":6: expected a candidate number"},
        {"mlviz-plan-partial 1\nshard 0 1\nsetup 2\nx\ntop-entries 0\nfront-entries 0\n",
         ":6: expected 'end'"},
        {"mlviz-plan-partial 1\nshard 0 1\ncounts 1 2 3\n", ":3: counts takes 7"},
    };
    char err[1024];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char path[] = "/tmp/mlviz-plan-bad-XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        FILE *f = fdopen(fd, "w");
        fputs(bad[i][0], f);
        fclose(f);
        struct plan_partial p;
        bool ok = plan_read_partial(path, &p, err, sizeof err);
        remove(path);
        if (ok)
            fail_msg("accepted partial %zu", i);
        if (!strstr(err, bad[i][1]))
            fail_msg("partial %zu: '%s' lacks '%s'", i, err, bad[i][1]);
    }
}

/* The step-time bound (plan_bound.c) is below the step time of every
 * candidate the model evaluates, on spaces with pipelines, interleaving,
 * several micro-batch counts, hardware sizes, a dense and an MoE model. */
static void check_bound_below_steps(const struct setup *base, struct plan_spec *spec, int *checked)
{
    build(base, spec);
    assert_true(space.candidates < 400000);
    struct resolved r;
    struct model_report o;
    char err[512];
    struct plan_bound b = {true, 0};
    assert_true(setup_resolve(base, cat, &r, err, sizeof err));
    model_eval(base, &r, &o);
    b.model_flops = o.model_flops_per_step;
    assert_true(b.model_flops > 0);
    for (uint64_t i = 0; i < space.candidates; i++) {
        struct setup s;
        plan_space_setup(&space, i, &s);
        if (!setup_resolve(&s, cat, &r, err, sizeof err))
            continue;
        model_eval(&s, &r, &o);
        double bound = plan_bound_step_s(&b, &s, r.accel);
        assert_true(bound > 0);
        if (!(bound <= o.step_time_s))
            fail_msg("candidate %llu: bound %.6g s above the step %.6g s", (unsigned long long)i,
                     bound, o.step_time_s);
        (*checked)++;
    }
}

static void test_bound_below_every_step(void **state)
{
    (void)state;
    struct setup s;
    struct plan_spec spec;
    char err[256];
    int checked = 0;
    load("scenarios/presets/gpt3-175b-a100.yaml", &s);
    plan_spec_init(&spec);
    assert_true(plan_spec_vary(&spec, "cluster.nodes=16,64", err, sizeof err));
    assert_true(plan_spec_vary(&spec, "training.tensor_parallel=1,8", err, sizeof err));
    assert_true(plan_spec_vary(&spec, "training.pipeline_parallel=1,4,16", err, sizeof err));
    assert_true(plan_spec_vary(&spec, "training.virtual_stages=1,2,3", err, sizeof err));
    assert_true(plan_spec_vary(&spec, "training.micro_batch=1,2", err, sizeof err));
    pin_optional(&spec);
    check_bound_below_steps(&s, &spec, &checked);
    load("scenarios/presets/moe-h100.yaml", &s);
    plan_spec_init(&spec);
    assert_true(plan_spec_vary(&spec, "training.micro_batch=1,2", err, sizeof err));
    assert_true(plan_spec_vary(&spec, "training.virtual_stages=1,2", err, sizeof err));
    pin_optional(&spec);
    check_bound_below_steps(&s, &spec, &checked);
    tight_setup(&s);
    plan_spec_init(&spec);
    assert_true(
        plan_spec_vary(&spec, "cluster.node.accelerator=a100-sxm-80gb,h100-sxm", err, sizeof err));
    assert_true(plan_spec_vary(&spec, "training.micro_batch=1,4", err, sizeof err));
    assert_true(plan_spec_vary(&spec, "training.virtual_stages=1,5", err, sizeof err));
    pin_optional(&spec);
    check_bound_below_steps(&s, &spec, &checked);
    assert_true(checked > 10000);
}

/* With the front not wanted the bound cuts units, and the top N is the
 * exhaustive search's, for every bounded objective; the base's rank is a
 * lower bound, exact when the base is within the top N. */
static uint64_t compare_bound_exhaustive(const struct setup *s, struct plan_spec *spec)
{
    build(s, spec);
    assert_true(space.candidates > 0 && space.candidates < 400000);
    spec->exhaustive = true;
    spec->front = true;
    run(spec, &res_a);
    spec->exhaustive = false;
    spec->front = false;
    run(spec, &res_b);
    assert_true(res_a.n_top > 0);
    assert_int_equal(res_a.n_top, res_b.n_top);
    for (int i = 0; i < res_a.n_top; i++) {
        assert_int_equal(res_a.top[i].index, res_b.top[i].index);
        for (int f = 0; f < PLAN_FIGURE_COUNT; f++)
            assert_true(res_a.top[i].fig[f] == res_b.top[i].fig[f]);
    }
    assert_int_equal(res_b.n_front, 0);
    assert_true(res_b.counts.better_than_base <= res_a.counts.better_than_base);
    if (res_a.counts.better_than_base < (uint64_t)res_a.n_top)
        assert_int_equal(res_b.counts.better_than_base, res_a.counts.better_than_base);
    uint64_t cut = res_b.counts.bound_cut;
    assert_int_equal(res_a.counts.bound_cut, 0);
    plan_result_free(&res_a);
    plan_result_free(&res_b);
    return cut;
}

static void test_bound_safe(void **state)
{
    (void)state;
    static const char *const objectives[] = {"tokens_per_s", "days", "usd_total", "mfu"};
    char err[256];
    for (int space_no = 0; space_no < 3; space_no++) {
        uint64_t cut = 0;
        /* Space 1 keeps the default objective: one run (four runs were the
         * same search four times). */
        for (int k = 0; k < (space_no == 1 ? 1 : 4); k++) {
            struct setup s;
            struct plan_spec spec;
            plan_spec_init(&spec);
            spec.top = 8;
            if (space_no == 0) {
                load("scenarios/presets/gpt3-175b-a100.yaml", &s);
                assert_true(plan_spec_vary(&spec, "cluster.nodes=8,32,128", err, sizeof err));
                assert_true(
                    plan_spec_vary(&spec, "training.tensor_parallel=1,2,4,8", err, sizeof err));
                assert_true(plan_spec_vary(&spec, "training.pipeline_parallel=1,4,8,16,32", err,
                                           sizeof err));
                assert_true(plan_spec_vary(&spec, "training.virtual_stages=1,2", err, sizeof err));
                assert_true(plan_spec_vary(&spec, "training.micro_batch=1,4", err, sizeof err));
            } else if (space_no == 1) {
                load("scenarios/presets/default.yaml", &s);
                assert_true(plan_spec_vary(&spec, "cluster.nodes=1,8", err, sizeof err));
                assert_true(
                    plan_spec_vary(&spec, "training.pipeline_parallel=1,2,4", err, sizeof err));
                assert_true(plan_spec_vary(&spec, "training.micro_batch=1,4", err, sizeof err));
                assert_true(plan_spec_vary(&spec, "training.virtual_stages=1,2", err, sizeof err));
            } else {
                tight_setup(&s);
                assert_true(plan_spec_vary(&spec, "cluster.node.accelerator=a100-sxm-80gb,h100-sxm",
                                           err, sizeof err));
                assert_true(plan_spec_vary(&spec, "cluster.nodes=1,4", err, sizeof err));
                assert_true(plan_spec_vary(&spec, "training.micro_batch=1,2", err, sizeof err));
            }
            pin_optional(&spec);
            if (space_no != 1)
                assert_true(plan_spec_objective(&spec, objectives[k], err, sizeof err));
            cut += compare_bound_exhaustive(&s, &spec);
        }
        /* The bound really cut in every space. */
        if (cut == 0)
            fail_msg("space %d: the step-time bound cut nothing", space_no);
    }
}

/* Uneven pipelines in the search ("even-1": one layer fewer than the even
 * share on the first or the last stage, whatever the pipeline size); with no
 * pipeline the uneven values are refused, so no candidate repeats another.
 * Without --vary the setup's own split is kept. */
static void test_uneven_splits_searched(void **state)
{
    (void)state;
    struct setup s;
    struct plan_spec spec;
    char err[512];
    load("scenarios/presets/gpt3-175b-a100.yaml", &s); /* 96 layers */
    plan_spec_init(&spec);
    assert_true(plan_spec_vary(&spec, "training.pipeline_parallel=1,8", err, sizeof err));
    vary_uneven(&spec);
    pin_optional(&spec);
    build(&s, &spec);
    int first = -1, last = -1, pp = -1;
    for (int i = 0; i < space.n_dims; i++) {
        const char *path = space.dims[i].field->path;
        if (strcmp(path, "training.first_stage_layers") == 0)
            first = i;
        if (strcmp(path, "training.last_stage_layers") == 0)
            last = i;
        if (strcmp(path, "training.pipeline_parallel") == 0)
            pp = i;
    }
    assert_true(first > pp && last > pp && pp >= 0);
    assert_int_equal(space.dims[first].count, 2);
    int seen_first = 0, seen_last = 0, refused = 0;
    for (uint64_t u = 0; u < space.units; u++) {
        struct setup c;
        struct resolved r;
        plan_space_setup(&space, u * space.per_unit, &c);
        bool ok = setup_resolve(&c, cat, &r, err, sizeof err);
        if (c.training.pipeline_parallel == 1 &&
            (c.training.first_stage_layers || c.training.last_stage_layers)) {
            assert_false(ok);
            refused++;
        }
        if (c.training.pipeline_parallel == 8) {
            /* 96 layers over 8 stages: an even share of 12, one fewer 11. */
            assert_true(c.training.first_stage_layers == 0 || c.training.first_stage_layers == 11);
            assert_true(c.training.last_stage_layers == 0 || c.training.last_stage_layers == 11);
            seen_first += c.training.first_stage_layers == 11 && ok;
            seen_last += c.training.last_stage_layers == 11 && ok;
        }
    }
    assert_true(seen_first > 0 && seen_last > 0 && refused > 0);
    plan_spec_init(&spec);
    pin_optional(&spec);
    build(&s, &spec);
    for (int i = 0; i < space.n_dims; i++)
        if (strstr(space.dims[i].field->path, "_stage_layers"))
            assert_int_equal(space.dims[i].count, 1);
}

/* Every candidate the planner ranks is a setup the checker accepts: its
 * YAML loads back (setup_load_string runs every cross-check). */
static void assert_loads_back(uint64_t index, int *seen_zero)
{
    static char yaml[1 << 16];
    char err[1024];
    struct setup c, back;
    plan_space_setup(&space, index, &c);
    setup_write_yaml(&c, yaml, sizeof yaml);
    if (!setup_load_string(&back, "ranked", yaml, cat, err, sizeof err))
        fail_msg("candidate %llu refused: %s", (unsigned long long)index, err);
    seen_zero[c.training.zero_stage]++;
}

/* One search of the megatron-core space with the ZeRO stages in this order,
 * pruned and exhaustive: every ranked candidate loads back, none uses a
 * stage above 1, and both searches agree. */
static void search_zero_stages(const struct setup *s, const char *zero_list)
{
    struct plan_spec spec;
    char err[512];
    plan_spec_init(&spec);
    spec.top = 40;
    spec.front = true;
    spec.threads = 2;
    assert_true(plan_spec_vary(&spec, zero_list, err, sizeof err));
    assert_true(plan_spec_vary(&spec, "training.micro_batch=1,2,4", err, sizeof err));
    pin_optional(&spec);
    build(s, &spec);
    for (int exhaustive = 0; exhaustive < 2; exhaustive++) {
        struct plan_result *res = exhaustive ? &res_a : &res_b;
        spec.exhaustive = exhaustive;
        run(&spec, res);
        assert_int_equal(res->n_top, spec.top);
        int seen_zero[4] = {0};
        for (int i = 0; i < res->n_top; i++)
            assert_loads_back(res->top[i].index, seen_zero);
        for (size_t i = 0; i < res->n_front; i++)
            assert_loads_back(res->front[i].index, seen_zero);
        assert_true(seen_zero[0] + seen_zero[1] > 0);
        assert_int_equal(seen_zero[2] + seen_zero[3], 0);
    }
    assert_same_answer(&res_a, &res_b);
    plan_result_free(&res_a);
    plan_result_free(&res_b);
}

/* megatron-core implements ZeRO up to stage 1 (its distributed optimizer):
 * stages 2 and 3 in the space are refused for every candidate. Listed
 * first (3,2,1,0), they make each unit's first candidate invalid. */
static void test_ranked_pass_the_checker(void **state)
{
    (void)state;
    struct setup s;
    char err[512];
    load("scenarios/presets/default.yaml", &s);
    assert_true(setup_set(&s, "training.software", "megatron-core", err, sizeof err));
    assert_true(setup_set(&s, "training.zero_stage", "1", err, sizeof err));
    /* Megatron-Core has offered ZeRO-3 (Megatron-FSDP) since 2025: the
     * entry is held at stage 1 here to keep a stack that refuses 2 and 3. */
    struct software *mc = (struct software *)catalog_software(cat, "megatron-core");
    int kept = mc->max_zero_stage;
    mc->max_zero_stage = 1;
    struct resolved r;
    if (!setup_resolve(&s, cat, &r, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(r.software->max_zero_stage, 1);
    search_zero_stages(&s, "training.zero_stage=0,1,2,3");
    search_zero_stages(&s, "training.zero_stage=3,2,1,0");
    mc->max_zero_stage = kept;
}

/* The calling thread prepares a pruned search (ranks every unit by its
 * bound, then searches the most promising first) before any worker starts:
 * it reports that work and stops when cancelled. The callback cancels at
 * its first report, while ranking the 11.6 M units of this space (which
 * takes seconds to rank in full). */
struct prep_seen {
    struct plan_progress *progress;
    int reports, preparing;
    uint64_t prep_done, prep_total;
};

static void cancel_at_first_report(void *ctx, const struct plan_progress *p)
{
    struct prep_seen *seen = ctx;
    if (seen->reports++ == 0) {
        struct plan_progress_now now;
        plan_progress_read(p, &now);
        seen->preparing = now.preparing;
        seen->prep_done = now.prep_done;
        seen->prep_total = now.prep_total;
        plan_progress_cancel(seen->progress);
    }
}

static void test_preparing_reported_and_cancelled(void **state)
{
    (void)state;
    struct plan_spec spec;
    char err[512];
    struct setup s;
    load("scenarios/presets/gpt3-175b-a100.yaml", &s);
    plan_spec_init(&spec);
    spec.top = 1;
    spec.front = false; /* the bound prunes only without the front */
    assert_true(plan_spec_vary(&spec, "cluster.nodes=32..1024", err, sizeof err));
    assert_true(plan_spec_vary(
        &spec, "cluster.node.accelerator=a100-sxm-80gb,h100-sxm,h200-sxm,b200", err, sizeof err));
    build(&s, &spec);
    struct plan_progress progress;
    plan_progress_init(&progress);
    struct prep_seen seen = {&progress, 0, 0, 0, 0};
    struct plan_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    if (!plan_run(&space, cat, &spec, r, &progress, cancel_at_first_report, &seen, err, sizeof err))
        fail_msg("%s", err);
    assert_true(seen.reports >= 1);
    assert_int_equal(seen.preparing, 1);
    assert_true(seen.prep_total == space.units);
    assert_true(seen.prep_done > 0 && seen.prep_done < space.units);
    /* Stopped there: no worker searched anything. */
    assert_true(r->cancelled);
    struct plan_progress_now now;
    plan_progress_read(&progress, &now);
    assert_int_equal(now.preparing, 0);
    assert_true(now.prep_done < space.units);
    assert_int_equal(now.done, 0);
    plan_result_free(r);
    free(r);
}

/* Every field of two setups prints the same. */
static void assert_same_setup(const struct setup *a, const struct setup *b, uint64_t unit)
{
    const struct field_table *t = setup_fields();
    for (size_t i = 0; i < t->count; i++) {
        char x[FIELD_STR_LEN + 64], y[FIELD_STR_LEN + 64];
        fields_format(&t->fields[i], a, x, sizeof x);
        fields_format(&t->fields[i], b, y, sizeof y);
        if (strcmp(x, y) != 0)
            fail_msg("unit %llu: %s is %s, built afresh %s", (unsigned long long)unit,
                     t->fields[i].path, x, y);
    }
}

/* Walking the units one after the other (setting only what changes) gives
 * each unit's setup as building it from the base does, with hardware,
 * layout and one-fewer splits varied. */
static void test_units_in_order_match_fresh_setups(void **state)
{
    (void)state;
    static const char *const varies[][4] = {
        {"cluster.nodes=8,16", "cluster.node.accelerator=a100-sxm-80gb,h100-sxm", NULL, NULL},
        {"training.pipeline_parallel=2,4", "training.first_stage_layers=0,even-1",
         "training.last_stage_layers=0,even-1", NULL},
    };
    for (size_t v = 0; v < sizeof varies / sizeof varies[0]; v++) {
        struct plan_spec spec;
        struct setup s, walked, fresh;
        char err[256];
        load("scenarios/presets/gpt3-175b-a100.yaml", &s);
        plan_spec_init(&spec);
        for (int k = 0; k < 4 && varies[v][k]; k++)
            assert_true(plan_spec_vary(&spec, varies[v][k], err, sizeof err));
        pin_optional(&spec);
        build(&s, &spec);
        int digit[PLAN_DIMS_MAX];
        plan_space_first_unit(&space, digit, &walked);
        uint64_t u = 0;
        do {
            /* The first units (each dimension's first turns), then every
             * seventh: a field left wrong stays wrong until its dimension
             * turns again. */
            if (u < 64 || u % 7 == 0) {
                plan_space_setup(&space, u * space.per_unit, &fresh);
                assert_same_setup(&walked, &fresh, u);
            }
            u++;
        } while (plan_space_next_unit(&space, digit, &walked));
        assert_true(u == space.units);
        assert_true(space.units > 100); /* several dimensions really turn */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pruning_safe_default),
        cmocka_unit_test(test_pruning_safe_tight_memory),
        cmocka_unit_test(test_threads_same_answer),
        cmocka_unit_test(test_shards_merge),
        cmocka_unit_test(test_constraints),
        cmocka_unit_test(test_front_non_dominated),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_bad_partials),
        cmocka_unit_test(test_bound_below_every_step),
        cmocka_unit_test(test_bound_safe),
        cmocka_unit_test(test_uneven_splits_searched),
        cmocka_unit_test(test_ranked_pass_the_checker),
        cmocka_unit_test(test_preparing_reported_and_cancelled),
        cmocka_unit_test(test_units_in_order_match_fresh_setups),
    };
    return cmocka_run_group_tests(tests, load_catalog, free_catalog);
}
