/* catalog: strict loading of hardware facts from YAML through field tables. */
#include "catalog.h"
#include "catalog_rules.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catalog_internal.h"

#ifndef MLVIZ_DATADIR
#define MLVIZ_DATADIR "/usr/local/share/mlviz"
#endif

const char *const precision_names[] = {"fp32", "tf32", "bf16", "fp16", "fp8", "int8", NULL};
const char *const catalog_kind_names[] = {"accelerators", "cpus",     "storage", "links",
                                          "cooling",      "software", "serving", NULL};
const char *const catalog_kind_singular[] = {"accelerator", "cpu",      "storage", "link",
                                             "cooling",     "software", "serving", NULL};

static const char *const accel_kinds[] = {"gpu", "tpu", "npu", "asic", "cpu", NULL};
static const char *const storage_scopes[] = {"local", "shared", "memory", NULL};
static const char *const link_kinds[] = {"nvlink", "pcie",  "infiniband", "ethernet",
                                         "ici",    "other", NULL};

#define PEAK(key, prec, help)                                                                      \
    NUM(struct accelerator, key, peak_tflops[prec], MIN_TFLOPS, 1e6, FIELD_ABSENT, "TFLOP/s",      \
        help, FIELD_NULLABLE)
#define SPARSE(key, prec)                                                                          \
    NUM(struct accelerator, key, sparse_tflops[prec], MIN_TFLOPS, 1e6, FIELD_ABSENT, "TFLOP/s",    \
        "peak with 2:4 structured sparsity (shown, never used)", FIELD_NULLABLE)

static const struct field accel_fields[] = {
    HEAD(struct accelerator),
    {"kind", FIELD_ENUM, offsetof(struct accelerator, kind), 0, 0, 0, NULL, accel_kinds, 0, "",
     "gpu, tpu, npu, asic or cpu", FIELD_REQUIRED, 0, NULL, NULL, 0},
    NUM(struct accelerator, "mem_gib", mem_gib, MIN_GB, 1e5, 0, "GiB",
        "device memory in GiB (2^30 bytes), the unit datasheets mean by GB; or give mem_gb", 0),
    NUM(struct accelerator, "mem_gb", mem_gb, MIN_GB, 1e5, 0, "GB",
        "device memory in GB (1e9 bytes); derived from mem_gib when that is given", 0),
    NUM(struct accelerator, "mem_bw_gbs", mem_bw_gbs, MIN_GBS, 1e8, 0, "GB/s",
        "device memory bandwidth", FIELD_REQUIRED),
    PEAK("fp32_tflops", PREC_FP32, "dense FP32 (vector units)"),
    PEAK("tf32_tflops", PREC_TF32, "dense TF32 on matrix units"),
    PEAK("bf16_tflops", PREC_BF16, "dense BF16 on matrix units"),
    PEAK("fp16_tflops", PREC_FP16, "dense FP16 on matrix units"),
    PEAK("fp8_tflops", PREC_FP8, "dense FP8 on matrix units"),
    PEAK("int8_tops", PREC_INT8, "dense INT8 tera-operations per second"),
    NUM(struct accelerator, "fp4_tflops", fp4_tflops, 0, 1e6, 0, "TFLOP/s",
        "dense FP4 (NVFP4/MXFP4) on matrix units; 0 or absent = no FP4 path", 0),
    {"unified_memory", FIELD_BOOL, offsetof(struct accelerator, unified_memory), 0, 1, 0, NULL,
     NULL, 0, "",
     "device memory is the host's own RAM (Apple silicon, CPUs): no separate host copy", 0, 0, NULL,
     NULL, 0},
    SPARSE("sparse_tf32_tflops", PREC_TF32),
    SPARSE("sparse_bf16_tflops", PREC_BF16),
    SPARSE("sparse_fp16_tflops", PREC_FP16),
    SPARSE("sparse_fp8_tflops", PREC_FP8),
    SPARSE("sparse_int8_tops", PREC_INT8),
    NUM(struct accelerator, "tdp_w", tdp_w, MIN_W, 1e5, 0, "W", "board power at full load",
        FIELD_REQUIRED),
    NUM(struct accelerator, "idle_w", idle_w, 0, 1e5, 0, "W", "power when idle", FIELD_REQUIRED),
    {"link", FIELD_STR, offsetof(struct accelerator, link), 0, 0, 0, "", NULL, 0, "",
     "default device-to-device link id", 0, 0, NULL, NULL, 0},
    INT(struct accelerator, "compute_units", compute_units, 1, 1e7, 0, "",
        "SMs, CUs or cores that GEMM tiles are spread over", FIELD_REQUIRED),
    INT(struct accelerator, "gemm_tile", gemm_tile, 8, 1024, 128, "",
        "output tile edge of large GEMM kernels (wave quantization)", 0),
    NUM(struct accelerator, "gemm_efficiency", gemm_efficiency, MIN_SHARE, 1, 0.75, "",
        "best measured large-GEMM share of dense peak", 0),
    NUM(struct accelerator, "mem_bw_efficiency", mem_bw_efficiency, MIN_SHARE, 1, 0.85, "",
        "achievable share of memory bandwidth", 0),
    NUM(struct accelerator, "kernel_overhead_us", kernel_overhead_us, 0, 1e4, 4, "us",
        "launch and tail cost per kernel", 0),
    NUM(struct accelerator, "usd_per_hour", usd_per_hour, 0, 1e4, 0, "USD/h",
        "typical rental price per device-hour (0 = unknown)", 0),
    NUM(struct accelerator, "max_temp_c", max_temp_c, 20, 150, 85, "C",
        "temperature at which clocks throttle", 0),
    INT(struct accelerator, "boost_clock_mhz", boost_clock_mhz, 0, 1e5, 0, "MHz", "peak clock", 0),
    NUM(struct accelerator, "gemm_power_w", gemm_power_w, 0, 1e5, 0, "W",
        "board power dense low-precision GEMMs draw at the boost clock (0 = the TDP)", 0),
    NUM(struct accelerator, "min_clock_mhz", min_clock_mhz, 0, 1e5, 0, "MHz",
        "lowest clock the device sustains, its lowest DVFS state (0 = not published); needs "
        "boost_clock_mhz",
        0),
    NUM(struct accelerator, "exp_tera_per_s", exp_tera_per_s, 0, 1e6, 0, "T/s",
        "special-function exponentials per second at the boost clock (0 = not published)", 0),
};

