/* hfconfig: the Hugging Face key table and the setup loader's model hook. */
#include "hfconfig.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "hfconfig_internal.h"
#include "infile.h"

/* How a Hugging Face value becomes a setup value. */
enum hf_conv {
    HF_COUNT,        /* a whole number, stored as is */
    HF_ACTIVATION,   /* "silu" (gated, three matrices) -> swiglu; gelu, relu -> gelu */
    HF_FLAG,         /* true/false */
    HF_SHARED_WIDTH, /* Qwen-MoE: the shared expert's width in units of one expert */
    HF_PROB,         /* a probability, 0 to 1 */
};

enum { HF_SPELLINGS = 4 };

/* One row: the spellings of a key in the families' config.json files (the
 * first one present wins) and the setup field it fills. Shapes follow the
 * transformers library's configuration classes: LlamaConfig, MistralConfig,
 * MixtralConfig (num_local_experts), Qwen2MoeConfig / Qwen3MoeConfig
 * (num_experts, moe_intermediate_size, shared_expert_intermediate_size),
 * DeepseekV3Config (n_routed_experts, n_shared_experts,
 * first_k_dense_replace) and GPT2Config (n_layer, n_embd, n_head, n_inner). */
struct hf_row {
    const char *keys[HF_SPELLINGS];
    const char *field;
    enum hf_conv conv;
    bool required; /* without it the config describes no shape mlviz can use */
    bool moe;      /* a mixture-of-experts field */
    int min;       /* the least value a config may give (0 for "none" is refused) */
};

/* DeepSeek's multi-head latent attention names the head size of the part
 * without rotary embedding qk_nope_head_dim (Megatron-Core: qk_head_dim). */
static const struct hf_row hf_rows[] = {
    {{"num_hidden_layers", "n_layer", "num_layers"}, "model.layers", HF_COUNT, true, false, 1},
    {{"hidden_size", "n_embd", "d_model"}, "model.hidden", HF_COUNT, true, false, 1},
    {{"num_attention_heads", "n_head", "num_heads"}, "model.heads", HF_COUNT, true, false, 1},
    {{"num_key_value_heads", "num_kv_heads"}, "model.kv_heads", HF_COUNT, false, false, 1},
    {{"intermediate_size", "n_inner", "ffn_dim", "d_ff"},
     "model.ffn_hidden",
     HF_COUNT,
     false,
     false,
     1},
    {{"hidden_act", "hidden_activation", "activation_function"},
     "model.mlp",
     HF_ACTIVATION,
     false,
     false,
     0},
    {{"vocab_size"}, "model.vocab", HF_COUNT, true, false, 1},
    {{"tie_word_embeddings"}, "model.tied_embeddings", HF_FLAG, false, false, 0},
    {{"qk_nope_head_dim", "head_dim"}, "model.head_dim", HF_COUNT, false, false, 1},
    {{"kv_lora_rank"}, "model.kv_lora_rank", HF_COUNT, false, false, 0},
    {{"q_lora_rank"}, "model.q_lora_rank", HF_COUNT, false, false, 0},
    {{"qk_rope_head_dim"}, "model.qk_rope_head_dim", HF_COUNT, false, false, 0},
    {{"v_head_dim"}, "model.v_head_dim", HF_COUNT, false, false, 0},
    {{"num_local_experts", "num_experts", "n_routed_experts"},
     "model.experts",
     HF_COUNT,
     false,
     true,
     0},
    {{"num_experts_per_tok"}, "model.top_k", HF_COUNT, false, true, 0},
    {{"moe_intermediate_size"}, "model.expert_ffn_hidden", HF_COUNT, false, true, 1},
    {{"n_shared_experts"}, "model.shared_experts", HF_COUNT, false, true, 0},
    {{"shared_expert_intermediate_size"}, "model.shared_experts", HF_SHARED_WIDTH, false, true, 0},
    {{"first_k_dense_replace"}, "model.dense_layers", HF_COUNT, false, true, 0},
    {{"num_nextn_predict_layers"}, "model.mtp_layers", HF_COUNT, false, false, 0},
    {{"hidden_dropout", "resid_pdrop", "attention_dropout"},
     "model.dropout",
     HF_PROB,
     false,
     false,
     0},
};
enum { N_HF_ROWS = sizeof hf_rows / sizeof hf_rows[0] };

