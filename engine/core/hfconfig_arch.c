/* hfconfig_arch: which Hugging Face architectures mlviz reads, which it
 * refuses and why; the strict JSON check; escaping for messages; warnings.
 * The table is docs/HFCONFIG.md's (tests/unit/engine/test_hfconfig.c checks
 * that every row is documented). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hfconfig.h"
#include "hfconfig_internal.h"

static const struct hf_arch archs[] = {
    {"LlamaForCausalLM", "llama", 0},
    {"MistralForCausalLM", "mistral", 0},
    {"MixtralForCausalLM", "mixtral", 0},
    {"Qwen2ForCausalLM", "qwen2", HF_ARCH_QKV_BIAS},
    {"Qwen2MoeForCausalLM", "qwen2_moe", HF_ARCH_QKV_BIAS},
    {"Qwen3ForCausalLM", "qwen3", 0},
    {"Qwen3MoeForCausalLM", "qwen3_moe", 0},
    {"GemmaForCausalLM", "gemma", 0},
    {"Gemma2ForCausalLM", "gemma2", 0},
    {"Phi3ForCausalLM", "phi3", 0},
    {"DeepseekV2ForCausalLM", "deepseek_v2", 0},
    {"DeepseekV3ForCausalLM", "deepseek_v3", 0},
    {"GptOssForCausalLM", "gpt_oss", HF_ARCH_EXPERT_BIAS},
    {"OlmoForCausalLM", "olmo", 0},
    {"Olmo2ForCausalLM", "olmo2", 0},
    {"OlmoeForCausalLM", "olmoe", 0},
    {"GPT2LMHeadModel", "gpt2", 0},
    {"Llama4ForCausalLM", "llama4_text", HF_ARCH_SHARED_EXPERT},
    {"Llama4ForConditionalGeneration", "llama4", HF_ARCH_SHARED_EXPERT},
    {"LlavaForConditionalGeneration", "llava", 0},
};
enum { N_ARCHS = sizeof archs / sizeof archs[0] };

static const struct hf_arch forced = {"(forced)", "(forced)", 0};

const struct hf_arch *hf_arch_at(size_t i)
{
    return i < N_ARCHS ? &archs[i] : NULL;
}

size_t hfconfig_architecture_count(void)
{
    return N_ARCHS;
}

const char *hfconfig_architecture_name(size_t i)
{
    return i < N_ARCHS ? archs[i].architecture : NULL;
}

/* Families whose layers mlviz cannot represent, by model_type. */
static const char *const encoder_decoder[] = {"t5",
                                              "mt5",
                                              "umt5",
                                              "longt5",
                                              "switch_transformers",
                                              "bart",
                                              "mbart",
                                              "pegasus",
                                              "pegasus_x",
                                              "marian",
                                              "whisper",
                                              "led",
                                              "m2m_100",
                                              "nllb_moe",
                                              "fsmt",
                                              "prophetnet",
                                              "blenderbot",
                                              "bigbird_pegasus",
                                              "encoder-decoder",
                                              "seamless_m4t",
                                              "plbart",
                                              NULL};
static const char *const state_space[] = {"mamba",
                                          "mamba2",
                                          "falcon_mamba",
                                          "jamba",
                                          "zamba",
                                          "zamba2",
                                          "bamba",
                                          "falcon_h1",
                                          "recurrent_gemma",
                                          "rwkv",
                                          "rwkv5",
                                          "rwkv6",
                                          "nemotron_h",
                                          "granitemoehybrid",
                                          "lfm2",
                                          "plamo2",
                                          "minimax",
                                          "qwen3_next",
                                          NULL};
/* Keys only state-space layers have. */
static const char *const state_space_keys[] = {
    "mamba_d_state",     "mamba_expand", "ssm_cfg",      "state_size",
    "attn_layer_period", "d_state",      "mamba_d_conv", NULL};

static bool in_list(const char *word, const char *const *list)
{
    for (int i = 0; word && list[i]; i++)
        if (strcmp(word, list[i]) == 0)
            return true;
    return false;
}

static const char *scalar_of(const struct ynode *map, const char *key)
{
    const struct ynode *v = ynode_get(map, key);
    if (v && v->kind == YNODE_SEQ && v->count > 0)
        v = v->items[0];
    return v && v->kind == YNODE_SCALAR ? v->value : NULL;
}

