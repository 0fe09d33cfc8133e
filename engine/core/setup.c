/* setup: the field table of a setup file, strict loading and cross-checks. */
#include "setup.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hfconfig.h"

const char *const model_kind_names[] = {"transformer", "generic", NULL};
const char *const mlp_names[] = {"gelu", "swiglu", NULL};
const char *const optimizer_names[] = {"adam", "sgd", "adafactor", NULL};
const char *const recompute_names[] = {"none", "selective", "full", NULL};
const char *const allreduce_names[] = {"auto", "ring", "tree", "hierarchical", "nvls", NULL};
static const char *const data_source_names[] = {"shared", "local", NULL};
const char *const train_precision_names[] = {"fp32", "tf32", "bf16", "fp16",  "fp8",
                                             "int8", "fp4",  "mxfp8", "nvfp4", NULL};

#define OFF(member) offsetof(struct setup, member)
#define REF(path, member, kind, dflt, help, flags, stage)                                         \
    {path, FIELD_REF, OFF(member), 0, 0, 0, dflt, NULL, kind, "", help, flags, stage}
#define INT(path, member, lo, hi, dflt, unit, help, flags, stage)                                 \
    {path, FIELD_INT, OFF(member), lo, hi, dflt, NULL, NULL, 0, unit, help, flags, stage}
#define NUM(path, member, lo, hi, dflt, unit, help, flags, stage)                                 \
    {path, FIELD_NUM, OFF(member), lo, hi, dflt, NULL, NULL, 0, unit, help, flags, stage}
#define AUTO(path, member, lo, hi, unit, help, flags, stage)                                      \
    {path, FIELD_NUM_AUTO, OFF(member), lo, hi, FIELD_AUTO, NULL, NULL, 0, unit, help, flags, stage}
#define ENUM(path, member, names, dflt, help, flags, stage)                                       \
    {path, FIELD_ENUM, OFF(member), 0, 0, dflt, NULL, names, 0, "", help, flags, stage}
#define BOOL(path, member, dflt, help, flags, stage)                                              \
    {path, FIELD_BOOL, OFF(member), 0, 1, dflt, NULL, NULL, 0, "", help, flags, stage}

/* Defaults describe an 8B-class model (32 layers, hidden 4096, 32 heads,
 * vocab 128256) on one 8-GPU H100 node, with Megatron-style mixed
 * precision. As the setup format promises, an omitted ffn_hidden means
 * 4 x hidden, kv_heads means heads, mlp means gelu. Reliability defaults come
 * from the Llama 3 run on 16,384 H100s (Meta 2024): ~0.1 GPU interruptions
 * per GPU-year (MTBF ~87,600 h) and ~172 non-GPU interruptions over 2,048
 * nodes in 54 days (node MTBF ~15,000 h). */
/* Ceilings on counts, far above any machine or model built so far, chosen so
 * every product the model forms stays exact: devices (nodes x per node) <
 * 2^27; samples per step (global_batch) <= 2^24 and tokens per step
 * (x seq_len) <= 2^44, exact in a double; devices x micro_batch x seq_len <=
 * 2^63 in 64-bit integers; parameter counts (layers x hidden x ffn_hidden x
 * 3, vocab x hidden) < 2^53, exact in a double. Floors on capacities (1 MB
 * of host RAM, 1 kB/s of storage, 36 s between failures) keep every rate
 * finite: a bandwidth of 4.9e-324 GB/s would pass "above 0" and divide into
 * inf. `mlviz fields` prints every range. */
#define MAX_NODES 100000           /* the largest 2025 clusters: ~25,000 nodes */
#define MAX_PER_NODE 1024          /* a wafer-scale or CPU "node" */
#define MAX_LAYERS 16384           /* largest models: ~130 layers */
#define MAX_HIDDEN 131072          /* largest models: ~25,000 */
#define MAX_FFN_HIDDEN 524288      /* 4 x MAX_HIDDEN */
#define MAX_HEADS 65536
#define MAX_SEQ_LEN 1048576        /* a 1M-token context */
#define MAX_VOCAB 16777216         /* byte-level to 256k-token vocabularies */
#define MAX_GLOBAL_BATCH 16777216  /* samples per optimizer step */
#define MAX_MICRO_BATCH 65536

