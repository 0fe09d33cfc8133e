/* catalog: the hardware facts mlviz computes with, loaded from YAML.
 *
 * Files in assets/catalog/ (every .yaml; then --catalog DIR and
 * $XDG_CONFIG_HOME/mlviz/catalog/) hold lists under the top-level keys
 * accelerators, cpus, storage, links, cooling and software. A later file
 * that repeats an id replaces the earlier entry; one file giving the same id
 * twice is an error. Every entry names its source. Numbers have physical
 * floors and ceilings (no zero or subnormal bandwidth, no CPU without PCIe
 * lanes), shown by `mlviz catalog` help and refused with file:line:col. Numbers are dense (no
 * sparsity) and per direction unless a field name says otherwise. */
#ifndef MLVIZ_CATALOG_H
#define MLVIZ_CATALOG_H

#include <stdbool.h>
#include <stddef.h>

#include "fields.h"
#include "idindex.h"

enum catalog_kind {
    CATALOG_ACCELERATOR,
    CATALOG_CPU,
    CATALOG_STORAGE,
    CATALOG_LINK,
    CATALOG_COOLING,
    CATALOG_SOFTWARE,
    CATALOG_SERVING,
    CATALOG_KIND_COUNT
};

enum precision { PREC_FP32, PREC_TF32, PREC_BF16, PREC_FP16, PREC_FP8, PREC_INT8, PREC_COUNT };

/* Common head of every entry. */
struct catalog_head {
    char id[FIELD_STR_LEN];
    char name[FIELD_STR_LEN * 2];
    char vendor[FIELD_STR_LEN];
    char source[FIELD_STR_LEN * 4];
    char notes[FIELD_STR_LEN * 4];
    int year;
    char file[FIELD_STR_LEN * 4]; /* where it was loaded from */
    int line;
};

enum accel_kind { ACCEL_GPU, ACCEL_TPU, ACCEL_NPU, ACCEL_ASIC, ACCEL_CPU };

struct accelerator {
    struct catalog_head head;
    int kind;          /* enum accel_kind */
    double mem_gb;     /* device memory, 1e9 bytes (derived from mem_gib when given) */
    double mem_gib;    /* device memory, 2^30 bytes: what "80GB" on a datasheet means */
    double mem_bw_gbs; /* device memory bandwidth */
    double peak_tflops[PREC_COUNT];   /* dense; FIELD_ABSENT when unsupported */
    double sparse_tflops[PREC_COUNT]; /* 2:4 sparsity figures, display only */
    double fp4_tflops;                /* dense FP4 (NVFP4/MXFP4) on matrix units; 0 = no FP4 path */
    bool unified_memory;              /* device memory is the host's RAM (Apple silicon, CPUs) */
    double tdp_w;
    double idle_w;
    char link[FIELD_STR_LEN];  /* default device-to-device link id */
    int compute_units;         /* SMs / CUs / cores that GEMM tiles spread over */
    int gemm_tile;             /* square output tile edge of large GEMM kernels */
    double gemm_efficiency;    /* best large-GEMM fraction of dense peak (measured) */
    double mem_bw_efficiency;  /* achievable fraction of memory bandwidth (STREAM-like) */
    double kernel_overhead_us; /* launch + tail cost per kernel */
    double usd_per_hour;       /* typical rental price, 0 = unknown */
    double max_temp_c;         /* throttle temperature */
    /* y2026: the clock the datasheet peaks are quoted at, and the board
     * power dense low-precision GEMMs draw at that clock (0: the TDP, i.e.
     * the catalog's figures already hold at the TDP). */
    int boost_clock_mhz;
    double gemm_power_w;
    /* The lowest clock the device sustains, its lowest DVFS state (0: not
     * published; the model then takes the rule of docs/MODEL.md, section
     * 6). Below it a power cap or a cooling limit leaves the device unable
     * to run the setup (model_power.c). */
    double min_clock_mhz;
    /* The rate of the special-function units' exponential (MUFU.EX2) at
     * the boost clock, 10^12 per second (0: not published). Fused
     * attention's softmax takes one per score (model_attention.c). */
    double exp_tera_per_s;
    /* Not a catalog key: the memory bandwidth as loaded, the one the
     * device's gemm_efficiency was measured with (model_gemm.c); a what-if
     * that raises mem_bw_gbs later keeps the device's math rate. 0 (an
     * entry not loaded from a file): the bandwidth the model runs with. */
    double gemm_measured_bw_gbs;
};

