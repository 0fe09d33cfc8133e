/* model_memory: memory per device: model states under ZeRO sharding and the
 * activations the pipeline schedule keeps in flight. See docs/MODEL.md. */

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "model.h"
#include "model_internal.h"

/* ---- memory ------------------------------------------------------------------ */

/* Activation bytes of one layer for one micro-batch on one device,
 * Korthikanti et al. 2022 (Table 2), generalised to grouped-query attention
 * and SwiGLU by counting the same stored tensors; context parallelism
 * divides the sequence (Megatron-Core). An MoE layer stores, instead of the
 * dense MLP, its routed tokens' inner activations (top_k per token, times
 * the load factor of the busiest rank), the shared experts' and the
 * permuted token copies for dispatch and combine. */
double model_layer_activation_bytes(const struct ctx *c, bool moe, int recompute)
{
    const struct setup *s = c->s;
    double t = c->tp, seq = (double)s->model.seq_len / c->cp, b = c->mb, h = s->model.hidden;
    double a = s->model.heads;
    double f = setup_ffn_hidden(s);
    double sbh = seq * b * h;
    double scale = c->act_bytes / 2.0; /* the paper counts 16-bit activations */
    bool sp = s->training.sequence_parallel;
    if (recompute == RECOMPUTE_FULL)
        return 2.0 * sbh / (sp ? t : 1.0) * scale; /* only each layer's input is kept */
    if (recompute == RECOMPUTE_OP)
        return model_op_checkpoint_bytes(c, moe);
    /* Layer-norm inputs, QKV and MLP inputs, and the two residual dropout
     * masks (1 byte per element) when there is dropout: PyTorch's dropout
     * returns its input untouched at p = 0 and keeps no mask. */
    bool dropout = s->model.dropout > 0;
    double whole = (dropout ? 10.0 : 8.0) * sbh;
    double inner = s->model.mlp == MLP_SWIGLU ? 6.0 : 4.0;
    double mlp = inner * seq * b * f;
    if (moe) {
        double fe = setup_expert_ffn_hidden(s);
        double routed = s->model.top_k * maxd(1.0, s->training.capacity_factor);
        /* The permuted tokens each expert GEMM reads are saved for its
         * weight gradient: one 16-bit copy of k h-vectors per token. */
        mlp = inner * seq * b * fe * (routed + s->model.shared_experts) +
              2.0 * seq * b * s->model.top_k * h;
    }
    struct attention_widths w; /* latent attention stores its latents too */
    model_attention_widths(s, &w);
    double split = 2.0 * seq * b * (w.q + w.k + w.v + w.out + w.latent) +
                   mlp; /* Q, K, V, attention output, MLP inner */
    /* Softmax output; with dropout its mask and output too. */
    double scores = (dropout ? 5.0 : 2.0) * a * seq * s->model.seq_len * b;
    if (recompute == RECOMPUTE_SELECTIVE || s->training.flash_attention)
        scores = 0.0;
    if (is_low_precision(s->training.precision)) {
        /* Transformer Engine saves the FP8 casts of the GEMM inputs for the
         * weight gradients: the QKV and fc1 inputs (whole) and the fc2 input
         * (inner) take 1 byte instead of 2. */
        whole -= 2.0 * sbh;
        split -= moe ? model_moe_fp8_saved_bytes_saving(s, seq * b) : seq * b * f;
        /* The output projection saves its FP8 input: a fused attention
         * kernel keeps its 16-bit output besides (its backward reads it), so
         * that is one byte more; otherwise the 16-bit copy is not kept. */
        split += (s->training.flash_attention ? 1.0 : -1.0) * seq * b * w.out;
    }
    return ((sp ? whole / t : whole) + (split + scores) / t) * scale;
}

/* torchtitan's per-op selective checkpointing (y2026;
 * torchtitan/distributed/activation_checkpoint.py, selective_ac_option
 * "op"): of each layer only the outputs of the saved ops stay, the
 * attention kernel's output and every other matrix multiply's, besides the
 * layer's input; everything else is recomputed in the backward pass. Half
 * of the linear outputs are taken as saved. Bytes per layer, micro-batch. */