static const struct field setup_field_list[] = {
    {"name", FIELD_STR, OFF(name), 0, 0, 0, "unnamed setup", NULL, 0, "", "a short title", 0, 0},
    INT("cluster.nodes", cluster.nodes, 1, MAX_NODES, 1, "", "number of nodes (servers)", FIELD_KNOB, 3),
    REF("cluster.node.accelerator", cluster.node.accelerator, CATALOG_ACCELERATOR, "h100-sxm",
        "accelerator model", FIELD_KNOB, 3),
    INT("cluster.node.accelerators_per_node", cluster.node.accelerators_per_node, 1, MAX_PER_NODE, 8, "",
        "accelerators in each node", FIELD_KNOB, 3),
    REF("cluster.node.cpu", cluster.node.cpu, CATALOG_CPU, "xeon-8480", "host CPU model",
        FIELD_KNOB, 2),
    INT("cluster.node.cpu_sockets", cluster.node.cpu_sockets, 1, 16, 2, "", "CPU sockets per node",
        FIELD_KNOB, 2),
    NUM("cluster.node.host_ram_gb", cluster.node.host_ram_gb, 0.001, 1e6, 2048, "GB",
        "host memory per node", FIELD_KNOB, 2),
    REF("cluster.node.intra_link", cluster.node.intra_link, CATALOG_LINK, "",
        "device-to-device link inside a node (empty: the accelerator's own)",
        FIELD_KNOB | FIELD_OPTIONAL, 4),
    REF("cluster.node.host_link", cluster.node.host_link, CATALOG_LINK, "pcie5-x16",
        "link between host and each device", FIELD_KNOB, 2),
    REF("cluster.node.nic", cluster.node.nic, CATALOG_LINK, "ib-ndr", "network port between nodes",
        FIELD_KNOB | FIELD_OPTIONAL, 4),
    INT("cluster.node.nics_per_node", cluster.node.nics_per_node, 0, 256, 8, "",
        "network ports per node", FIELD_KNOB, 4),
    /* DGX/HGX H100 and DGX A100 put each pair of GPUs and their NICs behind
     * one of 4 PCIe switches with an x16 uplink to the CPUs (NVIDIA DGX H100
     * and DGX A100 user guides, system topology). */
    INT("cluster.node.pcie_switches", cluster.node.pcie_switches, 0, 256, 4, "",
        "PCIe switches in the node; devices and NICs behind one share its x16 uplink to the "
        "CPUs (0: attached to the CPUs directly)",
        FIELD_KNOB, 2),
    REF("cluster.node.local_storage", cluster.node.local_storage, CATALOG_STORAGE, "nvme-gen4",
        "storage inside each node", FIELD_OPTIONAL, 1),
    /* DGX H100 peaks at 10.2 kW (NVIDIA user guide); 8 x 700 W GPUs, 2 x 350 W
     * CPUs and 8 NICs leave ~3.7 kW for NVSwitches, DRAM, drives and fans at
     * full speed; about 1.5 kW is typical under a steady training load. */
    NUM("cluster.node.other_w", cluster.node.other_w, 0, 1e6, 1500, "W",
        "power of the rest of the node: switches, memory, drives, fans", 0, 5),
    INT("cluster.scaleup_domain", cluster.scaleup_domain, 0, 1e6, 0, "",
        "devices sharing the intra-node link fabric, e.g. 72 for GB200 NVL72 or every chip of a "
        "TPU slice (0: accelerators_per_node)",
        FIELD_KNOB, 4),
    REF("cluster.storage", cluster.storage, CATALOG_STORAGE, "lustre",
        "shared storage tier that training data is read from", FIELD_KNOB, 1),
    AUTO("cluster.storage_bw_gbs", cluster.storage_bw_gbs, 1e-6, 1e7, "GB/s",
         "aggregate read bandwidth of the shared tier (auto: the catalog's)", FIELD_KNOB, 1),
    REF("facility.cooling", facility.cooling, CATALOG_COOLING, "air", "cooling type", FIELD_KNOB, 5),
    AUTO("facility.pue", facility.pue, 1, 5, "", "power usage effectiveness (auto: the cooling's)",
         FIELD_KNOB, 5),
    INT("facility.nodes_per_rack", facility.nodes_per_rack, 1, 1000, 2, "", "nodes in one rack",
        FIELD_KNOB, 5),
    NUM("facility.electricity_usd_per_kwh", facility.electricity_usd_per_kwh, 0, 10, 0.08,
        "USD/kWh", "electricity price (US industrial average 2023: 0.08)", FIELD_KNOB, 5),
    AUTO("facility.device_usd_per_hour", facility.device_usd_per_hour, 0, 1e4, "USD/h",
         "price of one device-hour (auto: the catalog's)", FIELD_KNOB, 5),
    ENUM("model.kind", model.kind, model_kind_names, MODEL_TRANSFORMER,
         "transformer (by shape) or generic (by params and FLOPs per sample)", 0, 3),
    INT("model.layers", model.layers, 1, MAX_LAYERS, 32, "", "transformer layers", 0, 3),
    INT("model.hidden", model.hidden, 1, MAX_HIDDEN, 4096, "", "hidden size", 0, 3),
    INT("model.heads", model.heads, 1, MAX_HEADS, 32, "", "attention heads", 0, 3),
    INT("model.seq_len", model.seq_len, 1, MAX_SEQ_LEN, 4096, "tokens", "sequence length", FIELD_KNOB, 3),
    INT("model.vocab", model.vocab, 1, MAX_VOCAB, 128256, "", "vocabulary size", 0, 3),
    INT("model.ffn_hidden", model.ffn_hidden, 0, MAX_FFN_HIDDEN, 0, "",
        "MLP inner size (0: 4 x hidden)", 0, 3),
    INT("model.kv_heads", model.kv_heads, 0, MAX_HEADS, 0, "",
        "key/value heads for grouped-query attention (0: heads)", 0, 3),
    ENUM("model.mlp", model.mlp, mlp_names, MLP_GELU, "gelu (2 matrices) or swiglu (3)", 0, 3),
    INT("model.experts", model.experts, 0, 1e5, 0, "",
        "routed experts per mixture-of-experts layer (0: dense model)", 0, 3),
    INT("model.top_k", model.top_k, 0, 1e5, 0, "", "routed experts each token goes to", 0, 3),
    INT("model.expert_ffn_hidden", model.expert_ffn_hidden, 0, 1e7, 0, "",
        "inner size of one expert (0: ffn_hidden)", 0, 3),
    INT("model.shared_experts", model.shared_experts, 0, 1e4, 0, "",
        "always-active experts per mixture-of-experts layer", 0, 3),
    INT("model.dense_layers", model.dense_layers, 0, 1e5, 0, "",
        "the first N layers use the dense MLP (ffn_hidden) instead of experts", 0, 3),
    BOOL("model.causal", model.causal, 1,
         "causal (decoder) attention; fused attention skips the masked half", 0, 3),
    NUM("model.params", model.params, 0, 1e15, 0, "", "generic models: parameter count", 0, 3),
    NUM("model.flops_per_sample", model.flops_per_sample, 0, 1e21, 0, "FLOP",
        "generic models: training FLOPs (forward + backward) per sample", 0, 3),
    NUM("model.bytes_per_flop", model.bytes_per_flop, 0, 100, 0.02, "B/FLOP",
        "generic models: device memory traffic per FLOP", 0, 3),
    NUM("model.activation_bytes_per_sample", model.activation_bytes_per_sample, 0, 1e15, 0,
        "bytes", "generic models: activation memory per sample", 0, 3),
    INT("model.head_dim", model.head_dim, 0, MAX_HIDDEN, 0, "",
        "size of one attention head when heads x head_dim is not hidden (0: hidden / heads)",
        0, 3),
    BOOL("model.tied_embeddings", model.tied_embeddings, 1,
         "the output layer shares the embedding matrix (GPT, Megatron's default; Llama and "
         "Qwen3 do not)",
         0, 3),
    INT("training.global_batch", training.global_batch, 1, MAX_GLOBAL_BATCH, 256, "samples",
        "samples per optimizer step", FIELD_KNOB, 3),
    INT("training.micro_batch", training.micro_batch, 1, MAX_MICRO_BATCH, 1, "samples",
        "samples per device per forward pass", FIELD_KNOB, 3),
    ENUM("training.precision", training.precision, train_precision_names, TRAIN_BF16,
         "number format of the matrix math (fp8, mxfp8, fp4, nvfp4: low-precision GEMMs, "
         "bf16 elsewhere, as Transformer Engine)",
         FIELD_KNOB, 3),
    ENUM("training.optimizer", training.optimizer, optimizer_names, OPT_ADAM,
         "optimizer (sets the bytes of optimizer state)", 0, 3),
    INT("training.tensor_parallel", training.tensor_parallel, 1, 4096, 1, "",
        "tensor-parallel group size", FIELD_KNOB, 4),
    INT("training.pipeline_parallel", training.pipeline_parallel, 1, 4096, 1, "",
        "pipeline stages", FIELD_KNOB, 4),
    INT("training.virtual_stages", training.virtual_stages, 1, 64, 1, "",
        "model chunks per pipeline stage (interleaved 1F1B schedule)", FIELD_KNOB, 4),
    INT("training.context_parallel", training.context_parallel, 1, 4096, 1, "",
        "context-parallel size: the sequence split over ranks, attention as a ring", FIELD_KNOB, 4),
    INT("training.expert_parallel", training.expert_parallel, 1, 65536, 1, "",
        "expert-parallel size: experts sharded over ranks carved out of data parallelism",
        FIELD_KNOB, 4),
    NUM("training.capacity_factor", training.capacity_factor, 0, 1000, 0, "",
        "expert capacity over the mean load; tokens above it are dropped (0: dropless)",
        FIELD_KNOB, 4),
    INT("training.first_stage_layers", training.first_stage_layers, 0, 1e5, 0, "",
        "layers on the first pipeline stage (0: as even as possible)", 0, 4),
    INT("training.last_stage_layers", training.last_stage_layers, 0, 1e5, 0, "",
        "layers on the last pipeline stage (0: as even as possible)", 0, 4),
    INT("training.zero_stage", training.zero_stage, 0, 3, 1, "", "ZeRO stage (0-3)", FIELD_KNOB, 3),
    ENUM("training.recompute", training.recompute, recompute_names, RECOMPUTE_SELECTIVE,
         "activation recomputation", FIELD_KNOB, 3),
    BOOL("training.sequence_parallel", training.sequence_parallel, 0,
         "shard layer-norm and dropout activations across the tensor-parallel group", FIELD_KNOB, 4),
    BOOL("training.overlap_grad_sync", training.overlap_grad_sync, 1,
         "overlap the gradient all-reduce with the backward pass", FIELD_KNOB, 4),
    BOOL("training.flash_attention", training.flash_attention, 0,
         "fused attention that never stores the s x s score matrix", FIELD_KNOB, 3),
    ENUM("training.allreduce", training.allreduce, allreduce_names, ALLREDUCE_AUTO,
         "all-reduce algorithm (auto: the fastest)", FIELD_KNOB, 4),
    NUM("training.tokens", training.tokens, 1, 1e18, 1e12, "tokens",
        "training budget (samples for generic models)", 0, 5),
    REF("training.software", training.software, CATALOG_SOFTWARE, "megatron",
        "software stack (kernel counts, memory reserve)", 0, 3),
    BOOL("training.ep_comm_overlap", training.ep_comm_overlap, 0,
         "hide the expert all-to-alls under another micro-batch's compute (Megatron-Core "
         "--overlap-moe-expert-parallel-comm)",
         FIELD_KNOB, 4),
    ENUM("data.source", data.source, data_source_names, DATA_SHARED,
         "read samples from the shared tier or from node-local storage", FIELD_KNOB, 1),
    NUM("data.sample_bytes", data.sample_bytes, 1, 1e12, 16384, "bytes",
        "bytes read from storage per sample", FIELD_KNOB, 1),
    NUM("data.preprocess_us_per_sample", data.preprocess_us_per_sample, 0, 1e9, 50, "us",
        "CPU time to prepare one sample on one core", FIELD_KNOB, 2),
    INT("data.loader_workers_per_device", data.loader_workers_per_device, 0, 1024, 4, "",
        "data-loader processes per device", FIELD_KNOB, 2),
    INT("data.prefetch_batches", data.prefetch_batches, 0, 1024, 2, "batches",
        "batches prepared ahead of the device", FIELD_KNOB, 1),
    NUM("data.cache_hit", data.cache_hit, 0, 1, 0, "", "share of reads served from host RAM",
        FIELD_KNOB, 1),
    NUM("reliability.device_mtbf_h", reliability.device_mtbf_h, 0.01, 1e9, 87600, "h",
        "mean time between failures of one device", FIELD_KNOB, 5),
    NUM("reliability.node_mtbf_h", reliability.node_mtbf_h, 0.01, 1e9, 15000, "h",
        "mean time between failures of one node (non-device causes)", FIELD_KNOB, 5),
    AUTO("reliability.checkpoint_interval_min", reliability.checkpoint_interval_min, 0.01, 1e7,
         "min", "minutes between checkpoints (auto: Young/Daly optimum)", FIELD_KNOB, 5),
    NUM("reliability.restart_min", reliability.restart_min, 0, 1e6, 10, "min",
        "time to restart the job after a failure", FIELD_KNOB, 5),
    BOOL("reliability.checkpoint_async", reliability.checkpoint_async, 0,
         "write checkpoints in the background (the step loop does not stall)", FIELD_KNOB, 5),
};