/* The setup fields a mixture-of-experts config fills. */
static const char moe_fields[] =
    "model.experts, model.top_k, model.expert_ffn_hidden, model.shared_experts and "
    "model.dense_layers";

/* The value of the first spelling of a row present (and not null). */
static const struct ynode *row_value(const struct ynode *map, const struct hf_row *row,
                                     const char **key)
{
    for (int i = 0; i < HF_SPELLINGS && row->keys[i]; i++) {
        const struct ynode *v = ynode_get(map, row->keys[i]);
        if (v && !ynode_is_null(v)) {
            *key = row->keys[i];
            return v;
        }
    }
    return NULL;
}

/* Activation names of the transformers library (ACT2FN). SiLU/Swish MLPs in
 * these families are gated (gate, up and down projections: SwiGLU, Shazeer
 * 2020); Gemma's gelu_pytorch_tanh MLP is gated too (GeGLU), with the same
 * three matrices. */
static bool activation_mlp(const char *act, const char *model_type, int *mlp)
{
    static const char *const gated[] = {"silu", "swish", "swiglu", NULL};
    static const char *const plain[] = {
        "gelu",        "gelu_new",      "gelu_fast",  "gelu_pytorch_tanh",
        "gelu_python", "gelu_accurate", "quick_gelu", "relu",
        "relu2",       "relu6",         NULL};
    for (int i = 0; gated[i]; i++)
        if (strcmp(act, gated[i]) == 0) {
            *mlp = MLP_SWIGLU;
            return true;
        }
    for (int i = 0; plain[i]; i++)
        if (strcmp(act, plain[i]) == 0) {
            *mlp = model_type && strncmp(model_type, "gemma", 5) == 0 ? MLP_SWIGLU : MLP_GELU;
            return true;
        }
    return false;
}

static const char *scalar_text(const struct ynode *map, const char *key)
{
    const struct ynode *v = ynode_get(map, key);
    if (v && v->kind == YNODE_SEQ && v->count > 0)
        v = v->items[0];
    return v && v->kind == YNODE_SCALAR ? v->value : NULL;
}

/* "missing num_hidden_layers (or n_layer, num_layers), vocab_size" */
static void missing_keys(const struct ynode *map, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t r = 0; r < N_HF_ROWS && used < len; r++) {
        const char *key;
        if (!hf_rows[r].required || row_value(map, &hf_rows[r], &key))
            continue;
        int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", hf_rows[r].keys[0]);
        used += n > 0 ? (size_t)n : 0;
        for (int i = 1; i < HF_SPELLINGS && hf_rows[r].keys[i] && used < len; i++) {
            n = snprintf(buf + used, len - used, "%s%s%s", i == 1 ? " (or " : ", ",
                         hf_rows[r].keys[i],
                         i + 1 == HF_SPELLINGS || !hf_rows[r].keys[i + 1] ? ")" : "");
            used += n > 0 ? (size_t)n : 0;
        }
    }
}

/* A row's value as JSON types it: counts are bare JSON numbers, whole and
 * at least the row's least value; flags bare true or false; activations
 * strings. */
static bool row_typed(const struct ynode *v, const struct hf_row *row, const char *key,
                      const char *file, double *number, char *err, size_t err_len)
{
    char shown[160];
    hf_escape(shown, sizeof shown, v->value, 40);
    const char *want = NULL;
    if (row->conv == HF_FLAG &&
        (v->quoted || (strcmp(v->value, "true") != 0 && strcmp(v->value, "false") != 0)))
        want = "true or false";
    else if (row->conv == HF_ACTIVATION && !v->quoted)
        want = "a string";
    else if ((row->conv == HF_COUNT || row->conv == HF_SHARED_WIDTH || row->conv == HF_PROB) &&
             (v->quoted || !hf_json_number(v->value)))
        want = "a JSON number";
    if (want) {
        snprintf(err, err_len, "%s:%d:%d: %s must be %s, found %s%s%s", file, v->line, v->col, key,
                 want, v->quoted ? "the string \"" : "", shown, v->quoted ? "\"" : "");
        return false;
    }
    if (row->conv == HF_PROB) {
        if (fields_parse_number(v->value, number) && *number >= 0 && *number < 1)
            return true;
        snprintf(err, err_len, "%s:%d:%d: %s must be a probability from 0 to below 1, found %s",
                 file, v->line, v->col, key, shown);
        return false;
    }
    if (row->conv != HF_COUNT && row->conv != HF_SHARED_WIDTH)
        return true;
    if (!fields_parse_number(v->value, number) || !(*number >= row->min && *number <= 1e12) ||
        *number != (double)(long long)*number) {
        snprintf(err, err_len, "%s:%d:%d: %s must be a whole number of at least %d, found %s", file,
                 v->line, v->col, key, row->min, shown);
        return false;
    }
    return true;
}

