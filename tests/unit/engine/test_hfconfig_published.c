/* Published Hugging Face configs (tests/hfconfigs/, the keys as the model
 * repositories' config.json files read) against the parameter counts of
 * their model cards; the architectures refused and why; strict JSON; the
 * warnings for keys read but not modelled; multi-head latent attention's
 * FLOPs. Tests run from the repository root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../catalog_fixture.h"
#include "hfconfig.h"
#include "model.h"
#include "setup.h"

static int group_setup(void **state)
{
    setenv("MLVIZ_DATA", ".", 1);
    return load_catalog(state);
}

static int group_teardown(void **state)
{
    free_catalog(state);
    return 0;
}

/* The warnings of the last load. */
static char warnings[4096];
static void keep_warning(const char *message)
{
    size_t used = strlen(warnings);
    snprintf(warnings + used, sizeof warnings - used, "%s\n", message);
}

static bool apply(const char *file, struct setup *s, char *err, size_t len)
{
    char path[256];
    snprintf(path, sizeof path, "tests/hfconfigs/%s", file);
    setup_defaults(s);
    warnings[0] = '\0';
    return hfconfig_apply_file(s, path, err, len);
}

struct published {
    const char *file;
    const char *card;                   /* where the count is published */
    double total_b;                     /* billions */
    double active_b;                    /* billions, mixture of experts only (0: dense) */
    bool card_active_without_embedding; /* the card leaves the input embedding out */
};

/* Counts as the model cards (and the papers they cite) state them; where a
 * card says only "7B", the count its Hugging Face page shows from the
 * weights. */
static const struct published models[] = {
    {"llama-2-7b.json", "meta-llama/Llama-2-7b-hf (6.74B)", 6.74, 0, false},
    {"llama-2-13b.json", "meta-llama/Llama-2-13b-hf (13B)", 13.0, 0, false},
    {"llama-3-8b.json", "meta-llama/Meta-Llama-3-8B (8.03B)", 8.03, 0, false},
    {"llama-3.1-8b.json", "meta-llama/Llama-3.1-8B (8.03B)", 8.03, 0, false},
    {"llama-3.1-70b.json", "meta-llama/Llama-3.1-70B (70.6B)", 70.6, 0, false},
    {"mistral-7b-v0.1.json", "mistralai/Mistral-7B-v0.1 (7.24B)", 7.24, 0, false},
    {"mixtral-8x7b-v0.1.json", "mistralai/Mixtral-8x7B-v0.1 (46.7B, 12.9B active)", 46.7, 12.9,
     false},
    {"mixtral-8x22b-v0.1.json", "mistralai/Mixtral-8x22B-v0.1 (141B, 39B active)", 141, 39, false},
    {"qwen2.5-7b.json", "Qwen/Qwen2.5-7B (7.61B)", 7.61, 0, false},
    {"qwen2.5-72b.json", "Qwen/Qwen2.5-72B (72.7B)", 72.7, 0, false},
    {"qwen3-8b.json", "Qwen/Qwen3-8B (8.2B)", 8.2, 0, false},
    {"qwen3-30b-a3b.json", "Qwen/Qwen3-30B-A3B (30.5B, 3.3B activated)", 30.5, 3.3, false},
    {"gemma-2-9b.json", "google/gemma-2-9b (9.24B)", 9.24, 0, false},
    {"phi-3-mini-4k.json", "microsoft/Phi-3-mini-4k-instruct (3.82B)", 3.82, 0, false},
    {"deepseek-v2.json", "deepseek-ai/DeepSeek-V2 (236B, 21B activated)", 236, 21, false},
    {"deepseek-v3.json", "deepseek-ai/DeepSeek-V3 (671B main model, 37B activated)", 671, 37,
     false},
    {"gpt-oss-120b.json", "openai/gpt-oss-120b (117B, 5.1B active)", 117, 5.1, true},
    {"gpt-oss-20b.json", "openai/gpt-oss-20b (21B, 3.6B active)", 21, 3.6, true},
    {"olmo-7b.json", "allenai/OLMo-7B-hf (6.89B)", 6.89, 0, false},
    {"olmo-2-1124-7b.json", "allenai/OLMo-2-1124-7B (7.3B)", 7.3, 0, false},
};

/* Totals within 0.5% of the card; active counts within 2% (cards round
 * them to two digits: "37B", "21B"). */