static const struct field_table setup_table = {
    "setup", setup_field_list, sizeof setup_field_list / sizeof setup_field_list[0]};

const struct field_table *setup_fields(void)
{
    return &setup_table;
}

void setup_defaults(struct setup *s)
{
    memset(s, 0, sizeof *s);
    fields_apply_defaults(&setup_table, s);
}

int64_t setup_devices(const struct setup *s)
{
    return (int64_t)s->cluster.nodes * s->cluster.node.accelerators_per_node;
}

/* Device count = TP x CP x PP x DP (Megatron-Core's rank order). */
int64_t setup_data_parallel(const struct setup *s)
{
    int64_t mp = (int64_t)s->training.tensor_parallel * s->training.pipeline_parallel *
                 s->training.context_parallel;
    return mp > 0 ? setup_devices(s) / mp : 0;
}

int setup_scaleup_domain(const struct setup *s)
{
    int domain = s->cluster.scaleup_domain > 0 ? s->cluster.scaleup_domain
                                               : s->cluster.node.accelerators_per_node;
    int64_t devices = setup_devices(s);
    return domain < devices ? domain : (int)devices;
}

int64_t setup_expert_ffn_hidden(const struct setup *s)
{
    return s->model.expert_ffn_hidden > 0 ? s->model.expert_ffn_hidden : setup_ffn_hidden(s);
}