/* One row's value onto s. */
static bool apply_row(struct setup *s, const struct ynode *map, const struct hf_row *row,
                      const char *file, const char *model_type, char *err, size_t err_len)
{
    const char *key;
    const struct ynode *v = row_value(map, row, &key);
    if (!v)
        return true;
    char msg[256], shown[160];
    if (v->kind != YNODE_SCALAR) {
        snprintf(err, err_len, "%s:%d:%d: %s must be a value, found %s", file, v->line, v->col, key,
                 ynode_kind_name(v));
        return false;
    }
    double number = 0;
    if (!row_typed(v, row, key, file, &number, err, err_len))
        return false;
    hf_escape(shown, sizeof shown, v->value, 40);
    const struct field *f = fields_find(setup_fields(), row->field);
    if (!f) {
        /* A field this build lacks: experts can only be refused (the model
         * would be computed as a dense one). */
        if (row->moe && number != 0) {
            snprintf(err, err_len,
                     "%s:%d:%d: %s: a mixture-of-experts config; the mixture-of-experts fields "
                     "need %s, which this mlviz does not have",
                     file, v->line, v->col, key, moe_fields);
            return false;
        }
        return true;
    }
    bool ok;
    switch (row->conv) {
    case HF_ACTIVATION: {
        int mlp;
        if (!activation_mlp(v->value, model_type, &mlp)) {
            snprintf(err, err_len,
                     "%s:%d:%d: %s: unknown activation '%s' (known: silu, swish, gelu, "
                     "gelu_new, gelu_pytorch_tanh, quick_gelu, relu); set model.mlp beside "
                     "hf_config",
                     file, v->line, v->col, key, shown);
            return false;
        }
        ok = fields_set_number(f, s, mlp, msg, sizeof msg);
        break;
    }
    case HF_FLAG:
        ok = fields_set_text(f, s, v->value, msg, sizeof msg);
        break;
    case HF_SHARED_WIDTH: {
        /* Qwen2-MoE writes one shared expert of this width; the setup counts
         * shared experts of the routed experts' width. */
        const struct ynode *e = ynode_get(map, "moe_intermediate_size");
        double expert = 0;
        /* Both bounded before any conversion to an integer. */
        if (!(number <= 1e9) || !e || e->kind != YNODE_SCALAR || e->quoted ||
            !fields_parse_number(e->value, &expert) || !(expert >= 1 && expert <= 1e9) ||
            expert != (double)(long long)expert || (long long)number % (long long)expert != 0) {
            snprintf(err, err_len,
                     "%s:%d:%d: %s %s is not a whole multiple of moe_intermediate_size; set "
                     "model.shared_experts beside hf_config",
                     file, v->line, v->col, key, shown);
            return false;
        }
        ok = fields_set_number(f, s, number / expert, msg, sizeof msg);
        break;
    }
    default:
        ok = fields_set_number(f, s, number, msg, sizeof msg);
        break;
    }
    if (!ok) {
        snprintf(err, err_len, "%s:%d:%d: %s (for %s): %s", file, v->line, v->col, key, row->field,
                 msg);
        return false;
    }
    return true;
}