static const struct field cpu_fields[] = {
    HEAD(struct cpu),
    INT(struct cpu, "cores", cores, 1, 4096, 0, "", "cores per socket", FIELD_REQUIRED),
    INT(struct cpu, "mem_channels", mem_channels, 1, 64, 0, "", "memory channels per socket",
        FIELD_REQUIRED),
    NUM(struct cpu, "mem_bw_gbs", mem_bw_gbs, MIN_GBS, 1e5, 0, "GB/s",
        "peak memory bandwidth per socket", FIELD_REQUIRED),
    INT(struct cpu, "pcie_lanes", pcie_lanes, 1, 1024, 0, "", "PCIe lanes per socket",
        FIELD_REQUIRED),
    INT(struct cpu, "pcie_gen", pcie_gen, 1, 8, 5, "", "PCIe generation", FIELD_REQUIRED),
    NUM(struct cpu, "tdp_w", tdp_w, MIN_W, 1e4, 0, "W", "socket power at full load",
        FIELD_REQUIRED),
    NUM(struct cpu, "idle_w", idle_w, 0, 1e4, 0, "W", "socket power when idle", FIELD_REQUIRED),
    NUM(struct cpu, "l3_mb", l3_mb, 0, 1e5, 0, "MB", "last-level cache per socket", 0),
    {"vector_ext", FIELD_STR, offsetof(struct cpu, vector_ext), 0, 0, 0, "", NULL, 0, "",
     "vector and matrix extensions", 0, 0, NULL, NULL, 0},
    NUM(struct cpu, "host_op_us", host_op_us, 0, 1e4, 0, "us",
        "host time of one eager PyTorch op on a GPU tensor: Python, dispatch, launch (0 = not "
        "measured)",
        0),
};

static const struct field storage_fields[] = {
    HEAD(struct storage),
    {"scope", FIELD_ENUM, offsetof(struct storage, scope), 0, 0, 0, NULL, storage_scopes, 0, "",
     "local (per node), shared (aggregate) or memory", FIELD_REQUIRED, 0, NULL, NULL, 0},
    NUM(struct storage, "read_gbs", read_gbs, MIN_GBS, 1e7, 0, "GB/s",
        "sequential read bandwidth (per node when local, aggregate when shared)", FIELD_REQUIRED),
    NUM(struct storage, "write_gbs", write_gbs, MIN_GBS, 1e7, 0, "GB/s",
        "sequential write bandwidth", FIELD_REQUIRED),
    NUM(struct storage, "latency_us", latency_us, 0, 1e7, 0, "us", "typical access latency",
        FIELD_REQUIRED),
};

static const struct field link_fields[] = {
    HEAD(struct link),
    {"kind", FIELD_ENUM, offsetof(struct link, kind), 0, 0, 0, NULL, link_kinds, 0, "",
     "nvlink, pcie, infiniband, ethernet, ici or other", FIELD_REQUIRED, 0, NULL, NULL, 0},
    NUM(struct link, "bw_gbs", bw_gbs, MIN_GBS, 1e5, 0, "GB/s",
        "bandwidth per direction (per device for device links, per port for NICs)", FIELD_REQUIRED),
    NUM(struct link, "latency_us", latency_us, 0, 1e5, 0, "us", "small-message latency",
        FIELD_REQUIRED),
    NUM(struct link, "nccl_efficiency", nccl_efficiency, MIN_SHARE, 1, 0.8, "",
        "share of line rate that collectives reach (nccl-tests busbw)", 0),
    NUM(struct link, "power_w", power_w, 0, 1e4, 0, "W", "power per port or device end", 0),
    INT(struct link, "domain_max_devices", domain_max_devices, 0, 1e6, 0, "",
        "most devices one scale-up domain of this fabric joins (0 = not a switched domain)", 0),
    NUM(struct link, "nvls_bw_gbs", nvls_bw_gbs, 0, 1e6, 0, "GB/s",
        "all-reduce algorithm bandwidth with reduction in the switch (NVLink SHARP); 0 = none", 0),
    NUM(struct link, "nvls_setup_us", nvls_setup_us, 0, 1e6, 0, "us",
        "fixed cost of one in-switch all-reduce (pipeline fill)", 0),
};