double model_op_checkpoint_bytes(const struct ctx *c, bool moe)
{
    const struct setup *s = c->s;
    double t = c->tp, tokens = (double)s->model.seq_len / c->cp * c->mb, h = s->model.hidden;
    double q_dim, kv_dim;
    model_attention_dims(s, &q_dim, &kv_dim);
    double up = s->model.mlp == MLP_SWIGLU ? 2.0 : 1.0;
    double mm = q_dim + 2.0 * kv_dim + h;
    if (moe) {
        double fe = setup_expert_ffn_hidden(s);
        double routed = s->model.top_k * maxd(1.0, s->training.capacity_factor);
        mm += (routed + s->model.shared_experts) * (up * fe + h);
    } else {
        mm += up * setup_ffn_hidden(s) + h;
    }
    double whole = s->training.sequence_parallel ? h / t : h;
    return tokens * (whole + (q_dim + 0.5 * mm) / t) * c->act_bytes;
}

/* Model states of one stage on one device. The software entry says what a
 * parameter costs in mixed precision before sharding (Megatron-Core: bf16
 * weight 2, fp32 main gradient 4, fp32 master 4, Adam 8 = 18 bytes; ZeRO
 * paper: 16); ZeRO stage 1 (the distributed optimizer) shards the master
 * copy and optimizer state, stage 2 also the gradients, stage 3 also the
 * weights (Rajbhandari et al. 2020) over the data-parallel group (x CP,
 * whose ranks hold the same weights); expert parameters over the
 * expert-data-parallel group, DP x CP / EP. FP8 recipes that cache FP8
 * weight copies (Transformer Engine keeps the weight and its transpose) add
 * fp8_weight_bytes. */
struct states {
    double params, grads, optim, experts;
};

static void stage_states(const struct ctx *c, const struct stage *st, struct states *o)
{
    const struct setup *s = c->s;
    int zero = s->training.zero_stage;
    /* Expert states shard over the expert-data-parallel group: what is left
     * of tp x cp x dp after etp x ep (MoE parallel folding). */
    double nd = (double)c->dp * c->cp, ne = maxd(1.0, (double)c->tp * nd / (c->etp * c->ep));
    double pd = st->params.dense, pe = st->params.experts;
    /* The embedding and output layer stay 16-bit; linear weights as the
     * stack stores them (model_precision.c). */
    double w = model_linear_weight_bytes(c);
    double wd = (pd - st->embedding) * w + st->embedding * c->w_bytes;
    double params_d = wd / (zero >= 3 ? nd : 1.0), params_e = pe * w / (zero >= 3 ? ne : 1.0);
    double grads_d = pd * c->grad_bytes / (zero >= 2 ? nd : 1.0);
    double grads_e = pe * c->grad_bytes / (zero >= 2 ? ne : 1.0);
    double optim_d = pd * c->opt_bytes / (zero >= 1 ? nd : 1.0);
    double optim_e = pe * c->opt_bytes / (zero >= 1 ? ne : 1.0);
    if (c->lora) {
        /* LoRA: frozen base weights have no gradient, master or optimizer
         * state; the adapters carry them (model_lora.c). */
        double adapters = model_lora_stage_params(c, st);
        params_d += adapters * c->w_bytes / (zero >= 3 ? nd : 1.0);
        grads_d = adapters * c->grad_bytes / (zero >= 2 ? nd : 1.0);
        optim_d = adapters * c->opt_bytes / (zero >= 1 ? nd : 1.0);
        grads_e = optim_e = 0.0;
    }
    o->params = params_d + params_e;
    o->grads = grads_d + grads_e;
    o->optim = optim_d + optim_e;
    o->experts = params_e + grads_e + optim_e;
    if (zero >= 3 && st->layers > 0) {
        /* ZeRO-3/FSDP gathers one layer at a time and prefetches the next:
         * two layers' weights are whole at once. */
        o->params +=
            model_zero3_buffer_bytes(c, (pd + pe * c->ep * c->etp / c->tp) / (double)st->layers);
    }
}

/* Activations of a stage. 1F1B keeps min(p - i, m) micro-batches in flight
 * on stage i (Narayanan et al. 2021). The interleaved schedule with v chunks
 * runs 2(p - i - 1) + (v - 1) p warm-up chunk forwards before the first
 * backward, at most all m v chunks (Megatron-Core
 * get_num_warmup_microbatches), so stage i holds that many plus one chunks
 * of L_i / v layers; for the first stage this is Korthikanti et al.'s
 * (1 + (p-1)/(p v)) x p micro-batches (2022, section 4.2.3). */