static bool is_true(const struct ynode *map, const char *key)
{
    const char *v = scalar_of(map, key);
    return v && strcmp(v, "true") == 0;
}

/* The refused family of a config, or NULL. */
static const char *refused_family(const struct ynode *root, const struct ynode *shape,
                                  const char *type, const char *arch)
{
    if (in_list(type, encoder_decoder) || is_true(root, "is_encoder_decoder") ||
        (arch && strstr(arch, "ForConditionalGeneration") && ynode_get(root, "decoder_layers")))
        return "an encoder-decoder model (an encoder stack, a decoder stack and "
               "cross-attention); mlviz models one decoder-only stack";
    bool ssm = in_list(type, state_space);
    for (int i = 0; !ssm && state_space_keys[i]; i++)
        ssm = ynode_get(root, state_space_keys[i]) || ynode_get(shape, state_space_keys[i]);
    if (ssm)
        return "state-space (Mamba, RWKV) or hybrid state-space/attention layers; mlviz models "
               "attention and MLP layers only";
    return NULL;
}

const struct hf_arch *hf_arch_find(const struct ynode *root, const struct ynode *shape, bool force,
                                   char *why, size_t why_len)
{
    const char *arch = scalar_of(root, "architectures");
    const char *type = scalar_of(shape, "model_type");
    if (!type)
        type = scalar_of(root, "model_type");
    const char *outer_type = scalar_of(root, "model_type");
    char a[160], t[160];
    hf_escape(a, sizeof a, arch ? arch : "none", 60);
    hf_escape(t, sizeof t, type ? type : "none", 60);
    const char *family = refused_family(root, shape, type, arch);
    if (!family && outer_type != type)
        family = refused_family(root, shape, outer_type, arch);
    if (family) {
        snprintf(why, why_len, "architecture %s (model_type %s) is %s", a, t, family);
        return NULL;
    }
    for (size_t i = 0; i < N_ARCHS; i++) {
        bool match = arch ? strcmp(arch, archs[i].architecture) == 0
                          : (type && strcmp(type, archs[i].model_type) == 0) ||
                                (outer_type && strcmp(outer_type, archs[i].model_type) == 0);
        if (match)
            return &archs[i];
    }
    if (force)
        return &forced;
    snprintf(why, why_len,
             "architecture %s (model_type %s) is not one mlviz reads whole (see docs/HFCONFIG.md "
             "for those it does); --force-architecture reads its shape keys as a decoder-only "
             "transformer",
             a, t);
    return NULL;
}

bool hf_json_number(const char *s)
{
    if (*s == '-')
        s++;
    if (*s == '0')
        s++;
    else if (*s >= '1' && *s <= '9')
        while (*s >= '0' && *s <= '9')
            s++;
    else
        return false;
    if (*s == '.') {
        s++;
        if (!(*s >= '0' && *s <= '9'))
            return false;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (!(*s >= '0' && *s <= '9'))
            return false;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return *s == '\0';
}

static bool bare_ok(const struct ynode *n)
{
    return n->quoted || hf_json_number(n->value) || strcmp(n->value, "true") == 0 ||
           strcmp(n->value, "false") == 0 || strcmp(n->value, "null") == 0;
}

bool hf_strict_json(const struct ynode *node, const char *file, char *err, size_t err_len)
{
    if (!node)
        return true;
    char shown[160];
    if (node->kind == YNODE_SCALAR) {
        if (bare_ok(node))
            return true;
        hf_escape(shown, sizeof shown, node->value, 40);
        snprintf(err, err_len,
                 "%s:%d:%d: not JSON: %s is no JSON value (strings are written in double quotes; "
                 "numbers, true, false and null bare)",
                 file, node->line, node->col, shown);
        return false;
    }
    for (size_t i = 0; i < node->count; i++) {
        if (node->kind == YNODE_MAP && !node->keys[i]->quoted) {
            hf_escape(shown, sizeof shown, node->keys[i]->value, 40);
            snprintf(err, err_len, "%s:%d:%d: not JSON: the key %s is not in double quotes", file,
                     node->keys[i]->line, node->keys[i]->col, shown);
            return false;
        }
        if (!hf_strict_json(node->items[i], file, err, err_len))
            return false;
    }
    return true;
}

/* Unicode format characters (general category Cf), line and paragraph
 * separators and C1 controls: invisible, or they reorder what a terminal
 * shows (U+202E turns the rest of a line around). */
static bool hidden_code_point(unsigned long c)
{
    return (c >= 0x80 && c <= 0x9f) || c == 0xad || (c >= 0x600 && c <= 0x605) || c == 0x61c ||
           c == 0x6dd || c == 0x70f || c == 0x180e || (c >= 0x200b && c <= 0x200f) ||
           (c >= 0x2028 && c <= 0x202e) || (c >= 0x2060 && c <= 0x206f) || c == 0xfeff ||
           (c >= 0xfff9 && c <= 0xfffb) || c == 0x110bd || c == 0x110cd ||
           (c >= 0x1bca0 && c <= 0x1bca3) || (c >= 0x1d173 && c <= 0x1d17a) || c == 0xe0001 ||
           (c >= 0xe0020 && c <= 0xe007f);
}

/* The length of a well-formed UTF-8 sequence at s and its code point, or 0. */
static size_t utf8_decode(const unsigned char *s, size_t n, unsigned long *cp)
{
    size_t len = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (len == 0 || len > n)
        return 0;
    unsigned long c = s[0] & (len == 2 ? 0x1f : len == 3 ? 0x0f : 0x07);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        c = (c << 6) | (s[i] & 0x3f);
    }
    static const unsigned long least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < least[len] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *cp = c;
    return len;
}