static const struct field cooling_fields[] = {
    HEAD(struct cooling),
    NUM(struct cooling, "rack_kw_max", rack_kw_max, 0.01, 1e4, 0, "kW",
        "practical heat removal per rack", FIELD_REQUIRED),
    NUM(struct cooling, "pue", pue, 1, 5, 1.5, "", "typical power usage effectiveness",
        FIELD_REQUIRED),
    NUM(struct cooling, "overhead_fraction", overhead_fraction, 0, 2, 0.3, "",
        "cooling power as a share of IT power", FIELD_REQUIRED),
    NUM(struct cooling, "inlet_c", inlet_c, -20, 80, 25, "C", "supply temperature", 0),
    NUM(struct cooling, "limit_c", limit_c, 0, 150, 85, "C",
        "device temperature reached when heat equals capacity", 0),
    NUM(struct cooling, "heat_capacity_kj_per_c", heat_capacity_kj_per_c, 0.01, 1e7, 500, "kJ/C",
        "thermal mass of one rack and its coolant", 0),
};

static const struct field software_fields[] = {
    HEAD(struct software),
    INT(struct software, "kernels_per_layer_fwd", kernels_per_layer_fwd, 0, 1000, 14, "",
        "kernels launched per transformer layer in a forward pass", 0),
    NUM(struct software, "elementwise_bytes_sbh", elementwise_bytes_sbh, 0, 1000, 22, "bytes",
        "memory traffic of norms, residual adds and dropout per s*b*h, forward", 0),
    NUM(struct software, "swiglu_bytes_per_inner", swiglu_bytes_per_inner, 1, 100, 6, "bytes",
        "memory traffic of a SwiGLU activation per inner element, forward (fused kernel: 6)", 0),
    NUM(struct software, "attention_efficiency", attention_efficiency, MIN_SHARE, 1, 0.65, "",
        "fused attention kernels: share of the device's GEMM efficiency", 0),
    NUM(struct software, "softmax_bytes_as2b", softmax_bytes_as2b, 0, 1000, 9, "bytes",
        "memory traffic of softmax and dropout per a*s*s*b, forward", 0),
    NUM(struct software, "runtime_reserved_gb", runtime_reserved_gb, 0, 1000, 1.5, "GB",
        "context and library workspaces per device", 0),
    NUM(struct software, "fragmentation", fragmentation, 0, 1, 0.05, "",
        "allocator slack as a share of used memory", 0),
    NUM(struct software, "pp_p2p_overlap", pp_p2p_overlap, 0, 1, 0.5, "",
        "share of pipeline sends hidden behind compute", 0),
    NUM(struct software, "dp_overlap_window", dp_overlap_window, 0, 1, 0.9, "",
        "share of the last backward pass that can hide gradient sync", 0),
    NUM(struct software, "step_overhead_s", step_overhead_s, 0, 100, 0.05, "s",
        "fixed per-step cost (logging, scheduling, host sync)", 0),
    NUM(struct software, "loader_reserved_cores", loader_reserved_cores, 0, 64, 1, "",
        "cores per device kept by the training process itself", 0),
    NUM(struct software, "weight_bytes", weight_bytes, 0, 16, 2, "bytes",
        "mixed precision: bytes per parameter of the weights the GEMMs read", 0),
    NUM(struct software, "grad_bytes", grad_bytes, 0, 16, 2, "bytes",
        "mixed precision: bytes per gradient as accumulated and reduced", 0),
    NUM(struct software, "master_bytes", master_bytes, 0, 16, 4, "bytes",
        "mixed precision: bytes per parameter of the fp32 master copy", 0),
    NUM(struct software, "fp8_weight_bytes", fp8_weight_bytes, 0, 16, 0, "bytes",
        "FP8 training: bytes per parameter of cached FP8 weight copies", 0),
    {"low_precision_params", FIELD_BOOL, offsetof(struct software, low_precision_params), 0, 1, 0,
     NULL, NULL, 0, "",
     "FP8/FP4 recipes store the compute weights in the low format instead of 16-bit", 0, 0, NULL,
     NULL, 0},
    {"reduce_per_microbatch", FIELD_BOOL, offsetof(struct software, reduce_per_microbatch), 0, 1, 1,
     NULL, NULL, 0, "", "ZeRO stage 2-3 reduce-scatters gradients every micro-batch", 0, 0, NULL,
     NULL, 0},
    INT(struct software, "max_zero_stage", max_zero_stage, 0, 3, 3, "",
        "highest ZeRO stage the stack implements", 0),
    NUM(struct software, "tp_comm_overlap", tp_comm_overlap, 0, 1, 0, "",
        "share of tensor-parallel communication hidden behind GEMMs", 0),
    {"tp_overlap_needs_sp", FIELD_BOOL, offsetof(struct software, tp_overlap_needs_sp), 0, 1, 0,
     NULL, NULL, 0, "",
     "tp_comm_overlap needs sequence parallelism (it chunks all-gathers and "
     "reduce-scatters, not all-reduces)",
     0, 0, NULL, NULL, 0},
    NUM(struct software, "param_gather_overlap", param_gather_overlap, 0, 1, 0, "",
        "share of the updated-weight all-gather hidden behind the next forward", 0),
    {"context_parallel", FIELD_BOOL, offsetof(struct software, context_parallel), 0, 1, 0, NULL,
     NULL, 0, "", "implements ring-attention context parallelism", 0, 0, NULL, NULL, 0},
    {"expert_parallel", FIELD_BOOL, offsetof(struct software, expert_parallel), 0, 1, 0, NULL, NULL,
     0, "", "implements mixture-of-experts expert parallelism", 0, 0, NULL, NULL, 0},
    {"fp8", FIELD_BOOL, offsetof(struct software, fp8), 0, 1, 0, NULL, NULL, 0, "",
     "trains with FP8 GEMMs", 0, 0, NULL, NULL, 0},
    {"microscaling", FIELD_BOOL, offsetof(struct software, microscaling), 0, 1, 0, NULL, NULL, 0,
     "", "trains with block-scaled MXFP8, FP4 or NVFP4 GEMMs", 0, 0, NULL, NULL, 0},
    NUM(struct software, "loss_bytes_per_logit", loss_bytes_per_logit, 0, 1000, 12, "bytes",
        "memory traffic of the cross-entropy loss per logit, forward and backward", 0),
    {"ep_comm_overlap", FIELD_BOOL, offsetof(struct software, ep_comm_overlap), 0, 1, 0, NULL, NULL,
     0, "", "overlaps expert all-to-alls with another micro-batch's compute", 0, 0, NULL, NULL, 0},
    NUM(struct software, "attention_fwd_tile_overhead", attention_fwd_tile_overhead, 0, 100, 0, "",
        "fused attention forward: fixed cost per thread block in tile iterations (0 = none)", 0),
    NUM(struct software, "attention_bwd_tile_overhead", attention_bwd_tile_overhead, 0, 100, 0, "",
        "fused attention backward: fixed cost per thread block in tile iterations (0 = none)", 0),
    INT(struct software, "expert_gemm_streams", expert_gemm_streams, 0, 64, 0, "",
        "expert GEMMs: one kernel per local expert over this many streams (0 = one grouped kernel)",
        0),
    NUM(struct software, "loss_logit_bytes", loss_logit_bytes, 0, 64, 6, "bytes",
        "memory per logit held at the loss in mixed precision (fused: 6)", 0),
    {"moe_folding", FIELD_BOOL, offsetof(struct software, moe_folding), 0, 1, 0, NULL, NULL, 0, "",
     "implements MoE parallel folding (expert tensor parallelism)", 0, 0, NULL, NULL, 0},
    {"deepep", FIELD_BOOL, offsetof(struct software, deepep), 0, 1, 0, NULL, NULL, 0, "",
     "has DeepEP", 0, 0, NULL, NULL, 0},
    {"activation_offload", FIELD_BOOL, offsetof(struct software, activation_offload), 0, 1, 0, NULL,
     NULL, 0, "", "offloads saved activations to host memory", 0, 0, NULL, NULL, 0},
    {"xla_layer_gather", FIELD_BOOL, offsetof(struct software, xla_layer_gather), 0, 1, 0, NULL,
     NULL, 0, "",
     "ZeRO-3 as XLA runs it over a scanned layer stack: layers gathered and their gradients "
     "reduce-scattered in the compute format",
     0, 0, NULL, NULL, 0},
    NUM(struct software, "host_ops_per_layer_fwd", host_ops_per_layer_fwd, 0, 1e4, 0, "",
        "host operations of one layer's forward in eager PyTorch ops (0 = compiled or not "
        "counted)",
        0),
    NUM(struct software, "host_ops_per_moe_fwd", host_ops_per_moe_fwd, 0, 1e4, 0, "",
        "host operations an MoE block adds to a layer's forward, besides one per expert GEMM", 0),
    {"moe_host_sync", FIELD_BOOL, offsetof(struct software, moe_host_sync), 0, 1, 0, NULL, NULL, 0,
     "", "dropless routing reads the tokens per expert on the host in every MoE layer", 0, 0, NULL,
     NULL, 0},
    {"cuda_graphs", FIELD_BOOL, offsetof(struct software, cuda_graphs), 0, 1, 0, NULL, NULL, 0, "",
     "replays layers from CUDA graphs (training.cuda_graphs)", 0, 0, NULL, NULL, 0},
    {"expert_bias_loop", FIELD_BOOL, offsetof(struct software, expert_bias_loop), 0, 1, 0, NULL,
     NULL, 0, "", "adds the experts' output bias in an eager loop over the local experts (unfused)",
     0, 0, NULL, NULL, 0},
    SOFTWARE_RULE_FIELDS /* i20: catalog_rules.h */
};

