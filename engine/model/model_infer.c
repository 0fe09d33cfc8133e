/* model_infer: serving a model, prefill and decode (infer.h). The pieces of
 * the training model are reused where the physics is the same: GEMM times
 * (roofline with waves), link bandwidths, collectives, power. Formulas and
 * sources: docs/MODEL.md, section "Inference". Nothing here allocates. */
#include "infer.h"

#include <stdarg.h>
#include <stdio.h>

#include <stdlib.h>

#include "model_internal.h"

/* What one evaluation shares between prefill and decode. */
struct serve {
    struct setup t; /* the setup with the serving layout in its training fields */
    struct ctx c;
    const struct serving *sw;
    double tp, pp;
    double layers_stage; /* layers of the busiest pipeline stage */
    double moe_share;    /* mixture-of-experts layers over all layers */
    double w_bytes;      /* bytes per served weight */
    double kv_bytes;     /* bytes per cached K or V value */
    double kv_heads_local, heads_local, head_dim;
    double kvpt_device;    /* KV bytes per token on one device (its layers, its heads) */
    double kv_read_factor; /* decode KV reads over the cache's size (1 with GQA sharing) */
    double launch_s;       /* cost of one kernel in this pass */
};

/* The KV pool of one replica. */
struct kv_room {
    double free_bytes; /* device memory the KV cache may take */
    double tokens;     /* per replica, whole blocks */
    double seq_tokens; /* one full-length sequence, whole blocks */
    int max_batch;
};
#include "report_fields.h"

/* Distinct experts of one layer that `tokens` tokens reach, each choosing
 * top_k of E experts uniformly: E (1 - (1 - k/E)^tokens) (the expected
 * number of occupied bins; routing balanced by the auxiliary loss). */
static double experts_touched(const struct setup *s, double tokens)
{
    double e = s->model.experts, k = s->model.top_k;
    if (e <= 0 || k <= 0)
        return 0.0;
    double miss = 1.0 - mind(k, e) / e;
    return e * (1.0 - pow(miss, tokens));
}

static void serve_init(const struct setup *s, const struct resolved *r, struct serve *v)
{
    memset(v, 0, sizeof *v);
    v->t = *s;
    struct setup *t = &v->t;
    const struct accelerator *a = r->accel;
    int wfmt = setup_infer_format(s, a, SETUP_INFER_WEIGHTS);
    int kfmt = setup_infer_format(s, a, SETUP_INFER_KV);
    t->training.tensor_parallel = s->inference.tensor_parallel;
    t->training.pipeline_parallel = s->inference.pipeline_parallel;
    t->training.context_parallel = 1;
    t->training.expert_parallel = 1;
    t->training.virtual_stages = 1;
    t->training.micro_batch = 1;
    t->training.recompute = RECOMPUTE_NONE;
    /* Weight-only int8 runs its math in the device's 16-bit format. */
    t->inference.weight_precision = INFER_AUTO;
    t->training.precision =
        wfmt == TRAIN_INT8 ? setup_infer_format(t, a, SETUP_INFER_WEIGHTS) : wfmt;
    model_make_ctx(t, r, &v->c);
    v->sw = r->serving;
    v->tp = at_least_one(s->inference.tensor_parallel);
    v->pp = at_least_one(s->inference.pipeline_parallel);
    v->layers_stage = ceil((double)s->model.layers / v->pp);
    v->moe_share = s->model.experts > 0 && s->model.layers > 0
                       ? (double)model_moe_layers_in(s, 0, s->model.layers) / s->model.layers
                       : 0.0;
    v->w_bytes = setup_infer_format_bytes(wfmt);
    v->kv_bytes = setup_infer_format_bytes(kfmt);
    v->c.gemm_in_bytes = v->w_bytes;
    v->head_dim = setup_head_dim(s);
    v->heads_local = s->model.heads / v->tp;
    /* Fewer KV heads than tensor ranks: each rank keeps a copy of one. */
    v->kv_heads_local = mind(setup_kv_heads(s), maxd(1.0, ceil(setup_kv_heads(s) / v->tp)));
    v->kvpt_device = 2.0 * v->layers_stage * v->kv_heads_local * v->head_dim * v->kv_bytes;
    if (s->model.kv_lora_rank > 0) {
        /* Multi-head latent attention caches one compressed latent and the
         * shared rotary key per token and layer (DeepSeek-V2, section
         * 2.1.3: (d_c + d_h^R) x l elements), whole on every tensor rank
         * (the latent is not split over heads). */
        v->kvpt_device =
            v->layers_stage * (s->model.kv_lora_rank + s->model.qk_rope_head_dim) * v->kv_bytes;
        v->kv_heads_local = 1.0;
    }
    /* A decode kernel that does not share a KV head's loads among the query
     * heads of its group reads the cache once per query head (TensorRT-LLM
     * before its XQA kernel, v0.8). */
    v->kv_read_factor = v->sw->gqa_kv_shared || s->model.kv_lora_rank > 0
                            ? 1.0
                            : maxd(1.0, v->heads_local / v->kv_heads_local);
}

