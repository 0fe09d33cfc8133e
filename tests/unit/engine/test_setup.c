/* setup: defaults, strict loading with positions, cross-checks against the
 * catalog, get/set by path, the YAML writer and derived sizes.
 * Tests run from the repository root (they read assets/catalog). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog.h"
#include "setup.h"
#include "sim.h"

static struct catalog *cat;

static int group_setup(void **state)
{
    (void)state;
    char err[1024];
    cat = catalog_new();
    if (!cat || !catalog_load_dir(cat, "assets/catalog", err, sizeof err)) {
        fprintf(stderr, "cannot load the catalog: %s\n", cat ? err : "out of memory");
        return -1;
    }
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    catalog_free(cat);
    return 0;
}

/* Loads text that must fail with exactly "s.yaml:LINE:COL: " + a message
 * containing `substring`, and leaves the setup untouched. */
static void expect_load_error(const char *text, int line, int col, const char *substring)
{
    struct setup s, before;
    setup_defaults(&s);
    snprintf(s.name, sizeof s.name, "sentinel");
    s.cluster.nodes = 77;
    before = s;
    char err[1024] = "", prefix[64];
    if (setup_load_string(&s, "s.yaml", text, cat, err, sizeof err))
        fail_msg("loaded but should fail with '%s':\n%s", substring, text);
    snprintf(prefix, sizeof prefix, "s.yaml:%d:%d: ", line, col);
    if (strncmp(err, prefix, strlen(prefix)) != 0)
        fail_msg("expected '%s...', got '%s'", prefix, err);
    if (!strstr(err, substring))
        fail_msg("expected '%s' in '%s'", substring, err);
    if (memcmp(&s, &before, sizeof s) != 0)
        fail_msg("a failed load changed the setup (half-loaded): %s", err);
}

static void load_ok(struct setup *s, const char *text)
{
    char err[1024];
    if (!setup_load_string(s, "s.yaml", text, cat, err, sizeof err))
        fail_msg("should load: %s\n%s", err, text);
}

/* Every field of a and b holds the same value (numbers compared exactly). */
static void assert_same_fields(const struct setup *a, const struct setup *b, const char *what)
{
    const struct field_table *t = setup_fields();
    for (size_t i = 0; i < t->count; i++) {
        const struct field *f = &t->fields[i];
        if (f->type == FIELD_STR || f->type == FIELD_REF) {
            if (strcmp(fields_get_string(f, a), fields_get_string(f, b)) != 0)
                fail_msg("%s: %s is '%s' then '%s'", what, f->path, fields_get_string(f, a),
                         fields_get_string(f, b));
        } else if (fields_get_number(f, a) != fields_get_number(f, b)) {
            fail_msg("%s: %s is %.17g then %.17g", what, f->path, fields_get_number(f, a),
                     fields_get_number(f, b));
        }
    }
}

/* ----------------------------------------------------------------- defaults */

static void test_defaults(void **state)
{
    (void)state;
    struct setup s;
    setup_defaults(&s);
    assert_string_equal(s.name, "unnamed setup");
    assert_int_equal(s.cluster.nodes, 1);
    assert_string_equal(s.cluster.node.accelerator, "h100-sxm");
    assert_int_equal(s.cluster.node.accelerators_per_node, 8);
    assert_string_equal(s.cluster.node.cpu, "xeon-8480");
    assert_string_equal(s.cluster.node.intra_link, ""); /* the accelerator's own */
    assert_float_equal(s.cluster.storage_bw_gbs, FIELD_AUTO, 0);
    assert_float_equal(s.facility.pue, FIELD_AUTO, 0);
    assert_float_equal(s.facility.device_usd_per_hour, FIELD_AUTO, 0);
    assert_int_equal(s.model.kind, MODEL_TRANSFORMER);
    assert_int_equal(s.model.ffn_hidden, 0);
    assert_int_equal(s.model.kv_heads, 0);
    assert_int_equal(s.model.mlp, MLP_GELU);
    assert_int_equal(s.training.precision, PREC_BF16);
    assert_int_equal(s.training.optimizer, OPT_ADAM);
    assert_int_equal(s.training.tensor_parallel, 1);
    assert_int_equal(s.training.pipeline_parallel, 1);
    assert_true(s.training.overlap_grad_sync);
    assert_false(s.training.sequence_parallel);
    assert_int_equal(s.data.source, DATA_SHARED);
    assert_float_equal(s.data.cache_hit, 0, 0);
    assert_float_equal(s.reliability.checkpoint_interval_min, FIELD_AUTO, 0);
    /* the defaults are a valid setup */
    struct resolved r;
    char err[512];
    if (!setup_resolve(&s, cat, &r, err, sizeof err))
        fail_msg("defaults do not resolve: %s", err);
    assert_string_equal(r.accel->head.id, "h100-sxm");
    assert_string_equal(r.intra_link->head.id, "nvlink4"); /* from the accelerator */
    assert_non_null(r.cpu);
    assert_non_null(r.host_link);
    assert_non_null(r.storage);
    assert_non_null(r.cooling);
    assert_non_null(r.software);
    /* every table default is inside its own range */
    const struct field_table *t = setup_fields();
    for (size_t i = 0; i < t->count; i++) {
        const struct field *f = &t->fields[i];
        if (f->type != FIELD_INT && f->type != FIELD_NUM && f->type != FIELD_NUM_AUTO)
            continue;
        double v = fields_get_number(f, &s);
        if (f->type == FIELD_NUM_AUTO && v == FIELD_AUTO)
            continue;
        if (v < f->min || v > f->max)
            fail_msg("default of %s (%g) is outside %g..%g", f->path, v, f->min, f->max);
        if (!f->help || !f->help[0])
            fail_msg("%s has no help text", f->path);
    }
}

