/* The planner on published runs (issue 20, acceptance): GPT-3 175B on 1,024
 * A100 (`megatron` and `megatron-core`), Llama 3 405B on 16,384 H100, the
 * NeMo 24.07 rows (Llama-2-70B on 64 H100 among them) and Llama-2-70B on
 * 64 H100 with DeepSpeed, each searched as `mlviz plan SETUP --top 20`.
 *
 * - Every top-20 row passes the stack rules (setup_resolve, the check the
 *   loader and the planner share) and the physical invariants
 *   (tests/unit/engine/invariants.h).
 * - docs/PLAN.md, "Rank 1 against the published layouts", is generated
 *   here: rank 1 against the published layout (both re-scored by the
 *   step-schedule simulator), the difference part by part, and the ratio
 *   split into one factor per changed field (the fields applied one at a
 *   time in the search's order, each step simulated; the factors multiply
 *   to the ratio). `test_plan_table --table` prints it; tests/cli/docs.sh
 *   checks it and rewrites it with --write.
 * - A rank 1 more than 1.25x the published layout's throughput must owe
 *   all of it to fields with a named, sourced mechanism (below). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "plan.h"
#include "plan_internal.h"
#include "schedule.h"

#include "../catalog_fixture.h"
#include "../unit/engine/invariants.c"
#include "docs_table.h"

struct run {
    const char *label, *path;
    const char *sets[7][2];
    bool in_table; /* a published layout (the DeepSpeed row is not one) */
};

static const struct run runs[] = {
    {"GPT-3 175B, 1,024 A100, megatron (2021-22)",
     "scenarios/presets/gpt3-175b-a100.yaml",
     {{"training.software", "megatron"}},
     true},
    {"GPT-3 175B, 1,024 A100, megatron-core",
     "scenarios/presets/gpt3-175b-a100.yaml",
     {{"training.software", "megatron-core"}},
     true},
    {"Llama 3 405B, 16,384 H100, fsdp", "tests/validation/setups/llama3-405b.yaml", {{0}}, true},
    {"NeMo GPT-3 175B, 128 H100", "tests/validation/setups/nemo-gpt3-175b.yaml", {{0}}, true},
    {"NeMo Llama-2-70B, 64 H100", "tests/validation/setups/nemo-llama2-70b.yaml", {{0}}, true},
    {"NeMo Llama-2-7B, 8 H100", "tests/validation/setups/nemo-llama2-7b.yaml", {{0}}, true},
    {"NeMo Llama-3-8B, 8 H100", "tests/validation/setups/nemo-llama3-8b.yaml", {{0}}, true},
    /* Issue 20's ZeRO-3 case: DeepSpeed (BF16: it has no FP8 recipe), TP 2,
     * no pipeline. */
    {"Llama-2-70B, 64 H100, deepspeed",
     "tests/validation/setups/nemo-llama2-70b.yaml",
     {{"training.software", "deepspeed"},
      {"training.precision", "bf16"},
      {"training.pipeline_parallel", "1"},
      {"training.virtual_stages", "1"},
      {"training.tensor_parallel", "2"},
      {"training.zero_stage", "1"}},
     false},
};
enum { RUNS = sizeof runs / sizeof runs[0], TOP = 20 };

/* Why a changed field can make a layout faster, and the source. */
static const struct {
    const char *path, *mechanism;
} mechanisms[] = {
    {"training.tensor_parallel",
     "tensor-parallel size: its all-reduces against the GEMM shapes (Narayanan et al. 2021, 3.2)"},
    {"training.context_parallel",
     "context parallelism: ring attention over the sequence (Liu et al. 2023; Megatron-Core CP)"},
    {"training.expert_parallel", "expert parallelism (Megatron-Core MoE docs)"},
    {"training.pipeline_parallel",
     "pipeline depth: bubble (p-1)/(v m) and sends (Narayanan et al. 2021, 2.2)"},
    {"training.virtual_stages", "interleaved 1F1B: the bubble over v (Narayanan et al. 2021, 2.2)"},
    {"training.first_stage_layers", "uneven end stages (Llama 3 paper, 3.3.2)"},
    {"training.last_stage_layers", "uneven end stages (Llama 3 paper, 3.3.2)"},
    {"training.micro_batch",
     "micro-batch: fuller GEMM waves and fewer kernel launches against a longer bubble "
     "(NVIDIA GEMM guide, wave quantization; Narayanan et al. 2021, Fig. 7)"},
    {"training.recompute",
     "activation recomputation dropped or made selective (Korthikanti et al. 2022: 54.2% "
     "against 42.1% MFU on 530B)"},
    {"training.zero_stage",
     "ZeRO / distributed optimizer: the memory that lets the rest fit, and its traffic "
     "(Rajbhandari et al. 2020)"},
    {"training.sequence_parallel",
     "sequence parallelism, which TP overlap needs (Korthikanti et al. 2022; "
     "TransformerEngine issue 746)"},
    {"training.flash_attention", "fused attention, no s x s scores (Dao et al. 2022)"},
    {"training.overlap_grad_sync", "gradient sync under the backward (Li et al. 2020)"},
};

