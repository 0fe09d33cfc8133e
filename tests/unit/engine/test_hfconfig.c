/* hfconfig: Hugging Face config.json files as a setup's model (hf_config,
 * name), overrides beside them, relative paths, unknown architectures and
 * hostile values. Expected shapes are typed in from the published configs,
 * not read back from the shipped files. Tests run from the repository root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../catalog_fixture.h"
#include "catalog.h"
#include "hfconfig.h"
#include "setup.h"

static char dir[64];

static int group_setup(void **state)
{
    (void)state;
    setenv("MLVIZ_DATA", ".", 1);
    if (load_catalog(state) != 0)
        return -1;
    snprintf(dir, sizeof dir, "/tmp/mlviz-hf-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int group_teardown(void **state)
{
    free_catalog(state);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void write_file(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Loads setup text written to DIR/NAME (so relative paths resolve there). */
static bool load(const char *name, const char *text, struct setup *s, char *err, size_t len)
{
    write_file(name, text);
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    setup_defaults(s);
    return setup_load_file(s, path, cat, err, len);
}

static void expect_error(const char *text, const char *substring)
{
    struct setup s;
    char err[1024] = "";
    if (load("bad.yaml", text, &s, err, sizeof err))
        fail_msg("loaded but should fail with '%s':\n%s", substring, text);
    if (!strstr(err, substring))
        fail_msg("expected '%s' in '%s'", substring, err);
}

struct dense_shape {
    const char *name;
    int layers, hidden, heads, kv_heads, ffn, vocab, mlp;
};

/* Llama 3 paper (Meta 2024) Table 3 and the Hugging Face configs; GPT-3
 * from Brown et al. 2020 Table 2.1 (kv_heads 0: as many as heads). */
static void test_shipped_dense_models(void **state)
{
    (void)state;
    static const struct dense_shape shapes[] = {
        {"llama3-8b", 32, 4096, 32, 8, 14336, 128256, MLP_SWIGLU},
        {"llama3-70b", 80, 8192, 64, 8, 28672, 128256, MLP_SWIGLU},
        {"llama3-405b", 126, 16384, 128, 8, 53248, 128256, MLP_SWIGLU},
        {"gpt3-175b", 96, 12288, 96, 0, 49152, 50257, MLP_GELU},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        char text[256], err[1024];
        struct setup s;
        snprintf(text, sizeof text, "model: {name: %s}\n", shapes[i].name);
        if (!load("named.yaml", text, &s, err, sizeof err))
            fail_msg("%s: %s", shapes[i].name, err);
        assert_int_equal(s.model.kind, MODEL_TRANSFORMER);
        assert_int_equal(s.model.layers, shapes[i].layers);
        assert_int_equal(s.model.hidden, shapes[i].hidden);
        assert_int_equal(s.model.heads, shapes[i].heads);
        assert_int_equal(s.model.kv_heads, shapes[i].kv_heads);
        assert_int_equal(s.model.ffn_hidden, shapes[i].ffn);
        assert_int_equal(s.model.vocab, shapes[i].vocab);
        assert_int_equal(s.model.mlp, shapes[i].mlp);
    }
}

struct moe_shape {
    const char *name;
    int layers, hidden, heads, kv_heads, ffn, vocab;
    int experts, top_k, expert_ffn, shared, dense;
};

static int get_int(const struct setup *s, const char *path)
{
    char buf[64], err[256];
    if (!setup_get(s, path, buf, sizeof buf, err, sizeof err))
        fail_msg("%s", err);
    return atoi(buf);
}

/* Mixtral (Jiang et al. 2024, Table 1), Qwen3-30B-A3B (Qwen3 report,
 * Table 2), DeepSeek-V3 (technical report, section 4.2). Until this build
 * has the mixture-of-experts fields, the configs are refused by name. */
