/* setup: the field table of a setup file, strict loading and cross-checks. */
#include "setup.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hfconfig.h"
#include "infile.h"
#include "setup_internal.h"

const char *const model_kind_names[] = {"transformer", "generic", NULL};
const char *const mlp_names[] = {"gelu", "swiglu", NULL};
const char *const attention_bias_names[] = {"none", "qkv", "all", NULL};
const char *const optimizer_names[] = {"adam", "sgd", "adafactor", NULL};
const char *const recompute_names[] = {"none", "selective", "full", "op", NULL};
static const char *const data_source_names[] = {"shared", "local", NULL};
const char *const grad_reduce_names[] = {"auto", "fp32", "bf16", NULL};
const char *const moe_dispatcher_names[] = {"alltoall", "deepep", NULL};
const char *const fp8_scaling_names[] = {"delayed", "current", NULL};
const char *const train_precision_names[] = {"fp32", "tf32", "bf16",  "fp16",  "fp8",
                                             "int8", "fp4",  "mxfp8", "nvfp4", NULL};

const char *const infer_precision_names[] = {"auto", "bf16", "fp16", "fp8", "int8", "fp4", NULL};

#define OFF(member) offsetof(struct setup, member)
#define REF(p_, member, kind, dflt, help_, flags_, stage_)                                         \
    {                                                                                              \
        .path = p_, .type = FIELD_REF, .offset = OFF(member), .def_str = dflt, .ref_kind = kind,   \
        .unit = "", .help = help_, .flags = flags_, .stage = stage_                                \
    }
#define INT(p_, member, lo, hi, dflt, unit_, help_, flags_, stage_)                                \
    {                                                                                              \
        .path = p_, .type = FIELD_INT, .offset = OFF(member), .min = lo, .max = hi, .def = dflt,   \
        .unit = unit_, .help = help_, .flags = flags_, .stage = stage_                             \
    }
#define NUM(p_, member, lo, hi, dflt, unit_, help_, flags_, stage_)                                \
    {                                                                                              \
        .path = p_, .type = FIELD_NUM, .offset = OFF(member), .min = lo, .max = hi, .def = dflt,   \
        .unit = unit_, .help = help_, .flags = flags_, .stage = stage_                             \
    }
#define AUTO(p_, member, lo, hi, unit_, help_, flags_, stage_)                                     \
    {                                                                                              \
        .path = p_, .type = FIELD_NUM_AUTO, .offset = OFF(member), .min = lo, .max = hi,           \
        .def = FIELD_AUTO, .unit = unit_, .help = help_, .flags = flags_, .stage = stage_          \
    }
#define ENUM(p_, member, names, dflt, help_, flags_, stage_)                                       \
    {                                                                                              \
        .path = p_, .type = FIELD_ENUM, .offset = OFF(member), .def = dflt, .choices = names,      \
        .unit = "", .help = help_, .flags = flags_, .stage = stage_                                \
    }
#define BOOL(p_, member, dflt, help_, flags_, stage_)                                              \
    {                                                                                              \
        .path = p_, .type = FIELD_BOOL, .offset = OFF(member), .max = 1, .def = dflt, .unit = "",  \
        .help = help_, .flags = flags_, .stage = stage_                                            \
    }
/* A knob's stage with its label, where its "auto" value comes from (NULL:
 * none) and its step (0: double and halve), in place of the stage. */
#define KNOB(stage_, label_, auto_from_, step_)                                                    \
    stage_, .label = label_, .auto_from = auto_from_, .step = step_

/* Defaults describe an 8B-class model (32 layers, hidden 4096, 32 heads,
 * vocab 128256) on one 8-GPU H100 node, with Megatron-style mixed
 * precision. As the setup format promises, an omitted ffn_hidden means
 * 4 x hidden, kv_heads means heads, mlp means gelu. Reliability defaults come
 * from the Llama 3 run on 16,384 H100s (Meta 2024): ~0.1 GPU interruptions
 * per GPU-year (MTBF ~87,600 h) and ~172 non-GPU interruptions over 2,048
 * nodes in 54 days (node MTBF ~15,000 h). */