double model_inflight(int64_t p, int v, int64_t m, int stage)
{
    double in_flight = mind((double)(p - stage), (double)m); /* micro-batches of L_i layers */
    if (v > 1) {
        double warmup = 2.0 * (double)(p - stage - 1) + (v - 1.0) * (double)p;
        in_flight = mind(warmup + 1.0, (double)m * v) / v;
    }
    return in_flight;
}

/* The activations of a stage: `stored`, what the in-flight micro-batches
 * keep for their backward; `rebuilt`, the one layer recomputation rebuilds
 * in full for its backward; `logits`, what the loss holds on the last
 * stage. Each lives in its own phase of the step (model_memory_model). */
struct stage_acts {
    double stored, rebuilt, logits, host;
};

static void stage_activations(const struct ctx *c, const struct stage *st, struct stage_acts *o)
{
    *o = (struct stage_acts){0};
    const struct setup *s = c->s;
    if (s->model.kind == MODEL_GENERIC) {
        o->stored = s->model.activation_bytes_per_sample * c->mb;
        return;
    }
    int rc = s->training.recompute;
    double inflight = model_inflight(c->pp, s->training.virtual_stages, c->m, st->index);
    int dense = st->layers - st->moe_layers;
    double per_mb = dense * c->act_dense + st->moe_layers * c->act_moe;
    if (st->last && s->model.mtp_layers > 0) /* multi-token prediction layers */
        per_mb += s->model.mtp_layers * (s->model.experts > 0 ? c->act_moe : c->act_dense);
    o->stored = per_mb * inflight - model_offload_device_saving(c, st, inflight);
    o->host = model_offload_host_bytes(c, st, inflight);
    if (rc == RECOMPUTE_FULL || rc == RECOMPUTE_OP) {
        /* The layer being recomputed, whole, less what it already stores:
         * its saved input (and, per-op, its saved outputs) are the tensors
         * the rebuilt layer reads, not copies of them. */
        bool moe = st->moe_layers > 0;
        double full = moe ? c->act_full_moe : c->act_full_dense;
        double kept = moe ? c->act_moe : c->act_dense;
        o->rebuilt = full > kept ? full - kept : 0.0;
    }
    if (st->last) {
        /* Logits: per token and vocabulary entry, the software's bytes held
         * at the loss (a fused vocabulary-parallel cross entropy: the
         * 16-bit output plus an fp32 copy; eager PyTorch more), 2 more per
         * logit in fp32 training; once more per MTP module. */
        o->logits = (double)s->model.seq_len / c->cp * c->mb * s->model.vocab / c->tp *
                    (c->r->software->loss_logit_bytes + c->act_bytes - 2.0) *
                    (1.0 + s->model.mtp_layers);
    }
}

_Static_assert((int)MODEL_SPLIT_STAGES == (int)MODEL_STAGE_CANDIDATES, "one split, two names");

/* The stages the memory weighs: from the caller's split, or made now. */
static int split_stages(const struct ctx *c, struct stage st[MODEL_STAGE_CANDIDATES])
{
    if (c->split) {
        int n = c->split->n;
        for (int i = 0; i < n; i++) {
            const struct model_split_stage *p = &c->split->stage[i];
            st[i] = (struct stage){
                p->index, p->first_layer,         p->layers,   p->moe_layers, p->first,
                p->last,  {p->dense, p->experts}, p->embedding};
        }
        return n;
    }
    if (c->s->model.kind != MODEL_GENERIC)
        return model_candidate_stages(c, st);
    model_make_stage(c, 0, 0, &st[0]);
    return 1;
}

void model_split_of(const struct setup *s, const struct resolved *r, struct model_split *out)
{
    struct ctx c;
    model_make_ctx(s, r, &c);
    struct stage st[MODEL_STAGE_CANDIDATES];
    memset(out, 0, sizeof *out);
    out->n = split_stages(&c, st);
    for (int i = 0; i < out->n; i++)
        out->stage[i] = (struct model_split_stage){
            st[i].index, st[i].first_layer,  st[i].layers,         st[i].moe_layers, st[i].first,
            st[i].last,  st[i].params.dense, st[i].params.experts, st[i].embedding};
}