static void test_derived_sizes(void **state)
{
    (void)state;
    struct setup s;
    setup_defaults(&s);
    s.cluster.nodes = 128;
    s.cluster.node.accelerators_per_node = 8;
    s.training.tensor_parallel = 8;
    s.training.pipeline_parallel = 8;
    s.facility.nodes_per_rack = 3;
    s.model.hidden = 12288;
    s.model.heads = 96;
    assert_int_equal(setup_devices(&s), 1024);
    assert_int_equal(setup_data_parallel(&s), 16);
    assert_int_equal(setup_racks(&s), 43); /* 128 / 3 rounded up */
    assert_int_equal(setup_ffn_hidden(&s), 4 * 12288);
    assert_int_equal(setup_kv_heads(&s), 96);
    s.model.ffn_hidden = 14336;
    s.model.kv_heads = 8;
    assert_int_equal(setup_ffn_hidden(&s), 14336);
    assert_int_equal(setup_kv_heads(&s), 8);
    s.facility.nodes_per_rack = 4;
    assert_int_equal(setup_racks(&s), 32);
    s.cluster.nodes = 1;
    assert_int_equal(setup_racks(&s), 1);
}

/* ----------------------------------------------------------------- loading */

static void test_load_minimal(void **state)
{
    (void)state;
    struct setup s, d;
    setup_defaults(&d);
    load_ok(&s, "name: minimal\n");
    assert_string_equal(s.name, "minimal");
    snprintf(d.name, sizeof d.name, "minimal");
    assert_same_fields(&d, &s, "minimal file vs defaults");
}

static void test_load_values(void **state)
{
    (void)state;
    struct setup s;
    load_ok(&s, "name: 'two nodes'   # a comment\n"
                "cluster:\n"
                "  nodes: 2\n"
                "  node: {accelerator: a100-sxm-80gb, cpu: epyc-7742, host_link: pcie4-x16,\n"
                "         nic: ib-hdr, intra_link: nvlink3}\n"
                "  storage_bw_gbs: 123.5\n"
                "model: {layers: 24, hidden: 2048, heads: 16, kv_heads: 4, mlp: swiglu}\n"
                "training: {tensor_parallel: 2, pipeline_parallel: 2, global_batch: 64,\n"
                "           precision: \"fp16\", flash_attention: yes, tokens: 3e11,\n"
                "           software: fsdp}\n"
                "data: {cache_hit: 0.5}\n"
                "reliability: {checkpoint_interval_min: 45}\n");
    assert_string_equal(s.name, "two nodes");
    assert_int_equal(s.cluster.nodes, 2);
    assert_string_equal(s.cluster.node.accelerator, "a100-sxm-80gb");
    assert_string_equal(s.cluster.node.intra_link, "nvlink3");
    assert_float_equal(s.cluster.storage_bw_gbs, 123.5, 0);
    assert_int_equal(s.model.layers, 24);
    assert_int_equal(s.model.kv_heads, 4);
    assert_int_equal(s.model.mlp, MLP_SWIGLU);
    assert_int_equal(s.training.precision, PREC_FP16);
    assert_true(s.training.flash_attention);
    assert_float_equal(s.training.tokens, 3e11, 0);
    assert_float_equal(s.data.cache_hit, 0.5, 0);
    assert_float_equal(s.reliability.checkpoint_interval_min, 45, 0);
    assert_int_equal(setup_devices(&s), 16);
    assert_int_equal(setup_data_parallel(&s), 4);
}