/* Ceilings on counts, far above any machine or model built so far, chosen so every product the
 * model forms stays exact: devices (nodes x per node) < 2^27; samples per step (global_batch) <=
 * 2^24 and tokens per step (x seq_len) <= 2^44, exact in a double; devices x micro_batch x seq_len
 * <= 2^63 in 64-bit integers; parameter counts (layers x hidden x ffn_hidden x 3, vocab x hidden)
 * < 2^53, exact in a double. Floors on capacities (1 MB of host RAM, 1 kB/s of storage, 36 s
 * between failures) keep every rate finite: a bandwidth of 4.9e-324 GB/s would pass "above 0" and
 * divide into inf. `mlviz fields` prints every range. */
#define MAX_NODES        100000 /* the largest 2025 clusters: ~25,000 nodes */
#define MAX_PER_NODE     1024   /* a wafer-scale or CPU "node" */
#define MAX_LAYERS       16384  /* largest models: ~130 layers */
#define MAX_HIDDEN       131072 /* largest models: ~25,000 */
#define MAX_FFN_HIDDEN   524288 /* 4 x MAX_HIDDEN */
#define MAX_HEADS        65536
#define MAX_SEQ_LEN      1048576  /* a 1M-token context */
#define MAX_VOCAB        16777216 /* byte-level to 256k-token vocabularies */
#define MAX_GLOBAL_BATCH 16777216 /* samples per optimizer step */
#define MAX_MICRO_BATCH  65536