static void test_shipped_moe_models(void **state)
{
    (void)state;
    static const struct moe_shape shapes[] = {
        {"mixtral-8x7b", 32, 4096, 32, 8, 14336, 32000, 8, 2, 0, 0, 0},
        {"qwen3-30b-a3b", 48, 2048, 32, 4, 6144, 151936, 128, 8, 768, 0, 0},
        {"deepseek-v3", 61, 7168, 128, 128, 18432, 129280, 256, 8, 2048, 1, 3},
    };
    bool have_moe = fields_find(setup_fields(), "model.experts") != NULL;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        const struct moe_shape *m = &shapes[i];
        char text[256], err[1024] = "";
        struct setup s;
        snprintf(text, sizeof text, "model: {name: %s}\n", m->name);
        bool ok = load("moe.yaml", text, &s, err, sizeof err);
        if (!have_moe) {
            assert_false(ok);
            if (!strstr(err, "mixture-of-experts fields need model.experts"))
                fail_msg("%s: %s", m->name, err);
            continue;
        }
        if (!ok)
            fail_msg("%s: %s", m->name, err);
        assert_int_equal(s.model.layers, m->layers);
        assert_int_equal(s.model.hidden, m->hidden);
        assert_int_equal(s.model.heads, m->heads);
        assert_int_equal(s.model.kv_heads, m->kv_heads);
        assert_int_equal(s.model.ffn_hidden, m->ffn);
        assert_int_equal(s.model.vocab, m->vocab);
        assert_int_equal(s.model.mlp, MLP_SWIGLU);
        assert_int_equal(get_int(&s, "model.experts"), m->experts);
        assert_int_equal(get_int(&s, "model.top_k"), m->top_k);
        assert_int_equal(get_int(&s, "model.expert_ffn_hidden"), m->expert_ffn);
        assert_int_equal(get_int(&s, "model.shared_experts"), m->shared);
        assert_int_equal(get_int(&s, "model.dense_layers"), m->dense);
    }
}

/* Qwen2-MoE (Qwen1.5-MoE-A2.7B config): one shared expert 4 x as wide as a
 * routed one counts as 4 shared experts; a width that is no multiple is
 * refused with the key named. */
static void test_qwen2_moe_shared_width(void **state)
{
    (void)state;
    write_file("q2.json", "{\"model_type\": \"qwen2_moe\", \"num_hidden_layers\": 24, "
                          "\"hidden_size\": 2048, \"num_attention_heads\": 16, "
                          "\"vocab_size\": 151936, \"hidden_act\": \"silu\", "
                          "\"intermediate_size\": 5632, \"moe_intermediate_size\": 1408, "
                          "\"shared_expert_intermediate_size\": 5632, \"num_experts\": 60, "
                          "\"num_experts_per_tok\": 4}");
    write_file("q2bad.json", "{\"num_hidden_layers\": 2, \"hidden_size\": 64, "
                             "\"num_attention_heads\": 2, \"vocab_size\": 10, "
                             "\"moe_intermediate_size\": 100, "
                             "\"shared_expert_intermediate_size\": 150, \"num_experts\": 4, "
                             "\"num_experts_per_tok\": 1, \"model_type\": \"qwen2_moe\"}");
    write_file("notopk.json", "{\"num_hidden_layers\": 2, \"hidden_size\": 64, "
                              "\"num_attention_heads\": 2, \"vocab_size\": 10, "
                              "\"num_local_experts\": 4, \"model_type\": \"mixtral\"}");
    struct setup s;
    char err[1024] = "";
    bool ok = load("q2.yaml", "model: {hf_config: q2.json}\n", &s, err, sizeof err);
    if (!fields_find(setup_fields(), "model.experts")) {
        assert_false(ok);
        assert_non_null(strstr(err, "mixture-of-experts fields need"));
        return;
    }
    if (!ok)
        fail_msg("%s", err);
    assert_int_equal(get_int(&s, "model.experts"), 60);
    assert_int_equal(get_int(&s, "model.top_k"), 4);
    assert_int_equal(get_int(&s, "model.expert_ffn_hidden"), 1408);
    assert_int_equal(get_int(&s, "model.shared_experts"), 4);
    expect_error("model: {hf_config: q2bad.json}\n",
                 "shared_expert_intermediate_size 150 is not a whole multiple");
    expect_error("model: {hf_config: notopk.json}\n", "without num_experts_per_tok");
}

