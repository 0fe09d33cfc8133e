/* Validation against the 2023-2026 published runs of
 * ../shared/reference/published-runs.md (sections A-F), one setup file per
 * row under tests/validation/setups/.
 *
 * Every row whose model agrees within the published tolerance is asserted
 * to stay there. Rows the model does not yet reproduce are marked `miss`
 * with the reason: they are printed and shown as MISS in the table, so that
 * nothing is hidden, and the test fails if one of them starts passing (the
 * mark must then be removed).
 *
 * The table in docs/MODEL.md (the block `generated table: test_modern`) is
 * what this program prints with --table: tests/cli/docs.sh fails when the
 * committed table differs; `sh tests/cli/docs.sh --write` rewrites it. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "collective.h"
#include "model.h"

#include "../catalog_fixture.h"
#include "docs_table.h"

enum metric { TOKENS_PER_DEVICE, MFU, MODEL_TFLOPS };

struct row {
    const char *section;
    const char *file; /* under tests/validation/setups/ */
    const char *label;
    enum metric metric;
    double published;
    double tolerance; /* relative */
    const char *miss; /* NULL when the model must agree */
};

static const struct row rows[] = {
    {"A", "mcore-h100-1.7b.yaml", "Megatron-Core 1.7B, 48 H100", MODEL_TFLOPS, 408.8, 0.15, NULL},
    {"A", "mcore-h100-16b.yaml", "Megatron-Core 16B, 192 H100, TP 4", MODEL_TFLOPS, 489.1, 0.15,
     NULL},
    {"A", "mcore-h100-70b.yaml", "Megatron-Core 70B, 768 H100, TP 8 PP 2", MODEL_TFLOPS, 419.7,
     0.15, NULL},
    {"A", "mcore-h100-314b.yaml", "Megatron-Core 314B, 3072 H100, TP 8 PP 8", MODEL_TFLOPS, 474.4,
     0.15, NULL},
    {"B", "nemo-gpt3-175b.yaml", "NeMo GPT3-175B FP8, 128 H100", TOKENS_PER_DEVICE, 716, 0.15,
     NULL},
    {"B", "nemo-llama2-7b.yaml", "NeMo Llama2-7B FP8, 8 H100", TOKENS_PER_DEVICE, 16934, 0.15,
     NULL},
    {"B", "nemo-llama2-70b.yaml", "NeMo Llama2-70B FP8, 64 H100", TOKENS_PER_DEVICE, 1728, 0.15,
     NULL},
    {"B", "nemo-llama3-8b.yaml", "NeMo Llama3-8B FP8, 8 H100, CP 2", TOKENS_PER_DEVICE, 12273, 0.15,
     NULL},
    {"C", "deepseek-v3.yaml", "DeepSeek-V3 FP8, 1024 H100, EP 64", TOKENS_PER_DEVICE, 1297, 0.20,
     NULL},
    {"C", "qwen3-30b-a3b.yaml", "Qwen3-30B-A3B FP8, 16 H100, EP 8", TOKENS_PER_DEVICE, 10494, 0.25,
     NULL},
    {"D", "maxtext-32b-v5p-128.yaml", "MaxText 32B, 64 TPU v5p", MFU, 0.7147, 0.15, NULL},
    {"D", "maxtext-128b-v5p-256.yaml", "MaxText 128B, 128 TPU v5p", MFU, 0.6868, 0.15, NULL},
    {"D", "maxtext-512b-v5p-1024.yaml", "MaxText 512B, 512 TPU v5p", MFU, 0.6399, 0.15, NULL},
    {"D", "maxtext-22b-v4-128.yaml", "MaxText 22B, 64 TPU v4 (flash)", MFU, 0.567, 0.15, NULL},
    {"F", "llama3-405b.yaml", "Llama 3 405B, 16384 H100 (Table 4: 41%)", MFU, 0.41, 0.15, NULL},
};
enum { ROW_COUNT = sizeof rows / sizeof rows[0] };

/* Section E: nccl-tests all_reduce_perf on 8 x H100 SXM (NVLink 4 +
 * NVSwitch), time in microseconds. */
static const struct {
    double bytes, time_us;
} nccl_h100[] = {
    {8, 13.67},        {1024, 16.94},       {65536, 19.54},       {262144, 20.43},
    {1048576, 27.37},  {2097152, 42.21},    {4194304, 54.19},     {16777216, 123.8},
    {67108864, 324.7}, {268435456, 1112.5}, {1073741824, 4029.4}, {17179869184.0, 62648},
};
enum { NCCL_COUNT = sizeof nccl_h100 / sizeof nccl_h100[0] };