int setup_stage_layers(const struct setup *s, int stage)
{
    int p = s->training.pipeline_parallel, layers = s->model.layers;
    if (p <= 1)
        return layers;
    int first = s->training.first_stage_layers, last = s->training.last_stage_layers;
    if (stage == 0 && first > 0)
        return first;
    if (stage == p - 1 && last > 0)
        return last;
    int free_stages = p - (first > 0) - (last > 0);
    int rest = layers - first - last;
    if (free_stages <= 0 || rest <= 0)
        return 0;
    /* As even as possible; the remainder goes to the middle stages first,
     * then to the first stage, then to the last: the first stage also holds
     * the embedding, the last the output layer and the loss (Llama 3 paper,
     * section 3.3.2, balances stages the same way). */
    int base = rest / free_stages, extra = rest % free_stages;
    int rank;
    if (stage > 0 && stage < p - 1)
        rank = stage - 1;
    else if (stage == 0)
        rank = p - 2;
    else
        rank = p - 2 + (first > 0 ? 0 : 1);
    return base + (rank < extra ? 1 : 0);
}

double setup_gemm_peak_tflops(const struct setup *s, const struct accelerator *a)
{
    double peak;
    switch (s->training.precision) {
    case TRAIN_MXFP8:
        /* MX block scaling runs at the FP8 rate on the devices that have it
         * (NVIDIA Blackwell, AMD CDNA 4); those are the FP4-capable ones. */
        peak = a->fp4_tflops > 0 ? a->peak_tflops[PREC_FP8] : 0.0;
        break;
    case TRAIN_FP4:
        peak = a->fp4_tflops;
        break;
    case TRAIN_NVFP4:
        peak = strcmp(a->head.vendor, "NVIDIA") == 0 ? a->fp4_tflops : 0.0;
        break;
    default:
        peak = a->peak_tflops[s->training.precision];
        break;
    }
    return peak > 0 ? peak : 0.0;
}

double setup_vector_peak_tflops(const struct setup *s, const struct accelerator *a)
{
    switch (s->training.precision) {
    case TRAIN_FP8:
    case TRAIN_MXFP8:
    case TRAIN_FP4:
    case TRAIN_NVFP4:
        /* Transformer Engine keeps attention, norms and element-wise work in
         * BF16 when the GEMMs run in FP8/FP4. */
        return a->peak_tflops[PREC_BF16] > 0 ? a->peak_tflops[PREC_BF16] : setup_gemm_peak_tflops(s, a);
    default:
        return setup_gemm_peak_tflops(s, a);
    }
}

int64_t setup_ffn_hidden(const struct setup *s)
{
    return s->model.ffn_hidden > 0 ? s->model.ffn_hidden : 4 * (int64_t)s->model.hidden;
}

int setup_head_dim(const struct setup *s)
{
    if (s->model.head_dim > 0)
        return s->model.head_dim;
    return s->model.heads > 0 ? s->model.hidden / s->model.heads : s->model.hidden;
}

int setup_kv_heads(const struct setup *s)
{
    return s->model.kv_heads > 0 ? s->model.kv_heads : s->model.heads;
}

int64_t setup_racks(const struct setup *s)
{
    int64_t per_rack = s->facility.nodes_per_rack > 0 ? s->facility.nodes_per_rack : 1;
    return ((int64_t)s->cluster.nodes + per_rack - 1) / per_rack;
}