/* Fields written beside hf_config win; the rest of the setup is untouched;
 * a relative path resolves against the setup file's directory. */
static void test_overrides_and_relative_path(void **state)
{
    (void)state;
    write_file("config.json", "{\"architectures\": [\"LlamaForCausalLM\"], \"model_type\": "
                              "\"llama\", \"hidden_act\": \"silu\", \"hidden_size\": 2048,\n"
                              " \"intermediate_size\": 8192, \"num_attention_heads\": 32,\n"
                              " \"num_hidden_layers\": 16, \"num_key_value_heads\": 8,\n"
                              " \"vocab_size\": 128256, \"rope_scaling\": {\"factor\": 32.0}}\n");
    char err[1024];
    struct setup s;
    /* config.json is not in the working directory: only the setup's own
     * directory has it. */
    assert_int_not_equal(access("config.json", F_OK), 0);
    bool ok = load("over.yaml",
                   "name: small\nmodel: {hf_config: config.json, layers: 4, seq_len: 1024}\n"
                   "training: {global_batch: 8}\n",
                   &s, err, sizeof err);
    if (!ok)
        fail_msg("%s", err);
    assert_int_equal(s.model.layers, 4);    /* beside hf_config */
    assert_int_equal(s.model.hidden, 2048); /* from the config */
    assert_int_equal(s.model.ffn_hidden, 8192);
    assert_int_equal(s.model.kv_heads, 8);
    assert_int_equal(s.model.seq_len, 1024);
    assert_int_equal(s.model.mlp, MLP_SWIGLU);
    assert_int_equal(s.training.global_batch, 8);
    assert_string_equal(s.name, "small");
}