/* The phases of a stage's step (docs/MODEL.md, section 4). The model states
 * live throughout. At the end of a micro-batch's forward pass the stored
 * activations of every micro-batch in flight and the loss's logits are
 * live; the logits and their gradient die in the output layer's backward,
 * before the first layer (the last one) is rebuilt, so the backward phase
 * holds the stored activations and the rebuilt layer instead (PyTorch's
 * autograd frees a node's saved tensors once its backward has run;
 * Megatron-Core's and torch.utils.checkpoint's recomputation rebuilds one
 * layer inside its own backward; XLA's buffer assignment gives buffers of
 * disjoint lifetimes the same memory). The optimizer step holds the states
 * alone: the fused Adam kernels of these stacks update in place. */
struct stage_phases {
    struct states st;
    struct stage_acts acts;
    double phase[MEMORY_PHASES];
};

static void stage_phases(const struct ctx *c, const struct stage *stage, struct stage_phases *o)
{
    stage_states(c, stage, &o->st);
    stage_activations(c, stage, &o->acts);
    double states = o->st.params + o->st.grads + o->st.optim;
    o->phase[MEMORY_PHASE_FORWARD_END] = states + o->acts.stored + o->acts.logits;
    o->phase[MEMORY_PHASE_BACKWARD_LAST] = states + o->acts.stored + o->acts.rebuilt;
    o->phase[MEMORY_PHASE_OPTIMIZER] = states;
}

int model_memory_phases(const struct ctx *c, int stage_index, double phase[MEMORY_PHASES])
{
    struct stage stages[MODEL_STAGE_CANDIDATES];
    int n = split_stages(c, stages);
    for (int p = 0; p < MEMORY_PHASES; p++)
        phase[p] = 0.0;
    if (stage_index < 0 || stage_index >= n)
        return n;
    struct stage_phases o;
    stage_phases(c, &stages[stage_index], &o);
    for (int p = 0; p < MEMORY_PHASES; p++)
        phase[p] = o.phase[p];
    return n;
}

/* The peak of the step: over the stages, the largest phase (never the sum
 * of what the phases hold). The report breaks the peak phase down. */
void model_memory_model(const struct ctx *c, struct memory_report *m)
{
    const struct software *sw = c->r->software;
    struct stage stages[MODEL_STAGE_CANDIDATES];
    int n = split_stages(c, stages);
    double best = -1.0;
    for (int i = 0; i < n; i++) {
        struct stage_phases o;
        stage_phases(c, &stages[i], &o);
        int peak = MEMORY_PHASE_FORWARD_END;
        for (int p = 0; p < MEMORY_PHASES; p++)
            if (o.phase[p] > o.phase[peak])
                peak = p;
        double used = o.phase[peak];
        /* The caching allocator's reserve and fragmentation (PyTorch
         * stacks); XLA's static buffer assignment has no fragmentation (the
         * software entry's fraction is 0 there). */
        double reserved = sw->runtime_reserved_gb * GB + sw->fragmentation * used;
        if (used + reserved <= best)
            continue;
        best = used + reserved;
        m->params_gb = o.st.params / GB;
        m->grads_gb = o.st.grads / GB;
        m->optimizer_gb = o.st.optim / GB;
        m->experts_gb = o.st.experts / GB;
        m->activations_gb =
            (peak == MEMORY_PHASE_OPTIMIZER
                 ? 0.0
                 : o.acts.stored + (peak == MEMORY_PHASE_BACKWARD_LAST ? o.acts.rebuilt : 0.0)) /
            GB;
        m->logits_gb = (peak == MEMORY_PHASE_FORWARD_END ? o.acts.logits : 0.0) / GB;
        m->host_offload_gb = o.acts.host / GB;
        m->reserved_gb = reserved / GB;
        m->per_device_gb = (used + reserved) / GB;
    }
    m->capacity_gb = c->r->accel->mem_gb;
    m->fits = m->per_device_gb <= m->capacity_gb;
}

/* ---- memory alone (the planner's cheap first check) ------------------------------- */

void model_memory(const struct setup *s, const struct resolved *r, struct memory_report *out)
{
    struct ctx c;
    model_make_ctx(s, r, &c);
    model_memory_model(&c, out);
}

void model_memory_split(const struct setup *s, const struct resolved *r,
                        const struct model_split *split, struct memory_report *out)
{
    struct ctx c;
    model_make_ctx(s, r, &c);
    c.split = split;
    model_memory_model(&c, out);
}