void hf_escape(char *out, size_t out_len, const char *in, size_t max)
{
    size_t used = 0, n = strlen(in);
    if (out_len == 0)
        return;
    out[0] = '\0';
    size_t limit = n < max ? n : max;
    const unsigned char *s = (const unsigned char *)in;
    for (size_t i = 0; i < limit;) {
        char piece[16];
        unsigned long cp = 0;
        size_t len = s[i] >= 0x80 ? utf8_decode(s + i, n - i, &cp) : 1;
        if (s[i] < 0x80 && (s[i] < 0x20 || s[i] == 0x7f))
            snprintf(piece, sizeof piece, "\\x%02x", s[i]);
        else if (s[i] < 0x80)
            snprintf(piece, sizeof piece, "%c", s[i]);
        else if (len == 0)
            snprintf(piece, sizeof piece, "\\x%02x", s[i]);
        else if (hidden_code_point(cp))
            snprintf(piece, sizeof piece, "\\u{%04lx}", cp);
        else
            snprintf(piece, sizeof piece, "%.*s", (int)len, (const char *)s + i);
        size_t p = strlen(piece);
        if (used + p + 4 > out_len)
            break;
        memcpy(out + used, piece, p + 1);
        used += p;
        i += len ? len : 1;
    }
    if (limit < n && used + 4 <= out_len)
        memcpy(out + used, "...", 4);
}

/* ---- warnings -------------------------------------------------------------- */

static bool force_architecture;
static void (*warning_sink)(const char *message);

void hfconfig_set_force_architecture(bool force)
{
    force_architecture = force;
}

bool hfconfig_force_architecture(void)
{
    return force_architecture;
}

void hfconfig_set_warning_sink(void (*sink)(const char *message))
{
    warning_sink = sink;
}