#define TABLE(what, arr)                                                                           \
    {                                                                                              \
        what, arr, sizeof arr / sizeof arr[0]                                                      \
    }
static const struct field_table kind_tables[CATALOG_KIND_COUNT] = {
    TABLE("accelerator", accel_fields),
    TABLE("cpu", cpu_fields),
    TABLE("storage", storage_fields),
    TABLE("link", link_fields),
    TABLE("cooling", cooling_fields),
    TABLE("software", software_fields),
    {"serving", serving_fields, SERVING_FIELD_COUNT},
};

static const size_t kind_sizes[CATALOG_KIND_COUNT] = {
    sizeof(struct accelerator), sizeof(struct cpu),     sizeof(struct storage),
    sizeof(struct link),        sizeof(struct cooling), sizeof(struct software),
    sizeof(struct serving),
};

const struct field_table *catalog_fields(enum catalog_kind kind)
{
    return (unsigned)kind < CATALOG_KIND_COUNT ? &kind_tables[kind] : NULL;
}

/* The (pointer, count) pair of a kind inside the catalog struct. */
static void **kind_array(struct catalog *cat, enum catalog_kind kind, size_t **count)
{
    switch (kind) {
    case CATALOG_ACCELERATOR:
        *count = &cat->n_accelerators;
        return (void **)&cat->accelerators;
    case CATALOG_CPU:
        *count = &cat->n_cpus;
        return (void **)&cat->cpus;
    case CATALOG_STORAGE:
        *count = &cat->n_storages;
        return (void **)&cat->storages;
    case CATALOG_LINK:
        *count = &cat->n_links;
        return (void **)&cat->links;
    case CATALOG_COOLING:
        *count = &cat->n_coolings;
        return (void **)&cat->coolings;
    case CATALOG_SERVING:
        *count = &cat->n_servings;
        return (void **)&cat->servings;
    default:
        *count = &cat->n_softwares;
        return (void **)&cat->softwares;
    }
}