/* One all-reduce of `bytes` over the tensor ranks. Inside one scale-up
 * domain the engines' one-shot all-reduce reads every peer's buffer over
 * the fabric after a fixed start-up; NCCL's ring serves larger messages
 * and groups that leave the domain (model_tp_allreduce_time). */
static double tp_allreduce(const struct serve *v, double bytes)
{
    if (v->tp <= 1)
        return 0.0;
    double ring = model_tp_allreduce_time(&v->c, bytes);
    if (v->tp > v->c.domain)
        return ring;
    double bw = model_link_bw(v->c.r->intra_link) * 1e9;
    double one_shot =
        v->sw->allreduce_latency_us * 1e-6 + model_time_for(bytes * (v->tp - 1.0), bw);
    return mind(ring, one_shot);
}

/* The GEMMs of one layer for `tokens` tokens on one device. */
static double layer_gemms(const struct serve *v, double tokens, bool moe)
{
    const struct setup *s = &v->t;
    const struct ctx *c = &v->c;
    double h = s->model.hidden, q_dim, kv_dim;
    model_attention_dims(s, &q_dim, &kv_dim);
    double mats = s->model.mlp == MLP_SWIGLU ? 3.0 : 2.0;
    double t = model_gemm_time(c, 1, tokens, (q_dim + 2.0 * kv_dim) / v->tp, h) +
               model_gemm_time(c, 1, tokens, h, q_dim / v->tp);
    if (!moe) {
        double f = setup_ffn_hidden(s) / v->tp;
        return t + model_gemm_time(c, 1, tokens, (mats - 1.0) * f, h) +
               model_gemm_time(c, 1, tokens, h, f);
    }
    double fe = setup_expert_ffn_hidden(s) / v->tp;
    double touched = maxd(1.0, experts_touched(s, tokens));
    double per_expert = tokens * mind(s->model.top_k, s->model.experts) / touched;
    t += model_gemm_time(c, 1, tokens, s->model.experts, h); /* router */
    t += model_gemm_time(c, touched, per_expert, (mats - 1.0) * fe, h) +
         model_gemm_time(c, touched, per_expert, h, fe);
    if (s->model.shared_experts > 0) {
        double fs = s->model.shared_experts * fe;
        t += model_gemm_time(c, 1, tokens, (mats - 1.0) * fs, h) +
             model_gemm_time(c, 1, tokens, h, fs);
    }
    return t;
}

/* The output layer for `rows` tokens (the last token of each sequence): a
 * 16-bit GEMM, as the served checkpoints keep it (FP8 and FP4 checkpoints
 * leave the output layer unquantized). */