/* Checks one catalog reference; on failure names the path and a suggestion. */
static bool resolve_ref(const struct catalog *cat, enum catalog_kind kind, const char *id,
                        const char *path, bool optional, const void **out, char *err,
                        size_t err_len, const char **bad_path)
{
    *out = NULL;
    if (!id[0]) {
        if (optional)
            return true;
        const char *what = catalog_kind_singular[kind];
        bool vowel = strchr("aeiou", what[0]) != NULL;
        snprintf(err, err_len, "%s: %s %s id is required (see: mlviz catalog %s)", path,
                 vowel ? "an" : "a", what, catalog_kind_names[kind]);
        *bad_path = path;
        return false;
    }
    *out = catalog_find(cat, kind, id);
    if (*out)
        return true;
    const char *near = catalog_suggest(cat, kind, id);
    snprintf(err, err_len, "%s: unknown %s '%s'%s%s%s (see: mlviz catalog %s)", path,
             catalog_kind_singular[kind], id, near ? "; did you mean '" : "", near ? near : "",
             near ? "'?" : "", catalog_kind_names[kind]);
    *bad_path = path;
    return false;
}

/* Fails naming the field to blame; when that field is not written in the
 * file (it took its default), messages point at `alt` instead. */
#define FAIL_AT(path, alt, ...)                                                                   \
    do {                                                                                          \
        snprintf(err, err_len, __VA_ARGS__);                                                      \
        bad_path[0] = path;                                                                       \
        bad_path[1] = alt;                                                                        \
        return false;                                                                             \
    } while (0)
#define FAIL(path, ...) FAIL_AT(path, NULL, __VA_ARGS__)