struct catalog *catalog_new(void)
{
    return calloc(1, sizeof(struct catalog));
}

void catalog_free(struct catalog *cat)
{
    if (!cat)
        return;
    for (int k = 0; k < CATALOG_KIND_COUNT; k++) {
        size_t *n;
        void **arr = kind_array(cat, (enum catalog_kind)k, &n);
        free(*arr);
        idindex_free(&cat->index[k]);
    }
    free(cat);
}

size_t catalog_count(const struct catalog *cat, enum catalog_kind kind)
{
    size_t *n;
    kind_array((struct catalog *)cat, kind, &n);
    return *n;
}

const void *catalog_entry(const struct catalog *cat, enum catalog_kind kind, size_t i)
{
    size_t *n;
    void **arr = kind_array((struct catalog *)cat, kind, &n);
    if (i >= *n)
        return NULL;
    return (const char *)*arr + i * kind_sizes[kind];
}

/* The id of entry i of a kind; ctx is a struct kind_ref. */
struct kind_ref {
    const struct catalog *cat;
    enum catalog_kind kind;
};

static const char *entry_id_at(const void *ctx, size_t i)
{
    const struct kind_ref *k = ctx;
    return ((const struct catalog_head *)catalog_entry(k->cat, k->kind, i))->id;
}

static size_t find_index(const struct catalog *cat, enum catalog_kind kind, const char *id)
{
    struct kind_ref ref = {cat, kind};
    return idindex_find(&cat->index[kind], id, entry_id_at, &ref);
}

const void *catalog_find(const struct catalog *cat, enum catalog_kind kind, const char *id)
{
    if (!id || !id[0] || (unsigned)kind >= CATALOG_KIND_COUNT)
        return NULL;
    size_t i = find_index(cat, kind, id);
    return i == (size_t)-1 ? NULL : catalog_entry(cat, kind, i);
}

const char *catalog_suggest(const struct catalog *cat, enum catalog_kind kind, const char *id)
{
    size_t n = catalog_count(cat, kind);
    const char **words = malloc((n ? n : 1) * sizeof *words);
    if (!words)
        return NULL;
    for (size_t i = 0; i < n; i++)
        words[i] = ((const struct catalog_head *)catalog_entry(cat, kind, i))->id;
    const char *best = fields_suggest_word(id, words, n);
    free(words);
    return best;
}

