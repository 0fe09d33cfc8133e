/* setup: one cluster + workload description (the YAML "setup file").
 *
 * Every field is described once in the table returned by setup_fields():
 * its YAML path, type, unit, default, range, help text and whether it is a
 * knob in the TUI. Loading, get/set by path (Lua, TUI knobs, events) and the
 * `mlviz fields` listing all read that table. A setup is a plain struct: copy
 * it with `=`. */
#ifndef MLVIZ_SETUP_H
#define MLVIZ_SETUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "catalog.h"
#include "collective.h"
#include "fields.h"

enum model_kind { MODEL_TRANSFORMER, MODEL_GENERIC };
enum mlp_kind { MLP_GELU, MLP_SWIGLU };
/* Which attention projections carry a bias vector. */
enum attention_bias_kind { ATTN_BIAS_NONE, ATTN_BIAS_QKV, ATTN_BIAS_ALL };
enum optimizer_kind { OPT_ADAM, OPT_SGD, OPT_ADAFACTOR };
/* RECOMPUTE_OP (y2026): torchtitan's per-op selective checkpointing. */
enum recompute_kind { RECOMPUTE_NONE, RECOMPUTE_SELECTIVE, RECOMPUTE_FULL, RECOMPUTE_OP };
enum data_source { DATA_SHARED, DATA_LOCAL };

extern const char *const model_kind_names[];
extern const char *const mlp_names[];
extern const char *const attention_bias_names[];
extern const char *const optimizer_names[];
extern const char *const recompute_names[];

/* Number formats a run can train in. The first six are the catalog's
 * precisions (same order as enum precision); the block-scaled and 4-bit
 * formats of Blackwell-class devices follow. */
enum train_precision {
    TRAIN_FP32,
    TRAIN_TF32,
    TRAIN_BF16,
    TRAIN_FP16,
    TRAIN_FP8,
    TRAIN_INT8,
    TRAIN_FP4,   /* MXFP4 (OCP microscaling) */
    TRAIN_MXFP8, /* FP8 with one shared exponent per 32-element block (OCP MX) */
    TRAIN_NVFP4, /* NVIDIA's FP4 with FP8 scales per 16 elements */
    TRAIN_PRECISION_COUNT
};
extern const char *const train_precision_names[];

/* Number formats of a serving deployment's weights and KV cache. AUTO is
 * the device's 16-bit format (bf16, else fp16). fp4 is NVIDIA's NVFP4
 * (FP8 scale per 16 values); int8 is weight-only 8-bit integers. */
enum infer_precision {
    INFER_AUTO,
    INFER_BF16,
    INFER_FP16,
    INFER_FP8,
    INFER_INT8,
    INFER_FP4,
    INFER_PRECISION_COUNT
};
extern const char *const infer_precision_names[];
/* y2026: precision of the data-parallel gradient reduction, and the MoE
 * token dispatcher. */
enum grad_reduce { GRAD_REDUCE_AUTO, GRAD_REDUCE_FP32, GRAD_REDUCE_BF16 };
enum moe_dispatcher { MOE_DISPATCH_ALLTOALL, MOE_DISPATCH_DEEPEP };
enum fp8_scaling { FP8_SCALING_DELAYED, FP8_SCALING_CURRENT };
extern const char *const fp8_scaling_names[];
extern const char *const grad_reduce_names[];
extern const char *const moe_dispatcher_names[];