static void test_load_errors_yaml(void **state)
{
    (void)state;
    expect_load_error("", 1, 1, "the file is empty");
    expect_load_error("# nothing\n", 1, 1, "the file is empty");
    expect_load_error("name: x\ncluster:\n  nodes: 1\n   node: {}\n", 4, 8,
                      "mapping values are not allowed");
    expect_load_error("name: x\ntraining: {tensor_parallel: 1\n", 2, 11, "YAML syntax error");
    expect_load_error("name: a\nname: b\n", 2, 1, "key 'name' appears twice (first on line 1)");
    expect_load_error("name: a\n---\nname: b\n", 2, 1, "only one YAML document");
    expect_load_error("name: &n a\n", 1, 7, "anchors (&name) are not supported");
    expect_load_error("- name: a\n", 1, 1, "the file must be a mapping of keys, found a list");
    expect_load_error("words\n", 1, 1, "found a single value");
}

static void test_load_errors_types(void **state)
{
    (void)state;
    expect_load_error("cluster:\n  nodes: two\n", 2, 10, "cluster.nodes must be a whole number");
    expect_load_error("cluster:\n  nodes: \"2\"\n", 2, 10, "found the quoted text \"2\"");
    expect_load_error("model: {layers: 2.5}\n", 1, 17,
                      "model.layers must be a whole number (got 2.5)");
    expect_load_error("training: [1, 2]\n", 1, 11,
                      "training must be a mapping of keys, found a list");
    expect_load_error("cluster: 4\n", 1, 10, "cluster must be a mapping of keys");
    expect_load_error("model:\n  layers: {n: 1}\n", 2, 11, "found a mapping");
    expect_load_error("training: {flash_attention: 1}\n", 1, 29, "must be true or false (got '1')");
    expect_load_error("training: {precision: bf61}\n", 1, 23, "did you mean 'bf16'?");
    expect_load_error("model:\n  hidden:\n", 2, 10, "model.hidden needs a value");
    expect_load_error("cluster: {node: {accelerator: [a, b]}}\n", 1, 31, "found a list");
}

static void test_load_errors_keys(void **state)
{
    (void)state;
    expect_load_error("name: x\ncolour: red\n", 2, 1, "unknown key 'colour'");
    expect_load_error("cluster:\n  node:\n    acelerator: h100-sxm\n", 3, 5,
                      "unknown key 'cluster.node.acelerator' (did you mean "
                      "'cluster.node.accelerator'?)");
    expect_load_error("training: {global_batch: 8, tensor_paralel: 2}\n", 1, 29,
                      "(did you mean 'training.tensor_parallel'?)");
    expect_load_error("data:\n  cache_hits: 0.5\n", 2, 3, "did you mean 'data.cache_hit'?");
}

static void test_load_errors_refs(void **state)
{
    (void)state;
    expect_load_error("cluster: {node: {accelerator: h100-sxm5}}\n", 1, 31,
                      "cluster.node.accelerator: unknown accelerator 'h100-sxm5'; did you mean "
                      "'h100-sxm'? (see: mlviz catalog accelerators)");
    expect_load_error("cluster:\n  node:\n    cpu: epyc-9655\n", 3, 10,
                      "did you mean 'epyc-9654'?");
    expect_load_error("cluster:\n  node:\n    host_link: warp-drive\n", 3, 16,
                      "unknown link 'warp-drive'");
    expect_load_error("cluster:\n  nodes: 2\n  node: {nic: ib-ndrr}\n", 3, 15,
                      "cluster.node.nic: unknown link 'ib-ndrr'; did you mean 'ib-ndr'?");
    expect_load_error("cluster:\n  storage: lustr\n", 2, 12, "did you mean 'lustre'?");
    expect_load_error("cluster:\n  node: {local_storage: floppy}\n", 2, 25,
                      "cluster.node.local_storage: unknown storage 'floppy'");
    expect_load_error("facility:\n  cooling: water\n", 2, 12, "facility.cooling: unknown cooling");
    expect_load_error("training:\n  software: jax\n", 2, 13, "training.software: unknown software");
}

static void test_load_errors_values(void **state)
{
    (void)state;
    expect_load_error("cluster: {nodes: -1}\n", 1, 18, "cluster.nodes must be between 1 and");
    expect_load_error("cluster: {nodes: 0}\n", 1, 18, "cluster.nodes must be between 1 and");
    expect_load_error("cluster: {nodes: 1e9}\n", 1, 18, "(got 1000000000)");
    expect_load_error("data: {cache_hit: 1.01}\n", 1, 19, "data.cache_hit must be between 0 and 1");
    expect_load_error("training: {zero_stage: 4}\n", 1, 24,
                      "training.zero_stage must be between 0 and 3");
    expect_load_error("cluster: {node: {host_ram_gb: 0}}\n", 1, 31,
                      "cluster.node.host_ram_gb must be between 0.001 and 1000000 (got 0)");
    expect_load_error("facility: {pue: 0.5}\n", 1, 17, "facility.pue must be between 1 and 5");
    expect_load_error("training: {tokens: 0}\n", 1, 20, "training.tokens must be between 1 and");
}