static double output_layer(const struct serve *v, double rows)
{
    struct ctx c = v->c;
    c.gemm_in_bytes = 2.0;
    c.peak_flops = c.vector_peak_flops;
    return model_gemm_time(&c, 1, rows, v->t.model.vocab / v->tp, v->t.model.hidden);
}

/* Norms, residual adds, rotary embedding and the MLP activation of one
 * layer: fused add+RMSNorm reads the input and residual and writes both
 * (4h values, twice per layer); the activation reads gate and up and
 * writes their product (3 x inner / tp). 16-bit values. */
static double layer_other(const struct serve *v, double tokens)
{
    const struct setup *s = &v->t;
    double inner = s->model.experts > 0 ? setup_expert_ffn_hidden(s) * s->model.top_k
                                        : (double)setup_ffn_hidden(s);
    double values = tokens * (8.0 * s->model.hidden + 3.0 * inner / v->tp);
    return model_time_for(values * 2.0, v->c.mem_bw);
}

/* Kernels of one layer that are not its weight GEMMs (counted with them by
 * model_gemm_time): the engine's kernel count less four GEMMs. */
static double layer_kernels(const struct serve *v)
{
    double extra = v->sw->kernels_per_layer - 4.0;
    return maxd(0.0, extra) * v->launch_s;
}

static double stage_p2p(const struct serve *v, double tokens)
{
    if (v->pp <= 1)
        return 0.0;
    const struct link *l = v->c.nodes > 1 && v->c.r->nic ? v->c.r->nic : v->c.r->intra_link;
    double bytes = tokens * v->t.model.hidden * 2.0;
    return (v->pp - 1.0) * (l->latency_us * 1e-6 + model_time_for(bytes, model_link_bw(l) * 1e9));
}

/* Sum of every layer's part for `tokens` tokens on the busiest stage's
 * devices, times the stages a token passes (pipeline stages run one after
 * another for the same tokens). */
static void layers_pass(const struct serve *v, double tokens, struct infer_breakdown *b)
{
    double layers = v->layers_stage * v->pp;
    double moe = v->moe_share, dense = 1.0 - v->moe_share;
    double gemm = dense * layer_gemms(v, tokens, false);
    if (moe > 0)
        gemm += moe * layer_gemms(v, tokens, true);
    b->gemm = layers * gemm;
    b->other = layers * layer_other(v, tokens);
    b->kernels = layers * layer_kernels(v);
    b->tp_comm = layers * 2.0 * tp_allreduce(v, tokens * v->t.model.hidden * 2.0);
    b->pp_p2p = stage_p2p(v, tokens);
    b->host = v->sw->step_overhead_us * 1e-6;
}

static double pass_total(const struct infer_breakdown *b)
{
    return b->gemm + b->attention + b->other + b->kernels + b->tp_comm + b->pp_p2p + b->host;
}

/* Prefill of `seqs` prompts of `prompt` tokens: causal fused attention
 * (FlashAttention: the masked half of the score matrix is skipped, 4 FLOPs
 * per query-key pair and head dimension for QK^T and attention x V) in 16
 * bits at the engine's attention efficiency, and the KV cache written. */
static void prefill_pass(const struct serve *v, double seqs, double prompt,
                         struct infer_breakdown *b)
{
    const struct ctx *c = &v->c;
    double tokens = seqs * prompt;
    layers_pass(v, tokens, b);
    double pairs = seqs * prompt * (prompt + 1.0) / 2.0;
    double flops = 4.0 * pairs * v->heads_local * v->head_dim;
    double rate = c->vector_peak_flops * c->gemm_eff * v->sw->attention_efficiency;
    double kv_write = tokens * v->kvpt_device / v->layers_stage;
    double per_layer = maxd(model_time_for(flops, rate), model_time_for(kv_write, c->mem_bw));
    b->attention = v->layers_stage * v->pp * (per_layer + c->kernel_s);
    b->gemm += output_layer(v, seqs);
}

/* One decode step of `seqs` sequences holding `context` tokens each on
 * average: one new token each, every weight read once, every cached K and V
 * read once (memory-bound at small batch). */