/* Routed experts without a routing width describe no model. */
static bool check_routing(const struct ynode *map, const char *file, char *err, size_t err_len)
{
    const struct hf_row *experts = NULL, *top_k = NULL;
    const char *key;
    for (size_t r = 0; r < N_HF_ROWS; r++) {
        if (strcmp(hf_rows[r].field, "model.experts") == 0)
            experts = &hf_rows[r];
        else if (strcmp(hf_rows[r].field, "model.top_k") == 0)
            top_k = &hf_rows[r];
    }
    const struct ynode *ev = experts ? row_value(map, experts, &key) : NULL;
    double n_experts = 0;
    if (ev && fields_parse_number(ev->value, &n_experts) && n_experts > 0 && top_k &&
        !row_value(map, top_k, &key)) {
        snprintf(err, err_len,
                 "%s: a mixture-of-experts config without num_experts_per_tok "
                 "(experts each token goes to)",
                 file);
        return false;
    }
    return true;
}

static bool apply_doc(struct setup *s, const struct ydoc *doc, char *err, size_t err_len)
{
    char file[320], why[640];
    hf_escape(file, sizeof file, doc->file, 256);
    const struct ynode *map = doc->root;
    if (!map || map->kind != YNODE_MAP) {
        snprintf(err, err_len, "%s:%d:%d: a config.json holds one JSON object of keys, found %s",
                 file, map ? map->line : 1, map ? map->col : 1, ynode_kind_name(map));
        return false;
    }
    if (!hf_strict_json(map, file, err, err_len))
        return false;
    /* Multimodal configs (Llama 4, Qwen-VL, Gemma 3) keep the language
     * model's shape under text_config. */
    const struct ynode *text = ynode_get(map, "text_config");
    const char *key;
    if (!row_value(map, &hf_rows[0], &key) && text && text->kind == YNODE_MAP)
        map = text;
    const struct hf_arch *arch =
        hf_arch_find(doc->root, map, hfconfig_force_architecture(), why, sizeof why);
    if (!arch) {
        snprintf(err, err_len, "%s: %s", file, why);
        return false;
    }
    char missing[512];
    missing_keys(map, missing, sizeof missing);
    const char *model_type = scalar_text(map, "model_type");
    if (!model_type)
        model_type = scalar_text(doc->root, "model_type");
    if (missing[0]) {
        snprintf(err, err_len,
                 "%s: not a model shape mlviz can read (architecture %s): missing %s; write the "
                 "model's fields beside hf_config instead",
                 file, arch->architecture, missing);
        return false;
    }
    /* The config is the whole shape: what it leaves out takes the library's
     * default (kv heads = heads, no experts, no latent attention), never the
     * setup's earlier model. The sequence length is the run's, not the
     * model's. */
    struct setup tmp = *s, base;
    setup_defaults(&base);
    tmp.model = base.model;
    tmp.model.seq_len = s->model.seq_len;
    tmp.model.kind = MODEL_TRANSFORMER;
    for (size_t r = 0; r < N_HF_ROWS; r++)
        if (!apply_row(&tmp, map, &hf_rows[r], file, model_type, err, err_len))
            return false;
    struct hf_notes notes = {.count = 0};
    if (!check_routing(map, file, err, err_len) ||
        !hf_arch_shapes(&tmp, doc->root, map, arch, file, &notes, err, err_len))
        return false;
    hf_notes_send(&notes, doc->file);
    *s = tmp;
    return true;
}

/* The reader is libyaml's (JSON is YAML), but a config.json is JSON: its
 * syntax errors say so. */
static void json_syntax_message(char *err)
{
    char *at = strstr(err, "YAML syntax error");
    if (at)
        memcpy(at, "JSON", 4);
}

bool hfconfig_apply_file(struct setup *s, const char *path, char *err, size_t err_len)
{
    char *text;
    size_t len;
    if (!infile_read(path, &text, &len, err, err_len))
        return false;
    bool ok = hfconfig_apply_text(s, path, text, len, err, err_len);
    free(text);
    return ok;
}

bool hfconfig_apply_text(struct setup *s, const char *name, const char *text, size_t len, char *err,
                         size_t err_len)
{
    char shown[320];
    hf_escape(shown, sizeof shown, name, 256);
    if (!hf_json_syntax(shown, text, len, err, err_len))
        return false;
    struct ydoc *doc = ydoc_load_string(name, text, len, err, err_len);
    if (!doc) {
        json_syntax_message(err);
        return false;
    }
    bool ok = apply_doc(s, doc, err, err_len);
    ydoc_free(doc);
    return ok;
}