static bool check_setup(const struct setup *s, const struct catalog *cat, struct resolved *r,
                        char *err, size_t err_len, const char *bad_path[2])
{
    const void *p;
    memset(r, 0, sizeof *r);
    if (!resolve_ref(cat, CATALOG_ACCELERATOR, s->cluster.node.accelerator,
                     "cluster.node.accelerator", false, &p, err, err_len, bad_path))
        return false;
    r->accel = p;
    if (!resolve_ref(cat, CATALOG_CPU, s->cluster.node.cpu, "cluster.node.cpu", false, &p, err,
                     err_len, bad_path))
        return false;
    r->cpu = p;
    const char *intra = s->cluster.node.intra_link[0] ? s->cluster.node.intra_link
                                                      : r->accel->link;
    if (!intra[0])
        intra = s->cluster.node.host_link; /* devices without their own link talk over PCIe */
    if (!resolve_ref(cat, CATALOG_LINK, intra, "cluster.node.intra_link", false, &p, err, err_len,
                     bad_path))
        return false;
    r->intra_link = p;
    if (!resolve_ref(cat, CATALOG_LINK, s->cluster.node.host_link, "cluster.node.host_link", false,
                     &p, err, err_len, bad_path))
        return false;
    r->host_link = p;
    if (!resolve_ref(cat, CATALOG_LINK, s->cluster.node.nic, "cluster.node.nic", true, &p, err,
                     err_len, bad_path))
        return false;
    r->nic = p;
    if (!resolve_ref(cat, CATALOG_STORAGE, s->cluster.node.local_storage,
                     "cluster.node.local_storage", true, &p, err, err_len, bad_path))
        return false;
    r->local_storage = p;
    if (!resolve_ref(cat, CATALOG_STORAGE, s->cluster.storage, "cluster.storage", false, &p, err,
                     err_len, bad_path))
        return false;
    r->storage = p;
    if (!resolve_ref(cat, CATALOG_COOLING, s->facility.cooling, "facility.cooling", false, &p, err,
                     err_len, bad_path))
        return false;
    r->cooling = p;
    if (!resolve_ref(cat, CATALOG_SOFTWARE, s->training.software, "training.software", false, &p,
                     err, err_len, bad_path))
        return false;
    r->software = p;

    long long devices = setup_devices(s);
    int tp = s->training.tensor_parallel, pp = s->training.pipeline_parallel;
    int cp = s->training.context_parallel, ep = s->training.expert_parallel;
    const struct software *sw = r->software;
    if (tp > devices)
        FAIL("training.tensor_parallel", "training.tensor_parallel %d exceeds the %lld devices",
             tp, devices);
    if (cp == 1 && devices % (tp * pp) != 0)
        FAIL("training.pipeline_parallel",
             "tensor_parallel %d x pipeline_parallel %d = %d does not divide the %lld devices "
             "(%d node%s x %d)",
             tp, pp, tp * pp, devices, s->cluster.nodes, s->cluster.nodes == 1 ? "" : "s",
             s->cluster.node.accelerators_per_node);
    long long model_ranks = (long long)tp * cp * pp; /* up to 4096^3: not an int */
    if (cp > 1 && devices % model_ranks != 0)
        FAIL("training.context_parallel",
             "tensor_parallel %d x context_parallel %d x pipeline_parallel %d = %lld does not "
             "divide the %lld devices (%d node%s x %d)",
             tp, cp, pp, model_ranks, devices, s->cluster.nodes,
             s->cluster.nodes == 1 ? "" : "s", s->cluster.node.accelerators_per_node);
    long long dp = devices / model_ranks;
    if (s->training.global_batch % (dp * s->training.micro_batch) != 0)
        FAIL("training.global_batch",
             "training.global_batch %d is not a multiple of data-parallel size %lld x "
             "micro_batch %d",
             s->training.global_batch, dp, s->training.micro_batch);
    int domain = s->cluster.scaleup_domain, per_node = s->cluster.node.accelerators_per_node;
    if (domain > 0 && domain % per_node != 0 && per_node % domain != 0)
        FAIL("cluster.scaleup_domain",
             "cluster.scaleup_domain %d must be a multiple or a divisor of "
             "accelerators_per_node %d (a fabric spans whole nodes or splits one evenly)",
             domain, per_node);
    int fabric_max = r->intra_link->domain_max_devices;
    if (domain > 0 && fabric_max > 0 && domain > fabric_max)
        FAIL("cluster.scaleup_domain",
             "cluster.scaleup_domain %d: %s joins at most %d devices in one domain (see: mlviz "
             "catalog links)",
             domain, r->intra_link->head.id, fabric_max);
    if (s->model.kind == MODEL_TRANSFORMER) {
        int kv = setup_kv_heads(s);
        if (s->model.head_dim == 0 && s->model.hidden % s->model.heads != 0)
            FAIL("model.heads", "model.hidden %d is not divisible by model.heads %d",
                 s->model.hidden, s->model.heads);
        if (kv > s->model.heads || s->model.heads % kv != 0)
            FAIL("model.kv_heads", "model.kv_heads %d must divide model.heads %d", kv,
                 s->model.heads);
        if (s->model.heads % tp != 0)
            FAIL("training.tensor_parallel",
                 "training.tensor_parallel %d must divide model.heads %d", tp, s->model.heads);
        if (kv % tp != 0 && tp % kv != 0)
            FAIL("training.tensor_parallel",
                 "training.tensor_parallel %d and model.kv_heads %d must divide one another", tp,
                 kv);
        if (pp > s->model.layers)
            FAIL("training.pipeline_parallel",
                 "training.pipeline_parallel %d exceeds model.layers %d", pp, s->model.layers);
        int first = s->training.first_stage_layers, last = s->training.last_stage_layers;
        if ((first > 0 || last > 0) && pp == 1)
            FAIL(first > 0 ? "training.first_stage_layers" : "training.last_stage_layers",
                 "training.%s_stage_layers needs pipeline_parallel > 1",
                 first > 0 ? "first" : "last");
        int others = pp - (first > 0) - (last > 0);
        if (pp > 1 && (first + last + others > s->model.layers ||
                       (others == 0 && first + last != s->model.layers)))
            FAIL(first > 0 ? "training.first_stage_layers" : "training.last_stage_layers",
                 "first_stage_layers %d + last_stage_layers %d leave %d layer%s for %d other "
                 "stage%s (model.layers %d): every stage needs at least one",
                 first, last, s->model.layers - first - last,
                 s->model.layers - first - last == 1 ? "" : "s", others, others == 1 ? "" : "s",
                 s->model.layers);
        int v = s->training.virtual_stages;
        if (v > 1 && pp == 1)
            FAIL("training.virtual_stages",
                 "training.virtual_stages %d needs pipeline_parallel > 1", v);
        for (int stage = 0; v > 1 && stage < pp; stage++)
            if (setup_stage_layers(s, stage) < v)
                FAIL("training.virtual_stages",
                     "training.virtual_stages %d: pipeline stage %d holds %d layer%s, fewer "
                     "than its %d model chunks (model.layers %d over %d stages)",
                     v, stage, setup_stage_layers(s, stage),
                     setup_stage_layers(s, stage) == 1 ? "" : "s", v, s->model.layers, pp);
        if (cp > 1 && s->model.seq_len % (2 * cp) != 0)
            FAIL("training.context_parallel",
                 "model.seq_len %d must split into 2 x context_parallel = %d equal chunks "
                 "(causal load balancing, Megatron-Core)",
                 s->model.seq_len, 2 * cp);
        int experts = s->model.experts;
        if (experts == 0 && (s->model.top_k > 0 || s->model.shared_experts > 0 ||
                             s->model.expert_ffn_hidden > 0 || s->model.dense_layers > 0))
            FAIL(s->model.top_k > 0            ? "model.top_k"
                 : s->model.shared_experts > 0 ? "model.shared_experts"
                 : s->model.expert_ffn_hidden > 0 ? "model.expert_ffn_hidden"
                                                   : "model.dense_layers",
                 "mixture-of-experts fields need model.experts > 0");
        if (experts > 0 && (s->model.top_k < 1 || s->model.top_k > experts))
            FAIL_AT("model.top_k", "model.experts",
                    "model.top_k %d must be between 1 and model.experts %d", s->model.top_k,
                    experts);
        if (experts > 0 && s->model.dense_layers >= s->model.layers)
            FAIL("model.dense_layers",
                 "model.dense_layers %d leaves no mixture-of-experts layer of model.layers %d",
                 s->model.dense_layers, s->model.layers);
        if (experts > 0 && !sw->expert_parallel)
            FAIL_AT("training.software", "model.experts",
                    "%s does not implement mixture-of-experts layers (see: mlviz catalog "
                    "software)",
                    sw->head.id);
        if (ep > 1 && experts == 0)
            FAIL("training.expert_parallel",
                 "training.expert_parallel %d needs a mixture-of-experts model (model.experts)",
                 ep);
        if (ep > 1 && experts % ep != 0)
            FAIL("training.expert_parallel",
                 "training.expert_parallel %d must divide model.experts %d", ep, experts);
        if (ep > 1 && (dp * cp) % ep != 0)
            FAIL("training.expert_parallel",
                 "training.expert_parallel %d must divide data_parallel %lld x context_parallel "
                 "%d (expert ranks are carved out of them, Megatron-Core)",
                 ep, dp, cp);
        if (s->training.ep_comm_overlap && (ep < 2 || !sw->ep_comm_overlap)) /* i11 */
            FAIL_AT("training.ep_comm_overlap", ep < 2 ? "training.expert_parallel" : "training.software",
                    "training.ep_comm_overlap needs expert_parallel above 1 and a stack that "
                    "implements it (megatron-core, nemo); here %s, expert_parallel %d",
                    sw->head.id, ep);
        if (s->training.capacity_factor > 0 && experts == 0)
            FAIL("training.capacity_factor",
                 "training.capacity_factor applies to mixture-of-experts models "
                 "(model.experts > 0)");
        if (cp > 1 && !sw->context_parallel)
            FAIL_AT("training.context_parallel", "training.software",
                    "%s does not implement ring-attention context parallelism; use "
                    "megatron-core, nemo, fsdp or maxtext",
                    sw->head.id);
    } else {
        /* Counts of parameters and FLOPs: below 1 is unset or meaningless. */
        if (s->model.params < 1)
            FAIL("model.params", "model.params must be set (at least 1) for a generic model");
        if (s->model.flops_per_sample < 1)
            FAIL("model.flops_per_sample",
                 "model.flops_per_sample must be set (at least 1) for a generic model");
        if (tp > 1 || pp > 1 || cp > 1 || ep > 1)
            FAIL(tp > 1   ? "training.tensor_parallel"
                 : pp > 1 ? "training.pipeline_parallel"
                 : cp > 1 ? "training.context_parallel"
                          : "training.expert_parallel",
                 "a generic model supports data parallelism only (tensor_parallel, "
                 "pipeline_parallel, context_parallel and expert_parallel must be 1)");
        if (s->model.experts > 0)
            FAIL("model.experts", "model.experts needs model.kind transformer");
    }
    int prec = s->training.precision;
    if (!(setup_gemm_peak_tflops(s, r->accel) > 0)) {
        char have[160] = "";
        size_t used = 0;
        struct setup probe = *s;
        for (int i = 0; i < TRAIN_PRECISION_COUNT; i++) {
            probe.training.precision = i;
            if (setup_gemm_peak_tflops(&probe, r->accel) > 0)
                used += (size_t)snprintf(have + used, sizeof have - used, "%s%s", used ? ", " : "",
                                         train_precision_names[i]);
        }
        FAIL_AT("training.precision", "cluster.node.accelerator",
                "%s has no %s support (it has: %s); set training.precision", r->accel->head.id,
                train_precision_names[prec], have);
    }
    if (prec == TRAIN_FP8 && !sw->fp8)
        FAIL_AT("training.precision", "training.software",
                "%s has no FP8 training recipe; use megatron-core, nemo or fsdp", sw->head.id);
    if ((prec == TRAIN_MXFP8 || prec == TRAIN_FP4 || prec == TRAIN_NVFP4) && !sw->microscaling)
        FAIL_AT("training.precision", "training.software",
                "%s has no %s training recipe; use megatron-core or nemo (Transformer Engine)",
                sw->head.id, train_precision_names[prec]);
    if (s->training.zero_stage > sw->max_zero_stage)
        FAIL_AT("training.zero_stage", "training.software",
                "%s implements ZeRO stages up to %d, not %d", sw->head.id, sw->max_zero_stage,
                s->training.zero_stage);
    bool network = devices > setup_scaleup_domain(s);
    if (network && !r->nic)
        FAIL_AT("cluster.node.nic", "cluster.nodes",
                "%d nodes need a network: set cluster.node.nic (see: mlviz catalog links)",
                s->cluster.nodes);
    if (network && s->cluster.node.nics_per_node < 1)
        FAIL_AT("cluster.node.nics_per_node", "cluster.nodes",
                "%d nodes need a network: cluster.node.nics_per_node must be at least 1",
                s->cluster.nodes);
    if (s->data.source == DATA_LOCAL && !r->local_storage)
        FAIL("data.source", "data.source is local but cluster.node.local_storage is not set");
    if (s->training.zero_stage > 0 && dp == 1 && s->training.zero_stage == 3 && devices == 1)
        return true; /* ZeRO on one device is legal and changes nothing */
    return true;
}