static void decode_pass(const struct serve *v, double seqs, double context,
                        struct infer_breakdown *b)
{
    const struct ctx *c = &v->c;
    layers_pass(v, seqs, b);
    double kv_read = seqs * context * v->kvpt_device / v->layers_stage * v->kv_read_factor;
    double flops = 4.0 * seqs * context * v->heads_local * v->head_dim;
    double per_layer = maxd(model_time_for(flops, c->vector_peak_flops * c->gemm_eff),
                            model_time_for(kv_read, c->mem_bw));
    b->attention = v->layers_stage * v->pp * (per_layer + v->launch_s);
    b->gemm += output_layer(v, seqs);
}

static double serve_step_time(const struct serve *v, const struct serve_step *st)
{
    const struct ctx *c = &v->c;
    struct infer_breakdown b;
    double tokens = st->decode_seqs + st->prefill_tokens;
    if (!(tokens > 0))
        return 0.0;
    layers_pass(v, tokens, &b);
    double per_token_kv = v->kvpt_device / v->layers_stage;
    double kv_bytes = (st->decode_context * v->kv_read_factor + st->prefill_tokens) * per_token_kv;
    double pairs = st->decode_context + st->prefill_pairs;
    double flops = 4.0 * pairs * v->heads_local * v->head_dim;
    double rate = c->vector_peak_flops * c->gemm_eff *
                  (st->prefill_tokens > 0 ? v->sw->attention_efficiency : 1.0);
    double per_layer = maxd(model_time_for(flops, rate), model_time_for(kv_bytes, c->mem_bw));
    b.attention = v->layers_stage * v->pp * (per_layer + v->launch_s);
    b.gemm += output_layer(v, st->rows);
    return pass_total(&b);
}

/* ---- memory: weights, workspace, KV cache ------------------------------------ */

/* Weights on one device: the busiest stage's layers split over the tensor
 * ranks in the served format, and the embedding and output layer in 16
 * bits (first and last stage; both on one device when pp = 1). */
static double serve_weight_bytes(const struct serve *v)
{
    const struct setup *s = &v->t;
    double embed = (double)s->model.vocab * s->model.hidden;
    double body = model_params(s) - model_embedding_copies(s) * embed;
    double ends = (v->pp > 1 ? 1.0 : model_embedding_copies(s)) * embed * 2.0;
    return (body / v->pp * v->w_bytes + ends) / v->tp;
}

/* The prefill chunk's activations at their widest point (the MLP inner
 * activations and the residual stream, 16 bits), and the 32-bit logits of
 * the rows sampled. The engines size this workspace by profiling a run at
 * the chunk size (vLLM's profile run). */
static double serve_workspace_bytes(const struct serve *v, double seqs)
{
    const struct setup *s = &v->t;
    double chunk = v->sw->prefill_chunk_tokens;
    double inner = s->model.experts > 0 ? setup_expert_ffn_hidden(s) * s->model.top_k
                                        : (double)setup_ffn_hidden(s);
    double widest = chunk * (4.0 * s->model.hidden + 3.0 * inner / v->tp) * 2.0;
    return widest + seqs * (s->model.vocab / v->tp) * 4.0;
}

static void serve_kv_room(const struct serve *v, double weights, double workspace,
                          struct kv_room *k)
{
    const struct serving *sw = v->sw;
    double cap = v->c.r->accel->mem_gb * 1e9;
    double used = weights + workspace + sw->runtime_reserved_gb * 1e9;
    k->free_bytes = sw->memory_of_free ? (cap - used) * sw->memory_utilization
                                       : cap * sw->memory_utilization - used;
    double block = sw->kv_block_tokens;
    double blocks = k->free_bytes > 0 ? floor(k->free_bytes / (v->kvpt_device * block)) : 0.0;
    k->tokens = blocks * block;
    const struct setup *s = &v->t;
    k->seq_tokens =
        ceil((double)(s->inference.prompt_tokens + s->inference.output_tokens) / block) * block;
    double n = floor(k->tokens / k->seq_tokens);
    k->max_batch = n > INT_MAX ? INT_MAX : (int)n;
}