static void test_gpt2_keys_and_text_config(void **state)
{
    (void)state;
    write_file("gpt2.json", "{\"model_type\": \"gpt2\", \"n_layer\": 12, \"n_embd\": 768, "
                            "\"n_head\": 12, \"n_inner\": null, \"activation_function\": "
                            "\"gelu_new\", \"vocab_size\": 50257}");
    write_file("mm.json", "{\"model_type\": \"llava\", \"vision_config\": {\"hidden_size\": 1024},"
                          " \"text_config\": {\"num_hidden_layers\": 8, \"hidden_size\": 1024, "
                          "\"num_attention_heads\": 16, \"vocab_size\": 32000, "
                          "\"hidden_act\": \"silu\"}}");
    struct setup s;
    char err[1024];
    if (!load("g.yaml", "model: {hf_config: gpt2.json}\n", &s, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(s.model.layers, 12);
    assert_int_equal(s.model.hidden, 768);
    assert_int_equal(s.model.ffn_hidden, 0); /* null: 4 x hidden */
    assert_int_equal(s.model.mlp, MLP_GELU);
    if (!load("m.yaml", "model: {hf_config: mm.json}\n", &s, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(s.model.layers, 8);
    assert_int_equal(s.model.vocab, 32000);
}

static void test_unknown_architecture_names_missing_keys(void **state)
{
    (void)state;
    write_file("vit.json", "{\"architectures\": [\"ViTModel\"], \"model_type\": \"vit\", "
                           "\"hidden_size\": 768, \"num_hidden_layers\": 12}");
    expect_error("model: {hf_config: vit.json}\n",
                 "architecture ViTModel (model_type vit) is not one mlviz reads whole");
    /* A supported architecture without its shape keys names them. */
    write_file("short.json", "{\"architectures\": [\"LlamaForCausalLM\"], "
                             "\"hidden_size\": 768, \"num_hidden_layers\": 12}");
    expect_error("model: {hf_config: short.json}\n",
                 "(architecture LlamaForCausalLM): missing num_attention_heads (or "
                 "n_head, num_heads), vocab_size;");
    expect_error("model: {hf_config: vit.json}\n", "bad.yaml:1:20: model.hf_config: ");
}

static void test_hostile_configs(void **state)
{
    (void)state;
    write_file("text.json",
               "{\"num_hidden_layers\": \"many\", \"hidden_size\": 64, "
               "\"num_attention_heads\": 2, \"vocab_size\": 10, \"model_type\": \"llama\"}");
    expect_error("model: {hf_config: text.json}\n",
                 "text.json:1:23: num_hidden_layers must be a JSON number, found the string "
                 "\"many\"");
    write_file("huge.json",
               "{\"num_hidden_layers\": 4, \"hidden_size\": 1e12, "
               "\"num_attention_heads\": 2, \"vocab_size\": 10, \"model_type\": \"llama\"}");
    expect_error("model: {hf_config: huge.json}\n", "hidden_size (for model.hidden)");
    write_file(
        "act.json",
        "{\"num_hidden_layers\": 4, \"hidden_size\": 64, \"hidden_act\": "
        "\"tanh\", \"num_attention_heads\": 2, \"vocab_size\": 10, \"model_type\": \"llama\"}");
    expect_error("model: {hf_config: act.json}\n", "unknown activation 'tanh'");
    write_file("list.json", "[1, 2, 3]");
    expect_error("model: {hf_config: list.json}\n", "holds one JSON object of keys, found a list");
    write_file("nested.json",
               "{\"num_hidden_layers\": {\"a\": 1}, \"hidden_size\": 64, "
               "\"num_attention_heads\": 2, \"vocab_size\": 10, \"model_type\": \"llama\"}");
    expect_error("model: {hf_config: nested.json}\n", "num_hidden_layers must be a value");
    write_file("broken.json", "{\"num_hidden_layers\": 4,");
    expect_error("model: {hf_config: broken.json}\n", "broken.json:");
    expect_error("model: {hf_config: missing.json}\n", "missing.json");
    expect_error("model: {hf_config: /dev/zero}\n", "not a regular file");
    expect_error("model: {hf_config: .}\n", "directory");
    expect_error("model: {hf_config: [a]}\n", "model.hf_config must be the path of a config.json");
    expect_error("model: {hf_config: }\n", "model.hf_config must be");
    expect_error("model: {name: llama3-8b, hf_config: x.json}\n", "not both");
    expect_error("model: {name: ../etc/passwd}\n", "unknown model '../etc/passwd'");
    expect_error("model: {name: llama3-8x}\n", "did you mean 'llama3-8b'");
    /* The shape is still checked against the rest of the setup. */
    expect_error("model: {name: llama3-8b, heads: 30}\n", "not divisible by model.heads 30");
    /* A key beside hf_config is still checked by the field table. */
    expect_error("model: {name: llama3-8b, layer: 3}\n", "unknown key 'model.layer'");
}

/* A failed expansion leaves the caller's setup as it was. */
static void test_atomic(void **state)
{
    (void)state;
    struct setup s, before;
    setup_defaults(&s);
    s.model.layers = 7;
    before = s;
    char err[512];
    write_file("atomic.json",
               "{\"num_hidden_layers\": 3, \"hidden_size\": 64, "
               "\"num_attention_heads\": 2, \"vocab_size\": 0, \"model_type\": \"llama\"}");
    assert_false(hfconfig_apply_file(&s, "/nonexistent/config.json", err, sizeof err));
    char path[256];
    snprintf(path, sizeof path, "%s/atomic.json", dir);
    assert_false(hfconfig_apply_file(&s, path, err, sizeof err));
    assert_non_null(strstr(err, "vocab_size"));
    assert_memory_equal(&s, &before, sizeof s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_dense_models),
        cmocka_unit_test(test_shipped_moe_models),
        cmocka_unit_test(test_qwen2_moe_shared_width),
        cmocka_unit_test(test_overrides_and_relative_path),
        cmocka_unit_test(test_gpt2_keys_and_text_config),
        cmocka_unit_test(test_unknown_architecture_names_missing_keys),
        cmocka_unit_test(test_hostile_configs),
        cmocka_unit_test(test_atomic),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