const struct accelerator *catalog_accelerator(const struct catalog *cat, const char *id)
{
    return catalog_find(cat, CATALOG_ACCELERATOR, id);
}
const struct cpu *catalog_cpu(const struct catalog *cat, const char *id)
{
    return catalog_find(cat, CATALOG_CPU, id);
}
const struct storage *catalog_storage(const struct catalog *cat, const char *id)
{
    return catalog_find(cat, CATALOG_STORAGE, id);
}
const struct link *catalog_link(const struct catalog *cat, const char *id)
{
    return catalog_find(cat, CATALOG_LINK, id);
}
const struct cooling *catalog_cooling(const struct catalog *cat, const char *id)
{
    return catalog_find(cat, CATALOG_COOLING, id);
}
const struct software *catalog_software(const struct catalog *cat, const char *id)
{
    return catalog_find(cat, CATALOG_SOFTWARE, id);
}

static bool valid_id(const char *id)
{
    if (!id[0] || id[0] == '-')
        return false;
    for (const char *p = id; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-'))
            return false;
    return id[strlen(id) - 1] != '-';
}

/* The checks across the fields of one entry (power, memory, peaks, inlet
 * temperature); derives mem_gb or mem_gib. */
static bool check_entry(enum catalog_kind kind, unsigned char *buf, const struct ynode *node,
                        const char *file, char *err, size_t err_len)
{
    const struct catalog_head *h = (const struct catalog_head *)buf;
    if (kind == CATALOG_ACCELERATOR || kind == CATALOG_CPU) {
        double idle_w =
            kind == CATALOG_CPU ? ((struct cpu *)buf)->idle_w : ((struct accelerator *)buf)->idle_w;
        double tdp_w =
            kind == CATALOG_CPU ? ((struct cpu *)buf)->tdp_w : ((struct accelerator *)buf)->tdp_w;
        if (idle_w >= tdp_w) {
            snprintf(err, err_len, "%s:%d:%d: %s: idle_w (%g) must be below tdp_w (%g)", file,
                     node->line, node->col, h->id, idle_w, tdp_w);
            return false;
        }
    }
    if (kind == CATALOG_ACCELERATOR) {
        struct accelerator *a = (struct accelerator *)buf;
        /* Exactly one capacity is written; the other is derived (1 GiB = 2^30 bytes). */
        if ((a->mem_gib > 0) == (a->mem_gb > 0)) {
            snprintf(err, err_len,
                     "%s:%d:%d: %s: give device memory as mem_gib (GiB, as datasheets mean it) or "
                     "mem_gb (1e9 bytes), exactly one",
                     file, node->line, node->col, h->id);
            return false;
        }
        if (a->mem_gib > 0)
            a->mem_gb = a->mem_gib * 1.073741824;
        else
            a->mem_gib = a->mem_gb / 1.073741824;
        a->gemm_measured_bw_gbs = a->mem_bw_gbs;
        if (a->min_clock_mhz > 0 && !(a->min_clock_mhz <= a->boost_clock_mhz)) {
            const struct ynode *at = ynode_get(node, "min_clock_mhz");
            snprintf(err, err_len,
                     "%s:%d:%d: %s: min_clock_mhz (%g) needs a boost_clock_mhz at or above it (%d)",
                     file, at ? at->line : node->line, at ? at->col : node->col, h->id,
                     a->min_clock_mhz, a->boost_clock_mhz);
            return false;
        }
        if (a->fp4_tflops > 0 && a->fp4_tflops < MIN_TFLOPS) {
            snprintf(err, err_len,
                     "%s:%d:%d: %s: fp4_tflops (%g) must be 0 (no FP4 path) or at least %g", file,
                     node->line, node->col, h->id, a->fp4_tflops, MIN_TFLOPS);
            return false;
        }
        bool any = false;
        for (int p = 0; p < PREC_COUNT; p++)
            any = any || a->peak_tflops[p] > 0;
        if (!any) {
            snprintf(err, err_len, "%s:%d:%d: %s: needs at least one dense peak (e.g. bf16_tflops)",
                     file, node->line, node->col, h->id);
            return false;
        }
    }
    if (kind == CATALOG_COOLING) {
        struct cooling *c = (struct cooling *)buf;
        if (c->inlet_c >= c->limit_c) {
            const struct ynode *in = ynode_get(node, "inlet_c");
            snprintf(err, err_len, "%s:%d:%d: %s: inlet_c (%g) must be below limit_c (%g)", file,
                     in ? in->line : node->line, in ? in->col : node->col, h->id, c->inlet_c,
                     c->limit_c);
            return false;
        }
    }
    return true;
}

/* Stores a checked entry: replaces the one with its id, or appends it. */
static bool store_entry(struct catalog *cat, enum catalog_kind kind, const unsigned char *buf,
                        const char *file, char *err, size_t err_len)
{
    const struct catalog_head *h = (const struct catalog_head *)buf;
    size_t *n, *cap = &cat->cap[kind];
    void **arr = kind_array(cat, kind, &n);
    size_t at = find_index(cat, kind, h->id);
    if (at != (size_t)-1) {
        memcpy((char *)*arr + at * kind_sizes[kind], buf, kind_sizes[kind]);
        return true; /* a later file overrides an earlier id */
    }
    if (*n == *cap) {
        size_t grown_cap = *cap ? 2 * *cap : 16;
        void *grown = realloc(*arr, grown_cap * kind_sizes[kind]);
        if (!grown) {
            snprintf(err, err_len, "%s: out of memory", file);
            return false;
        }
        *arr = grown;
        *cap = grown_cap;
    }
    memcpy((char *)*arr + *n * kind_sizes[kind], buf, kind_sizes[kind]);
    struct kind_ref ref = {cat, kind};
    (*n)++;
    if (!idindex_add(&cat->index[kind], *n - 1, entry_id_at, &ref)) {
        (*n)--;
        snprintf(err, err_len, "%s: out of memory", file);
        return false;
    }
    return true;
}

/* Adds or replaces (same id) one entry bound from a YAML mapping. */
static bool load_entry(struct catalog *cat, enum catalog_kind kind, const struct ynode *node,
                       const char *file, char *err, size_t err_len)
{
    const struct field_table *t = &kind_tables[kind];
    if (node->kind != YNODE_MAP) {
        snprintf(err, err_len, "%s:%d:%d: each %s entry must be a mapping, found %s", file,
                 node->line, node->col, t->what, ynode_kind_name(node));
        return false;
    }
    unsigned char buf[sizeof(struct accelerator) > sizeof(struct software)
                          ? sizeof(struct accelerator) * 2
                          : sizeof(struct software) * 2];
    _Static_assert(sizeof(struct cpu) <= sizeof buf && sizeof(struct link) <= sizeof buf &&
                       sizeof(struct storage) <= sizeof buf &&
                       sizeof(struct cooling) <= sizeof buf && sizeof(struct serving) <= sizeof buf,
                   "entry buffer too small");
    memset(buf, 0, sizeof buf);
    fields_apply_defaults(t, buf);
    if (!fields_bind_yaml(t, node, "", file, buf, NULL, err, err_len))
        return false;
    struct catalog_head *h = (struct catalog_head *)buf;
    if (!valid_id(h->id)) {
        const struct ynode *idn = ynode_get(node, "id");
        snprintf(err, err_len,
                 "%s:%d:%d: id '%s' must be lowercase letters and digits joined by '-'", file,
                 idn ? idn->line : node->line, idn ? idn->col : node->col, h->id);
        return false;
    }
    snprintf(h->file, sizeof h->file, "%s", file);
    h->line = node->line;
    return check_entry(kind, buf, node, file, err, err_len) &&
           store_entry(cat, kind, buf, file, err, err_len);
}

/* The ids one file has given so far, per kind: a file that gives the same id
 * twice is a mistake (only a later file may override an earlier one). */
struct file_ids {
    const struct ynode **ids;
    size_t n, cap;
    struct idindex index;
};

static const char *file_id_at(const void *ctx, size_t i)
{
    return ((const struct file_ids *)ctx)->ids[i]->value;
}

/* Records the id of an entry (before it is loaded); false when the file
 * gave it already. */
static bool note_file_id(struct file_ids *seen, const struct ynode *entry, const char *path,
                         char *err, size_t err_len)
{
    const struct ynode *id = ynode_get(entry, "id");
    if (!id || id->kind != YNODE_SCALAR)
        return true; /* load_entry explains */
    size_t first = idindex_find(&seen->index, id->value, file_id_at, seen);
    if (first != (size_t)-1) {
        snprintf(err, err_len, "%s:%d:%d: id '%.64s' appears twice in this file (first on line %d)",
                 path, id->line, id->col, id->value, seen->ids[first]->line);
        return false;
    }
    if (seen->n == seen->cap) {
        size_t cap = seen->cap ? 2 * seen->cap : 16;
        const struct ynode **grown = realloc(seen->ids, cap * sizeof *grown);
        if (!grown) {
            snprintf(err, err_len, "%s: out of memory", path);
            return false;
        }
        seen->ids = grown;
        seen->cap = cap;
    }
    seen->ids[seen->n++] = id;
    if (!idindex_add(&seen->index, seen->n - 1, file_id_at, seen)) {
        snprintf(err, err_len, "%s: out of memory", path);
        return false;
    }
    return true;
}

/* Loads one parsed catalog file. */
static bool load_doc(struct catalog *cat, struct ydoc *doc, char *err, size_t err_len)
{
    const char *path = doc->file;
    bool ok = true;
    const struct ynode *root = doc->root;
    if (!root)
        return true; /* an empty file adds nothing */
    if (root->kind != YNODE_MAP) {
        snprintf(err, err_len, "%s:%d:%d: a catalog file is a mapping of kinds (%s, ...)", path,
                 root->line, root->col, catalog_kind_names[0]);
        return false;
    }
    struct file_ids seen[CATALOG_KIND_COUNT];
    memset(seen, 0, sizeof seen);
    for (size_t i = 0; ok && i < root->count; i++) {
        const struct ynode *key = root->keys[i], *list = root->items[i];
        int kind = -1;
        for (int k = 0; k < CATALOG_KIND_COUNT; k++)
            if (strcmp(key->value, catalog_kind_names[k]) == 0)
                kind = k;
        if (kind < 0) {
            const char *near =
                fields_suggest_word(key->value, catalog_kind_names, CATALOG_KIND_COUNT);
            snprintf(err, err_len, "%s:%d:%d: unknown catalog section '%s'%s%s%s", path, key->line,
                     key->col, key->value, near ? " (did you mean '" : "", near ? near : "",
                     near ? "'?)" : "");
            ok = false;
            break;
        }
        if (list->kind != YNODE_SEQ) {
            snprintf(err, err_len, "%s:%d:%d: '%s' must be a list of entries, found %s", path,
                     list->line, list->col, key->value, ynode_kind_name(list));
            ok = false;
            break;
        }
        for (size_t j = 0; ok && j < list->count; j++)
            ok = note_file_id(&seen[kind], list->items[j], path, err, err_len) &&
                 load_entry(cat, (enum catalog_kind)kind, list->items[j], path, err, err_len);
    }
    for (int k = 0; k < CATALOG_KIND_COUNT; k++) {
        free(seen[k].ids);
        idindex_free(&seen[k].index);
    }
    return ok;
}

bool catalog_load_file(struct catalog *cat, const char *path, char *err, size_t err_len)
{
    struct ydoc *doc = ydoc_load_file(path, err, err_len);
    if (!doc)
        return false;
    bool ok = load_doc(cat, doc, err, err_len);
    ydoc_free(doc);
    return ok;
}

bool catalog_load_string(struct catalog *cat, const char *name, const char *text, size_t len,
                         char *err, size_t err_len)
{
    struct ydoc *doc = ydoc_load_string(name, text, len, err, err_len);
    if (!doc)
        return false;
    bool ok = load_doc(cat, doc, err, err_len);
    ydoc_free(doc);
    return ok;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

bool catalog_load_dir(struct catalog *cat, const char *dir, char *err, size_t err_len)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, err_len, "%s: cannot open catalog directory: %s", dir, strerror(errno));
        return false;
    }
    char **names = NULL;
    size_t n = 0;
    bool ok = true;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 6 || e->d_name[0] == '.' || strcmp(e->d_name + len - 5, ".yaml") != 0)
            continue;
        char **grown = realloc(names, (n + 1) * sizeof *names);
        if (!grown) {
            ok = false;
            break;
        }
        names = grown;
        size_t plen = strlen(dir) + len + 2;
        names[n] = malloc(plen);
        if (!names[n]) {
            ok = false;
            break;
        }
        snprintf(names[n], plen, "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    if (!ok)
        snprintf(err, err_len, "%s: out of memory", dir);
    if (n)
        qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        if (ok)
            ok = catalog_load_file(cat, names[i], err, err_len);
        free(names[i]);
    }
    free(names);
    return ok;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* True when dir holds assets/catalog. */