static void test_published_parameter_counts(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        const struct published *m = &models[i];
        struct setup s;
        char err[1024];
        if (!apply(m->file, &s, err, sizeof err))
            fail_msg("%s: %s", m->card, err);
        /* The cards count the main model: DeepSeek-V3's 671 B leaves out its
         * multi-token-prediction module (num_nextn_predict_layers, mapped to
         * model.mtp_layers), which the checkpoint stores as 14 B more. */
        if (s.model.mtp_layers > 0) {
            double with_mtp = model_params(&s) / 1e9;
            s.model.mtp_layers = 0;
            assert_true(with_mtp > model_params(&s) / 1e9 && with_mtp < m->total_b + 14.0);
        }
        double total = model_params(&s) / 1e9;
        if (fabs(total / m->total_b - 1.0) > 0.005)
            fail_msg("%s: %.3f B parameters, the card says %.3g B", m->card, total, m->total_b);
        if (m->active_b <= 0) {
            assert_true(model_params_active(&s) == model_params(&s));
            continue;
        }
        double active = model_params_active(&s);
        if (m->card_active_without_embedding)
            active -= (double)s.model.vocab * s.model.hidden;
        if (fabs(active / 1e9 / m->active_b - 1.0) > 0.02)
            fail_msg("%s: %.3f B active, the card says %.3g B", m->card, active / 1e9, m->active_b);
    }
}

/* Multi-head latent attention (DeepSeek-V2, section 2.1.2): the shapes are
 * read, and the forward FLOPs per token are twice the active weights a
 * token passes through (the input embedding is a lookup) plus the scores
 * over head_dim + rope and the values over v_head_dim. */
