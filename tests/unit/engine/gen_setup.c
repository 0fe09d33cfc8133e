/* gen_setup: random valid setups (see gen_setup.h). */
#include "gen_setup.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void gen_src_seed(struct gen_src *g, uint64_t seed)
{
    memset(g, 0, sizeof *g);
    g->state = seed;
}

void gen_src_bytes(struct gen_src *g, const uint8_t *data, size_t size)
{
    memset(g, 0, sizeof *g);
    g->data = data;
    g->size = size;
}

uint64_t gen_u64(struct gen_src *g)
{
    if (g->data) {
        uint64_t v = 0;
        for (int i = 0; i < 8; i++)
            v = v << 8 | (g->pos < g->size ? g->data[g->pos++] : 0);
        return v;
    }
    uint64_t z = (g->state += 0x9e3779b97f4a7c15ull); /* splitmix64 */
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double gen_unit(struct gen_src *g)
{
    return (double)(gen_u64(g) >> 11) * 0x1p-53;
}

static int gen_below(struct gen_src *g, int n)
{
    return n <= 1 ? 0 : (int)(gen_u64(g) % (uint64_t)n);
}

/* 2^k for k uniform in [0, max_log2]. */
static int gen_pow2(struct gen_src *g, int max_log2)
{
    return 1 << gen_below(g, max_log2 + 1);
}

/* Log-uniform integer in [lo, hi]. */
static int gen_log_int(struct gen_src *g, int lo, int hi)
{
    double v = exp(log((double)lo) + gen_unit(g) * (log((double)hi) - log((double)lo)));
    int i = (int)llround(v);
    return i < lo ? lo : i > hi ? hi : i;
}

/* Fields a dedicated drawer gives values real runs use (a random number
 * in the field's range would be refused or meaningless): the shape and
 * layout, drawn together by draw_layout, and the 2026 mechanisms, drawn
 * where they apply by draw_2026. Every other field of the table gets an
 * independent random value of its type (perturb). */
static const char *const shaped_paths[] = {
    /* draw_layout */
    "cluster.nodes",
    "cluster.node.accelerators_per_node",
    "cluster.scaleup_domain",
    "model.kind",
    "model.layers",
    "model.hidden",
    "model.heads",
    "model.seq_len",
    "model.vocab",
    "model.ffn_hidden",
    "model.kv_heads",
    "model.experts",
    "model.top_k",
    "model.expert_ffn_hidden",
    "model.shared_experts",
    "model.dense_layers",
    "model.head_dim",
    "model.params",
    "model.flops_per_sample",
    "training.global_batch",
    "training.micro_batch",
    "training.tensor_parallel",
    "training.pipeline_parallel",
    "training.virtual_stages",
    "training.context_parallel",
    "training.expert_parallel",
    "training.first_stage_layers",
    "training.last_stage_layers",
    /* draw_2026 */
    "model.kv_lora_rank",
    "model.q_lora_rank",
    "model.qk_rope_head_dim",
    "model.v_head_dim",
    "model.mtp_layers",
    "training.lora_rank",
    "training.activation_offload_layers",
    "training.expert_tensor_parallel",
    "training.capacity_factor",
    "training.moe_dispatcher",
    "cluster.node.power_limit_w",
};

/* The fields no draw changes, each with the reason. The invariants check
 * the training step (model_eval); a field it never reads has nothing to
 * check there. tests/unit/engine/test_invariants.c walks the field table:
 * a field neither drawn (its value varies over the setups) nor listed here
 * fails it, so a new field joins the draws or this list. */
static const struct gen_skip {
    const char *path, *reason;
} gen_not_drawn[] = {
    {"name", "a title; nothing reads it"},
    {"inference.batch", "serving only (engine/model/model_infer.c)"},
    {"inference.prompt_tokens", "serving only (engine/model/model_infer.c)"},
    {"inference.output_tokens", "serving only (engine/model/model_infer.c)"},
    {"inference.weight_precision", "serving only (engine/model/model_infer.c)"},
    {"inference.kv_precision", "serving only (engine/model/model_infer.c)"},
    {"inference.tensor_parallel", "serving only (engine/model/model_infer.c)"},
    {"inference.pipeline_parallel", "serving only (engine/model/model_infer.c)"},
    {"inference.software", "serving only (engine/model/model_infer.c)"},
    {"inference.arrival_rate", "serving only (engine/sim, the serving queue)"},
    {"inference.ttft_slo_s", "serving only (engine/model/model_infer.c)"},
    {"inference.tpot_slo_s", "serving only (engine/model/model_infer.c)"},
};

static bool in_list(const char *const *list, size_t n, const char *path)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i], path) == 0)
            return true;
    return false;
}