static bool has_assets(const char *dir)
{
    char probe[1100];
    snprintf(probe, sizeof probe, "%s/assets/catalog", dir);
    return is_dir(probe);
}

const char *mlviz_data_dir(void)
{
    static char cached[1024];
    if (cached[0])
        return cached;
    const char *env = getenv("MLVIZ_DATA");
    if (env && env[0]) {
        snprintf(cached, sizeof cached, "%s", env);
        return cached;
    }
    /* A build in the source tree finds its assets next to the executable (or
     * one level up for build-asan/mlviz) before any installed copy; an
     * installed tree moved elsewhere finds PREFIX/share/mlviz from PREFIX/bin. */
    char exe[900];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        for (int up = 0; up < 2; up++) {
            char *slash = strrchr(exe, '/');
            if (!slash)
                break;
            *slash = '\0';
            if (has_assets(exe[0] ? exe : "/")) {
                snprintf(cached, sizeof cached, "%s", exe);
                return cached;
            }
            char share[1000];
            snprintf(share, sizeof share, "%s/share/mlviz", exe);
            if (up == 1 && has_assets(share)) {
                snprintf(cached, sizeof cached, "%s", share);
                return cached;
            }
        }
    }
    if (has_assets(MLVIZ_DATADIR)) {
        snprintf(cached, sizeof cached, "%s", MLVIZ_DATADIR);
        return cached;
    }
    snprintf(cached, sizeof cached, ".");
    return cached;
}

bool catalog_load_default(struct catalog *cat, const char *extra_dir, char *err, size_t err_len)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/assets/catalog", mlviz_data_dir());
    if (!catalog_load_dir(cat, path, err, err_len))
        return false;
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    if (xdg && xdg[0])
        snprintf(path, sizeof path, "%s/mlviz/catalog", xdg);
    else if (home && home[0])
        snprintf(path, sizeof path, "%s/.config/mlviz/catalog", home);
    else
        path[0] = '\0';
    if (path[0] && is_dir(path) && !catalog_load_dir(cat, path, err, err_len))
        return false;
    if (extra_dir && extra_dir[0] && !catalog_load_dir(cat, extra_dir, err, err_len))
        return false;
    return true;
}