static const char *mechanism_of(const char *path)
{
    for (size_t i = 0; i < sizeof mechanisms / sizeof mechanisms[0]; i++)
        if (strcmp(mechanisms[i].path, path) == 0)
            return mechanisms[i].mechanism;
    return NULL;
}

static struct plan_space space; /* large: not on the stack */
static struct plan_result res;

static void load_run(const struct run *run, struct setup *s)
{
    char err[1024];
    struct resolved r;
    if (!setup_load_file(s, run->path, cat, err, sizeof err))
        fail_msg("%s", err);
    for (int i = 0; i < 7 && run->sets[i][0]; i++)
        if (!setup_set(s, run->sets[i][0], run->sets[i][1], err, sizeof err))
            fail_msg("%s: %s", run->label, err);
    if (!setup_resolve(s, cat, &r, err, sizeof err))
        fail_msg("%s: %s", run->label, err);
}

/* The step as `mlviz plan` prints it: simulated, data stalls included. */
static double step_of(const struct setup *s, bool *ok)
{
    struct resolved r;
    struct model_report o;
    char err[512];
    *ok = setup_resolve(s, cat, &r, err, sizeof err);
    if (!*ok)
        return 0.0;
    model_eval(s, &r, &o);
    struct sched_result q;
    double step = o.step_time_s;
    if (sched_simulate(s, &r, &o, SCHED_AUTO, false, &q) == SCHED_OK) {
        double data = o.step_time_s - o.device_step_s;
        step = q.step_s + data;
        sched_free(&q);
    }
    return step;
}

/* Every top row: the stack rules and the invariants. */
static void check_rows(const struct run *run)
{
    char msg[1024];
    long evals = 0;
    for (int i = 0; i < res.n_top; i++) {
        struct setup s;
        struct resolved r;
        plan_space_setup(&space, res.top[i].index, &s);
        if (!setup_resolve(&s, cat, &r, msg, sizeof msg))
            fail_msg("%s rank %d breaks a stack rule: %s", run->label, i + 1, msg);
        if (!inv_check_setup(&s, &r, msg, sizeof msg, &evals))
            fail_msg("%s rank %d breaks an invariant: %s", run->label, i + 1, msg);
    }
}

/* The ratio split by field: rank 1's changed fields applied to the base
 * one at a time in dimension order, each setup simulated; a field whose
 * setup alone is refused joins the next one. Writes "field xF; ..." and
 * returns the product of the factors. */
static double attribute(char *out, size_t len, bool *named)
{
    struct setup cur = space.base, best;
    plan_space_setup(&space, res.top[0].index, &best);
    int dims[PLAN_DIMS_MAX], digit[PLAN_DIMS_MAX];
    int n = plan_space_changed(&space, &best, dims);
    plan_digits_of(&space, res.top[0].index, digit);
    bool ok;
    double prev = step_of(&cur, &ok), product = 1.0;
    assert_true(ok);
    size_t off = 0;
    char group[256] = "";
    *named = true;
    out[0] = '\0';
    for (int k = 0; k < n; k++) {
        const struct plan_dim *d = &space.dims[dims[k]];
        plan_apply_value(d, digit[dims[k]], &cur);
        const char *name = d->field->path + strlen("training.");
        snprintf(group + strlen(group), sizeof group - strlen(group), "%s%s", group[0] ? " + " : "",
                 name);
        *named = *named && mechanism_of(d->field->path) != NULL;
        double step = step_of(&cur, &ok);
        if (!ok && k + 1 < n)
            continue;
        assert_true(ok && step > 0);
        double f = prev / step;
        product *= f;
        off += (size_t)snprintf(out + off, off < len ? len - off : 0, "%s%s x%.3f", off ? "; " : "",
                                group, f);
        prev = step;
        group[0] = '\0';
    }
    return product;
}

/* One run's line of the first table, into `out`. */
static void add_row(const struct run *run, char *out, size_t len)
{
    size_t n = 0;
    struct plan_why why;
    assert_true(plan_why(&space, cat, res.top[0].index, &why) && why.ok && why.simulated);
    const struct plan_entry *b = &res.base, *t = &res.top[0];
    double ratio = t->fig[PLAN_TOKENS_PER_S] / b->fig[PLAN_TOKENS_PER_S];
    char changes[1024];
    plan_space_changes(&space, t->index, changes, sizeof changes);
    for (char *p = strstr(changes, "training."); p; p = strstr(p, "training."))
        memmove(p, p + 9, strlen(p + 9) + 1);
    docs_table_append(out, len, &n, "| %s | %.0f (%.1f%%) | %.0f (%.1f%%) | %.2fx | %s |\n",
                      run->label, b->fig[PLAN_TOKENS_PER_S] / b->fig[PLAN_DEVICES],
                      100 * b->fig[PLAN_MFU], t->fig[PLAN_TOKENS_PER_S] / t->fig[PLAN_DEVICES],
                      100 * t->fig[PLAN_MFU], ratio, changes[0] ? changes : "(none)");
}