/* Ways around the range checks that used to get through. */
static void test_load_errors_hardening(void **state)
{
    (void)state;
    /* -1 was the hidden spelling of "auto" */
    expect_load_error("facility: {pue: -1}\n", 1, 17,
                      "facility.pue must be between 1 and 5 (got -1)");
    expect_load_error("cluster: {storage_bw_gbs: -1}\n", 1, 27, "(got -1)");
    expect_load_error("reliability: {checkpoint_interval_min: -1}\n", 1, 40, "(got -1)");
    /* capacities that pass "above 0" but divide into inf */
    expect_load_error("cluster: {storage_bw_gbs: 4.9e-324}\n", 1, 27, "too small to compute with");
    expect_load_error("cluster: {storage_bw_gbs: 1e-300}\n", 1, 27, "between 1e-06 and");
    expect_load_error("data: {sample_bytes: 1e-9}\n", 1, 22, "between 1 and");
    /* NaN and inf in any spelling */
    expect_load_error("data: {cache_hit: .nan}\n", 1, 19, "must be a number (got '.nan')");
    expect_load_error("data: {cache_hit: .NaN}\n", 1, 19, "must be a number");
    expect_load_error("training: {tokens: .inf}\n", 1, 20, "must be a number (got '.inf')");
    expect_load_error("training: {tokens: 1e999}\n", 1, 20, "far too large");
    /* counts whose products would leave exact 64-bit / double range */
    expect_load_error("model: {seq_len: 1048577}\n", 1, 18, "between 1 and 1048576");
    expect_load_error("training: {micro_batch: 65537}\n", 1, 25, "between 1 and 65536");
    expect_load_error("training: {global_batch: 16777217}\n", 1, 26, "between 1 and 16777216");
    expect_load_error("cluster: {nodes: 100001}\n", 1, 18, "between 1 and 100000");
    /* a dotted key would give a field a second spelling */
    expect_load_error("cluster: {nodes: 2}\ncluster.nodes: 4\n", 2, 1,
                      "'cluster.nodes': write nested keys");
    /* tags, NUL characters and control characters */
    expect_load_error("name: !!str x\n", 1, 7, "YAML tags such as");
    expect_load_error("\"na\\0me\": x\n", 1, 1, "NUL character");
    expect_load_error("name: \"a\\tb\"\n", 1, 7, "name contains a control character (code 9)");
}

/* Auto is explicit: the word auto (or leaving the key out), never -1. */
static void test_auto_explicit(void **state)
{
    (void)state;
    struct setup s;
    char err[256];
    setup_defaults(&s);
    load_ok(&s, "facility: {pue: auto}\ncluster: {storage_bw_gbs: auto}\n");
    assert_float_equal(s.facility.pue, FIELD_AUTO, 0);
    assert_true(setup_set(&s, "facility.pue", "1.2", err, sizeof err));
    assert_false(setup_set(&s, "facility.pue", "-1", err, sizeof err));
    assert_false(setup_set_number(&s, "facility.pue", -1, err, sizeof err));
    assert_float_equal(s.facility.pue, 1.2, 0);
    assert_true(setup_set(&s, "facility.pue", "auto", err, sizeof err));
    assert_float_equal(s.facility.pue, FIELD_AUTO, 0);
}

/* An events file of 100,000 events loads in linear time, sorted by time
 * with ties in file order. */