static const struct field setup_field_list[] = {
    {"name", FIELD_STR, OFF(name), 0, 0, 0, "unnamed setup", NULL, 0, "", "a short title", 0, 0,
     NULL, NULL, 0},
    INT("cluster.nodes", cluster.nodes, 1, MAX_NODES, 1, "", "number of nodes (servers)",
        FIELD_KNOB, KNOB(3, "nodes", NULL, 0)),
    REF("cluster.node.accelerator", cluster.node.accelerator, CATALOG_ACCELERATOR, "h100-sxm",
        "accelerator model", FIELD_KNOB, KNOB(3, "accelerator", NULL, 0)),
    INT("cluster.node.accelerators_per_node", cluster.node.accelerators_per_node, 1, MAX_PER_NODE,
        8, "", "accelerators in each node", FIELD_KNOB, KNOB(3, "accelerators/node", NULL, 0)),
    REF("cluster.node.cpu", cluster.node.cpu, CATALOG_CPU, "xeon-8480", "host CPU model",
        FIELD_KNOB, KNOB(2, "cpu", NULL, 0)),
    INT("cluster.node.cpu_sockets", cluster.node.cpu_sockets, 1, 16, 2, "", "CPU sockets per node",
        FIELD_KNOB, KNOB(2, "cpu sockets", NULL, 1)),
    NUM("cluster.node.host_ram_gb", cluster.node.host_ram_gb, 0.001, 1e6, 2048, "GB",
        "host memory per node", FIELD_KNOB, KNOB(2, "host ram", NULL, 0)),
    REF("cluster.node.intra_link", cluster.node.intra_link, CATALOG_LINK, "",
        "device-to-device link inside a node (empty: the accelerator's own)",
        FIELD_KNOB | FIELD_OPTIONAL, KNOB(4, "intra link", NULL, 0)),
    REF("cluster.node.host_link", cluster.node.host_link, CATALOG_LINK, "pcie5-x16",
        "link between host and each device", FIELD_KNOB, KNOB(2, "host link", NULL, 0)),
    REF("cluster.node.nic", cluster.node.nic, CATALOG_LINK, "ib-ndr", "network port between nodes",
        FIELD_KNOB | FIELD_OPTIONAL, KNOB(4, "nic", NULL, 0)),
    INT("cluster.node.nics_per_node", cluster.node.nics_per_node, 0, 256, 8, "",
        "network ports per node", FIELD_KNOB, KNOB(4, "nics/node", NULL, 0)),
    /* DGX/HGX H100 and DGX A100 put each pair of GPUs and their NICs behind
     * one of 4 PCIe switches with an x16 uplink to the CPUs (NVIDIA DGX H100
     * and DGX A100 user guides, system topology). */
    INT("cluster.node.pcie_switches", cluster.node.pcie_switches, 0, 256, 4, "",
        "PCIe switches in the node; devices and NICs behind one share its x16 uplink to the "
        "CPUs (0: attached to the CPUs directly)",
        FIELD_KNOB, KNOB(2, "pcie switches", NULL, 0)),
    REF("cluster.node.local_storage", cluster.node.local_storage, CATALOG_STORAGE, "nvme-gen4",
        "storage inside each node", FIELD_OPTIONAL, 1),
    /* DGX H100 peaks at 10.2 kW (NVIDIA user guide); 8 x 700 W GPUs, 2 x 350 W
     * CPUs and 8 NICs leave ~3.7 kW for NVSwitches, DRAM, drives and fans at
     * full speed; about 1.5 kW is typical under a steady training load. */
    NUM("cluster.node.other_w", cluster.node.other_w, 0, 1e6, 1500, "W",
        "power of the rest of the node: switches, memory, drives, fans", 0, 5),
    AUTO("cluster.node.power_limit_w", cluster.node.power_limit_w, 1, 1e5, "W",
         "power cap of each device; below the power its GEMMs draw at full clock it runs them "
         "at a lower clock (auto: the catalog's TDP)",
         FIELD_KNOB, KNOB(3, "power limit", "accelerator.tdp_w", 0)),
    INT("cluster.scaleup_domain", cluster.scaleup_domain, 0, 1e6, 0, "",
        "devices sharing the intra-node link fabric, e.g. 72 for GB200 NVL72 or every chip of a "
        "TPU slice (0: accelerators_per_node)",
        FIELD_KNOB, KNOB(4, "scaleup domain", NULL, 0)),
    REF("cluster.storage", cluster.storage, CATALOG_STORAGE, "lustre",
        "shared storage tier that training data is read from", FIELD_KNOB,
        KNOB(1, "storage", NULL, 0)),
    AUTO("cluster.storage_bw_gbs", cluster.storage_bw_gbs, 1e-6, 1e7, "GB/s",
         "aggregate read bandwidth of the shared tier (auto: the catalog's)", FIELD_KNOB,
         KNOB(1, "storage bw", "stages.storage_bw_gbs", 0)),
    REF("facility.cooling", facility.cooling, CATALOG_COOLING, "air", "cooling type", FIELD_KNOB,
        KNOB(5, "cooling", NULL, 0)),
    AUTO("facility.pue", facility.pue, 1, 5, "", "power usage effectiveness (auto: the cooling's)",
         FIELD_KNOB, KNOB(5, "pue", "power.pue", 0.1)),
    INT("facility.nodes_per_rack", facility.nodes_per_rack, 1, 1000, 2, "", "nodes in one rack",
        FIELD_KNOB, KNOB(5, "nodes/rack", NULL, 0)),
    NUM("facility.electricity_usd_per_kwh", facility.electricity_usd_per_kwh, 0, 10, 0.08,
        "USD/kWh", "electricity price (US industrial average 2023: 0.08)", FIELD_KNOB,
        KNOB(5, "electricity", NULL, 0)),
    AUTO("facility.device_usd_per_hour", facility.device_usd_per_hour, 0, 1e4, "USD/h",
         "price of one device-hour (auto: the catalog's)", FIELD_KNOB,
         KNOB(5, "device", "accelerator.usd_per_hour", 0)),
    ENUM("model.kind", model.kind, model_kind_names, MODEL_TRANSFORMER,
         "transformer (by shape) or generic (by params and FLOPs per sample)", 0, 3),
    INT("model.layers", model.layers, 1, MAX_LAYERS, 32, "", "transformer layers", 0, 3),
    INT("model.hidden", model.hidden, 1, MAX_HIDDEN, 4096, "", "hidden size", 0, 3),
    INT("model.heads", model.heads, 1, MAX_HEADS, 32, "", "attention heads", 0, 3),
    INT("model.seq_len", model.seq_len, 1, MAX_SEQ_LEN, 4096, "tokens", "sequence length",
        FIELD_KNOB, KNOB(3, "seq len", NULL, 0)),
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
    NUM("model.activation_bytes_per_sample", model.activation_bytes_per_sample, 0, 1e15, 0, "bytes",
        "generic models: activation memory per sample", 0, 3),
    INT("model.head_dim", model.head_dim, 0, MAX_HIDDEN, 0, "",
        "size of one attention head when heads x head_dim is not hidden (0: hidden / heads)", 0, 3),
    BOOL("model.tied_embeddings", model.tied_embeddings, 1,
         "the output layer shares the embedding matrix (GPT, Megatron's default; Llama and "
         "Qwen3 do not)",
         0, 3),
    INT("model.kv_lora_rank", model.kv_lora_rank, 0, MAX_HIDDEN, 0, "",
        "multi-head latent attention: width of the compressed key/value latent (0: ordinary "
        "attention)",
        0, 3),
    INT("model.q_lora_rank", model.q_lora_rank, 0, MAX_HIDDEN, 0, "",
        "multi-head latent attention: width of the compressed query latent (0: queries from the "
        "hidden state)",
        0, 3),
    INT("model.qk_rope_head_dim", model.qk_rope_head_dim, 0, MAX_HIDDEN, 0, "",
        "multi-head latent attention: rotary dimensions added to each query and key head", 0, 3),
    ENUM("model.attention_bias", model.attention_bias, attention_bias_names, ATTN_BIAS_NONE,
         "bias vectors on the attention projections: none, qkv (query, key, value: Qwen2) or all "
         "(and the output: attention_bias true)",
         0, 3),
    BOOL("model.mlp_bias", model.mlp_bias, 0,
         "bias vectors on the MLP projections (experts and router included: gpt-oss)", 0, 3),
    INT("model.v_head_dim", model.v_head_dim, 0, MAX_HIDDEN, 0, "",
        "multi-head latent attention: size of one value head (0: head_dim)", 0, 3),
    INT("model.mtp_layers", model.mtp_layers, 0, 64, 0, "",
        "multi-token prediction modules after the last layer (DeepSeek-V3: 1), each a "
        "transformer layer and a projection sharing the output layer",
        0, 3),
    NUM("model.dropout", model.dropout, 0, 0.9, 0.1, "",
        "dropout probability after attention and the MLP (GPT and Megatron: 0.1; Llama, Qwen, "
        "DeepSeek and gpt-oss train without, 0: no dropout masks are kept)",
        0, 3),
    INT("training.global_batch", training.global_batch, 1, MAX_GLOBAL_BATCH, 256, "samples",
        "samples per optimizer step", FIELD_KNOB, KNOB(3, "global batch", NULL, 0)),
    INT("training.micro_batch", training.micro_batch, 1, MAX_MICRO_BATCH, 1, "samples",
        "samples per device per forward pass", FIELD_KNOB, KNOB(3, "micro batch", NULL, 0)),
    ENUM("training.precision", training.precision, train_precision_names, TRAIN_BF16,
         "number format of the matrix math (fp8, mxfp8, fp4, nvfp4: low-precision GEMMs, "
         "bf16 elsewhere, as Transformer Engine)",
         FIELD_KNOB, KNOB(3, "precision", NULL, 0)),
    ENUM("training.optimizer", training.optimizer, optimizer_names, OPT_ADAM,
         "optimizer (sets the bytes of optimizer state)", 0, 3),
    INT("training.tensor_parallel", training.tensor_parallel, 1, 4096, 1, "",
        "tensor-parallel group size; auto: the smallest power of two up to the scale-up domain "
        "at which the memory per device fits, the other fields as given (settled when the setup "
        "is loaded; docs/MODEL.md section 4)",
        FIELD_KNOB | FIELD_INT_AUTO, KNOB(4, "tensor parallel", NULL, 0)),
    INT("training.pipeline_parallel", training.pipeline_parallel, 1, 4096, 1, "", "pipeline stages",
        FIELD_KNOB, KNOB(4, "pipeline parallel", NULL, 0)),
    INT("training.virtual_stages", training.virtual_stages, 1, 64, 1, "",
        "model chunks per pipeline stage (interleaved 1F1B schedule)", FIELD_KNOB,
        KNOB(4, "virtual stages", NULL, 0)),
    INT("training.context_parallel", training.context_parallel, 1, 4096, 1, "",
        "context-parallel size: the sequence split over ranks, attention as a ring", FIELD_KNOB,
        KNOB(4, "context parallel", NULL, 0)),
    INT("training.expert_parallel", training.expert_parallel, 1, 65536, 1, "",
        "expert-parallel size: experts sharded over ranks carved out of data parallelism",
        FIELD_KNOB, KNOB(4, "expert parallel", NULL, 0)),
    NUM("training.capacity_factor", training.capacity_factor, 0, 1000, 0, "",
        "expert capacity over the mean load; tokens above it are dropped (0: dropless)", FIELD_KNOB,
        KNOB(4, "capacity factor", NULL, 0)),
    INT("training.first_stage_layers", training.first_stage_layers, 0, 1e5, 0, "",
        "layers on the first pipeline stage (0: as even as possible)", 0, 4),
    INT("training.last_stage_layers", training.last_stage_layers, 0, 1e5, 0, "",
        "layers on the last pipeline stage (0: as even as possible)", 0, 4),
    INT("training.zero_stage", training.zero_stage, 0, 3, 1, "", "ZeRO stage (0-3)", FIELD_KNOB,
        KNOB(3, "zero stage", NULL, 1)),
    ENUM("training.recompute", training.recompute, recompute_names, RECOMPUTE_SELECTIVE,
         "activation recomputation (op: torchtitan's per-op policy, every other matmul output "
         "saved)",
         FIELD_KNOB, KNOB(3, "recompute", NULL, 0)),
    BOOL("training.sequence_parallel", training.sequence_parallel, 0,
         "shard layer-norm and dropout activations across the tensor-parallel group", FIELD_KNOB,
         KNOB(4, "sequence parallel", NULL, 0)),
    BOOL("training.overlap_grad_sync", training.overlap_grad_sync, 1,
         "overlap the gradient all-reduce with the backward pass", FIELD_KNOB,
         KNOB(4, "overlap grad sync", NULL, 0)),
    BOOL("training.flash_attention", training.flash_attention, 0,
         "fused attention that never stores the s x s score matrix", FIELD_KNOB,
         KNOB(3, "flash attention", NULL, 0)),
    ENUM("training.allreduce", training.allreduce, allreduce_names, ALLREDUCE_AUTO,
         "all-reduce algorithm (auto: the fastest)", FIELD_KNOB, KNOB(4, "allreduce", NULL, 0)),
    NUM("training.tokens", training.tokens, 1, 1e18, 1e12, "tokens",
        "training budget (samples for generic models)", 0, 5),
    REF("training.software", training.software, CATALOG_SOFTWARE, "megatron",
        "software stack (kernel counts, memory reserve)", 0, 3),
    BOOL("training.ep_comm_overlap", training.ep_comm_overlap, 0,
         "hide the expert all-to-alls under another micro-batch's compute (Megatron-Core "
         "--overlap-moe-expert-parallel-comm)",
         FIELD_KNOB, KNOB(4, "EP comm overlap", NULL, 0)),
    ENUM("training.grad_reduce_precision", training.grad_reduce_precision, grad_reduce_names,
         GRAD_REDUCE_AUTO,
         "format of the data-parallel gradient buffers and their reduction (auto: the stack's; "
         "Megatron-Bridge performance recipes: bf16)",
         FIELD_KNOB, KNOB(4, "grad reduce", NULL, 0)),
    INT("training.activation_offload_layers", training.activation_offload_layers, 0, MAX_LAYERS, 0,
        "",
        "layers per pipeline stage whose saved activations live in host memory, moved over the "
        "host link (NVLink-C2C on Grace, PCIe elsewhere)",
        FIELD_KNOB, KNOB(3, "offload layers", NULL, 0)),
    INT("training.expert_tensor_parallel", training.expert_tensor_parallel, 0, 4096, 0, "",
        "tensor-parallel size of the experts; expert x expert-tensor ranks fold over tensor x "
        "context x data ranks (0: tensor_parallel)",
        FIELD_KNOB, KNOB(4, "expert TP", NULL, 0)),
    ENUM("training.moe_dispatcher", training.moe_dispatcher, moe_dispatcher_names,
         MOE_DISPATCH_ALLTOALL,
         "token dispatcher of the expert layers: NCCL all-to-all or DeepEP's NVLink + RDMA "
         "kernels",
         FIELD_KNOB, KNOB(4, "dispatcher", NULL, 0)),
    INT("training.lora_rank", training.lora_rank, 0, 65536, 0, "",
        "LoRA adapter rank on every linear layer; the base weights are frozen (0: full "
        "training)",
        FIELD_KNOB, KNOB(3, "lora rank", NULL, 0)),
    ENUM("training.fp8_scaling", training.fp8_scaling, fp8_scaling_names, FP8_SCALING_DELAYED,
         "FP8 per-tensor scaling: delayed (from the amax history) or current (an amax pass "
         "before each cast, Transformer Engine Float8CurrentScaling)",
         0, 3),
    BOOL("training.account_for_embedding_in_pipeline_split",
         training.account_for_embedding_in_pipeline_split, 0,
         "the embedding counts as one layer when layers are split over pipeline stages "
         "(Megatron-Core)",
         0, 4),
    BOOL("training.account_for_loss_in_pipeline_split", training.account_for_loss_in_pipeline_split,
         0,
         "the output layer and loss count as one layer when layers are split over pipeline "
         "stages (Megatron-Core)",
         0, 4),
    BOOL("training.cuda_graphs", training.cuda_graphs, 0,
         "replay layers from CUDA graphs (no host time per op; dropless MoE stays eager)", 0, 4),
    AUTO("inference.batch", inference.batch, 1, 1048576, "sequences",
         "concurrent sequences per model replica (auto: as many as the KV cache holds, up to the "
         "engine's cap)",
         FIELD_KNOB, KNOB(2, "batch", "infer.batch", 0)),
    INT("inference.prompt_tokens", inference.prompt_tokens, 1, MAX_SEQ_LEN, 1024, "tokens",
        "tokens of each request's prompt (processed in one prefill)", FIELD_KNOB,
        KNOB(1, "prompt tokens", NULL, 0)),
    INT("inference.output_tokens", inference.output_tokens, 1, MAX_SEQ_LEN, 256, "tokens",
        "tokens generated per request, one decode step each", FIELD_KNOB,
        KNOB(1, "output tokens", NULL, 0)),
    ENUM("inference.weight_precision", inference.weight_precision, infer_precision_names,
         INFER_AUTO,
         "number format of the served weights (auto: the device's 16-bit format; fp4: NVFP4; "
         "int8: weight-only)",
         FIELD_KNOB, KNOB(3, "weights", NULL, 0)),
    ENUM("inference.kv_precision", inference.kv_precision, infer_precision_names, INFER_AUTO,
         "number format of the KV cache (auto: the device's 16-bit format)", FIELD_KNOB,
         KNOB(3, "KV cache", NULL, 0)),
    INT("inference.tensor_parallel", inference.tensor_parallel, 1, 4096, 1, "",
        "devices one layer is split over when serving", FIELD_KNOB,
        KNOB(4, "tensor parallel", NULL, 0)),
    INT("inference.pipeline_parallel", inference.pipeline_parallel, 1, 4096, 1, "",
        "pipeline stages of one serving replica", FIELD_KNOB,
        KNOB(4, "pipeline parallel", NULL, 0)),
    REF("inference.software", inference.software, CATALOG_SERVING, "vllm",
        "serving engine (host overhead, KV blocks, memory share)", FIELD_KNOB,
        KNOB(2, "serving engine", NULL, 0)),
    AUTO("inference.arrival_rate", inference.arrival_rate, 1e-6, 1e7, "requests/s",
         "requests per second to the whole deployment when serving over time (auto: 80% of what "
         "it completes at full batch)",
         0, 1),
    NUM("inference.ttft_slo_s", inference.ttft_slo_s, 1e-6, 1e6, 2, "s",
        "time-to-first-token objective of a request", 0, 1),
    NUM("inference.tpot_slo_s", inference.tpot_slo_s, 1e-6, 1e6, 0.05, "s",
        "time-per-output-token objective of a request", 0, 1),
    ENUM("data.source", data.source, data_source_names, DATA_SHARED,
         "read samples from the shared tier or from node-local storage", FIELD_KNOB,
         KNOB(1, "source", NULL, 0)),
    NUM("data.sample_bytes", data.sample_bytes, 1, 1e12, 16384, "bytes",
        "bytes read from storage per sample", FIELD_KNOB, KNOB(1, "sample bytes", NULL, 0)),
    NUM("data.preprocess_us_per_sample", data.preprocess_us_per_sample, 0, 1e9, 50, "us",
        "CPU time to prepare one sample on one core", FIELD_KNOB, KNOB(2, "preprocess", NULL, 0)),
    INT("data.loader_workers_per_device", data.loader_workers_per_device, 0, 1024, 4, "",
        "data-loader processes per device", FIELD_KNOB, KNOB(2, "loader workers/device", NULL, 0)),
    INT("data.prefetch_batches", data.prefetch_batches, 0, 1024, 2, "batches",
        "batches prepared ahead of the device", FIELD_KNOB, KNOB(1, "prefetch batches", NULL, 0)),
    NUM("data.cache_hit", data.cache_hit, 0, 1, 0, "", "share of reads served from host RAM",
        FIELD_KNOB, KNOB(1, "cache hit", NULL, 0.05)),
    NUM("reliability.device_mtbf_h", reliability.device_mtbf_h, 0.01, 1e9, 87600, "h",
        "mean time between failures of one device", FIELD_KNOB, KNOB(5, "device mtbf", NULL, 0)),
    NUM("reliability.node_mtbf_h", reliability.node_mtbf_h, 0.01, 1e9, 15000, "h",
        "mean time between failures of one node (non-device causes)", FIELD_KNOB,
        KNOB(5, "node mtbf", NULL, 0)),
    AUTO("reliability.checkpoint_interval_min", reliability.checkpoint_interval_min, 0.01, 1e7,
         "min", "minutes between checkpoints (auto: Young/Daly optimum)", FIELD_KNOB,
         KNOB(5, "checkpoint interval", "reliability.checkpoint_interval_min", 0)),
    NUM("reliability.restart_min", reliability.restart_min, 0, 1e6, 10, "min",
        "time to restart the job after a failure", FIELD_KNOB, KNOB(5, "restart", NULL, 0)),
    BOOL("reliability.checkpoint_async", reliability.checkpoint_async, 0,
         "write checkpoints in the background (the step loop does not stall)", FIELD_KNOB,
         KNOB(5, "checkpoint async", NULL, 0)),
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

int setup_expert_tensor_parallel(const struct setup *s)
{
    return s->training.expert_tensor_parallel > 0 ? s->training.expert_tensor_parallel
                                                  : s->training.tensor_parallel;
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
    /* Megatron-Core's account_for_embedding/loss_in_pipeline_split: the
     * embedding and the loss count as a layer each in the split, and the
     * stages that hold them get one real layer fewer. */
    int emb = s->training.account_for_embedding_in_pipeline_split && first == 0;
    int loss = s->training.account_for_loss_in_pipeline_split && last == 0;
    if (emb || loss) {
        int units = layers + emb + loss, base = units / p, extra = units % p;
        int rank = stage > 0 && stage < p - 1 ? stage - 1 : stage == 0 ? p - 2 : p - 1;
        int n =
            base + (rank < extra ? 1 : 0) - (stage == 0 ? emb : 0) - (stage == p - 1 ? loss : 0);
        return n > 0 ? n : 0;
    }
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

int setup_stage_split_extras(const struct setup *s, int stage)
{
    int p = s->training.pipeline_parallel;
    if (p <= 1)
        return 0;
    int emb = stage == 0 && s->training.account_for_embedding_in_pipeline_split &&
              s->training.first_stage_layers == 0;
    int loss = stage == p - 1 && s->training.account_for_loss_in_pipeline_split &&
               s->training.last_stage_layers == 0;
    return emb + loss;
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
        return a->peak_tflops[PREC_BF16] > 0 ? a->peak_tflops[PREC_BF16]
                                             : setup_gemm_peak_tflops(s, a);
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

bool setup_resolve(const struct setup *s, const struct catalog *cat, struct resolved *r, char *err,
                   size_t err_len)
{
    const char *bad[2] = {NULL, NULL};
    return setup_check(s, cat, r, err, err_len, bad);
}

bool setup_resolve_blame(const struct setup *s, const struct catalog *cat, struct resolved *r,
                         char *err, size_t err_len, const char **field)
{
    const char *bad[2] = {NULL, NULL};
    bool ok = setup_check(s, cat, r, err, err_len, bad);
    *field = ok ? NULL : bad[0];
    return ok;
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

static bool load_doc(struct setup *s, struct ydoc *doc, const struct catalog *cat,
                     const struct hfconfig_below *below, char *err, size_t err_len)
{
    struct setup tmp;
    setup_defaults(&tmp);
    if (!doc->root || ynode_is_null(doc->root)) {
        snprintf(err, err_len,
                 "%s:%d:%d: the file is empty (a setup needs at least 'name:' or "
                 "'cluster:')",
                 doc->file, doc->root ? doc->root->line : 1, doc->root ? doc->root->col : 1);
        return false;
    }
    /* model: {hf_config: PATH} or {name: ID} fills the model's shape first;
     * the fields written beside it are bound after, so they override it. */
    struct hfconfig_view *view;
    if (!hfconfig_expand(&tmp, doc->root, doc->file, below, &view, err, err_len))
        return false;
    bool bound = fields_bind_yaml(&setup_table, view ? hfconfig_view_root(view) : doc->root, "",
                                  doc->file, &tmp, NULL, err, err_len);
    hfconfig_view_free(view);
    if (!bound)
        return false;
    struct resolved r;
    const char *bad[2] = {NULL, NULL};
    char msg[512];
    if (!setup_check_loaded(&tmp, cat, &r, msg, sizeof msg, bad)) {
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
    bool ok = load_doc(s, doc, cat, NULL, err, err_len);
    ydoc_free(doc);
    return ok;
}

bool setup_load_string(struct setup *s, const char *name, const char *text,
                       const struct catalog *cat, char *err, size_t err_len)
{
    struct ydoc *doc = ydoc_load_string(name, text, strlen(text), err, err_len);
    if (!doc)
        return false;
    bool ok = load_doc(s, doc, cat, NULL, err, err_len);
    ydoc_free(doc);
    return ok;
}

bool setup_load_below(struct setup *s, const char *root, const char *rel, const char *shown,
                      const struct catalog *cat, char *err, size_t err_len)
{
    char *text;
    size_t len;
    if (!infile_read_below(root, rel, shown, &text, &len, err, err_len))
        return false;
    struct ydoc *doc = ydoc_load_string(shown, text, len, err, err_len);
    free(text);
    if (!doc)
        return false;
    const struct hfconfig_below below = {root, rel, shown};
    bool ok = load_doc(s, doc, cat, &below, err, err_len);
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

bool setup_set_number(struct setup *s, const char *path, double value, char *err, size_t err_len)
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
                if ((section[k] == '.' || section[k] == '\0') &&
                    (open[k] == '.' || open[k] == '\0'))
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