void hf_note(struct hf_notes *notes, const char *fmt, ...)
{
    if (notes->count >= HF_MAX_NOTES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(notes->text[notes->count++], HF_NOTE_LEN, fmt, ap);
    va_end(ap);
}

void hf_notes_send(const struct hf_notes *notes, const char *file)
{
    if (!warning_sink)
        return;
    char shown[256];
    hf_escape(shown, sizeof shown, file, 160);
    for (int i = 0; i < notes->count; i++) {
        char line[HF_NOTE_LEN + 300];
        snprintf(line, sizeof line, "%s: %s", shown, notes->text[i]);
        warning_sink(line);
    }
}

/* ---- what an architecture implies, and what is read but not modelled ------ */

/* A whole-number key: 1 when present (in min..max), 0 when absent or null,
 * -1 with the message in err. */
static int int_key(const struct ynode *map, const char *key, long long min, long long max,
                   long long *out, const char *file, char *err, size_t err_len)
{
    const struct ynode *v = ynode_get(map, key);
    if (!v || ynode_is_null(v))
        return 0;
    double x = 0;
    if (v->kind == YNODE_SCALAR && !v->quoted && hf_json_number(v->value) &&
        fields_parse_number(v->value, &x) && x >= (double)min && x <= (double)max &&
        x == (double)(long long)x) {
        *out = (long long)x;
        return 1;
    }
    char shown[160];
    hf_escape(shown, sizeof shown, v->kind == YNODE_SCALAR ? v->value : ynode_kind_name(v), 40);
    snprintf(err, err_len, "%s:%d:%d: %s must be a whole JSON number from %lld to %lld, found %s",
             file, v->line, v->col, key, min, max, shown);
    return -1;
}

/* Marks the layers of a list of layer indices (mlp_only_layers, moe_layers). */
static bool mark_layers(const struct ynode *list, bool *marks, int layers, const char *key,
                        const char *file, char *err, size_t err_len)
{
    if (!list || ynode_is_null(list))
        return true;
    if (list->kind != YNODE_SEQ) {
        snprintf(err, err_len, "%s:%d:%d: %s must be a list of layer numbers", file, list->line,
                 list->col, key);
        return false;
    }
    for (size_t i = 0; i < list->count; i++) {
        const struct ynode *v = list->items[i];
        double x = -1;
        if (v->kind != YNODE_SCALAR || v->quoted || !hf_json_number(v->value) ||
            !fields_parse_number(v->value, &x) || !(x >= 0 && x < layers) || x != (double)(int)x) {
            snprintf(err, err_len, "%s:%d:%d: %s: each entry must be a layer number from 0 to %d",
                     file, v->line, v->col, key, layers - 1);
            return false;
        }
        marks[(int)x] = true;
    }
    return true;
}

struct moe_rule {
    long long sparse_step, freq, interleave;
    bool *dense_only, *listed; /* mlp_only_layers; moe_layers (NULL: not given) */
};

/* Which layers have experts: Qwen2-MoE/Qwen3-MoE (decoder_sparse_step,
 * mlp_only_layers), DeepSeek (first_k_dense_replace, moe_layer_freq) and
 * Llama 4 (interleave_moe_layer_step, moe_layers), as the transformers
 * library's modelling code decides it. mlviz keeps the dense layers first:
 * the counts (so parameters, FLOPs and memory) are exact, only a pipeline
 * sees interleaved layers in another order. */
static bool moe_layout(struct setup *s, const struct ynode *map, const char *file,
                       struct hf_notes *notes, char *err, size_t err_len)
{
    int layers = s->model.layers, first = s->model.dense_layers;
    struct moe_rule r = {1, 1, 1, NULL, NULL};
    if (int_key(map, "decoder_sparse_step", 1, layers, &r.sparse_step, file, err, err_len) < 0 ||
        int_key(map, "moe_layer_freq", 1, layers, &r.freq, file, err, err_len) < 0 ||
        int_key(map, "interleave_moe_layer_step", 1, layers, &r.interleave, file, err, err_len) < 0)
        return false;
    const struct ynode *only = ynode_get(map, "mlp_only_layers");
    const struct ynode *listed = ynode_get(map, "moe_layers");
    r.dense_only = calloc((size_t)layers, sizeof *r.dense_only);
    r.listed = calloc((size_t)layers, sizeof *r.listed);
    bool ok = r.dense_only && r.listed &&
              mark_layers(only, r.dense_only, layers, "mlp_only_layers", file, err, err_len) &&
              mark_layers(listed, r.listed, layers, "moe_layers", file, err, err_len);
    int moe = 0, first_moe = layers, last_dense = -1;
    for (int i = 0; ok && i < layers; i++) {
        bool is_moe = listed && !ynode_is_null(listed)
                          ? r.listed[i]
                          : !r.dense_only[i] && (i + 1) % r.sparse_step == 0 && i >= first &&
                                i % r.freq == 0 && (i + 1) % r.interleave == 0;
        moe += is_moe;
        if (is_moe && i < first_moe)
            first_moe = i;
        if (!is_moe)
            last_dense = i;
    }
    free(r.dense_only);
    free(r.listed);
    if (!ok) {
        if (!err[0])
            snprintf(err, err_len, "%s: out of memory", file);
        return false;
    }
    if (moe == 0) {
        snprintf(err, err_len,
                 "%s: experts are given but no layer has them (check "
                 "decoder_sparse_step, mlp_only_layers, moe_layer_freq, moe_layers)",
                 file);
        return false;
    }
    s->model.dense_layers = layers - moe;
    if (last_dense > first_moe)
        hf_note(notes,
                "mixture-of-experts layers interleaved with dense ones are modelled as %d dense "
                "layers followed by %d expert layers: parameters, FLOPs and memory are exact, a "
                "pipeline's stages see the layers in another order",
                layers - moe, moe);
    return true;
}

/* Llama 4: every expert layer has one shared expert of the routed width
 * (intermediate_size); the dense layers' MLP is intermediate_size_mlp. */
static bool llama4_shapes(struct setup *s, const struct ynode *map, const char *file, char *err,
                          size_t err_len)
{
    long long dense = 0;
    int got = int_key(map, "intermediate_size_mlp", 1, 100000000, &dense, file, err, err_len);
    if (got < 0)
        return false;
    if (s->model.experts > 0) {
        s->model.expert_ffn_hidden = (int)setup_ffn_hidden(s);
        s->model.shared_experts = 1;
    }
    if (got > 0)
        s->model.ffn_hidden = (int)dense;
    return true;
}

static void unmodelled_notes(const struct ynode *root, const struct ynode *map,
                             const struct hf_arch *arch, struct hf_notes *notes)
{
    const char *window = scalar_of(map, "sliding_window");
    const char *use = scalar_of(map, "use_sliding_window");
    if (window && hf_json_number(window) && !(use && strcmp(use, "false") == 0))
        hf_note(notes,
                "sliding_window %s not modelled: attention is counted over the whole sequence, "
                "so its FLOPs and time are overstated for sequences longer than %s tokens",
                window, window);
    const char *chunk = scalar_of(map, "attention_chunk_size");
    if (chunk && hf_json_number(chunk))
        hf_note(notes,
                "attention_chunk_size %s not modelled: attention is counted over the whole "
                "sequence, so its FLOPs and time are overstated beyond %s tokens",
                chunk, chunk);
    static const char *const towers[] = {"vision_config", "audio_config", NULL};
    for (int i = 0; towers[i]; i++)
        if (ynode_get(root, towers[i]))
            hf_note(notes,
                    "%s not modelled: only the language model is evaluated (the encoder's "
                    "parameters and FLOPs are left out)",
                    towers[i]);
    if (arch == &forced)
        hf_note(notes, "read as a decoder-only transformer (--force-architecture): anything it "
                       "has beyond attention and MLP layers is not modelled");
}

/* A true/false key: 1 when true, 0 when false or absent, -1 on a wrong type. */
static int flag_key(const struct ynode *map, const char *key, const char *file, char *err,
                    size_t err_len)
{
    const struct ynode *v = ynode_get(map, key);
    if (!v || ynode_is_null(v))
        return 0;
    if (v->kind == YNODE_SCALAR && !v->quoted &&
        (strcmp(v->value, "true") == 0 || strcmp(v->value, "false") == 0))
        return v->value[0] == 't';
    snprintf(err, err_len, "%s:%d:%d: %s must be true or false", file, v->line, v->col, key);
    return -1;
}

/* Bias vectors: attention_bias (every attention projection, the output's
 * too, as LlamaAttention builds them), Qwen2's query, key and value biases,
 * mlp_bias and gpt-oss's experts and router. */
static bool biases(struct setup *s, const struct ynode *map, const struct hf_arch *arch,
                   const char *file, char *err, size_t err_len)
{
    int attention = flag_key(map, "attention_bias", file, err, err_len);
    int mlp = flag_key(map, "mlp_bias", file, err, err_len);
    if (attention < 0 || mlp < 0)
        return false;
    s->model.attention_bias = attention                        ? ATTN_BIAS_ALL
                              : arch->flags & HF_ARCH_QKV_BIAS ? ATTN_BIAS_QKV
                                                               : ATTN_BIAS_NONE;
    s->model.mlp_bias = mlp || (arch->flags & HF_ARCH_EXPERT_BIAS);
    return true;
}

bool hf_arch_shapes(struct setup *s, const struct ynode *root, const struct ynode *map,
                    const struct hf_arch *arch, const char *file, struct hf_notes *notes, char *err,
                    size_t err_len)
{
    err[0] = '\0';
    if (!biases(s, map, arch, file, err, err_len))
        return false;
    if ((arch->flags & HF_ARCH_SHARED_EXPERT) && !llama4_shapes(s, map, file, err, err_len))
        return false;
    if (s->model.experts > 0 && !moe_layout(s, map, file, notes, err, err_len))
        return false;
    unmodelled_notes(root, map, arch, notes);
    return true;
}