static void load_eval(const char *file, struct setup *s, struct resolved *r, struct model_report *o)
{
    char path[256], err[1024];
    snprintf(path, sizeof path, "tests/validation/setups/%s", file);
    if (!setup_load_file(s, path, cat, err, sizeof err))
        fail_msg("%s", err);
    if (!setup_resolve(s, cat, r, err, sizeof err))
        fail_msg("%s", err);
    model_eval(s, r, o);
}

static double row_value(const struct row *w, const struct setup *s, const struct model_report *o)
{
    switch (w->metric) {
    case TOKENS_PER_DEVICE:
        return o->tokens_per_s / o->devices;
    case MFU:
        return o->mfu;
    default:
        /* Model FLOPs per device per second (Megatron-Core's TFLOP/s and
         * MFU = that / 989). */
        (void)s;
        return o->model_flops_per_step / o->step_time_s / o->devices / 1e12;
    }
}

/* Evaluates row i: the model's value, its relative error, whether it fits
 * and whether the setup runs. */
struct outcome {
    double value, error;
    bool fits, runnable;
};

static void eval_row(const struct row *w, struct outcome *out)
{
    struct setup s;
    struct resolved r;
    struct model_report o;
    load_eval(w->file, &s, &r, &o);
    out->value = row_value(w, &s, &o);
    out->error = (out->value - w->published) / w->published;
    out->fits = o.memory.fits;
    out->runnable = o.runnable;
}

static void format_value(char *buf, size_t len, enum metric m, double v)
{
    if (m == MFU)
        snprintf(buf, len, "%.1f%% MFU", 100 * v);
    else if (m == TOKENS_PER_DEVICE)
        snprintf(buf, len, "%.0f tok/s/GPU", v);
    else
        snprintf(buf, len, "%.1f TFLOP/s", v);
}

/* The nccl-tests row through the model's collective for one 8 x H100 node. */
static double nccl_model_us(double bytes)
{
    const struct link *l = catalog_link(cat, "nvlink4");
    assert_non_null(l);
    struct collective_net net = {8,
                                 8,
                                 l->bw_gbs * l->nccl_efficiency,
                                 l->latency_us * 1e-6,
                                 l->bw_gbs * l->nccl_efficiency,
                                 l->latency_us * 1e-6,
                                 l->nvls_bw_gbs,
                                 l->nvls_setup_us * 1e-6};
    return collective_time(COLL_ALL_REDUCE, ALLREDUCE_AUTO, bytes, &net, NULL) * 1e6;
}

static void size_label(char *buf, size_t len, double bytes)
{
    if (bytes >= 1073741824.0)
        snprintf(buf, len, "%.0f GiB", bytes / 1073741824.0);
    else if (bytes >= 1048576)
        snprintf(buf, len, "%.0f MiB", bytes / 1048576);
    else if (bytes >= 1024)
        snprintf(buf, len, "%.0f KiB", bytes / 1024);
    else
        snprintf(buf, len, "%.0f B", bytes);
}

/* The whole table as markdown. */
static void build_table(char *out, size_t len)
{
    size_t used = 0;
#define OUT(...) docs_table_append(out, len, &used, __VA_ARGS__)
    OUT("| | run | published | mlviz | error | tolerance | |\n");
    OUT("|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < ROW_COUNT; i++) {
        const struct row *w = &rows[i];
        struct outcome k;
        eval_row(w, &k);
        double v = k.value, err = k.error;
        char pub[48], got[48];
        format_value(pub, sizeof pub, w->metric, w->published);
        format_value(got, sizeof got, w->metric, v);
        OUT("| %s | %s | %s | %s | %+.1f%% | %.0f%% | %s%s |\n", w->section, w->label, pub, got,
            100 * err, 100 * w->tolerance, fabs(err) <= w->tolerance ? "ok" : "MISS",
            k.fits ? "" : ", does not fit");
    }
    for (int i = 0; i < NCCL_COUNT; i++) {
        double t = nccl_model_us(nccl_h100[i].bytes);
        double err = (t - nccl_h100[i].time_us) / nccl_h100[i].time_us;
        double tol = nccl_h100[i].bytes >= 67108864 ? 0.20 : 0.50;
        char size[32];
        size_label(size, sizeof size, nccl_h100[i].bytes);
        OUT("| E | all-reduce %s, 8 x H100 | %.2f us | %.2f us | %+.1f%% | %.0f%% | %s |\n", size,
            nccl_h100[i].time_us, t, 100 * err, 100 * tol, fabs(err) <= tol ? "ok" : "MISS");
    }
#undef OUT
}