/* ---- verdicts ------------------------------------------------------------------ */

static void cannot_serve(struct infer_report *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void cannot_serve(struct infer_report *o, const char *fmt, ...)
{
    if (!o->runnable)
        return; /* the first reason stands */
    o->runnable = false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->why_not, sizeof o->why_not, fmt, ap);
    va_end(ap);
}

/* The part of a pass that sets its pace, as a stage and a sentence. */
static int pass_verdict(const struct infer_breakdown *b, double total, const char *device_says,
                        char *reason, size_t len)
{
    double device = b->gemm + b->attention + b->other + b->kernels;
    double net = b->tp_comm + b->pp_p2p;
    if (net > device && net >= b->host) {
        snprintf(reason, len,
                 "tensor-parallel all-reduces and stage hand-offs take %.0f%% of the pass "
                 "(small messages: latency-bound)",
                 100.0 * ratio(net, total));
        return STAGE_INTERCONNECT;
    }
    if (b->host > device) {
        snprintf(reason, len, "the engine's host work (%.2f ms a step) is %.0f%% of the pass",
                 b->host * 1e3, 100.0 * ratio(b->host, total));
        return STAGE_CPUS;
    }
    snprintf(reason, len, "%s", device_says);
    return STAGE_ACCELERATORS;
}

/* Batch where one decode step's math time reaches its memory time: the
 * weights W are read once per step whatever the batch, while each sequence
 * adds m FLOPs and k bytes of KV cache: B* = (W / BW) / (m / F - k / BW).
 * 0 when each sequence adds more memory time than math time (never). */
static double crossover_batch(const struct serve *v, double weights_read, double context,
                              double active_body)
{
    const struct ctx *c = &v->c;
    double math_rate = c->peak_flops * c->gemm_eff;
    double m = 2.0 * active_body / v->tp +
               4.0 * context * v->heads_local * v->head_dim * v->layers_stage * v->pp;
    double k = context * v->kvpt_device * v->pp * v->kv_read_factor;
    double per_seq = ratio(m, math_rate) - ratio(k, c->mem_bw);
    if (!(per_seq > 0))
        return 0.0;
    return ratio(ratio(weights_read * v->pp, c->mem_bw), per_seq);
}

static void decode_verdict(struct infer_report *o)
{
    char says[256];
    if (o->decode_crossover_batch > 0 && o->batch >= o->decode_crossover_batch)
        snprintf(says, sizeof says,
                 "compute-bound: %d sequences a step is past the %.0f where the math outgrows "
                 "the weight reads",
                 o->batch, o->decode_crossover_batch);
    else if (o->decode_crossover_batch > 0)
        snprintf(says, sizeof says,
                 "memory-bound: each step reads %.1f GB of weights and %.1f GB of KV cache per "
                 "device at %.0f GB/s; compute-bound from about %.0f sequences",
                 o->decode_weight_gb, o->decode_kv_gb, o->decode_mem_bw_gbs,
                 o->decode_crossover_batch);
    else
        snprintf(says, sizeof says,
                 "memory-bound: each step reads %.1f GB of weights and %.1f GB of KV cache per "
                 "device at %.0f GB/s; a larger batch never turns it compute-bound (each "
                 "sequence's KV reads outgrow its math)",
                 o->decode_weight_gb, o->decode_kv_gb, o->decode_mem_bw_gbs);
    o->decode_bottleneck =
        pass_verdict(&o->decode, o->tpot_s, says, o->decode_reason, sizeof o->decode_reason);
}

/* ---- the whole report ---------------------------------------------------------- */