static void test_latent_attention(void **state)
{
    (void)state;
    struct setup s;
    char err[1024];
    if (!apply("deepseek-v2.json", &s, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(s.model.kv_lora_rank, 512);
    assert_int_equal(s.model.q_lora_rank, 1536);
    assert_int_equal(s.model.qk_rope_head_dim, 64);
    assert_int_equal(s.model.v_head_dim, 128);
    assert_int_equal(s.model.head_dim, 128);
    assert_int_equal(s.model.dense_layers, 1);
    assert_int_equal(s.model.shared_experts, 2);
    s.model.seq_len = 4096;
    s.training.global_batch = 8;
    s.training.tensor_parallel = 8;
    s.training.pipeline_parallel = 1;
    s.cluster.nodes = 1;
    struct resolved r;
    if (!setup_resolve(&s, cat, &r, err, sizeof err))
        fail_msg("%s", err);
    struct model_report *o = calloc(1, sizeof *o);
    assert_non_null(o);
    model_eval(&s, &r, o);
    double tokens = 4096.0 * 8, h = s.model.hidden;
    double weights = model_params_active(&s) - (double)s.model.vocab * h;
    double attention = 2.0 * 4096 * s.model.layers * 128.0 * (128 + 64 + 128);
    double per_token = o->model_flops_per_step / tokens / 3.0;
    double expected = 2.0 * weights + attention;
    if (fabs(per_token / expected - 1.0) > 0.002)
        fail_msg("forward FLOPs per token %.4g, expected %.4g", per_token, expected);
    /* Ordinary attention of the same heads would be another model. */
    struct setup plain = s;
    plain.model.kv_lora_rank = plain.model.q_lora_rank = plain.model.qk_rope_head_dim = 0;
    assert_true(model_params(&plain) - model_params(&s) > 1e10);
    free(o);
}

static void expect_refused(const char *json, const char *reason)
{
    struct setup s;
    char err[1024] = "";
    setup_defaults(&s);
    if (hfconfig_apply_text(&s, "c.json", json, strlen(json), err, sizeof err))
        fail_msg("accepted, should fail with '%s': %s", reason, json);
    if (!strstr(err, reason))
        fail_msg("expected '%s' in '%s'", reason, err);
}

#define SHAPE                                                                                      \
    "\"hidden_size\": 64, \"num_hidden_layers\": 2, \"num_attention_heads\": 2, "                  \
    "\"vocab_size\": 100"

static void test_refused_architectures(void **state)
{
    (void)state;
    expect_refused("{\"architectures\": [\"JambaForCausalLM\"], \"model_type\": \"jamba\", " SHAPE
                   ", \"attn_layer_period\": 8, \"mamba_d_state\": 16}",
                   "state-space (Mamba, RWKV) or hybrid");
    /* Mamba layers are refused by their keys, whatever the name says. */
    expect_refused("{\"architectures\": [\"LlamaForCausalLM\"], " SHAPE ", \"mamba_d_state\": 16}",
                   "state-space");
    expect_refused("{\"architectures\": [\"T5ForConditionalGeneration\"], \"model_type\": "
                   "\"t5\", \"d_model\": 1024, \"num_layers\": 24, \"num_heads\": 16, "
                   "\"vocab_size\": 32128, \"is_encoder_decoder\": true}",
                   "encoder-decoder model");
    expect_refused("{\"architectures\": [\"FooForCausalLM\"], " SHAPE "}",
                   "architecture FooForCausalLM (model_type none) is not one mlviz reads whole");
    expect_refused("{" SHAPE "}", "architecture none (model_type none)");
    /* --force-architecture reads an unknown one (with a warning), never a
     * refused family. */
    hfconfig_set_force_architecture(true);
    hfconfig_set_warning_sink(keep_warning);
    struct setup s;
    char err[1024];
    setup_defaults(&s);
    warnings[0] = '\0';
    const char *foo = "{\"architectures\": [\"FooForCausalLM\"], " SHAPE "}";
    bool ok = hfconfig_apply_text(&s, "foo.json", foo, strlen(foo), err, sizeof err);
    expect_refused("{\"model_type\": \"t5\", " SHAPE "}", "encoder-decoder");
    hfconfig_set_force_architecture(false);
    hfconfig_set_warning_sink(NULL);
    if (!ok)
        fail_msg("%s", err);
    assert_non_null(strstr(warnings, "foo.json: read as a decoder-only transformer"));
}

static void test_strict_json(void **state)
{
    (void)state;
    expect_refused("{\"architectures\": [\"LlamaForCausalLM\"], \"hidden_size\": 64, "
                   "\"num_hidden_layers\": \"32\", \"num_attention_heads\": 2, "
                   "\"vocab_size\": 100}",
                   "num_hidden_layers must be a JSON number, found the string \"32\"");
    expect_refused("{\"architectures\": [\"LlamaForCausalLM\"], " SHAPE
                   ", \"num_key_value_heads\": 0}",
                   "num_key_value_heads must be a whole number of at least 1, found 0");
    expect_refused("{\"architectures\": [\"LlamaForCausalLM\"], " SHAPE
                   ", \"tie_word_embeddings\": \"false\"}",
                   "tie_word_embeddings must be true or false");
    expect_refused("{\"architectures\": [\"LlamaForCausalLM\"], " SHAPE ", \"head_dim\": 2.5}",
                   "head_dim must be a whole number");
    expect_refused("{\"architectures\": [\"LlamaForCausalLM\"], " SHAPE ", rope: 1}",
                   "JSON syntax error: expected a key in double quotes, found 'rope'");
    expect_refused("{\"architectures\": [\"LlamaForCausalLM\"], " SHAPE ", \"x\": yes}",
                   "JSON syntax error: expected a JSON value");
    expect_refused("{\"architectures\": [\"LlamaForCausalLM\"], " SHAPE ", \"x\": 0x10}",
                   "JSON syntax error: expected ',' or '}', found 'x10}'");
    expect_refused("{\"architectures\": [\"LlamaForCausalLM\"], " SHAPE ",", "JSON syntax error");
    expect_refused("{\"architectures\": [\"LlamaForCausalLM\"], " SHAPE ",}",
                   "JSON syntax error: a comma before the closing bracket is not JSON");
    expect_refused("{\"architectures\": ['LlamaForCausalLM'], " SHAPE "}",
                   "c.json:1:20: JSON syntax error: expected a JSON value");
    expect_refused("{\"architectures\": [\"LlamaForCausalLM\"], " SHAPE "} # note",
                   "JSON syntax error: text after the JSON value");
    /* Bidirectional and other format characters never reach a message raw. */
    struct setup s;
    char err[1024] = "";
    setup_defaults(&s);
    const char *bidi = "{\"architectures\": [\"Evil\xe2\x80\xaeLM\xe2\x80\x8b\"], " SHAPE "}";
    assert_false(
        hfconfig_apply_text(&s, "b\xe2\x81\xa6.json", bidi, strlen(bidi), err, sizeof err));
    assert_non_null(strstr(err, "Evil\\u{202e}LM\\u{200b}"));
    assert_non_null(strstr(err, "b\\u{2066}.json"));
    assert_null(strstr(err, "\xe2\x80\xae"));
}

/* Keys read but not modelled are named with their effect; a config
 * without them says nothing. */
static void test_unmodelled_key_warnings(void **state)
{
    (void)state;
    hfconfig_set_warning_sink(keep_warning);
    struct setup s;
    char err[1024];
    assert_true(apply("mistral-7b-v0.1.json", &s, err, sizeof err));
    assert_non_null(strstr(warnings, "mistral-7b-v0.1.json: sliding_window 4096 not modelled: "
                                     "attention is counted over the whole sequence"));
    assert_true(apply("llama-3.1-8b.json", &s, err, sizeof err));
    assert_string_equal(warnings, "");
    assert_true(apply("qwen2.5-7b.json", &s, err, sizeof err)); /* use_sliding_window false */
    assert_null(strstr(warnings, "sliding_window"));
    assert_int_equal(s.model.attention_bias, ATTN_BIAS_QKV); /* Qwen2's, without a key */
    assert_false(s.model.mlp_bias);
    assert_true(apply("gpt-oss-20b.json", &s, err, sizeof err));
    assert_int_equal(s.model.attention_bias, ATTN_BIAS_ALL);
    assert_true(s.model.mlp_bias); /* the experts' and the router's */
    /* Expert layers every second layer: counted exactly, ordered first. */
    const char *step = "{\"architectures\": [\"Qwen2MoeForCausalLM\"], " SHAPE
                       ", \"num_experts\": 4, \"num_experts_per_tok\": 1, "
                       "\"moe_intermediate_size\": 32, \"decoder_sparse_step\": 2}";
    warnings[0] = '\0';
    assert_true(hfconfig_apply_text(&s, "step.json", step, strlen(step), err, sizeof err));
    assert_int_equal(s.model.dense_layers, 1); /* layer 0 dense, layer 1 experts: in order */
    assert_null(strstr(warnings, "interleaved"));
    const char *only = "{\"architectures\": [\"Qwen3MoeForCausalLM\"], " SHAPE
                       ", \"num_experts\": 4, \"num_experts_per_tok\": 1, "
                       "\"moe_intermediate_size\": 32, \"mlp_only_layers\": [1]}";
    assert_true(hfconfig_apply_text(&s, "only.json", only, strlen(only), err, sizeof err));
    assert_int_equal(s.model.dense_layers, 1);
    assert_non_null(strstr(warnings, "interleaved with dense ones are modelled as 1 dense"));
    /* Llama 4: one shared expert of the routed width; dense layers' MLP of
     * intermediate_size_mlp. */
    const char *l4 = "{\"architectures\": [\"Llama4ForCausalLM\"], " SHAPE
                     ", \"num_local_experts\": 4, \"num_experts_per_tok\": 1, "
                     "\"intermediate_size\": 32, \"intermediate_size_mlp\": 96, "
                     "\"interleave_moe_layer_step\": 2}";
    assert_true(hfconfig_apply_text(&s, "l4.json", l4, strlen(l4), err, sizeof err));
    assert_int_equal(s.model.shared_experts, 1);
    assert_int_equal(s.model.expert_ffn_hidden, 32);
    assert_int_equal(s.model.ffn_hidden, 96);
    assert_int_equal(s.model.dense_layers, 1);
    hfconfig_set_warning_sink(NULL);
}

/* Every supported architecture is in docs/HFCONFIG.md's table. */
static void test_architectures_documented(void **state)
{
    (void)state;
    FILE *f = fopen("docs/HFCONFIG.md", "r");
    assert_non_null(f);
    static char text[65536];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    assert_true(hfconfig_architecture_count() >= 15);
    for (size_t i = 0; i < hfconfig_architecture_count(); i++) {
        char cell[128];
        snprintf(cell, sizeof cell, "| `%s` |", hfconfig_architecture_name(i));
        if (!strstr(text, cell))
            fail_msg("docs/HFCONFIG.md has no row for %s", hfconfig_architecture_name(i));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_published_parameter_counts),
        cmocka_unit_test(test_latent_attention),
        cmocka_unit_test(test_refused_architectures),
        cmocka_unit_test(test_strict_json),
        cmocka_unit_test(test_unmodelled_key_warnings),
        cmocka_unit_test(test_architectures_documented),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
