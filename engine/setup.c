/* setup: the field table of a setup file, strict loading and cross-checks. */
#include "setup.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const model_kind_names[] = {"transformer", "generic", NULL};
const char *const mlp_names[] = {"gelu", "swiglu", NULL};
const char *const optimizer_names[] = {"adam", "sgd", "adafactor", NULL};
const char *const recompute_names[] = {"none", "selective", "full", NULL};
const char *const allreduce_names[] = {"auto", "ring", "tree", "hierarchical", NULL};
static const char *const data_source_names[] = {"shared", "local", NULL};

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
static const struct field setup_field_list[] = {
    {"name", FIELD_STR, OFF(name), 0, 0, 0, "unnamed setup", NULL, 0, "", "a short title", 0, 0},
    INT("cluster.nodes", cluster.nodes, 1, 1e6, 1, "", "number of nodes (servers)", FIELD_KNOB, 3),
    REF("cluster.node.accelerator", cluster.node.accelerator, CATALOG_ACCELERATOR, "h100-sxm",
        "accelerator model", FIELD_KNOB, 3),
    INT("cluster.node.accelerators_per_node", cluster.node.accelerators_per_node, 1, 1024, 8, "",
        "accelerators in each node", FIELD_KNOB, 3),
    REF("cluster.node.cpu", cluster.node.cpu, CATALOG_CPU, "xeon-8480", "host CPU model",
        FIELD_KNOB, 2),
    INT("cluster.node.cpu_sockets", cluster.node.cpu_sockets, 1, 16, 2, "", "CPU sockets per node",
        FIELD_KNOB, 2),
    NUM("cluster.node.host_ram_gb", cluster.node.host_ram_gb, 0, 1e6, 2048, "GB",
        "host memory per node", FIELD_KNOB | FIELD_EXCL_MIN, 2),
    REF("cluster.node.intra_link", cluster.node.intra_link, CATALOG_LINK, "",
        "device-to-device link inside a node (empty: the accelerator's own)",
        FIELD_KNOB | FIELD_OPTIONAL, 4),
    REF("cluster.node.host_link", cluster.node.host_link, CATALOG_LINK, "pcie5-x16",
        "link between host and each device", FIELD_KNOB, 2),
    REF("cluster.node.nic", cluster.node.nic, CATALOG_LINK, "ib-ndr", "network port between nodes",
        FIELD_KNOB | FIELD_OPTIONAL, 4),
    INT("cluster.node.nics_per_node", cluster.node.nics_per_node, 0, 256, 8, "",
        "network ports per node", FIELD_KNOB, 4),
    REF("cluster.node.local_storage", cluster.node.local_storage, CATALOG_STORAGE, "nvme-gen4",
        "storage inside each node", FIELD_OPTIONAL, 1),
    /* DGX H100 peaks at 10.2 kW (NVIDIA user guide); 8 x 700 W GPUs, 2 x 350 W
     * CPUs and 8 NICs leave ~3.7 kW for NVSwitches, DRAM, drives and fans at
     * full speed; about 1.5 kW is typical under a steady training load. */
    NUM("cluster.node.other_w", cluster.node.other_w, 0, 1e6, 1500, "W",
        "power of the rest of the node: switches, memory, drives, fans", 0, 5),
    REF("cluster.storage", cluster.storage, CATALOG_STORAGE, "lustre",
        "shared storage tier that training data is read from", FIELD_KNOB, 1),
    AUTO("cluster.storage_bw_gbs", cluster.storage_bw_gbs, 0, 1e7, "GB/s",
         "aggregate read bandwidth of the shared tier (auto: the catalog's)",
         FIELD_KNOB | FIELD_EXCL_MIN, 1),
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
    INT("model.layers", model.layers, 1, 1e5, 32, "", "transformer layers", 0, 3),
    INT("model.hidden", model.hidden, 1, 1e6, 4096, "", "hidden size", 0, 3),
    INT("model.heads", model.heads, 1, 1e5, 32, "", "attention heads", 0, 3),
    INT("model.seq_len", model.seq_len, 1, 1e8, 4096, "tokens", "sequence length", FIELD_KNOB, 3),
    INT("model.vocab", model.vocab, 1, 1e8, 128256, "", "vocabulary size", 0, 3),
    INT("model.ffn_hidden", model.ffn_hidden, 0, 1e7, 0, "",
        "MLP inner size (0: 4 x hidden)", 0, 3),
    INT("model.kv_heads", model.kv_heads, 0, 1e5, 0, "",
        "key/value heads for grouped-query attention (0: heads)", 0, 3),
    ENUM("model.mlp", model.mlp, mlp_names, MLP_GELU, "gelu (2 matrices) or swiglu (3)", 0, 3),
    BOOL("model.causal", model.causal, 1,
         "causal (decoder) attention; fused attention skips the masked half", 0, 3),
    NUM("model.params", model.params, 0, 1e16, 0, "", "generic models: parameter count", 0, 3),
    NUM("model.flops_per_sample", model.flops_per_sample, 0, 1e22, 0, "FLOP",
        "generic models: training FLOPs (forward + backward) per sample", 0, 3),
    NUM("model.bytes_per_flop", model.bytes_per_flop, 0, 100, 0.02, "B/FLOP",
        "generic models: device memory traffic per FLOP", 0, 3),
    NUM("model.activation_bytes_per_sample", model.activation_bytes_per_sample, 0, 1e15, 0,
        "bytes", "generic models: activation memory per sample", 0, 3),
    INT("training.global_batch", training.global_batch, 1, 1e9, 256, "samples",
        "samples per optimizer step", FIELD_KNOB, 3),
    INT("training.micro_batch", training.micro_batch, 1, 1e7, 1, "samples",
        "samples per device per forward pass", FIELD_KNOB, 3),
    ENUM("training.precision", training.precision, precision_names, PREC_BF16,
         "number format of the matrix math", FIELD_KNOB, 3),
    ENUM("training.optimizer", training.optimizer, optimizer_names, OPT_ADAM,
         "optimizer (sets the bytes of optimizer state)", 0, 3),
    INT("training.tensor_parallel", training.tensor_parallel, 1, 4096, 1, "",
        "tensor-parallel group size", FIELD_KNOB, 4),
    INT("training.pipeline_parallel", training.pipeline_parallel, 1, 4096, 1, "",
        "pipeline stages", FIELD_KNOB, 4),
    INT("training.virtual_stages", training.virtual_stages, 1, 64, 1, "",
        "model chunks per pipeline stage (interleaved 1F1B schedule)", FIELD_KNOB, 4),
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
    NUM("training.tokens", training.tokens, 0, 1e18, 1e12, "tokens",
        "training budget (samples for generic models)", FIELD_EXCL_MIN, 5),
    REF("training.software", training.software, CATALOG_SOFTWARE, "megatron",
        "software stack (kernel counts, memory reserve)", 0, 3),
    ENUM("data.source", data.source, data_source_names, DATA_SHARED,
         "read samples from the shared tier or from node-local storage", FIELD_KNOB, 1),
    NUM("data.sample_bytes", data.sample_bytes, 0, 1e12, 16384, "bytes",
        "bytes read from storage per sample", FIELD_KNOB | FIELD_EXCL_MIN, 1),
    NUM("data.preprocess_us_per_sample", data.preprocess_us_per_sample, 0, 1e9, 50, "us",
        "CPU time to prepare one sample on one core", FIELD_KNOB, 2),
    INT("data.loader_workers_per_device", data.loader_workers_per_device, 0, 1024, 4, "",
        "data-loader processes per device", FIELD_KNOB, 2),
    INT("data.prefetch_batches", data.prefetch_batches, 0, 1024, 2, "batches",
        "batches prepared ahead of the device", FIELD_KNOB, 1),
    NUM("data.cache_hit", data.cache_hit, 0, 1, 0, "", "share of reads served from host RAM",
        FIELD_KNOB, 1),
    NUM("reliability.device_mtbf_h", reliability.device_mtbf_h, 0, 1e9, 87600, "h",
        "mean time between failures of one device", FIELD_KNOB | FIELD_EXCL_MIN, 5),
    NUM("reliability.node_mtbf_h", reliability.node_mtbf_h, 0, 1e9, 15000, "h",
        "mean time between failures of one node (non-device causes)", FIELD_KNOB | FIELD_EXCL_MIN, 5),
    AUTO("reliability.checkpoint_interval_min", reliability.checkpoint_interval_min, 0, 1e7, "min",
         "minutes between checkpoints (auto: Young/Daly optimum)", FIELD_KNOB | FIELD_EXCL_MIN, 5),
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

int setup_devices(const struct setup *s)
{
    return s->cluster.nodes * s->cluster.node.accelerators_per_node;
}

int setup_data_parallel(const struct setup *s)
{
    int mp = s->training.tensor_parallel * s->training.pipeline_parallel;
    return mp > 0 ? setup_devices(s) / mp : 0;
}

int setup_ffn_hidden(const struct setup *s)
{
    return s->model.ffn_hidden > 0 ? s->model.ffn_hidden : 4 * s->model.hidden;
}

int setup_kv_heads(const struct setup *s)
{
    return s->model.kv_heads > 0 ? s->model.kv_heads : s->model.heads;
}

int setup_racks(const struct setup *s)
{
    return (s->cluster.nodes + s->facility.nodes_per_rack - 1) / s->facility.nodes_per_rack;
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
        snprintf(err, err_len, "%s: a %s id is required", path, catalog_kind_singular[kind]);
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

#define FAIL(path, ...)                                                                           \
    do {                                                                                          \
        snprintf(err, err_len, __VA_ARGS__);                                                      \
        *bad_path = path;                                                                         \
        return false;                                                                             \
    } while (0)

static bool check_setup(const struct setup *s, const struct catalog *cat, struct resolved *r,
                        char *err, size_t err_len, const char **bad_path)
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

    int devices = setup_devices(s);
    int tp = s->training.tensor_parallel, pp = s->training.pipeline_parallel;
    if (tp > devices)
        FAIL("training.tensor_parallel", "training.tensor_parallel %d exceeds the %d devices", tp,
             devices);
    if (devices % (tp * pp) != 0)
        FAIL("training.pipeline_parallel",
             "tensor_parallel %d x pipeline_parallel %d = %d does not divide the %d devices "
             "(%d nodes x %d)",
             tp, pp, tp * pp, devices, s->cluster.nodes, s->cluster.node.accelerators_per_node);
    int dp = devices / (tp * pp);
    if (s->training.global_batch % (dp * s->training.micro_batch) != 0)
        FAIL("training.global_batch",
             "training.global_batch %d is not a multiple of data-parallel size %d x micro_batch "
             "%d",
             s->training.global_batch, dp, s->training.micro_batch);
    if (s->model.kind == MODEL_TRANSFORMER) {
        int kv = setup_kv_heads(s);
        if (s->model.hidden % s->model.heads != 0)
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
        int v = s->training.virtual_stages;
        if (v > 1 && (pp == 1 || s->model.layers % (pp * v) != 0))
            FAIL("training.virtual_stages",
                 "training.virtual_stages %d needs pipeline_parallel > 1 and model.layers (%d) "
                 "divisible by pipeline_parallel x virtual_stages (%d)",
                 v, s->model.layers, pp * v);
    } else {
        if (s->model.params <= 0)
            FAIL("model.params", "model.params must be set (above 0) for a generic model");
        if (s->model.flops_per_sample <= 0)
            FAIL("model.flops_per_sample",
                 "model.flops_per_sample must be set (above 0) for a generic model");
        if (tp > 1 || pp > 1)
            FAIL("training.tensor_parallel",
                 "a generic model supports data parallelism only (tensor_parallel and "
                 "pipeline_parallel must be 1)");
    }
    double peak = r->accel->peak_tflops[s->training.precision];
    if (!(peak > 0)) {
        char have[128] = "";
        size_t used = 0;
        for (int i = 0; i < PREC_COUNT; i++)
            if (r->accel->peak_tflops[i] > 0)
                used += (size_t)snprintf(have + used, sizeof have - used, "%s%s", used ? ", " : "",
                                         precision_names[i]);
        FAIL("training.precision", "%s has no %s support (it has: %s)", r->accel->head.id,
             precision_names[s->training.precision], have);
    }
    if (s->cluster.nodes > 1 && (!r->nic || s->cluster.node.nics_per_node < 1))
        FAIL("cluster.node.nics_per_node",
             "%d nodes need a network: set cluster.node.nic and nics_per_node >= 1",
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
    const char *bad = NULL;
    return check_setup(s, cat, r, err, err_len, &bad);
}

/* Position of a field path in the YAML, for messages: the deepest node found. */
static const struct ynode *locate(const struct ynode *root, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    const struct ynode *n = root, *last = root;
    for (char *tok = strtok(buf, "."); tok && n; tok = strtok(NULL, ".")) {
        const struct ynode *next = ynode_get(n, tok);
        if (next)
            last = next;
        n = next;
    }
    return last;
}

static bool load_doc(struct setup *s, struct ydoc *doc, const struct catalog *cat, char *err,
                     size_t err_len)
{
    struct setup tmp;
    setup_defaults(&tmp);
    if (!doc->root) {
        snprintf(err, err_len, "%s:1:1: the file is empty (a setup needs at least 'name:' or "
                               "'cluster:')",
                 doc->file);
        return false;
    }
    if (!fields_bind_yaml(&setup_table, doc->root, "", doc->file, &tmp, NULL, err, err_len))
        return false;
    struct resolved r;
    const char *bad = NULL;
    char msg[512];
    if (!check_setup(&tmp, cat, &r, msg, sizeof msg, &bad)) {
        const struct ynode *n = locate(doc->root, bad ? bad : "");
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

void setup_write_yaml(const struct setup *s, char *buf, size_t len)
{
    size_t used = 0;
    char prev[256] = "";
    buf[0] = '\0';
    for (size_t i = 0; i < setup_table.count && used < len; i++) {
        const struct field *f = &setup_table.fields[i];
        /* Open the sections that differ from the previous path. */
        char cur[256];
        snprintf(cur, sizeof cur, "%s", f->path);
        char *last_dot = strrchr(cur, '.');
        const char *leaf = last_dot ? last_dot + 1 : cur;
        if (last_dot)
            *last_dot = '\0';
        else
            cur[0] = '\0';
        if (strcmp(cur, prev) != 0) {
            /* Print each section component not shared with prev. */
            char a[256], b[256];
            snprintf(a, sizeof a, "%s", cur);
            snprintf(b, sizeof b, "%s", prev);
            int depth = 0;
            char *sa, *sb;
            char *ta = strtok_r(a, ".", &sa), *tb = strtok_r(b, ".", &sb);
            while (ta && tb && strcmp(ta, tb) == 0) {
                depth++;
                ta = strtok_r(NULL, ".", &sa);
                tb = strtok_r(NULL, ".", &sb);
            }
            for (; ta && used < len; ta = strtok_r(NULL, ".", &sa), depth++)
                used += (size_t)snprintf(buf + used, len - used, "%*s%s:\n", depth * 2, "", ta);
            snprintf(prev, sizeof prev, "%s", cur);
        }
        int depth = 0;
        for (const char *c = f->path; *c; c++)
            depth += *c == '.';
        char val[128];
        fields_format(f, s, val, sizeof val);
        if (used < len) {
            if (f->type == FIELD_STR || (f->type == FIELD_REF && !val[0]))
                used += (size_t)snprintf(buf + used, len - used, "%*s%s: \"%s\"\n", depth * 2, "",
                                         leaf, val);
            else
                used += (size_t)snprintf(buf + used, len - used, "%*s%s: %s\n", depth * 2, "", leaf,
                                         val);
        }
    }
}