static void echo_layout(const struct serve *v, const struct setup *s, struct infer_report *o)
{
    const struct accelerator *a = v->c.r->accel;
    o->tp = report_int((int64_t)v->tp);
    o->pp = report_int((int64_t)v->pp);
    o->devices = report_int(v->c.devices);
    o->replicas = report_int(v->c.devices / ((int64_t)v->tp * (int64_t)v->pp));
    o->params = model_params(s);
    o->params_active = model_params_active(s);
    static const char *const names[TRAIN_PRECISION_COUNT] = {
        [TRAIN_FP32] = "fp32", [TRAIN_BF16] = "bf16", [TRAIN_FP16] = "fp16",
        [TRAIN_FP8] = "fp8",   [TRAIN_INT8] = "int8", [TRAIN_NVFP4] = "fp4",
    };
    const char *w = names[setup_infer_format(s, a, SETUP_INFER_WEIGHTS)];
    const char *k = names[setup_infer_format(s, a, SETUP_INFER_KV)];
    copy_text(o->weight_precision, sizeof o->weight_precision, w ? w : "");
    copy_text(o->kv_precision, sizeof o->kv_precision, k ? k : "");
    copy_text(o->software, sizeof o->software, v->sw->head.id);
    o->capacity_gb = a->mem_gb;
    o->kv_bytes_per_token =
        s->model.kv_lora_rank > 0
            ? (double)s->model.layers * (s->model.kv_lora_rank + s->model.qk_rope_head_dim) *
                  v->kv_bytes
            : 2.0 * s->model.layers * setup_kv_heads(s) * v->head_dim * v->kv_bytes;
    o->decode_mem_bw_gbs = v->c.mem_bw / 1e9;
}

/* Memory per device and the batch evaluated; false when nothing can be
 * served (the reason is in o). */
static bool fit_memory(const struct serve *v, const struct setup *s, struct infer_report *o)
{
    double rows = s->inference.batch > 0 ? s->inference.batch : v->sw->max_batch;
    double weights = serve_weight_bytes(v);
    double workspace = serve_workspace_bytes(v, mind(rows, v->sw->prefill_chunk_tokens));
    struct kv_room k;
    serve_kv_room(v, weights, workspace, &k);
    o->weights_gb_per_device = weights / 1e9;
    o->activations_gb_per_device = workspace / 1e9;
    o->reserved_gb_per_device = v->sw->runtime_reserved_gb;
    o->kv_capacity_tokens = k.tokens;
    o->max_batch = k.max_batch;
    o->batch = s->inference.batch > 0
                   ? (int)s->inference.batch
                   : (k.max_batch < v->sw->max_batch ? k.max_batch : v->sw->max_batch);
    o->kv_cache_gb_per_device = o->batch * k.seq_tokens * v->kvpt_device / 1e9;
    o->per_device_gb = o->weights_gb_per_device + o->activations_gb_per_device +
                       o->reserved_gb_per_device + o->kv_cache_gb_per_device;
    if (k.free_bytes <= 0) {
        cannot_serve(o,
                     "weights (%.1f GB), workspace and runtime need more than the %.0f%% of %.0f "
                     "GB the engine takes per device: more tensor or pipeline ranks, or a "
                     "smaller weight format",
                     o->weights_gb_per_device, 100.0 * v->sw->memory_utilization, o->capacity_gb);
        return false;
    }
    if (k.max_batch < 1) {
        cannot_serve(o,
                     "one sequence of %.0f tokens needs %.2f GB of KV cache per device; %.2f GB "
                     "is left: shorter sequences, more ranks or an 8-bit KV cache",
                     k.seq_tokens, k.seq_tokens * v->kvpt_device / 1e9, k.free_bytes / 1e9);
        return false;
    }
    if (o->batch > k.max_batch)
        cannot_serve(o,
                     "batch %d needs %.1f GB of KV cache per device; %.1f GB holds %d full-length "
                     "sequences (batch: auto takes what fits)",
                     o->batch, o->kv_cache_gb_per_device, k.free_bytes / 1e9, k.max_batch);
    return true;
}