static bool is_shaped(const char *path)
{
    return in_list(shaped_paths, sizeof shaped_paths / sizeof shaped_paths[0], path);
}

const char *gen_not_drawn_reason(const char *path)
{
    for (size_t i = 0; i < sizeof gen_not_drawn / sizeof gen_not_drawn[0]; i++)
        if (strcmp(gen_not_drawn[i].path, path) == 0)
            return gen_not_drawn[i].reason;
    return NULL;
}

/* A number around the field's default (x 1/8 .. x 8), or across its range
 * when the default is 0; "auto" half of the time where allowed. */
static double gen_number(struct gen_src *g, const struct field *f)
{
    double lo = f->min, hi = f->max, def = f->def;
    double v = def > 0 ? def * exp2(6.0 * gen_unit(g) - 3.0)
                       : lo + gen_unit(g) * (fmin(hi, lo + 16.0) - lo);
    v = fmin(hi, fmax(lo, v));
    if (f->type == FIELD_INT)
        v = round(v);
    return v;
}

/* One random value for field f of the setup. */
static void perturb(struct gen_src *g, const struct catalog *catalog, const struct field *f,
                    struct setup *s)
{
    char err[256];
    char *p = (char *)s + f->offset;
    switch (f->type) {
    case FIELD_BOOL:
        *(bool *)p = gen_below(g, 2);
        break;
    case FIELD_ENUM: {
        int n = 0;
        while (f->choices && f->choices[n])
            n++;
        *(int *)p = gen_below(g, n);
        break;
    }
    case FIELD_REF: {
        int n = (int)catalog_count(catalog, (enum catalog_kind)f->ref_kind);
        if ((f->flags & FIELD_OPTIONAL) && gen_below(g, 4) == 0) {
            p[0] = '\0';
        } else if (n > 0) {
            const struct catalog_head *h =
                catalog_entry(catalog, f->ref_kind, (size_t)gen_below(g, n));
            snprintf(p, FIELD_STR_LEN, "%s", h->id);
        }
        break;
    }
    case FIELD_NUM_AUTO:
        if (gen_below(g, 2) == 0) {
            fields_set_auto(f, s, err, sizeof err);
            break;
        }
        /* fall through */
    case FIELD_INT:
    case FIELD_NUM:
        fields_set_number(f, s, gen_number(g, f), err, sizeof err);
        break;
    default:
        break;
    }
}

/* Nodes for per_node devices each, about `want`, rounded up so that the
 * devices divide into model_ranks. */
static int nodes_for(int per_node, int want, int model_ranks)
{
    int step = 1;
    while ((long long)step * per_node % model_ranks != 0)
        step++;
    int n = (want + step - 1) / step * step;
    return n < step ? step : n;
}