struct setup {
    char name[FIELD_STR_LEN];
    struct {
        int nodes;
        struct {
            char accelerator[FIELD_STR_LEN];
            int accelerators_per_node;
            char cpu[FIELD_STR_LEN];
            int cpu_sockets;
            double host_ram_gb;
            char intra_link[FIELD_STR_LEN]; /* empty: the accelerator's own link */
            char host_link[FIELD_STR_LEN];
            char nic[FIELD_STR_LEN];
            int nics_per_node;
            int pcie_switches; /* PCIe switches between the CPUs and the devices/NICs */
            char local_storage[FIELD_STR_LEN];
            double other_w;       /* switches, DRAM, fans, drives: the rest of the node */
            double power_limit_w; /* y2026: per-device power cap (FIELD_AUTO: the TDP) */
        } node;
        int scaleup_domain; /* devices on one intra-link fabric (0: accelerators_per_node) */
        char storage[FIELD_STR_LEN];
        double storage_bw_gbs; /* FIELD_AUTO: from the catalog */
    } cluster;
    struct {
        char cooling[FIELD_STR_LEN];
        double pue; /* FIELD_AUTO: the cooling type's typical PUE */
        int nodes_per_rack;
        double electricity_usd_per_kwh;
        double device_usd_per_hour; /* FIELD_AUTO: the catalog's price */
    } facility;
    struct {
        int kind; /* enum model_kind */
        int layers;
        int hidden;
        int heads;
        int seq_len;
        int vocab;
        int ffn_hidden; /* 0: 4 * hidden */
        int kv_heads;   /* 0: heads */
        int mlp;        /* enum mlp_kind */
        /* Mixture-of-experts (0 experts = dense). */
        int experts;             /* routed experts per MoE layer */
        int top_k;               /* routed experts per token */
        int expert_ffn_hidden;   /* inner size of one expert (0: ffn_hidden) */
        int shared_experts;      /* always-active experts per MoE layer */
        int dense_layers;        /* the first N layers use the dense MLP */
        bool causal;             /* decoder (causal) attention: fused kernels skip masked blocks */
        int head_dim;            /* i11: size of one attention head (0: hidden / heads) */
        bool tied_embeddings;    /* i11: the output layer shares the embedding matrix */
        int mtp_layers;          /* y2026: multi-token prediction modules (DeepSeek-V3) */
        double dropout;          /* y2026: residual and attention dropout probability */
        double params;           /* generic: parameter count */
        double flops_per_sample; /* generic: training FLOPs (fwd + bwd) per sample */
        double bytes_per_flop;   /* generic: device memory traffic per FLOP */
        double activation_bytes_per_sample; /* generic */

        /* Multi-head latent attention (DeepSeek-V2): keys and values come
         * from a compressed latent of kv_lora_rank (0: ordinary attention),
         * queries from one of q_lora_rank (0: straight from the hidden
         * state); qk_rope_head_dim rotary dimensions join each query and key
         * head (head_dim is then the part without rotary embedding) and
         * v_head_dim is the width of one value head (0: head_dim). */
        int kv_lora_rank, q_lora_rank, qk_rope_head_dim, v_head_dim;
        int attention_bias; /* enum attention_bias_kind */
        bool mlp_bias;      /* the MLP's (and experts', router's) projections carry biases */
    } model;
    struct {
        int global_batch;
        int micro_batch;
        int precision; /* enum train_precision */
        int optimizer; /* enum optimizer_kind */
        int tensor_parallel;
        int pipeline_parallel;
        int virtual_stages;     /* interleaved 1F1B: model chunks per pipeline stage */
        int context_parallel;   /* sequence split over CP ranks (ring attention) */
        int expert_parallel;    /* experts sharded over EP ranks carved out of DP x CP */
        double capacity_factor; /* expert capacity / mean load; 0 = dropless */
        int first_stage_layers; /* 0: as even as possible */
        int last_stage_layers;
        int zero_stage;
        int recompute; /* enum recompute_kind */
        bool sequence_parallel;
        bool overlap_grad_sync;
        bool ep_comm_overlap; /* i11: expert all-to-all under another micro-batch */
        bool flash_attention;
        int allreduce; /* enum allreduce_algo (collective.h) */
        double tokens; /* token budget; samples for generic models */
        char software[FIELD_STR_LEN];
        /* y2026: the runs of 2026 (docs/MODEL.md, section 12). */
        int grad_reduce_precision;     /* enum grad_reduce */
        int activation_offload_layers; /* layers whose activations live in host memory */
        int expert_tensor_parallel;    /* expert TP in MoE parallel folding (0: tensor_parallel) */
        int moe_dispatcher;            /* enum moe_dispatcher */
        int lora_rank;                 /* 0: full training; else LoRA adapters of this rank */
        int fp8_scaling;               /* enum fp8_scaling */
        bool account_for_embedding_in_pipeline_split;
        bool account_for_loss_in_pipeline_split;
        bool cuda_graphs; /* issue 21: layers replayed from CUDA graphs (no per-op host time) */
    } training;
    /* Serving the model (mlviz infer): one deployment of tensor_parallel x
     * pipeline_parallel devices per model replica, every replica of the
     * cluster serving the same traffic. */
    struct {
        double batch; /* concurrent sequences per replica; FIELD_AUTO: as many as fit */
        int prompt_tokens;
        int output_tokens;
        int weight_precision; /* enum infer_precision */
        int kv_precision;     /* enum infer_precision */
        int tensor_parallel;
        int pipeline_parallel;
        char software[FIELD_STR_LEN]; /* catalog serving entry */
        double arrival_rate; /* requests/s, whole deployment; FIELD_AUTO: 80% of capacity */
        double ttft_slo_s;
        double tpot_slo_s;
    } inference;
    struct {
        int source; /* enum data_source */
        double sample_bytes;
        double preprocess_us_per_sample;
        int loader_workers_per_device;
        int prefetch_batches;
        double cache_hit;
    } data;
    struct {
        double device_mtbf_h;
        double node_mtbf_h;
        double checkpoint_interval_min; /* FIELD_AUTO: Young/Daly */
        double restart_min;
        bool checkpoint_async;
    } reliability;
};

