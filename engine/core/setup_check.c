/* setup_check: a setup's cross-checks (catalog references, layout, model
 * shape, mixture of experts, precision, network), each failure naming the
 * field to blame. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "setup.h"
#include "setup_internal.h"

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

/* The catalog references of the setup, resolved into r. */
static bool resolve_refs(const struct setup *s, const struct catalog *cat, struct resolved *r,
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
    const char *intra = s->cluster.node.intra_link[0] ? s->cluster.node.intra_link : r->accel->link;
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
    if (!resolve_ref(cat, CATALOG_SERVING, s->inference.software, "inference.software", false, &p,
                     err, err_len, bad_path))
        return false;
    r->serving = p;
    return true;
}

/* The sizes of the layout that the later checks need. */
struct layout_sizes {
    long long devices, dp;
    int tp, pp, cp, ep;
};

static bool check_layout(const struct setup *s, const struct resolved *r, struct layout_sizes *z,
                         char *err, size_t err_len, const char *bad_path[2])
{
    long long devices = setup_devices(s);
    int tp = s->training.tensor_parallel, pp = s->training.pipeline_parallel;
    int cp = s->training.context_parallel, ep = s->training.expert_parallel;
    if (tp == 0) /* "auto": model_settle_auto makes it a number before the checks */
        FAIL("training.tensor_parallel",
             "training.tensor_parallel is auto here, where it cannot be settled; give a number");
    if (tp > devices)
        FAIL("training.tensor_parallel", "training.tensor_parallel %d exceeds the %lld devices", tp,
             devices);
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
             tp, cp, pp, model_ranks, devices, s->cluster.nodes, s->cluster.nodes == 1 ? "" : "s",
             s->cluster.node.accelerators_per_node);
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
    z->devices = devices, z->dp = dp, z->tp = tp, z->pp = pp, z->cp = cp, z->ep = ep;
    return true;
}

/* A transformer's shape against the layout: heads, layers per stage,
 * virtual stages, sequence chunks. */
static bool check_transformer(const struct setup *s, const struct layout_sizes *z, char *err,
                              size_t err_len, const char *bad_path[2])
{
    int tp = z->tp, pp = z->pp, cp = z->cp;
    int kv = setup_kv_heads(s);
    if (s->model.head_dim == 0 && s->model.hidden % s->model.heads != 0)
        FAIL("model.heads", "model.hidden %d is not divisible by model.heads %d", s->model.hidden,
             s->model.heads);
    if (kv > s->model.heads || s->model.heads % kv != 0)
        FAIL("model.kv_heads", "model.kv_heads %d must divide model.heads %d", kv, s->model.heads);
    const char *latent = s->model.q_lora_rank > 0        ? "model.q_lora_rank"
                         : s->model.qk_rope_head_dim > 0 ? "model.qk_rope_head_dim"
                         : s->model.v_head_dim > 0       ? "model.v_head_dim"
                                                         : NULL;
    if (latent && s->model.kv_lora_rank == 0)
        FAIL(latent, "%s is a multi-head latent attention field: it needs model.kv_lora_rank",
             latent);
    if (s->model.heads % tp != 0)
        FAIL("training.tensor_parallel", "training.tensor_parallel %d must divide model.heads %d",
             tp, s->model.heads);
    if (kv % tp != 0 && tp % kv != 0)
        FAIL("training.tensor_parallel",
             "training.tensor_parallel %d and model.kv_heads %d must divide one another", tp, kv);
    if (pp > s->model.layers)
        FAIL("training.pipeline_parallel", "training.pipeline_parallel %d exceeds model.layers %d",
             pp, s->model.layers);
    int first = s->training.first_stage_layers, last = s->training.last_stage_layers;
    if ((first > 0 || last > 0) && pp == 1)
        FAIL(first > 0 ? "training.first_stage_layers" : "training.last_stage_layers",
             "training.%s_stage_layers needs pipeline_parallel > 1", first > 0 ? "first" : "last");
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
        FAIL("training.virtual_stages", "training.virtual_stages %d needs pipeline_parallel > 1",
             v);
    for (int stage = 0; v > 1 && stage < pp; stage++)
        if (setup_stage_layers(s, stage) + setup_stage_split_extras(s, stage) < v)
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
    return true;
}

/* Mixture of experts, and what the software implements of it and of
 * context parallelism. */
static bool check_experts(const struct setup *s, const struct resolved *r,
                          const struct layout_sizes *z, char *err, size_t err_len,
                          const char *bad_path[2])
{
    const struct software *sw = r->software;
    int ep = z->ep;
    long long dp = z->dp;
    int experts = s->model.experts;
    if (experts == 0 && (s->model.top_k > 0 || s->model.shared_experts > 0 ||
                         s->model.expert_ffn_hidden > 0 || s->model.dense_layers > 0))
        FAIL(s->model.top_k > 0               ? "model.top_k"
             : s->model.shared_experts > 0    ? "model.shared_experts"
             : s->model.expert_ffn_hidden > 0 ? "model.expert_ffn_hidden"
                                              : "model.dense_layers",
             "mixture-of-experts fields need model.experts > 0");
    if (experts > 0 && (s->model.top_k < 1 || s->model.top_k > experts))
        FAIL_AT("model.top_k", "model.experts",
                "model.top_k %d must be between 1 and model.experts %d", s->model.top_k, experts);
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
             "training.expert_parallel %d needs a mixture-of-experts model (model.experts)", ep);
    if (ep > 1 && experts % ep != 0)
        FAIL("training.expert_parallel", "training.expert_parallel %d must divide model.experts %d",
             ep, experts);
    (void)dp; /* y2026: MoE parallel folding replaces "EP divides DP x CP" (setup_check_2026.c) */
    if (s->training.ep_comm_overlap && (ep < 2 || !sw->ep_comm_overlap))
        FAIL_AT("training.ep_comm_overlap",
                ep < 2 ? "training.expert_parallel" : "training.software",
                "training.ep_comm_overlap needs expert_parallel above 1 and a stack that "
                "implements it (megatron-core, nemo); here %s, expert_parallel %d",
                sw->head.id, ep);
    if (s->training.capacity_factor > 0 && experts == 0)
        FAIL("training.capacity_factor",
             "training.capacity_factor applies to mixture-of-experts models "
             "(model.experts > 0)");
    return true;
}