/* One run's line of the second table, into `out`. */
static void add_parts(const struct run *run, char *out, size_t len)
{
    size_t n = 0;
    struct plan_why why;
    assert_true(plan_why(&space, cat, res.top[0].index, &why));
    /* compute, recompute, tp, cp, ep, sends, bubble, dp; then the rest
     * (optimizer, straggler, overhead, data stall), the step, memory. */
    double d[PLAN_WHY_PARTS];
    for (int i = 0; i < PLAN_WHY_PARTS; i++)
        d[i] = why.best[i] - why.base[i];
    double rest = d[8] + d[9] + d[10] + d[11];
    docs_table_append(out, len, &n, "| %s | %.2f -> %.2f |", run->label, why.base[PLAN_WHY_STEP],
                      why.best[PLAN_WHY_STEP]);
    for (int i = 0; i < 8; i++)
        docs_table_append(out, len, &n, " %+.2f |", d[i] + 0.0);
    docs_table_append(out, len, &n, " %+.2f | %+.1f |\n", rest + 0.0, d[PLAN_WHY_MEMORY] + 0.0);
}

static void search(const struct run *run)
{
    struct setup s;
    char err[1200];
    load_run(run, &s);
    struct plan_spec spec;
    plan_spec_init(&spec);
    spec.top = TOP;
    spec.threads = 2;
    spec.front = false; /* as `mlviz plan` without --pareto */
    if (!plan_space_build(&space, &s, &spec, cat, err, sizeof err) ||
        !plan_run(&space, cat, &spec, &res, NULL, NULL, NULL, err, sizeof err))
        fail_msg("%s: %s", run->label, err);
    assert_int_equal(res.n_top, TOP);
    assert_true(res.rescored);
    /* A published layout runs (the DeepSpeed row's base need not fit). */
    assert_true(!run->in_table || (res.base_runnable && res.base.sim_step_s > 0));
}

/* Searches every run, checks its rows, and writes the tables of
 * docs/PLAN.md into out (printed by --table, checked by tests/cli/docs.sh). */
static void build_table(char *out, size_t len)
{
    static char rows[RUNS][1024], parts[RUNS][512], mech[RUNS][1024];
    double ratio[RUNS];
    for (int i = 0; i < RUNS; i++) {
        search(&runs[i]);
        check_rows(&runs[i]);
        if (runs[i].in_table) {
            add_row(&runs[i], rows[i], sizeof rows[i]);
            add_parts(&runs[i], parts[i], sizeof parts[i]);
            bool named;
            double product = attribute(mech[i], sizeof mech[i], &named);
            ratio[i] = res.top[0].fig[PLAN_TOKENS_PER_S] / res.base.fig[PLAN_TOKENS_PER_S];
            /* The factors explain the whole ratio (same batch: tokens/s go
             * as one over the step). */
            assert_true(fabs(product / ratio[i] - 1.0) < 1e-6);
            if (ratio[i] > 1.25 && !named)
                fail_msg("%s: rank 1 is %.2fx the published layout and changes a field with "
                         "no named mechanism",
                         runs[i].label, ratio[i]);
        }
        plan_result_free(&res);
    }
    size_t used = 0;
    docs_table_append(out, len, &used,
                      "| run | published layout: tokens/s per device (MFU) | rank 1 | ratio | "
                      "what rank 1 changes |\n|---|---|---|---|---|\n");
    for (int i = 0; i < RUNS; i++)
        docs_table_append(out, len, &used, "%s", runs[i].in_table ? rows[i] : "");
    docs_table_append(out, len, &used,
                      "\nRank 1 minus the published layout, seconds per step of the busiest "
                      "stage (simulated):\n\n| run | step | compute | recompute | TP | CP | EP | "
                      "sends | bubble | DP | rest | memory GB |\n"
                      "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < RUNS; i++)
        docs_table_append(out, len, &used, "%s", runs[i].in_table ? parts[i] : "");
    docs_table_append(out, len, &used,
                      "\nThe ratio field by field (applied in the search's order, each step "
                      "simulated; the factors multiply to the ratio):\n\n| run | ratio | "
                      "factors |\n|---|---|---|\n");
    for (int i = 0; i < RUNS; i++)
        if (runs[i].in_table)
            docs_table_append(out, len, &used, "| %s | %.2fx | %s |\n", runs[i].label, ratio[i],
                              mech[i]);
    docs_table_append(out, len, &used, "\nMechanisms and sources, by field:\n\n");
    for (size_t i = 0; i < sizeof mechanisms / sizeof mechanisms[0]; i++)
        docs_table_append(out, len, &used, "- `%s`: %s.\n",
                          mechanisms[i].path + strlen("training."), mechanisms[i].mechanism);
}

static void test_published_runs(void **state)
{
    (void)state;
    static char table[65536];
    build_table(table, sizeof table);
    assert_true(strlen(table) > 0);
}

int main(int argc, char **argv)
{
    int status;
    if (docs_table_wanted(argc, argv, build_table, &status))
        return status;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_published_runs),
    };
    return cmocka_run_group_tests(tests, load_catalog, free_catalog);
}