bool setup_resolve(const struct setup *s, const struct catalog *cat, struct resolved *r,
                   char *err, size_t err_len)
{
    const char *bad[2] = {NULL, NULL};
    return check_setup(s, cat, r, err, err_len, bad);
}

/* The node of a field path in the YAML, or NULL when not written. */
static const struct ynode *find_path(const struct ynode *root, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    const struct ynode *n = root;
    char *save;
    for (char *tok = strtok_r(buf, ".", &save); tok && n; tok = strtok_r(NULL, ".", &save))
        n = ynode_get(n, tok);
    return n;
}

/* Where to point for an error about `path`: its value when written, else
 * the alternative field's, else the deepest section of the path present. */
static const struct ynode *locate(const struct ynode *root, const char *path, const char *alt)
{
    const struct ynode *n = find_path(root, path);
    if (n)
        return n;
    if (alt && (n = find_path(root, alt)))
        return n;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    const struct ynode *last = root;
    n = root;
    char *save;
    for (char *tok = strtok_r(buf, ".", &save); tok && n; tok = strtok_r(NULL, ".", &save)) {
        n = ynode_get(n, tok);
        if (n)
            last = n;
    }
    return last;
}

static bool load_doc(struct setup *s, struct ydoc *doc, const struct catalog *cat, char *err,
                     size_t err_len)
{
    struct setup tmp;
    setup_defaults(&tmp);
    if (!doc->root || ynode_is_null(doc->root)) {
        snprintf(err, err_len, "%s:%d:%d: the file is empty (a setup needs at least 'name:' or "
                               "'cluster:')",
                 doc->file, doc->root ? doc->root->line : 1, doc->root ? doc->root->col : 1);
        return false;
    }
    /* model: {hf_config: PATH} or {name: ID} fills the model's shape first;
     * the fields written beside it are bound after, so they override it. */
    struct hfconfig_view *view;
    if (!hfconfig_expand(&tmp, doc->root, doc->file, &view, err, err_len))
        return false;
    bool bound = fields_bind_yaml(&setup_table, view ? hfconfig_view_root(view) : doc->root, "",
                                  doc->file, &tmp, NULL, err, err_len);
    hfconfig_view_free(view);
    if (!bound)
        return false;
    struct resolved r;
    const char *bad[2] = {NULL, NULL};
    char msg[512];
    if (!check_setup(&tmp, cat, &r, msg, sizeof msg, bad)) {
        const struct ynode *n = locate(doc->root, bad[0] ? bad[0] : "", bad[1]);
        snprintf(err, err_len, "%s:%d:%d: %s", doc->file, n ? n->line : 1, n ? n->col : 1, msg);
        return false;
    }
    *s = tmp; /* nothing half-loaded: the caller's setup changes only on success */
    return true;
}