static void power_and_cost(struct serve *v, const struct setup *s, struct infer_report *o)
{
    /* No device runs below its lowest clock (docs/MODEL.md, section 6). */
    if (v->c.power_floored)
        cannot_serve(o,
                     "a power limit of %.0f W would hold %s's clocks below its minimum sustained "
                     "clock, %.1f%% of rated: raise power_limit_w",
                     model_power_limit_w(s, v->c.r->accel), v->c.r->accel->head.id,
                     100.0 * v->c.min_clock_share);
    const struct infer_breakdown *b = &o->decode;
    double active = ratio(b->gemm + b->attention + b->other, o->tpot_s);
    double compute =
        o->decode_crossover_batch > 0 ? mind(1.0, o->batch / o->decode_crossover_batch) : 0.0;
    /* Memory-bound kernels keep the clocks up at about half the dynamic
     * power, as waiting devices do in the training model; compute-bound
     * ones draw all of it. */
    double busy = mind(1.0, 0.5 + 0.5 * active * compute);
    const struct cpu *cpu = v->c.r->cpu;
    double cores = maxd(1.0, (double)cpu->cores * s->cluster.node.cpu_sockets);
    double engines = maxd(1.0, (double)v->c.per_node / (v->tp * v->pp));
    struct power_report pw;
    memset(&pw, 0, sizeof pw);
    model_power(&v->c, busy, mind(1.0, engines / cores), &pw);
    o->device_w = pw.device_w;
    o->it_kw = pw.it_kw;
    o->facility_kw = pw.facility_kw;
    double price = s->facility.device_usd_per_hour >= 0 ? s->facility.device_usd_per_hour
                                                        : v->c.r->accel->usd_per_hour;
    o->usd_per_hour =
        (double)v->c.devices * price + o->facility_kw * s->facility.electricity_usd_per_kwh;
    if (o->runnable && o->output_tokens_per_s > 0) {
        o->usd_per_mtok = o->usd_per_hour / (o->output_tokens_per_s * 3600.0) * 1e6;
        o->joules_per_token = o->facility_kw * 1000.0 / o->output_tokens_per_s;
    }
}

static void serve_passes(struct serve *v, const struct setup *s, struct infer_report *o)
{
    const struct accelerator *a = v->c.r->accel;
    double prompt = s->inference.prompt_tokens, out = s->inference.output_tokens;
    double batch = o->batch;
    v->c.kernel_s = v->launch_s = a->kernel_overhead_us * 1e-6;
    prefill_pass(v, 1.0, prompt, &o->prefill);
    o->ttft_s = pass_total(&o->prefill);
    struct infer_breakdown full;
    prefill_pass(v, batch, prompt, &full);
    double prefill_batch_s = pass_total(&full);
    if (v->sw->cuda_graphs)
        v->c.kernel_s = v->launch_s = v->sw->graph_kernel_us * 1e-6;
    double context = prompt + out / 2.0;
    decode_pass(v, batch, context, &o->decode);
    o->tpot_s = pass_total(&o->decode);
    o->latency_s = o->ttft_s + (out - 1.0) * o->tpot_s;
    double cycle = prefill_batch_s + (out - 1.0) * o->tpot_s;
    o->output_tokens_per_s = ratio(o->replicas * batch * out, cycle);
    o->prefill_tokens_per_s = ratio(o->replicas * batch * prompt, prefill_batch_s);
    o->requests_per_s = ratio(o->replicas * batch, cycle);
    o->decode_kv_gb = batch * context * v->kvpt_device * v->pp * v->kv_read_factor / 1e9;
    /* Weights read by one step, every stage: experts no token reached stay
     * unread. */
    double weights = serve_weight_bytes(v);
    if (s->model.experts > 0) {
        struct layer_params_split m;
        model_layer_params(s, true, &m);
        double unread = 1.0 - experts_touched(s, batch) / s->model.experts;
        double moe_layers = model_moe_layers_in(s, 0, s->model.layers);
        weights -= unread * m.experts * moe_layers / v->pp * v->w_bytes / v->tp;
    }
    o->decode_weight_gb = weights * v->pp / 1e9;
    double embed = model_embedding_copies(s) * s->model.vocab * (double)s->model.hidden;
    o->decode_crossover_batch =
        crossover_batch(v, serve_weight_bytes(v), context, o->params_active - embed);
}