void hfconfig_title(const char *path, char *buf, size_t len)
{
    char err[256];
    buf[0] = '\0';
    struct ydoc *doc = ydoc_load_file(path, err, sizeof err);
    if (!doc)
        return;
    const char *title = scalar_text(doc->root, "_title");
    if (!title)
        title = scalar_text(doc->root, "architectures");
    if (!title)
        title = scalar_text(doc->root, "model_type");
    if (title)
        hf_escape(buf, len, title, 64);
    ydoc_free(doc);
}

static bool plain_name(const char *name)
{
    if (!name[0] || name[0] == '.' || strlen(name) > 64)
        return false;
    for (const char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '-' || *c == '_' || *c == '.'))
            return false;
    return true;
}

size_t hfconfig_model_names(char (*names)[HFCONFIG_NAME_LEN], size_t max)
{
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/assets/models", mlviz_data_dir());
    size_t n = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) && n < max) {
        size_t l = strlen(e->d_name);
        if (l > 5 && l < HFCONFIG_NAME_LEN && strcmp(e->d_name + l - 5, ".json") == 0 &&
            e->d_name[0] != '.')
            snprintf(names[n++], HFCONFIG_NAME_LEN, "%.*s", (int)(l - 5), e->d_name);
    }
    if (d)
        closedir(d);
    /* Sorted, so messages and completions are the same everywhere. */
    char tmp[HFCONFIG_NAME_LEN];
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            memcpy(tmp, names[j], sizeof tmp);
            memcpy(names[j], names[j - 1], sizeof tmp);
            memcpy(names[j - 1], tmp, sizeof tmp);
        }
    return n;
}

bool hfconfig_named_path(const char *name, char *buf, size_t len, char *err, size_t err_len)
{
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/assets/models", mlviz_data_dir());
    if (plain_name(name)) {
        snprintf(buf, len, "%s/%s.json", dir, name);
        FILE *f = fopen(buf, "r");
        if (f) {
            fclose(f);
            return true;
        }
    }
    /* Unknown: list what is shipped. */
    char names[HFCONFIG_MAX_MODELS][HFCONFIG_NAME_LEN];
    const char *ptrs[HFCONFIG_MAX_MODELS];
    size_t n = hfconfig_model_names(names, HFCONFIG_MAX_MODELS);
    for (size_t i = 0; i < n; i++)
        ptrs[i] = names[i];
    char list[1024] = "";
    size_t used = 0;
    for (size_t i = 0; i < n && used < sizeof list; i++) {
        int w = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", ptrs[i]);
        used += w > 0 ? (size_t)w : 0;
    }
    const char *near = n ? fields_suggest_word(name, ptrs, n) : NULL;
    snprintf(err, err_len, "unknown model '%.64s'%s%s%s (shipped: %s)", name,
             near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "",
             n ? list : "none found in assets/models");
    return false;
}

/* ---- the loader's hook ---------------------------------------------------- */

struct hfconfig_view {
    struct ynode root;  /* shallow copy; items[model_at] is &model */
    struct ynode model; /* shallow copy without hf_config and name */
};

const struct ynode *hfconfig_view_root(const struct hfconfig_view *view)
{
    return &view->root;
}

void hfconfig_view_free(struct hfconfig_view *view)
{
    if (!view)
        return;
    free(view->root.items);
    free(view->model.keys);
    free(view->model.items);
    idindex_free(&view->model.index);
    free(view);
}

static const char *view_key_at(const void *map, size_t i)
{
    return ((const struct ynode *)map)->keys[i]->value;
}

static bool is_hook_key(const char *key)
{
    return strcmp(key, "hf_config") == 0 || strcmp(key, "name") == 0;
}

static struct hfconfig_view *make_view(const struct ynode *root, const struct ynode *model)
{
    struct hfconfig_view *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    v->root = *root;
    v->model = *model;
    memset(&v->model.index, 0, sizeof v->model.index);
    v->root.items = malloc(root->count * sizeof *v->root.items);
    v->model.keys = malloc((model->count ? model->count : 1) * sizeof *v->model.keys);
    v->model.items = malloc((model->count ? model->count : 1) * sizeof *v->model.items);
    v->model.count = 0;
    v->model.cap = model->count;
    if (!v->root.items || !v->model.keys || !v->model.items) {
        hfconfig_view_free(v);
        return NULL;
    }
    for (size_t i = 0; i < root->count; i++)
        v->root.items[i] = root->items[i] == model ? &v->model : root->items[i];
    for (size_t i = 0; i < model->count; i++) {
        if (is_hook_key(model->keys[i]->value))
            continue;
        v->model.keys[v->model.count] = model->keys[i];
        v->model.items[v->model.count] = model->items[i];
        if (!idindex_add(&v->model.index, v->model.count, view_key_at, &v->model)) {
            hfconfig_view_free(v);
            return NULL;
        }
        v->model.count++;
    }
    return v;
}