static void draw_transformer(struct gen_src *g, struct setup *s)
{
    int heads = 8 << gen_below(g, 5); /* 8..128 */
    s->model.kind = MODEL_TRANSFORMER;
    s->model.heads = heads;
    s->model.hidden = heads * (gen_below(g, 2) ? 128 : 64);
    /* a quarter with heads x head_dim apart from hidden (Qwen3, Gemma) */
    s->model.head_dim = gen_below(g, 4) == 0 ? 64 << gen_below(g, 2) : 0;
    s->model.kv_heads = heads >> gen_below(g, 4);
    s->model.layers = gen_log_int(g, 1, 128);
    s->model.seq_len = 256 << gen_below(g, 10); /* 256..131072 */
    static const int vocab[] = {32000, 50257, 128256};
    s->model.vocab = vocab[gen_below(g, 3)];
    s->model.ffn_hidden = gen_below(g, 2) ? 0 : s->model.hidden * 7 / 2;
    s->model.experts = s->model.top_k = s->model.shared_experts = 0;
    s->model.expert_ffn_hidden = s->model.dense_layers = 0;
    if (gen_below(g, 4) == 0) {
        s->model.experts = 8 << gen_below(g, 5);
        s->model.top_k = 1 + gen_below(g, 8);
        s->model.expert_ffn_hidden = gen_below(g, 2) ? 0 : s->model.hidden / 2;
        s->model.shared_experts = gen_below(g, 2);
        s->model.dense_layers = gen_below(g, s->model.layers < 4 ? 1 : 3);
    }
}

/* A consistent layout over 1..100,000 devices. */
static void draw_layout(struct gen_src *g, struct setup *s)
{
    static const int per_node[] = {1, 2, 4, 8, 8, 8, 4, 72};
    int pn = per_node[gen_below(g, 8)];
    s->cluster.node.accelerators_per_node = pn;
    s->cluster.scaleup_domain = 0;
    bool generic = gen_below(g, 10) == 0;
    int tp = 1, pp = 1, cp = 1, ep = 1;
    if (generic) {
        s->model.kind = MODEL_GENERIC;
        s->model.params = pow(10.0, 6.0 + 6.0 * gen_unit(g));
        s->model.flops_per_sample = 6.0 * s->model.params * 2048.0;
    } else {
        draw_transformer(g, s);
        tp = gen_pow2(g, 3);
        while (tp > s->model.heads)
            tp /= 2;
        pp = gen_pow2(g, 4);
        while (pp > s->model.layers)
            pp /= 2;
        cp = gen_below(g, 3) == 0 ? gen_pow2(g, 3) : 1;
        while (s->model.seq_len % (2 * cp) != 0)
            cp /= 2;
    }
    int want = gen_log_int(g, 1, 100000 / pn > 0 ? 100000 / pn : 1);
    s->cluster.nodes = nodes_for(pn, want, tp * pp * cp);
    long long dp = (long long)pn * s->cluster.nodes / ((long long)tp * pp * cp);
    if (s->model.experts > 0) {
        ep = gen_pow2(g, 6);
        while (ep > 1 && (s->model.experts % ep != 0 || (dp * cp) % ep != 0))
            ep /= 2;
    }
    s->training.tensor_parallel = tp, s->training.pipeline_parallel = pp;
    s->training.context_parallel = cp, s->training.expert_parallel = ep;
    s->training.virtual_stages = 1;
    if (pp > 1 && gen_below(g, 3) == 0 && s->model.layers / pp >= 2)
        s->training.virtual_stages = 2;
    s->training.first_stage_layers = s->training.last_stage_layers = 0;
    if (pp > 1 && gen_below(g, 4) == 0) { /* uneven first and last stages */
        int even = s->model.layers / pp;
        s->training.first_stage_layers = 1 + gen_below(g, even);
        s->training.last_stage_layers = gen_below(g, 2) ? 0 : 1 + gen_below(g, even);
    }
    if (gen_below(g, 4) == 0) { /* a scale-up domain beyond or within the node */
        static const int times[] = {2, 4, 8, 9, 18};
        s->cluster.scaleup_domain =
            pn % 2 == 0 && gen_below(g, 4) == 0 ? pn / 2 : pn * times[gen_below(g, 5)];
    }
    int mb = gen_pow2(g, 2), m = gen_log_int(g, 1, 64);
    while (dp * mb * m > 50000000 && m > 1)
        m /= 2;
    while (dp * mb * m > 50000000 && mb > 1)
        mb /= 2;
    s->training.micro_batch = mb;
    s->training.global_batch = (int)(dp * mb * m > 2000000000 ? 1 : dp * mb * m);
}

/* ---- the 2026 mechanisms (issue 21), where they apply ---------------------- */

