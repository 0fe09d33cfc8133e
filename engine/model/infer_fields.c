/* infer_fields: every member of struct infer_report described once, in
 * the order of `mlviz infer --format json` (a contract: never reorder or
 * rename a key). The JSON, CSV and text writers, Lua's infer() results and
 * the finite-number guard walk this table. */
#include "infer.h"

#include <stddef.h>
#include <string.h>

#include "report_fields.h"

#define MEMBER_SIZE(m) sizeof(((struct infer_report *)0)->m)
#define ROW(key, member, type, unit, help)                                                         \
    {                                                                                              \
        key, offsetof(struct infer_report, member), MEMBER_SIZE(member), type, unit, help          \
    }
#define NUM(key, member, unit, help) ROW(key, member, REPORT_NUM, unit, help)
#define INT(key, member, help)       ROW(key, member, REPORT_INT, "", help)
#define TEXT(key, member, help)      ROW(key, member, REPORT_TEXT, "", help)
#define PART(pass, name, help)       NUM(#pass "_s." #name, pass.name, "s", help)

const struct report_field infer_report_fields[] = {
    {"name", 0, 0, REPORT_SETUP_NAME, "", "the setup's name"},
    ROW("runnable", runnable, REPORT_BOOL, "", "false when the deployment cannot serve (why_not)"),
    TEXT("why_not", why_not, "why it cannot serve, empty when it can"),
    NUM("ttft_s", ttft_s, "s", "time to first token: one request's prompt prefilled alone"),
    NUM("tpot_s", tpot_s, "s", "time per output token: one decode step at the batch"),
    NUM("latency_s", latency_s, "s", "one request: ttft plus every further output token"),
    NUM("output_tokens_per_s", output_tokens_per_s, "tokens/s",
        "generated tokens of the whole deployment, prefill time included"),
    NUM("prefill_tokens_per_s", prefill_tokens_per_s, "tokens/s",
        "prompt tokens of the whole deployment while prefilling"),
    NUM("requests_per_s", requests_per_s, "requests/s", "requests the deployment completes"),
    NUM("kv_bytes_per_token", kv_bytes_per_token, "bytes",
        "K and V of one token over every layer (2 x layers x kv heads x head size x bytes)"),
    NUM("kv_cache_gb_per_device", kv_cache_gb_per_device, "GB",
        "KV cache of the batch at full length, one device"),
    INT("max_batch", max_batch, "full-length sequences the KV cache holds per replica"),
    INT("batch", batch, "concurrent sequences per replica, as evaluated"),
    NUM("decode_crossover_batch", decode_crossover_batch, "sequences",
        "batch where decode turns compute-bound (0: never at this length)"),
    NUM("params", params, "", "model parameters"),
    NUM("params_active", params_active, "", "parameters each token runs through (MoE: active)"),
    ROW("prefill_bottleneck", prefill_bottleneck, REPORT_STAGE, "", "what paces the prefill"),
    TEXT("prefill_reason", prefill_reason, "why, with the numbers"),
    ROW("decode_bottleneck", decode_bottleneck, REPORT_STAGE, "", "what paces a decode step"),
    TEXT("decode_reason", decode_reason, "why, with the numbers"),

    {"layout.accelerator", 0, 0, REPORT_ACCELERATOR_ID, "", "catalog id of the device"},
    INT("layout.devices", devices, "accelerators in the deployment"),
    INT("layout.replicas", replicas, "model replicas serving side by side"),
    INT("layout.tensor_parallel", tp, "tensor-parallel size of a replica"),
    INT("layout.pipeline_parallel", pp, "pipeline stages of a replica"),
    TEXT("layout.weight_precision", weight_precision, "number format of the weights"),
    TEXT("layout.kv_precision", kv_precision, "number format of the KV cache"),
    TEXT("layout.software", software, "catalog id of the serving engine"),

    NUM("memory.weights_gb", weights_gb_per_device, "GB", "weights per device"),
    NUM("memory.kv_cache_gb", kv_cache_gb_per_device, "GB", "KV cache of the batch per device"),
    NUM("memory.activations_gb", activations_gb_per_device, "GB",
        "prefill chunk workspace and logits per device"),
    NUM("memory.reserved_gb", reserved_gb_per_device, "GB", "runtime reserve per device"),
    NUM("memory.per_device_gb", per_device_gb, "GB", "all of it"),
    NUM("memory.capacity_gb", capacity_gb, "GB", "device memory"),
    NUM("memory.kv_capacity_tokens", kv_capacity_tokens, "tokens",
        "tokens the KV cache holds per replica, whole blocks"),

    PART(prefill, gemm, "prefill: weight GEMMs and the output layer"),
    PART(prefill, attention, "prefill: causal attention over the prompt, KV cache written"),
    PART(prefill, other, "prefill: norms, activations, rotary embedding"),
    PART(prefill, kernels, "prefill: launches of the non-GEMM kernels"),
    PART(prefill, tp_comm, "prefill: tensor-parallel all-reduces"),
    PART(prefill, pp_p2p, "prefill: hand-offs between pipeline stages"),
    PART(prefill, host, "prefill: engine host time"),
    PART(decode, gemm, "decode step: weight GEMMs and the output layer"),
    PART(decode, attention, "decode step: reading the KV cache"),
    PART(decode, other, "decode step: norms, activations, rotary embedding"),
    PART(decode, kernels, "decode step: launches or graph replay of the non-GEMM kernels"),
    PART(decode, tp_comm, "decode step: tensor-parallel all-reduces (latency-bound)"),
    PART(decode, pp_p2p, "decode step: hand-offs between pipeline stages"),
    PART(decode, host, "decode step: engine host time"),
    NUM("decode.weight_gb", decode_weight_gb, "GB", "weights one step reads per device"),
    NUM("decode.kv_gb", decode_kv_gb, "GB", "KV cache one step reads per device (mean length)"),
    NUM("decode.mem_bw_gbs", decode_mem_bw_gbs, "GB/s", "achievable device memory bandwidth"),

    NUM("power.device_w", device_w, "W", "one device while serving"),
    NUM("power.it_kw", it_kw, "kW", "all nodes"),
    NUM("power.facility_kw", facility_kw, "kW", "IT power x PUE"),
    NUM("cost.usd_per_hour", usd_per_hour, "$/h", "devices and electricity per hour"),
    NUM("cost.usd_per_mtok", usd_per_mtok, "$", "per million output tokens"),
    NUM("cost.joules_per_token", joules_per_token, "J", "facility energy per output token"),
};
const size_t infer_report_field_count = sizeof infer_report_fields / sizeof infer_report_fields[0];

const char *infer_sanitize(struct infer_report *o)
{
    const struct report_field *bad =
        report_clean_doubles(infer_report_fields, infer_report_field_count, o);
    if (o->prefill_bottleneck < -1 || o->prefill_bottleneck >= STAGE_COUNT)
        o->prefill_bottleneck = -1;
    if (o->decode_bottleneck < -1 || o->decode_bottleneck >= STAGE_COUNT)
        o->decode_bottleneck = -1;
    return bad ? bad->key : NULL;
}