/* Catalog entries a setup names, looked up once by setup_resolve(). */
struct resolved {
    const struct accelerator *accel;
    const struct cpu *cpu;
    const struct link *intra_link;
    const struct link *host_link;
    const struct link *nic;              /* NULL for a single node without a NIC */
    const struct storage *local_storage; /* may be NULL */
    const struct storage *storage;
    const struct cooling *cooling;
    const struct software *software;
    const struct serving *serving; /* inference.software */
};

const struct field_table *setup_fields(void);

/* Defaults for every field: one DGX-H100-class node training a 8B model. */
void setup_defaults(struct setup *s);

/* Load a setup file strictly and check it against the catalog.
 * Errors are "file:line:col: message". */
bool setup_load_file(struct setup *s, const char *path, const struct catalog *cat, char *err,
                     size_t err_len);
bool setup_load_string(struct setup *s, const char *name, const char *text,
                       const struct catalog *cat, char *err, size_t err_len);

/* Load a setup named by untrusted input (a sandboxed script): rel is read
 * below root only, and so is every file the setup names (model.hf_config,
 * relative to rel's directory): infile.h, "reading only below a
 * directory". `shown` names the file in messages. */
bool setup_load_below(struct setup *s, const char *root, const char *rel, const char *shown,
                      const struct catalog *cat, char *err, size_t err_len);

/* Look up every catalog id and check cross-field rules (parallel sizes divide
 * the device count, the precision exists on the device...). Messages name the
 * field path. */
bool setup_resolve(const struct setup *s, const struct catalog *cat, struct resolved *r, char *err,
                   size_t err_len);
/* setup_resolve that also names, on failure, the field to blame in *field
 * (a field path; NULL when none). */
bool setup_resolve_blame(const struct setup *s, const struct catalog *cat, struct resolved *r,
                         char *err, size_t err_len, const char **field);
/* The cross-checks of setup_resolve without its catalog lookups, for a
 * setup whose references r already holds (resolved for a setup with the
 * same catalog ids): what the planner runs on each candidate that changes
 * fields that are no references. With err_len 0 (err may be NULL) no
 * message is formatted: a caller that only needs the verdict skips the
 * cost of the sentence. */