/* hf_config read below a directory (see struct hfconfig_below). */
static bool apply_below(struct setup *s, const struct hfconfig_below *below, const char *name,
                        char *msg, size_t msg_len)
{
    char rel[INFILE_PATH_LEN], shown[INFILE_PATH_LEN + 64], why[96];
    if (!infile_join_below(below->rel, name, rel, sizeof rel, why, sizeof why)) {
        bool cwd = !below->root || !below->root[0] || strcmp(below->root, ".") == 0;
        snprintf(msg, msg_len,
                 "'%.200s' is %s; a setup loaded by a sandboxed script names only files below "
                 "%s, without '..' or links (mlviz run --trust lifts this)",
                 name, why, cwd ? "the current directory" : below->root);
        return false;
    }
    if (below->root && below->root[0] && strcmp(below->root, ".") != 0)
        snprintf(shown, sizeof shown, "%s/%s", below->root, rel);
    else
        snprintf(shown, sizeof shown, "%s", rel);
    char *text;
    size_t len;
    if (!infile_read_below(below->root, rel, shown, &text, &len, msg, msg_len))
        return false;
    bool ok = hfconfig_apply_text(s, shown, text, len, msg, msg_len);
    free(text);
    return ok;
}

bool hfconfig_expand(struct setup *s, const struct ynode *root, const char *file,
                     const struct hfconfig_below *below, struct hfconfig_view **view, char *err,
                     size_t err_len)
{
    *view = NULL;
    const struct ynode *model = ynode_get(root, "model");
    if (!model || model->kind != YNODE_MAP)
        return true;
    const struct ynode *hf = ynode_get(model, "hf_config"), *name = ynode_get(model, "name");
    if (!hf && !name)
        return true;
    const struct ynode *at = hf ? hf : name;
    const char *key = hf ? "hf_config" : "name";
    if (hf && name) {
        snprintf(err, err_len, "%s:%d:%d: give model.hf_config or model.name, not both", file,
                 name->line, name->col);
        return false;
    }
    if (at->kind != YNODE_SCALAR || !at->value[0] || ynode_is_null(at)) {
        snprintf(err, err_len, "%s:%d:%d: model.%s must be %s, found %s", file, at->line, at->col,
                 key, hf ? "the path of a config.json" : "a model name (see assets/models)",
                 at->kind == YNODE_SCALAR ? "nothing" : ynode_kind_name(at));
        return false;
    }
    char path[2048], msg[1024];
    if (hf && below) {
        if (!apply_below(s, below, at->value, msg, sizeof msg)) {
            snprintf(err, err_len, "%s:%d:%d: model.%s: %s", file, at->line, at->col, key, msg);
            return false;
        }
    } else if (name) {
        if (!hfconfig_named_path(at->value, path, sizeof path, msg, sizeof msg)) {
            snprintf(err, err_len, "%s:%d:%d: model.name: %s", file, at->line, at->col, msg);
            return false;
        }
    } else if (at->value[0] != '/' && strchr(file, '/')) {
        /* Relative to the setup file, as an include would be. */
        int dir_len = (int)(strrchr(file, '/') - file);
        snprintf(path, sizeof path, "%.*s/%s", dir_len, file, at->value);
    } else {
        snprintf(path, sizeof path, "%s", at->value);
    }
    if (!(hf && below) && !hfconfig_apply_file(s, path, msg, sizeof msg)) {
        snprintf(err, err_len, "%s:%d:%d: model.%s: %s", file, at->line, at->col, key, msg);
        return false;
    }
    *view = make_view(root, model);
    if (!*view) {
        snprintf(err, err_len, "%s: out of memory", file);
        return false;
    }
    return true;
}