bool setup_load_file(struct setup *s, const char *path, const struct catalog *cat, char *err,
                     size_t err_len)
{
    struct ydoc *doc = ydoc_load_file(path, err, err_len);
    if (!doc)
        return false;
    bool ok = load_doc(s, doc, cat, err, err_len);
    ydoc_free(doc);
    return ok;
}

bool setup_load_string(struct setup *s, const char *name, const char *text,
                       const struct catalog *cat, char *err, size_t err_len)
{
    struct ydoc *doc = ydoc_load_string(name, text, strlen(text), err, err_len);
    if (!doc)
        return false;
    bool ok = load_doc(s, doc, cat, err, err_len);
    ydoc_free(doc);
    return ok;
}

static const struct field *find_or_explain(const char *path, char *err, size_t err_len)
{
    const struct field *f = fields_find(&setup_table, path);
    if (f)
        return f;
    const char *near = fields_suggest(&setup_table, path);
    snprintf(err, err_len, "unknown field '%s'%s%s%s", path, near ? " (did you mean '" : "",
             near ? near : "", near ? "'?)" : "");
    return NULL;
}

bool setup_set(struct setup *s, const char *path, const char *text, char *err, size_t err_len)
{
    const struct field *f = find_or_explain(path, err, err_len);
    return f && fields_set_text(f, s, text, err, err_len);
}

bool setup_set_number(struct setup *s, const char *path, double value, char *err,
                      size_t err_len)
{
    const struct field *f = find_or_explain(path, err, err_len);
    return f && fields_set_number(f, s, value, err, err_len);
}

bool setup_get(const struct setup *s, const char *path, char *buf, size_t len, char *err,
               size_t err_len)
{
    const struct field *f = find_or_explain(path, err, err_len);
    if (!f)
        return false;
    fields_format(f, s, buf, len);
    return true;
}

/* Appends formatted text, never past the end. */
static void emit(char *buf, size_t len, size_t *used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void emit(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
    if (*used >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *used, len - *used, fmt, ap);
    va_end(ap);
    if (n > 0)
        *used += (size_t)n;
}

/* A double-quoted YAML string. */
static void emit_quoted(char *buf, size_t len, size_t *used, const char *text)
{
    emit(buf, len, used, "\"");
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c == '"' || *c == '\\')
            emit(buf, len, used, "\\%c", *c);
        else if (*c < 0x20)
            emit(buf, len, used, "\\x%02x", *c);
        else
            emit(buf, len, used, "%c", *c);
    }
    emit(buf, len, used, "\"");
}

/* The shortest decimal that reads back to the same double. */
static void emit_number(char *buf, size_t len, size_t *used, double v)
{
    char text[40];
    for (int digits = 6; digits <= 17; digits++) {
        snprintf(text, sizeof text, "%.*g", digits, v);
        if (strtod(text, NULL) == v)
            break;
    }
    emit(buf, len, used, "%s", text);
}

void setup_write_yaml(const struct setup *s, char *buf, size_t len)
{
    size_t used = 0;
    char open[256] = ""; /* the section path currently open */
    buf[0] = '\0';
    for (size_t i = 0; i < setup_table.count; i++) {
        const struct field *f = &setup_table.fields[i];
        char section[256];
        snprintf(section, sizeof section, "%s", f->path);
        char *dot = strrchr(section, '.');
        const char *leaf = dot ? f->path + (dot - section) + 1 : f->path;
        if (dot)
            *dot = '\0';
        else
            section[0] = '\0';
        if (strcmp(section, open) != 0) {
            /* Open each component of the new section not shared with the
             * open one. */
            size_t common = 0, k = 0;
            while (section[k] && section[k] == open[k]) {
                k++;
                if ((section[k] == '.' || section[k] == '\0') && (open[k] == '.' || open[k] == '\0'))
                    common = k;
            }
            int depth = 0;
            for (size_t j = 0; j < common; j++)
                depth += section[j] == '.';
            if (common > 0)
                depth++;
            const char *rest = section + common + (section[common] == '.' ? 1 : 0);
            char part[256];
            snprintf(part, sizeof part, "%s", rest);
            char *save;
            for (char *tok = strtok_r(part, ".", &save); tok; tok = strtok_r(NULL, ".", &save))
                emit(buf, len, &used, "%*s%s:\n", 2 * depth++, "", tok);
            snprintf(open, sizeof open, "%s", section);
        }
        int depth = 0;
        for (const char *c = f->path; *c; c++)
            depth += *c == '.';
        emit(buf, len, &used, "%*s%s: ", 2 * depth, "", leaf);
        double v;
        switch (f->type) {
        case FIELD_STR:
        case FIELD_REF:
            emit_quoted(buf, len, &used, fields_get_string(f, s));
            break;
        case FIELD_NUM:
        case FIELD_NUM_AUTO:
            v = fields_get_number(f, s);
            if (f->type == FIELD_NUM_AUTO && v == FIELD_AUTO)
                emit(buf, len, &used, "auto");
            else
                emit_number(buf, len, &used, v);
            break;
        default: {
            char val[128];
            fields_format(f, s, val, sizeof val);
            emit(buf, len, &used, "%s", val);
            break;
        }
        }
        emit(buf, len, &used, "\n");
    }
}