void infer_eval(const struct setup *s, const struct resolved *r, struct infer_report *o)
{
    memset(o, 0, sizeof *o);
    o->runnable = true;
    o->prefill_bottleneck = o->decode_bottleneck = -1;
    if (s->model.kind != MODEL_TRANSFORMER) {
        int64_t tp = at_least_one(s->inference.tensor_parallel);
        int64_t pp = at_least_one(s->inference.pipeline_parallel);
        o->devices = report_int(setup_devices(s));
        o->tp = report_int(tp);
        o->pp = report_int(pp);
        o->replicas = report_int(setup_devices(s) / (tp * pp));
        o->params = o->params_active = model_params(s);
        copy_text(o->software, sizeof o->software, r->serving->head.id);
        cannot_serve(o, "inference is modelled for transformers given by shape; a generic "
                        "model has no layers, heads or KV cache to serve");
        return;
    }
    struct serve v;
    serve_init(s, r, &v);
    echo_layout(&v, s, o);
    if (fit_memory(&v, s, o)) {
        serve_passes(&v, s, o);
        char says[256];
        double flops = 2.0 * o->params_active * s->inference.prompt_tokens / v.tp;
        snprintf(says, sizeof says,
                 "compute-bound: the prompt's GEMMs and attention run at %.0f TFLOP/s per "
                 "device of %.0f peak",
                 ratio(flops, o->ttft_s) / 1e12, v.c.peak_flops / 1e12);
        o->prefill_bottleneck =
            pass_verdict(&o->prefill, o->ttft_s, says, o->prefill_reason, sizeof o->prefill_reason);
        decode_verdict(o);
    }
    power_and_cost(&v, s, o);
    if (!o->runnable) {
        o->ttft_s = o->tpot_s = o->latency_s = 0.0;
        o->output_tokens_per_s = o->prefill_tokens_per_s = o->requests_per_s = 0.0;
        o->usd_per_mtok = o->joules_per_token = 0.0;
        memset(&o->prefill, 0, sizeof o->prefill);
        memset(&o->decode, 0, sizeof o->decode);
    }
    infer_sanitize(o);
}

/* ---- the stepper: engine steps for serving over time (engine/sim/serve.c) ----- */

struct infer_stepper {
    struct serve v;
};

struct infer_stepper *infer_stepper_new(const struct setup *s, const struct resolved *r)
{
    struct infer_stepper *st = malloc(sizeof *st);
    if (!st)
        return NULL;
    serve_init(s, r, &st->v);
    double kernel_us =
        st->v.sw->cuda_graphs ? st->v.sw->graph_kernel_us : r->accel->kernel_overhead_us;
    st->v.c.kernel_s = st->v.launch_s = kernel_us * 1e-6;
    return st;
}

void infer_stepper_free(struct infer_stepper *st)
{
    free(st);
}

double infer_stepper_time(const struct infer_stepper *st, const struct serve_step *step)
{
    return serve_step_time(&st->v, step);
}

void infer_stepper_room(const struct infer_stepper *st, int batch, struct infer_room *room)
{
    const struct serve *v = &st->v;
    struct kv_room k;
    serve_kv_room(v, serve_weight_bytes(v),
                  serve_workspace_bytes(v, mind(batch, v->sw->prefill_chunk_tokens)), &k);
    room->tokens = k.tokens;
    room->seq_tokens = k.seq_tokens;
}