struct cpu {
    struct catalog_head head;
    int cores;
    int mem_channels;
    double mem_bw_gbs;
    int pcie_lanes;
    int pcie_gen;
    double tdp_w;
    double idle_w;
    double l3_mb;
    char vector_ext[FIELD_STR_LEN]; /* "AVX-512, AMX" */
    /* issue 21: host time of one eager PyTorch operation on a GPU tensor
     * (Python, dispatcher, launch), microseconds; 0 = not measured. */
    double host_op_us;
};

enum storage_scope { STORAGE_LOCAL, STORAGE_SHARED, STORAGE_MEMORY };

struct storage {
    struct catalog_head head;
    int scope;       /* enum storage_scope */
    double read_gbs; /* per device for local tiers, aggregate for shared ones */
    double write_gbs;
    double latency_us;
};

enum link_kind { LINK_NVLINK, LINK_PCIE, LINK_INFINIBAND, LINK_ETHERNET, LINK_ICI, LINK_OTHER };

struct link {
    struct catalog_head head;
    int kind;               /* enum link_kind */
    double bw_gbs;          /* per direction, per device (or per port for NICs) */
    double latency_us;      /* small-message end-to-end */
    double nccl_efficiency; /* busbw reached by collectives / line rate */
    double power_w;         /* per port or per device end */
    int domain_max_devices; /* most devices one switched domain joins (NVL72: 72); 0 = none */
    double nvls_bw_gbs;     /* all-reduce algbw with in-switch reduction (NVLS); 0 = none */
    double nvls_setup_us;   /* its fixed cost per call (pipeline fill) */
};

struct cooling {
    struct catalog_head head;
    double rack_kw_max;            /* practical heat removal per rack */
    double pue;                    /* typical facility PUE with this cooling */
    double overhead_fraction;      /* cooling power as a share of IT power */
    double inlet_c;                /* supply air/liquid temperature */
    double limit_c;                /* device temperature at full capacity */
    double heat_capacity_kj_per_c; /* thermal mass of one rack (first-order model) */
};

/* Facts about the training software: costs that are not hardware facts but
 * are needed to turn FLOPs into time. */
/* i20: the interleaved (virtual-stage) pipeline schedules a stack runs:
 * none; micro-batches per step a multiple of the pipeline stages (Megatron-LM
 * 2021); at least the pipeline stages (Megatron-Core). */
enum interleave_rule { INTERLEAVE_NONE, INTERLEAVE_MULTIPLE, INTERLEAVE_AT_LEAST };
extern const char *const interleave_rule_names[]; /* "none", "multiple", "at-least" */
enum { SOFTWARE_SOURCE_LEN = 192 };