/* A generic model: counts set, data parallelism only. */
static bool check_generic(const struct setup *s, const struct layout_sizes *z, char *err,
                          size_t err_len, const char *bad_path[2])
{
    int tp = z->tp, pp = z->pp, cp = z->cp, ep = z->ep;
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
    return true;
}

/* Precision and ZeRO against the device and software; the network a
 * multi-node setup needs; local data. */
static bool check_hardware(const struct setup *s, const struct resolved *r,
                           const struct layout_sizes *z, char *err, size_t err_len,
                           const char *bad_path[2])
{
    const struct software *sw = r->software;
    long long devices = z->devices, dp = z->dp;
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

/* Every cross-check after the catalog lookups, in the order setup_check
 * reports them. */
static bool check_resolved(const struct setup *s, const struct resolved *r, char *err,
                           size_t err_len, const char *bad_path[2])
{
    struct layout_sizes z;
    if (!check_layout(s, r, &z, err, err_len, bad_path))
        return false;
    if (s->model.kind == MODEL_TRANSFORMER) {
        if (!check_transformer(s, &z, err, err_len, bad_path) ||
            !check_experts(s, r, &z, err, err_len, bad_path))
            return false;
    } else if (!check_generic(s, &z, err, err_len, bad_path)) {
        return false;
    }
    return check_hardware(s, r, &z, err, err_len, bad_path) &&
           setup_check_stack(s, r->software, err, err_len, bad_path) && /* setup_stack.c */
           setup_check_inference(s, r, err, err_len, bad_path) &&
           setup_check_2026(s, r, err, err_len, bad_path);
}

bool setup_check(const struct setup *s, const struct catalog *cat, struct resolved *r, char *err,
                 size_t err_len, const char *bad_path[2])
{
    return resolve_refs(s, cat, r, err, err_len, bad_path) &&
           check_resolved(s, r, err, err_len, bad_path);
}

bool setup_check_resolved(const struct setup *s, const struct resolved *r, char *err,
                          size_t err_len)
{
    const char *bad[2] = {NULL, NULL};
    return check_resolved(s, r, err, err_len, bad);
}

/* The catalog-id fields of the setup table, found once. */
static const struct field *ref_fields[SETUP_REFS_MAX];
static size_t ref_count;
static bool refs_fit = true;
static pthread_once_t refs_once = PTHREAD_ONCE_INIT;

static void find_ref_fields(void)
{
    const struct field_table *t = setup_fields();
    for (size_t i = 0; i < t->count; i++) {
        if (t->fields[i].type != FIELD_REF)
            continue;
        if (ref_count == SETUP_REFS_MAX)
            refs_fit = false;
        else
            ref_fields[ref_count++] = &t->fields[i];
    }
}

bool setup_resolve_memo(const struct setup *s, const struct catalog *cat,
                        struct setup_resolve_memo *m, struct resolved *r, char *err, size_t err_len)
{
    pthread_once(&refs_once, find_ref_fields);
    bool same = refs_fit && m->cat == cat && cat;
    for (size_t i = 0; same && i < ref_count; i++)
        same = strcmp(m->ids[i], fields_get_string(ref_fields[i], s)) == 0;
    if (same) {
        *r = m->r;
        return setup_check_resolved(s, r, err, err_len);
    }
    const char *bad[2] = {NULL, NULL};
    m->cat = NULL;
    if (!resolve_refs(s, cat, r, err, err_len, bad))
        return false;
    m->cat = cat;
    m->r = *r;
    for (size_t i = 0; i < ref_count; i++)
        snprintf(m->ids[i], sizeof m->ids[i], "%s", fields_get_string(ref_fields[i], s));
    return check_resolved(s, r, err, err_len, bad);
}

/* The checks of a loaded setup. training.tensor_parallel: auto stays auto
 * (0) for the caller to settle with the model once every change is made
 * (model_settle_auto); the file passes when a power of two up to the
 * scale-up domain passes (the first one's message otherwise). */
bool setup_check_loaded(const struct setup *s, const struct catalog *cat, struct resolved *r,
                        char *msg, size_t msg_len, const char *bad[2])
{
    if (s->training.tensor_parallel != 0)
        return setup_check(s, cat, r, msg, msg_len, bad);
    struct setup t = *s;
    int domain = setup_scaleup_domain(s);
    for (int tp = domain > 1 ? 2 : 1; tp <= domain && tp <= 4096; tp *= 2) {
        t.training.tensor_parallel = tp;
        if (setup_check(&t, cat, r, msg, msg_len, bad))
            return true;
    }
    t.training.tensor_parallel = 1;
    return setup_check(&t, cat, r, msg, msg_len, bad);
}