static void test_events_many_sorted(void **state)
{
    (void)state;
    enum { N = 100000 };
    size_t cap = (size_t)N * 80 + 64;
    char *text = malloc(cap);
    assert_non_null(text);
    size_t used = 0;
    for (int i = 0; i < N; i++)
        used += (size_t)snprintf(text + used, cap - used,
                                 "- {at: %ds, event: set, path: training.micro_batch, value: 1}\n",
                                 N - i / 2); /* descending, in pairs of equal times */
    struct setup s;
    setup_defaults(&s);
    struct sim_event *ev;
    size_t n;
    char err[512];
    if (!sim_events_load_string("e.yaml", text, &s, &ev, &n, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(n, N);
    for (size_t i = 1; i < n; i++) {
        if (ev[i].time_s < ev[i - 1].time_s)
            fail_msg("event %zu at %g s before event %zu at %g s", i, ev[i].time_s, i - 1,
                     ev[i - 1].time_s);
        if (ev[i].time_s == ev[i - 1].time_s && ev[i].line <= ev[i - 1].line)
            fail_msg("equal times out of file order at line %d", ev[i].line);
    }
    assert_float_equal(ev[0].time_s, N - (N - 1) / 2, 0);
    free(ev);
    free(text);
}

/* A catalog file that gives one id twice is refused; a later file may
 * override an earlier one; a cooling entry's inlet must be below its limit;
 * a CPU needs PCIe lanes. */
static void test_catalog_checks(void **state)
{
    (void)state;
    char dir[] = "/tmp/mlviz-cat-XXXXXX", path[128], err[512];
    assert_non_null(mkdtemp(dir));
    static const char cpu[] =
        "  - {id: t-cpu, name: T, source: s, cores: 8, mem_channels: 2, "
        "mem_bw_gbs: 50, pcie_lanes: %d, pcie_gen: 4, tdp_w: 65, idle_w: 9}\n";
    struct {
        const char *text;
        int lanes;
        const char *want; /* NULL: loads */
    } cases[] = {
        {"cpus:\n%s", 16, NULL},
        {"cpus:\n%s", 0, "c.yaml:2:92: pcie_lanes must be between 1 and 1024 (got 0)"},
        {"cpus:\n%s%s", 16, "c.yaml:3:10: id 't-cpu' appears twice in this file (first on line 2)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char entry[256], text[600];
        snprintf(entry, sizeof entry, cpu, cases[i].lanes);
        snprintf(text, sizeof text, cases[i].text, entry, entry);
        snprintf(path, sizeof path, "%s/c.yaml", dir);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
        struct catalog *c = catalog_new();
        assert_non_null(c);
        bool ok = catalog_load_file(c, path, err, sizeof err);
        if (!cases[i].want) {
            if (!ok)
                fail_msg("case %zu should load: %s", i, err);
            /* loading the same file again overrides, it does not fail */
            if (!catalog_load_file(c, path, err, sizeof err))
                fail_msg("reloading should override: %s", err);
            assert_int_equal(catalog_count(c, CATALOG_CPU), 1);
        } else {
            assert_false(ok);
            char want[300];
            snprintf(want, sizeof want, "%s/%s", dir, cases[i].want);
            assert_string_equal(err, want);
        }
        catalog_free(c);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/c.yaml", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("cooling:\n  - {id: t-cool, name: T, source: s, rack_kw_max: 20, pue: 1.2, "
          "overhead_fraction: 0.2, inlet_c: 70, limit_c: 60}\n",
          f);
    fclose(f);
    struct catalog *c = catalog_new();
    assert_false(catalog_load_file(c, path, err, sizeof err));
    assert_non_null(strstr(err, "t-cool: inlet_c (70) must be below limit_c (60)"));
    catalog_free(c);
    unlink(path);
    rmdir(dir);
}

static void test_load_errors_cross(void **state)
{
    (void)state;
    expect_load_error("training: {tensor_parallel: 2, pipeline_parallel: 3}\n", 1, 51,
                      "tensor_parallel 2 x pipeline_parallel 3 = 6 does not divide the 8 devices");
    expect_load_error("training: {tensor_parallel: 16}\n", 1, 29, "exceeds the 8 devices");
    expect_load_error("training: {global_batch: 100}\n", 1, 26,
                      "training.global_batch 100 is not a multiple of data-parallel size 8 x "
                      "micro_batch 1");
    expect_load_error("model: {hidden: 4100, heads: 32}\n", 1, 30,
                      "model.hidden 4100 is not divisible by model.heads 32");
    expect_load_error("model: {heads: 32, kv_heads: 5}\n", 1, 30,
                      "model.kv_heads 5 must divide model.heads 32");
    expect_load_error("model: {hidden: 768, heads: 12}\ntraining: {tensor_parallel: 8}\n", 2, 29,
                      "training.tensor_parallel 8 must divide model.heads 12");
    expect_load_error(
        "model: {layers: 4, hidden: 1024, heads: 16}\ntraining: {pipeline_parallel: 8}\n", 2, 31,
        "training.pipeline_parallel 8 exceeds model.layers 4");
    expect_load_error("cluster: {node: {accelerator: v100-sxm2-32gb, host_link: pcie3-x16}}\n"
                      "training: {precision: bf16}\n",
                      2, 23, "v100-sxm2-32gb has no bf16 support");
    expect_load_error("cluster:\n  nodes: 2\n  node: {nics_per_node: 0}\n", 3, 25,
                      "2 nodes need a network");
    expect_load_error("cluster: {node: {local_storage: null}}\ndata: {source: local}\n", 2, 16,
                      "data.source is local but cluster.node.local_storage is not set");
    expect_load_error("model: {kind: generic, flops_per_sample: 1e9}\n", 1, 8,
                      "model.params must be set");
    expect_load_error("model: {kind: generic, params: 1e9, flops_per_sample: 1e9}\n"
                      "training: {tensor_parallel: 2}\n",
                      2, 29, "a generic model supports data parallelism only");
}

/* When the field at fault was not written (or another one was), the message
 * should point at what the user wrote: the accelerator without bf16, the nic
 * that is null, the pipeline_parallel of a generic model. */
static void test_position_precision_not_written(void **state)
{
    (void)state;
    expect_load_error(
        "name: x\ncluster:\n  node: {accelerator: v100-sxm2-32gb, host_link: pcie3-x16}\n", 3, 23,
        "v100-sxm2-32gb has no bf16 support");
}

static void test_position_null_nic(void **state)
{
    (void)state;
    expect_load_error("cluster:\n  nodes: 2\n  node: {accelerator: h100-sxm, nic: null}\n", 3, 38,
                      "2 nodes need a network");
}

static void test_position_generic_pipeline(void **state)
{
    (void)state;
    expect_load_error("model: {kind: generic, params: 1e9, flops_per_sample: 1e9}\n"
                      "training: {pipeline_parallel: 2}\n",
                      2, 31, "a generic model supports data parallelism only");
}

static void test_load_file(void **state)
{
    (void)state;
    struct setup s;
    char err[1024];
    assert_true(setup_load_file(&s, "scenarios/presets/gpt3-175b-a100.yaml", cat, err, sizeof err));
    assert_int_equal(setup_devices(&s), 1024);
    assert_int_equal(setup_data_parallel(&s), 16);
    assert_int_equal(s.training.recompute, RECOMPUTE_FULL);
    assert_false(setup_load_file(&s, "tests/no-such-setup.yaml", cat, err, sizeof err));
    assert_non_null(strstr(err, "tests/no-such-setup.yaml"));
}

static void each_file(const char *pattern, bool want_ok)
{
    glob_t g;
    int n = 0;
    assert_int_equal(glob(pattern, 0, NULL, &g), 0);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        struct setup s;
        char err[1024] = "";
        const char *path = g.gl_pathv[i];
        bool ok = setup_load_file(&s, path, cat, err, sizeof err);
        if (ok != want_ok) {
            globfree(&g);
            fail_msg("%s: %s", path, ok ? "loaded but should fail" : err);
        }
        if (!ok && (strncmp(err, path, strlen(path)) != 0 || err[strlen(path)] != ':')) {
            globfree(&g);
            fail_msg("%s: the message does not start with the file name: %s", path, err);
        }
        n++;
    }
    globfree(&g);
    assert_true(n > 0);
}

static void test_load_shipped_files(void **state)
{
    (void)state;
    each_file("scenarios/presets/*.yaml", true);
    each_file("tests/setups/good/*.yaml", true);
}

static void test_load_bad_files(void **state)
{
    (void)state;
    /* Every bad setup fails (the exact messages are checked by
     * tests/cli/setups.sh; here the error paths run under valgrind). */
    glob_t g;
    assert_int_equal(glob("tests/setups/bad/*.yaml", 0, NULL, &g), 0);
    assert_true(g.gl_pathc >= 40);
    int loaded = 0;
    char which[512] = "";
    for (size_t i = 0; i < g.gl_pathc; i++) {
        struct setup s;
        char err[1024] = "";
        if (setup_load_file(&s, g.gl_pathv[i], cat, err, sizeof err)) {
            loaded++;
            snprintf(which + strlen(which), sizeof which - strlen(which), " %s", g.gl_pathv[i]);
        }
    }
    globfree(&g);
    if (loaded)
        fail_msg("%d bad setups loaded:%s", loaded, which);
}

/* ------------------------------------------------------------- get and set */

static void test_get_set(void **state)
{
    (void)state;
    struct setup s;
    char buf[128], err[512];
    setup_defaults(&s);
    assert_true(setup_set(&s, "training.tensor_parallel", "4", err, sizeof err));
    assert_int_equal(s.training.tensor_parallel, 4);
    assert_true(setup_get(&s, "training.tensor_parallel", buf, sizeof buf, err, sizeof err));
    assert_string_equal(buf, "4");
    assert_true(setup_set(&s, "training.precision", "fp8", err, sizeof err));
    assert_int_equal(s.training.precision, PREC_FP8);
    assert_true(setup_get(&s, "training.precision", buf, sizeof buf, err, sizeof err));
    assert_string_equal(buf, "fp8");
    assert_true(setup_set(&s, "cluster.node.accelerator", "mi300x", err, sizeof err));
    assert_string_equal(s.cluster.node.accelerator, "mi300x");
    assert_true(setup_set(&s, "facility.pue", "1.3", err, sizeof err));
    assert_true(setup_get(&s, "facility.pue", buf, sizeof buf, err, sizeof err));
    assert_string_equal(buf, "1.3");
    assert_true(setup_set(&s, "facility.pue", "auto", err, sizeof err));
    assert_true(setup_get(&s, "facility.pue", buf, sizeof buf, err, sizeof err));
    assert_string_equal(buf, "auto");
    assert_true(setup_set(&s, "training.sequence_parallel", "true", err, sizeof err));
    assert_true(s.training.sequence_parallel);
    assert_true(setup_set_number(&s, "cluster.nodes", 16, err, sizeof err));
    assert_int_equal(s.cluster.nodes, 16);
    assert_true(setup_get(&s, "name", buf, sizeof buf, err, sizeof err));
    assert_string_equal(buf, "unnamed setup");

    /* unknown paths: did you mean */
    assert_false(setup_set(&s, "training.tensor_paralel", "2", err, sizeof err));
    assert_string_equal(err, "unknown field 'training.tensor_paralel' (did you mean "
                             "'training.tensor_parallel'?)");
    assert_false(setup_get(&s, "cluster.nodse", buf, sizeof buf, err, sizeof err));
    assert_string_equal(err, "unknown field 'cluster.nodse' (did you mean 'cluster.nodes'?)");
    assert_false(setup_set_number(&s, "bogus", 1, err, sizeof err));
    assert_string_equal(err, "unknown field 'bogus'");
    assert_false(setup_set(&s, "training", "x", err, sizeof err)); /* a section */

    /* type and range errors leave the value alone */
    assert_false(setup_set(&s, "cluster.nodes", "many", err, sizeof err));
    assert_non_null(strstr(err, "cluster.nodes must be a whole number"));
    assert_false(setup_set(&s, "training.zero_stage", "4", err, sizeof err));
    assert_non_null(strstr(err, "between 0 and 3"));
    assert_false(setup_set_number(&s, "data.cache_hit", 2, err, sizeof err));
    assert_false(setup_set(&s, "training.recompute", "ful", err, sizeof err));
    assert_non_null(strstr(err, "did you mean 'full'?"));
    assert_int_equal(s.cluster.nodes, 16);
    assert_int_equal(s.training.zero_stage, 1);
    assert_float_equal(s.data.cache_hit, 0, 0);
}

static void test_set_then_resolve(void **state)
{
    (void)state;
    /* set checks one field; setup_resolve checks the combination and names
     * the path. */
    struct setup s;
    struct resolved r;
    char err[512];
    setup_defaults(&s);
    assert_true(setup_set(&s, "training.pipeline_parallel", "3", err, sizeof err));
    assert_false(setup_resolve(&s, cat, &r, err, sizeof err));
    assert_non_null(strstr(err, "does not divide the 8 devices"));
    setup_defaults(&s);
    assert_true(setup_set(&s, "cluster.node.accelerator", "h100-sxm5", err, sizeof err));
    assert_false(setup_resolve(&s, cat, &r, err, sizeof err));
    assert_string_equal(err, "cluster.node.accelerator: unknown accelerator 'h100-sxm5'; did you "
                             "mean 'h100-sxm'? (see: mlviz catalog accelerators)");
    setup_defaults(&s);
    assert_true(setup_set(&s, "cluster.node.accelerator", "v100-sxm2-32gb", err, sizeof err));
    assert_false(setup_resolve(&s, cat, &r, err, sizeof err));
    assert_non_null(strstr(err, "has no bf16 support"));
    assert_true(setup_set(&s, "training.precision", "fp16", err, sizeof err));
    assert_true(setup_set(&s, "cluster.node.host_link", "pcie3-x16", err, sizeof err));
    if (!setup_resolve(&s, cat, &r, err, sizeof err))
        fail_msg("%s", err);
    assert_string_equal(r.intra_link->head.id, "nvlink2");
    /* an explicit intra link wins over the accelerator's */
    assert_true(setup_set(&s, "cluster.node.intra_link", "pcie3-x16", err, sizeof err));
    assert_true(setup_resolve(&s, cat, &r, err, sizeof err));
    assert_string_equal(r.intra_link->head.id, "pcie3-x16");
    /* a single node needs no NIC */
    setup_defaults(&s);
    s.cluster.node.nic[0] = '\0';
    assert_true(setup_resolve(&s, cat, &r, err, sizeof err));
    assert_null(r.nic);
}

/* ------------------------------------------------------------ write + load */

static void roundtrip(const struct setup *s, const char *what)
{
    static char yaml[16384];
    char err[1024];
    setup_write_yaml(s, yaml, sizeof yaml);
    assert_true(strlen(yaml) < sizeof yaml - 1);
    struct setup back;
    if (!setup_load_string(&back, "dump.yaml", yaml, cat, err, sizeof err))
        fail_msg("%s: the written YAML does not load: %s\n%s", what, err, yaml);
    assert_same_fields(s, &back, what);
}

static void test_write_yaml_roundtrip(void **state)
{
    (void)state;
    struct setup s;
    setup_defaults(&s);
    roundtrip(&s, "defaults");
    glob_t g;
    assert_int_equal(glob("scenarios/presets/*.yaml", 0, NULL, &g), 0);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char err[1024];
        if (!setup_load_file(&s, g.gl_pathv[i], cat, err, sizeof err)) {
            globfree(&g);
            fail_msg("%s", err);
        }
        roundtrip(&s, g.gl_pathv[i]);
    }
    globfree(&g);
    /* optional ids left empty stay empty */
    setup_defaults(&s);
    s.cluster.node.local_storage[0] = '\0';
    roundtrip(&s, "no local storage");
}

static void test_write_yaml_shape(void **state)
{
    (void)state;
    struct setup s;
    static char yaml[16384];
    setup_defaults(&s);
    setup_write_yaml(&s, yaml, sizeof yaml);
    /* every field path appears as a key at its depth */
    assert_non_null(strstr(yaml, "name: \"unnamed setup\"\n"));
    assert_non_null(
        strstr(yaml, "\ncluster:\n  nodes: 1\n  node:\n    accelerator: \"h100-sxm\"\n"));
    assert_non_null(strstr(yaml, "\n  storage_bw_gbs: auto\n"));
    assert_non_null(strstr(yaml, "\ntraining:\n"));
    assert_non_null(strstr(yaml, "\n  precision: bf16\n"));
    assert_non_null(strstr(yaml, "\n    intra_link: \"\"\n"));
    /* a small buffer is cut, not overrun */
    char small[64];
    memset(small, 'x', sizeof small);
    setup_write_yaml(&s, small, sizeof small);
    assert_true(strlen(small) < sizeof small);
}

static void test_write_yaml_precision(void **state)
{
    (void)state;
    /* Numbers with more than 6 significant digits must survive a dump. */
    struct setup s;
    setup_defaults(&s);
    s.facility.electricity_usd_per_kwh = 0.1234567;
    s.training.tokens = 1.234567891e12;
    s.model.params = 6738415616;
    roundtrip(&s, "7+ significant digits");
}

static void test_write_yaml_quotes(void **state)
{
    (void)state;
    /* A name with quotes and backslashes must be escaped in the dump. */
    struct setup s;
    setup_defaults(&s);
    snprintf(s.name, sizeof s.name, "the \"big\" run \\ v2");
    roundtrip(&s, "quoted name");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_derived_sizes),
        cmocka_unit_test(test_load_minimal),
        cmocka_unit_test(test_load_values),
        cmocka_unit_test(test_load_errors_yaml),
        cmocka_unit_test(test_load_errors_types),
        cmocka_unit_test(test_load_errors_keys),
        cmocka_unit_test(test_load_errors_refs),
        cmocka_unit_test(test_load_errors_values),
        cmocka_unit_test(test_load_errors_cross),
        cmocka_unit_test(test_position_precision_not_written),
        cmocka_unit_test(test_position_null_nic),
        cmocka_unit_test(test_position_generic_pipeline),
        cmocka_unit_test(test_load_file),
        cmocka_unit_test(test_load_shipped_files),
        cmocka_unit_test(test_load_bad_files),
        cmocka_unit_test(test_get_set),
        cmocka_unit_test(test_set_then_resolve),
        cmocka_unit_test(test_write_yaml_roundtrip),
        cmocka_unit_test(test_write_yaml_shape),
        cmocka_unit_test(test_write_yaml_precision),
        cmocka_unit_test(test_write_yaml_quotes),
        cmocka_unit_test(test_load_errors_hardening),
        cmocka_unit_test(test_auto_explicit),
        cmocka_unit_test(test_events_many_sorted),
        cmocka_unit_test(test_catalog_checks),
    };
    return cmocka_run_group_tests_name("setup", tests, group_setup, group_teardown);
}