struct software {
    struct catalog_head head;
    int kernels_per_layer_fwd;    /* kernels launched per layer per micro-batch forward */
    double elementwise_bytes_sbh; /* bytes moved per s*b*h by norms, residuals, dropout, fwd */
    /* rows26: bytes moved per inner element by a gated (SwiGLU) activation,
     * forward: 6 fused (read gate and up, write the product), 10 in eager
     * PyTorch (silu writes its output, the product reads it back). */
    double swiglu_bytes_per_inner;
    double attention_efficiency;  /* fused attention: share of the GEMM efficiency reached */
    double softmax_bytes_as2b;    /* bytes moved per a*s*s*b by softmax/dropout, forward */
    double runtime_reserved_gb;   /* CUDA context, NCCL and cuBLAS workspaces */
    double fragmentation;         /* allocator slack as a share of used memory */
    double pp_p2p_overlap;        /* share of pipeline sends hidden behind compute */
    double dp_overlap_window;     /* share of the last backward that can hide grad sync */
    double step_overhead_s;       /* per-step fixed cost: logging, scheduler, sync */
    double loader_reserved_cores; /* cores per device kept by the training process */
    /* Mixed-precision bytes per parameter before sharding (fp32 training
     * keeps 4 + 4 + 0 whatever the stack): the compute copy of the weights,
     * the gradient as accumulated and reduced, the master copy. */
    double weight_bytes;
    double grad_bytes;
    double master_bytes;
    double fp8_weight_bytes;    /* extra low-precision weight copies (FP8 and transpose) */
    bool low_precision_params;  /* y2026: FP8/FP4 recipes keep the weights in the low format */
    bool reduce_per_microbatch; /* ZeRO 2-3: gradients reduce-scattered every micro-batch */
    int max_zero_stage;         /* highest ZeRO stage the stack implements */
    double tp_comm_overlap;     /* share of tensor-parallel communication hidden by GEMMs */
    /* i20: the overlap chunks the all-gathers and reduce-scatters of
     * sequence parallelism only (Megatron --tp-comm-overlap asserts
     * --sequence-parallel): no credit without it. */
    bool tp_overlap_needs_sp;
    double param_gather_overlap; /* share of the ZeRO weight all-gather hidden by compute */
    bool context_parallel;       /* ring-attention context parallelism */
    bool expert_parallel;        /* mixture-of-experts expert parallelism */
    bool fp8;                    /* FP8 GEMMs (Transformer Engine, torchao...) */
    bool microscaling;           /* MXFP8 / FP4 / NVFP4 recipes */
    double loss_bytes_per_logit; /* i11: cross-entropy memory traffic per logit, fwd + bwd */
    bool ep_comm_overlap;        /* i11: expert all-to-all overlapped with another micro-batch */
    /* Fused attention's fixed cost per thread block, in loop iterations over
     * one tile, forward and backward (model_attention.c); 0 = not modelled. */
    double attention_fwd_tile_overhead;
    double attention_bwd_tile_overhead;
    /* Expert GEMMs: one kernel per local expert spread over this many
     * streams (Transformer Engine GroupedLinear: 4); 0 = one grouped kernel. */
    int expert_gemm_streams;
    /* y2026: bytes per logit held at the loss in mixed precision (a fused
     * vocabulary-parallel cross entropy: the 16-bit output and an fp32
     * copy, 6; eager PyTorch adds the fp32 gradient and its 16-bit copy). */
    double loss_logit_bytes;
    bool moe_folding;        /* expert tensor parallelism folded over TP x CP x DP */
    bool deepep;             /* DeepEP token dispatcher */
    bool activation_offload; /* activations offloaded to host memory */
    /* y2026: ZeRO-3 as XLA's SPMD partitioner runs it over a scanned layer
     * stack (MaxText): each layer's shard is cast to the compute format
     * before its all-gather, one layer is prefetched, and the gathered
     * layer's gradient is reduce-scattered in the compute format
     * (model_zero.c). False: PyTorch FSDP's picture. */
    bool xla_layer_gather;
    /* issue 21: host operations one layer's forward issues, in units of one
     * eager PyTorch op (0 = compiled or not counted: no host time); what an
     * MoE block adds besides one launch per expert GEMM; whether dropless
     * routing reads the tokens per expert on the host once per MoE layer;
     * whether the stack can replay layers from CUDA graphs. */
    double host_ops_per_layer_fwd;
    double host_ops_per_moe_fwd;
    bool moe_host_sync;
    bool cuda_graphs;
    /* issue 21: the experts' output bias (models with model.mlp_bias) is
     * added by an eager loop over the local experts, one multiply and one
     * add per expert and a concatenation (Megatron-Core TEGroupedMLP
     * _apply_bias; model_moe.c). False: fused or no such path. */
    bool expert_bias_loop;
    /* i20: what the stack can run, each rule with its source (a paper, a
     * release note or the code that enforces it); setup_check refuses a
     * setup that breaks one and quotes the source. */
    bool flash_attention;   /* fused (flash) attention kernels */
    int zero_stage_with_pp; /* highest ZeRO stage beside pipeline_parallel > 1 */
    int interleave;         /* enum interleave_rule: virtual pipeline stages */
    bool sequence_parallel; /* Megatron-style sequence parallelism beside TP */
    char zero_source[SOFTWARE_SOURCE_LEN];
    char flash_attention_source[SOFTWARE_SOURCE_LEN];
    char interleave_source[SOFTWARE_SOURCE_LEN];
    char sequence_parallel_source[SOFTWARE_SOURCE_LEN];
    char context_parallel_source[SOFTWARE_SOURCE_LEN];
    char tp_overlap_source[SOFTWARE_SOURCE_LEN];
};

