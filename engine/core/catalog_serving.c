/* catalog_serving: the field table of serving engines (catalog kind
 * "serving"); their values and sources live in assets/catalog/serving.yaml. */
#include "catalog_internal.h"

#define BOOL_FIELD(key, member, dflt, help)                                                        \
    {                                                                                              \
        key, FIELD_BOOL, offsetof(struct serving, member), 0, 1, dflt, NULL, NULL, 0, "", help, 0, \
            0, NULL, NULL, 0                                                                       \
    }

const struct field serving_fields[SERVING_FIELD_COUNT] = {
    HEAD(struct serving),
    NUM(struct serving, "step_overhead_us", step_overhead_us, 0, 1e6, 500, "us",
        "host time per engine step (scheduling, sampling, output) not hidden under device work",
        FIELD_REQUIRED),
    BOOL_FIELD("cuda_graphs", cuda_graphs, 1, "decode steps replay captured CUDA graphs"),
    NUM(struct serving, "graph_kernel_us", graph_kernel_us, 0, 1000, 1.5, "us",
        "cost of one kernel inside a graph replay (launch overhead without graphs)", 0),
    INT(struct serving, "kernels_per_layer", kernels_per_layer, 1, 1000, 12, "",
        "kernels per transformer layer per forward pass", 0),
    INT(struct serving, "kv_block_tokens", kv_block_tokens, 1, 65536, 16, "tokens",
        "tokens per paged KV-cache block", FIELD_REQUIRED),
    NUM(struct serving, "memory_utilization", memory_utilization, 0.05, 1, 0.9, "",
        "share of device memory the engine takes for weights, activations and KV cache",
        FIELD_REQUIRED),
    BOOL_FIELD("memory_of_free", memory_of_free, 0,
               "memory_utilization is a share of what the weights leave free (TensorRT-LLM), "
               "not of all device memory (vLLM, SGLang)"),
    NUM(struct serving, "runtime_reserved_gb", runtime_reserved_gb, 0, 1000, 1.5, "GB",
        "CUDA context, communicators and GEMM workspaces", 0),
    INT(struct serving, "max_batch", max_batch, 1, 1048576, 256, "sequences",
        "default cap on concurrent sequences (batch: auto)", FIELD_REQUIRED),
    INT(struct serving, "prefill_chunk_tokens", prefill_chunk_tokens, 1, 1048576, 8192, "tokens",
        "tokens per prefill chunk; sizes the activation workspace", 0),
    NUM(struct serving, "attention_efficiency", attention_efficiency, MIN_SHARE, 1, 0.65, "",
        "prefill attention kernels: share of the large-GEMM efficiency they reach", 0),
    NUM(struct serving, "allreduce_latency_us", allreduce_latency_us, 0, 1e5, 10, "us",
        "fixed cost of one small tensor-parallel all-reduce inside a scale-up domain", 0),
    BOOL_FIELD("gqa_kv_shared", gqa_kv_shared, 1,
               "decode attention reads each KV head once for the query heads that share it "
               "(false: once per query head)"),
};

const struct serving *catalog_serving(const struct catalog *cat, const char *id)
{
    return catalog_find(cat, CATALOG_SERVING, id);
}