static void test_rows(void **state)
{
    (void)state;
    int failures = 0;
    for (int i = 0; i < ROW_COUNT; i++) {
        const struct row *w = &rows[i];
        struct outcome k;
        eval_row(w, &k);
        double v = k.value, err = k.error;
        bool ok = fabs(err) <= w->tolerance;
        printf("  %s %-44s published %10.4g  mlviz %10.4g  %+6.1f%%  %s\n", w->section, w->label,
               w->published, v, 100 * err,
               ok        ? "ok"
               : w->miss ? "MISS (known)"
                         : "FAIL");
        if (!w->miss && !ok) {
            printf("    outside the +-%.0f%% tolerance\n", 100 * w->tolerance);
            failures++;
        }
        if (w->miss && ok) {
            printf("    now within tolerance: remove its 'miss' mark\n");
            failures++;
        }
        /* Every row that agrees ran as published: it fits and runs (the
         * TPU rows too, since the memory peak is the largest phase of the
         * step and XLA's reserve is its own, docs/MODEL.md section 4). */
        if (!w->miss) {
            if (!k.fits || !k.runnable)
                printf("    %s as published\n", k.fits ? "not runnable" : "DOES NOT FIT");
            assert_true(k.fits && k.runnable);
        }
    }
    assert_int_equal(failures, 0);
}

static void test_nccl_curve(void **state)
{
    (void)state;
    for (int i = 0; i < NCCL_COUNT; i++) {
        double t = nccl_model_us(nccl_h100[i].bytes);
        double tol = nccl_h100[i].bytes >= 67108864 ? 0.20 : 0.50;
        double err = (t - nccl_h100[i].time_us) / nccl_h100[i].time_us;
        if (fabs(err) > tol)
            fail_msg("all-reduce of %.0f B: model %.2f us, nccl-tests %.2f us (%+.1f%%)",
                     nccl_h100[i].bytes, t, nccl_h100[i].time_us, 100 * err);
    }
    /* Above the 450 GB/s link rate only NVLink SHARP gets there: 16 GiB must
     * run at ~480 GB/s busbw. */
    double t = nccl_model_us(17179869184.0) * 1e-6;
    double busbw = 17179869184.0 / t * collective_bus_factor(COLL_ALL_REDUCE, 8) / 1e9;
    assert_true(busbw > 450 && busbw < 500);
}

/* Section F: device memory is binary, Megatron keeps 18 bytes per parameter,
 * and the Llama 3 405B configuration fits. */
static void test_facts(void **state)
{
    (void)state;
    static const struct {
        const char *id;
        double bytes;
    } mem[] = {{"a100-sxm-80gb", 85.9e9}, {"h100-sxm", 85.5e9}, {"h200-sxm", 150.8e9}};
    for (size_t i = 0; i < sizeof mem / sizeof mem[0]; i++) {
        const struct accelerator *a = catalog_accelerator(cat, mem[i].id);
        assert_non_null(a);
        assert_true(fabs(a->mem_gb * 1e9 - mem[i].bytes) <= 0.005 * mem[i].bytes);
    }
    struct setup s;
    struct resolved r;
    struct model_report o;
    load_eval("llama3-405b.yaml", &s, &r, &o);
    assert_true(o.memory.fits);
    assert_true(o.runnable);
    /* Megatron-Core, one device holding everything (no sharding): 18 bytes
     * per parameter of model state. */
    setup_defaults(&s);
    s.cluster.node.accelerators_per_node = 1;
    s.model.kind = MODEL_GENERIC;
    s.model.params = 1e9;
    s.model.flops_per_sample = 1e12;
    s.training.global_batch = 1;
    snprintf(s.training.software, sizeof s.training.software, "megatron-core");
    char err[512];
    if (!setup_resolve(&s, cat, &r, err, sizeof err))
        fail_msg("%s", err);
    model_eval(&s, &r, &o);
    double states = o.memory.params_gb + o.memory.grads_gb + o.memory.optimizer_gb;
    assert_true(fabs(states - 18.0) < 1e-9);
}

int main(int argc, char **argv)
{
    int status;
    if (docs_table_wanted(argc, argv, build_table, &status))
        return status;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_nccl_curve),
        cmocka_unit_test(test_facts),
    };
    return cmocka_run_group_tests(tests, load_catalog, free_catalog);
}