/* A serving engine (vLLM, TensorRT-LLM, SGLang): what turns a model's
 * prefill and decode work into time and memory besides the hardware.
 * Defaults and sources: assets/catalog/serving.yaml. */
struct serving {
    struct catalog_head head;
    double step_overhead_us;     /* host time per engine step not hidden under device work */
    bool cuda_graphs;            /* decode steps replay captured CUDA graphs */
    double graph_kernel_us;      /* device-side cost of one kernel inside a graph replay */
    int kernels_per_layer;       /* kernels per transformer layer per forward */
    int kv_block_tokens;         /* tokens per paged KV-cache block */
    double memory_utilization;   /* share of device memory the engine takes */
    bool memory_of_free;         /* ...of what the weights leave free (TensorRT-LLM) */
    double runtime_reserved_gb;  /* CUDA context, communicator and GEMM workspaces */
    int max_batch;               /* default cap on concurrent sequences */
    int prefill_chunk_tokens;    /* tokens per prefill chunk (sizes the activation workspace) */
    double attention_efficiency; /* prefill attention kernels: share of the GEMM efficiency */
    double allreduce_latency_us; /* fixed cost of one small tensor-parallel all-reduce */
    bool gqa_kv_shared;          /* decode attention reads a KV head once for its query group */
};

struct catalog {
    struct accelerator *accelerators;
    size_t n_accelerators;
    struct cpu *cpus;
    size_t n_cpus;
    struct storage *storages;
    size_t n_storages;
    struct link *links;
    size_t n_links;
    struct cooling *coolings;
    size_t n_coolings;
    struct software *softwares;
    size_t n_softwares;
    struct serving *servings;
    size_t n_servings;
    struct idindex index[CATALOG_KIND_COUNT]; /* id -> position, per kind */
    size_t cap[CATALOG_KIND_COUNT];           /* allocated entries, per kind */
};

extern const char *const precision_names[];       /* "fp32", "tf32", ... NULL */
extern const char *const catalog_kind_names[];    /* "accelerators", "cpus", ... */
extern const char *const catalog_kind_singular[]; /* "accelerator", "cpu", ... */

/* The field table of one kind (drives loading, `mlviz catalog` columns, Lua). */
const struct field_table *catalog_fields(enum catalog_kind kind);

struct catalog *catalog_new(void);
void catalog_free(struct catalog *cat);
/* Load every *.yaml in a directory (sorted by name) into cat. */
bool catalog_load_dir(struct catalog *cat, const char *dir, char *err, size_t err_len);
bool catalog_load_file(struct catalog *cat, const char *path, char *err, size_t err_len);
/* Load catalog text held in memory; `name` is used in messages. On failure
 * entries before the bad one may have been added. */
bool catalog_load_string(struct catalog *cat, const char *name, const char *text, size_t len,
                         char *err, size_t err_len);
/* Load the standard places: data dir, $XDG_CONFIG_HOME/mlviz/catalog, then extra_dir. */
bool catalog_load_default(struct catalog *cat, const char *extra_dir, char *err, size_t err_len);

size_t catalog_count(const struct catalog *cat, enum catalog_kind kind);
/* Entry i of a kind, as a pointer to its struct (starts with struct catalog_head). */
const void *catalog_entry(const struct catalog *cat, enum catalog_kind kind, size_t i);
const void *catalog_find(const struct catalog *cat, enum catalog_kind kind, const char *id);
/* The closest id of that kind to a misspelt one, or NULL. */
const char *catalog_suggest(const struct catalog *cat, enum catalog_kind kind, const char *id);

const struct accelerator *catalog_accelerator(const struct catalog *cat, const char *id);
const struct cpu *catalog_cpu(const struct catalog *cat, const char *id);
const struct storage *catalog_storage(const struct catalog *cat, const char *id);
const struct link *catalog_link(const struct catalog *cat, const char *id);
const struct cooling *catalog_cooling(const struct catalog *cat, const char *id);
const struct software *catalog_software(const struct catalog *cat, const char *id);
const struct serving *catalog_serving(const struct catalog *cat, const char *id);

/* Data directory: $MLVIZ_DATA, else the compiled-in one, else ./ when it has assets/. */
const char *mlviz_data_dir(void);

#endif