/* One catalog entry of `kind` that `want` accepts, at random; NULL if none. */
static const struct catalog_head *pick_entry(struct gen_src *g, const struct catalog *catalog,
                                             enum catalog_kind kind,
                                             bool (*want)(const struct catalog_head *))
{
    int n = (int)catalog_count(catalog, kind), fit = 0;
    for (int i = 0; i < n; i++)
        fit += want(catalog_entry(catalog, kind, (size_t)i)) ? 1 : 0;
    int k = gen_below(g, fit);
    for (int i = 0; i < n; i++) {
        const struct catalog_head *h = catalog_entry(catalog, kind, (size_t)i);
        if (want(h) && k-- == 0)
            return h;
    }
    return NULL;
}

static bool has_fp4(const struct catalog_head *h)
{
    return ((const struct accelerator *)h)->fp4_tflops > 0;
}

static bool runs_2026(const struct catalog_head *h)
{
    const struct software *sw = (const struct software *)h;
    return sw->moe_folding || sw->deepep || sw->activation_offload;
}

/* The device and its precision: a quarter of the draws take a precision
 * the device has (the generic draw mostly lands on one it lacks), a sixth
 * a Blackwell-class device (MXFP8, NVFP4). */
static void draw_device(struct gen_src *g, const struct catalog *catalog, struct setup *s)
{
    const struct catalog_head *h = NULL;
    if (gen_below(g, 6) == 0 && (h = pick_entry(g, catalog, CATALOG_ACCELERATOR, has_fp4)))
        snprintf(s->cluster.node.accelerator, FIELD_STR_LEN, "%s", h->id);
    const struct accelerator *a =
        catalog_find(catalog, CATALOG_ACCELERATOR, s->cluster.node.accelerator);
    if (!a)
        return;
    if (h || gen_below(g, 4) == 0) {
        int have[TRAIN_PRECISION_COUNT], n = 0;
        struct setup t = *s;
        for (int p = 0; p < TRAIN_PRECISION_COUNT; p++) {
            t.training.precision = p;
            if (setup_gemm_peak_tflops(&t, a) > 0)
                have[n++] = p;
        }
        if (n > 0)
            s->training.precision = have[gen_below(g, n)];
    }
    s->cluster.node.power_limit_w = FIELD_AUTO;
    if (gen_below(g, 3) == 0 && a->tdp_w > a->idle_w) /* a cap between idle and the TDP */
        s->cluster.node.power_limit_w =
            round(a->idle_w + (a->tdp_w - a->idle_w) * (0.1 + 0.9 * gen_unit(g))) + 1.0;
}

/* Multi-head latent attention (DeepSeek-V2/V3 widths and below). */
static void draw_mla(struct gen_src *g, struct setup *s)
{
    s->model.kv_lora_rank = s->model.q_lora_rank = 0;
    s->model.qk_rope_head_dim = s->model.v_head_dim = 0;
    if (gen_below(g, 4) != 0)
        return;
    s->model.kv_lora_rank = 64 << gen_below(g, 4);
    s->model.q_lora_rank = gen_below(g, 2) ? 0 : 384 << gen_below(g, 3);
    s->model.qk_rope_head_dim = gen_below(g, 3) == 0 ? 0 : 32 << gen_below(g, 2);
    s->model.v_head_dim = gen_below(g, 2) ? 0 : 64 << gen_below(g, 2);
}

/* Expert tensor parallelism folded over the stage's ranks, the capacity
 * factor and the dispatcher. */
static void draw_moe(struct gen_src *g, struct setup *s)
{
    s->training.expert_tensor_parallel = 0;
    s->training.capacity_factor = 0;
    s->training.moe_dispatcher = MOE_DISPATCH_ALLTOALL;
    if (s->model.kind != MODEL_TRANSFORMER || s->model.experts <= 0)
        return;
    long long ranks = setup_devices(s) / s->training.pipeline_parallel;
    if (gen_below(g, 3) == 0) {
        int etp = gen_pow2(g, 3), ep = gen_pow2(g, 6);
        while (etp > 1 && ranks % etp != 0)
            etp /= 2;
        while (ep > 1 && (s->model.experts % ep != 0 || ranks % ((long long)ep * etp) != 0))
            ep /= 2;
        s->training.expert_tensor_parallel = etp, s->training.expert_parallel = ep;
    }
    static const double factors[] = {0.5, 1.0, 1.0, 1.25, 1.5, 2.0, 4.0};
    if (gen_below(g, 2) == 0)
        s->training.capacity_factor = factors[gen_below(g, 7)];
    if (s->training.expert_parallel > 1 && gen_below(g, 2) == 0)
        s->training.moe_dispatcher = MOE_DISPATCH_DEEPEP;
}