bool setup_check_resolved(const struct setup *s, const struct resolved *r, char *err,
                          size_t err_len);
/* The catalog ids of the last setup a memo resolved, and what they resolved
 * to. Start it zeroed. Catalogs are read-only once loaded: a memo is only
 * used with the catalog it was filled from. */
enum { SETUP_REFS_MAX = 16 };
struct setup_resolve_memo {
    const struct catalog *cat; /* NULL: empty */
    char ids[SETUP_REFS_MAX][FIELD_STR_LEN];
    struct resolved r;
};
/* setup_resolve with a memo: when the catalog and every catalog id (each
 * FIELD_REF of the field table) are those of the memo, the lookups are
 * skipped and only the cross-checks run (setup_check_resolved). Same
 * answer and message as setup_resolve. */
bool setup_resolve_memo(const struct setup *s, const struct catalog *cat,
                        struct setup_resolve_memo *m, struct resolved *r, char *err,
                        size_t err_len);

/* Get/set by YAML path. Setting checks type and range (not cross-field rules:
 * call setup_resolve after). Unknown paths get a "did you mean" message. */
bool setup_set(struct setup *s, const char *path, const char *text, char *err, size_t err_len);
bool setup_set_number(struct setup *s, const char *path, double value, char *err, size_t err_len);
bool setup_get(const struct setup *s, const char *path, char *buf, size_t len, char *err,
               size_t err_len);

/* Derived sizes, in 64 bits: products of in-range fields overflow an int. */
int64_t setup_devices(const struct setup *s);
int64_t setup_data_parallel(const struct setup *s); /* 0 when a parallel size is below 1 */
int64_t setup_ffn_hidden(const struct setup *s);
int setup_kv_heads(const struct setup *s);
/* i11: size of one attention head (head_dim, else hidden / heads). */
int setup_head_dim(const struct setup *s);
int64_t setup_racks(const struct setup *s); /* nodes_per_rack below 1 counts as 1 */
/* Devices sharing the intra-node link fabric (NVLink domain, TPU slice). */
int setup_scaleup_domain(const struct setup *s);
/* Expert FFN inner size (expert_ffn_hidden, else ffn_hidden). */
int64_t setup_expert_ffn_hidden(const struct setup *s);
/* y2026: expert tensor-parallel size (expert_tensor_parallel, else
 * tensor_parallel). */
int setup_expert_tensor_parallel(const struct setup *s);
/* Layers of pipeline stage `stage` (0-based) of the setup's pipeline: the
 * pinned first/last counts, the rest as even as possible with the extra
 * layers on the middle stages (the first carries the embedding, the last
 * the output layer and loss). */
int setup_stage_layers(const struct setup *s, int stage);
/* y2026: the embedding and loss a stage counts as layers in the pipeline
 * split (account_for_*_in_pipeline_split): 0, 1 or 2. */
int setup_stage_split_extras(const struct setup *s, int stage);
/* Dense peak (TFLOP/s) of the matrix units in the setup's precision on this
 * device, and of the 16-bit path used for everything that is not a GEMM in
 * the low-precision formats; 0 when the device has no such path. */
double setup_gemm_peak_tflops(const struct setup *s, const struct accelerator *a);
double setup_vector_peak_tflops(const struct setup *s, const struct accelerator *a);

/* Inference number formats. setup_infer_format gives the training-format
 * equivalent (enum train_precision) of the weights (SETUP_INFER_WEIGHTS) or
 * the KV cache (SETUP_INFER_KV), "auto" resolved to the device's 16-bit
 * format; setup_infer_format_bytes its bytes per value, scales included. */
enum { SETUP_INFER_WEIGHTS, SETUP_INFER_KV };
int setup_infer_format(const struct setup *s, const struct accelerator *a, int which);
double setup_infer_format_bytes(int train_precision);

/* Write the setup as YAML (all fields), for `mlviz check --dump` and Lua. */
void setup_write_yaml(const struct setup *s, char *buf, size_t len);

#endif