/* LoRA, multi-token prediction and activation offloading. */
static void draw_training_2026(struct gen_src *g, struct setup *s)
{
    bool tf = s->model.kind == MODEL_TRANSFORMER;
    s->training.lora_rank = tf && gen_below(g, 4) == 0 ? 4 << gen_below(g, 7) : 0;
    if (s->training.lora_rank > s->model.hidden)
        s->training.lora_rank = s->model.hidden;
    s->model.mtp_layers = tf && gen_below(g, 4) == 0 ? 1 + gen_below(g, 2) : 0;
    s->training.activation_offload_layers = 0;
    if (!tf || gen_below(g, 4) != 0)
        return;
    int fewest = s->model.layers;
    for (int st = 0; st < s->training.pipeline_parallel && st < 4096; st++) {
        int n = setup_stage_layers(s, st);
        fewest = n < fewest ? n : fewest;
    }
    if (fewest >= 2)
        s->training.activation_offload_layers = 1 + gen_below(g, fewest - 1);
}

static void draw_2026(struct gen_src *g, const struct catalog *catalog, struct setup *s)
{
    const struct catalog_head *h;
    if (gen_below(g, 3) == 0 && (h = pick_entry(g, catalog, CATALOG_SOFTWARE, runs_2026)))
        snprintf(s->training.software, FIELD_STR_LEN, "%s", h->id);
    draw_device(g, catalog, s);
    if (s->model.kind == MODEL_TRANSFORMER)
        draw_mla(g, s);
    else
        s->model.kv_lora_rank = s->model.q_lora_rank = s->model.qk_rope_head_dim =
            s->model.v_head_dim = 0;
    draw_moe(g, s);
    draw_training_2026(g, s);
}

/* Puts the field at `path` back to its default; false when it already was. */
static bool reset_field(struct setup *s, const char *path)
{
    const struct field_table *t = setup_fields();
    struct setup d;
    setup_defaults(&d);
    for (size_t i = 0; i < t->count; i++) {
        const struct field *f = &t->fields[i];
        if (strcmp(f->path, path) != 0)
            continue;
        size_t n = f->type == FIELD_NUM || f->type == FIELD_NUM_AUTO ? sizeof(double)
                   : f->type == FIELD_BOOL                           ? sizeof(bool)
                   : f->type == FIELD_INT || f->type == FIELD_ENUM   ? sizeof(int)
                                                                     : (size_t)FIELD_STR_LEN;
        char *p = (char *)s + f->offset, *q = (char *)&d + f->offset;
        if (memcmp(p, q, n) == 0)
            return false;
        memcpy(p, q, n);
        return true;
    }
    return false;
}

bool gen_setup(struct gen_src *g, const struct catalog *catalog, struct setup *s,
               struct resolved *r)
{
    setup_defaults(s);
    const struct field_table *t = setup_fields();
    for (size_t i = 0; i < t->count; i++)
        if (!is_shaped(t->fields[i].path) && !gen_not_drawn_reason(t->fields[i].path) &&
            gen_below(g, 2) == 0)
            perturb(g, catalog, &t->fields[i], s);
    draw_layout(g, s);
    draw_2026(g, catalog, s);
    char err[1024];
    for (int tries = 0; tries < 16; tries++) {
        const char *blame = NULL;
        if (setup_resolve_blame(s, catalog, r, err, sizeof err, &blame))
            return true;
        if (!blame || !reset_field(s, blame))
            return false;
    }
    return false;
}
