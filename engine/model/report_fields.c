/* report_fields: every member of struct model_report described once.
 *
 * The order is the order of `mlviz eval --format json` (a documented
 * contract: never reorder or rename a key). report_visit, the JSON and CSV
 * writers, the Lua result tables and the model's finite-number guard all
 * walk this table; tests/unit/engine/test_report.c checks that it covers every
 * member of the struct. */
#include "report_fields.h"

#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "idindex.h"

#define MEMBER_SIZE(m) sizeof(((struct model_report *)0)->m)
#define ROW(key, member, type, unit, help)                                                         \
    {                                                                                              \
        key, offsetof(struct model_report, member), MEMBER_SIZE(member), type, unit, help          \
    }
#define NUM(key, member, unit, help) ROW(key, member, REPORT_NUM, unit, help)
#define INT(key, member, help)       ROW(key, member, REPORT_INT, "", help)
#define BOOL(key, member, help)      ROW(key, member, REPORT_BOOL, "", help)
#define TEXT(key, member, help)      ROW(key, member, REPORT_TEXT, "", help)
#define BREAKDOWN(name, help)        NUM("breakdown_s." #name, breakdown.name, "s", help)

const struct report_field report_fields[] = {
    {"name", 0, 0, REPORT_SETUP_NAME, "", "the setup's name"},
    BOOL("runnable", runnable,
         "false when the setup cannot run (see why_not): JSON and CSV then hold no throughput, "
         "MFU, energy or cost (null, empty)"),
    TEXT("why_not", why_not, "why it cannot run, empty when it can"),
    NUM("step_time_s", step_time_s, "s", "one optimizer step, data stalls included"),
    NUM("device_step_s", device_step_s, "s", "one step if data were free"),
    NUM("tokens_per_s", tokens_per_s, "tokens/s", "training throughput"),
    NUM("samples_per_s", samples_per_s, "samples/s", "training throughput in samples"),
    NUM("tflops_per_device", tflops_per_device, "TFLOP/s", "executed FLOPs per device per second"),
    NUM("mfu", mfu, "", "model FLOPs utilization (forward + backward over peak)"),
    NUM("hfu", hfu, "",
        "executed FLOPs (recomputation in, skipped attention blocks out) over peak"),
    NUM("hfu_model_convention", hfu_model_convention, "",
        "hardware FLOPs in MFU's convention (recomputation added) over peak: mfu never exceeds it"),
    TEXT("flops_convention", flops_convention, "the convention MFU counts model FLOPs in"),
    NUM("peak_tflops", peak_tflops, "TFLOP/s", "dense peak per device at the chosen precision"),
    NUM("achieved_fraction", achieved_fraction, "", "compute-phase FLOP/s over peak"),
    NUM("starvation", starvation, "", "share of the step the devices wait for data"),
    NUM("params", params, "", "model parameters"),
    NUM("params_active", params_active, "",
        "parameters each token uses (mixture of experts: the top_k routed experts; else params)"),
    NUM("flops_per_step", flops_per_step, "FLOP", "executed FLOPs per step, whole cluster"),
    NUM("model_flops_per_step", model_flops_per_step, "FLOP",
        "forward + backward FLOPs per step, whole cluster"),
    ROW("bottleneck", bottleneck, REPORT_STAGE, "", "the stage that sets the pace"),
    TEXT("bottleneck_reason", bottleneck_reason, "why, with the numbers"),
    ROW("next_bottleneck", next_bottleneck, REPORT_STAGE, "", "the stage that would be next"),
    TEXT("next_reason", next_reason, "why, with the numbers"),

    {"layout.accelerator", 0, 0, REPORT_ACCELERATOR_ID, "", "catalog id of the device"},
    INT("layout.devices", devices, "accelerators in the cluster"),
    INT("layout.nodes", nodes, "nodes"),
    INT("layout.racks", racks, "racks"),
    INT("layout.data_parallel", dp, "data-parallel size"),
    INT("layout.tensor_parallel", tp, "tensor-parallel size"),
    INT("layout.pipeline_parallel", pp, "pipeline-parallel size"),
    INT("layout.context_parallel", cp, "context-parallel size"),
    INT("layout.expert_parallel", ep, "expert-parallel size (carved out of DP x CP)"),
    INT("layout.virtual_stages", vp, "model chunks per pipeline stage"),
    INT("layout.micro_batches", micro_batches, "micro-batches per step per pipeline"),
    INT("layout.zero_stage", zero_stage, "ZeRO stage"),
    TEXT("layout.recompute", recompute, "activation recomputation"),
    TEXT("layout.precision", precision, "number format of the matrix math"),
    TEXT("layout.software", software, "catalog id of the software stack"),

    BREAKDOWN(data_read, "exposed storage read"),
    BREAKDOWN(preprocess, "exposed loader work"),
    BREAKDOWN(host_to_device, "exposed host-to-device copies"),
    BREAKDOWN(compute, "forward and backward compute"),
    BREAKDOWN(recompute, "activation recomputation"),
    BREAKDOWN(tp_comm, "tensor-parallel all-reduces"),
    BREAKDOWN(cp_comm, "ring-attention K/V exchange not hidden under attention"),
    BREAKDOWN(ep_comm, "expert all-to-alls (dispatch and combine)"),
    BREAKDOWN(pp_bubble, "pipeline bubble"),
    BREAKDOWN(pp_p2p, "pipeline sends"),
    BREAKDOWN(dp_comm_exposed, "gradient sync not hidden under compute"),
    BREAKDOWN(optimizer, "optimizer step"),
    BREAKDOWN(straggler, "waiting for the slowest of the devices"),
    BREAKDOWN(overhead, "fixed per-step software cost"),

    NUM("utilization.data", utilization[STAGE_DATA], "", "busy share of the storage stage"),
    NUM("utilization.cpus", utilization[STAGE_CPUS], "", "busy share of the host CPUs"),
    NUM("utilization.accelerators", utilization[STAGE_ACCELERATORS], "",
        "busy share of the devices"),
    NUM("utilization.interconnect", utilization[STAGE_INTERCONNECT], "", "busy share of the links"),
    NUM("utilization.infrastructure", utilization[STAGE_INFRASTRUCTURE], "",
        "rack power over cooling capacity"),

    NUM("stages.read_s", stages.read_s, "s", "storage to host for one global batch"),
    NUM("stages.preprocess_s", stages.preprocess_s, "s", "loader workers for one global batch"),
    NUM("stages.host_to_device_s", stages.h2d_s, "s", "host-to-device copies for one batch"),
    NUM("stages.device_s", stages.device_s, "s", "device step without data stalls"),
    NUM("stages.forward_s", stages.forward_s, "s", "forward passes of one step"),
    NUM("stages.backward_s", stages.backward_s, "s", "backward passes of one step"),
    NUM("stages.dp_comm_s", stages.dp_comm_s, "s", "full gradient sync before overlap"),
    NUM("stages.tp_comm_s", stages.tp_comm_s, "s", "tensor-parallel communication"),
    NUM("stages.storage_bw_gbs", stages.storage_bw_gbs, "GB/s", "storage bandwidth available"),
    NUM("stages.need_bw_gbs", stages.need_bw_gbs, "GB/s", "read bandwidth the devices consume"),
    NUM("stages.cpu_cores_busy", stages.cpu_cores_busy, "cores", "loader cores busy per node"),
    NUM("stages.cpu_cores_total", stages.cpu_cores_total, "cores", "cores per node"),
    NUM("stages.ep_comm_s", stages.ep_comm_s, "s", "expert all-to-alls before overlap"),

    NUM("memory.per_device_gb", memory.per_device_gb, "GB",
        "device memory needed: the step's largest phase plus the reserve"),
    NUM("memory.params_gb", memory.params_gb, "GB", "weights"),
    NUM("memory.grads_gb", memory.grads_gb, "GB", "gradients"),
    NUM("memory.optimizer_gb", memory.optimizer_gb, "GB", "optimizer state and master weights"),
    NUM("memory.activations_gb", memory.activations_gb, "GB",
        "activations at the peak phase: stored, plus the rebuilt layer in the backward"),
    NUM("memory.logits_gb", memory.logits_gb, "GB",
        "logits of the last stage when the peak is at the loss (else 0)"),
    NUM("memory.reserved_gb", memory.reserved_gb, "GB", "runtime workspaces and fragmentation"),
    NUM("memory.experts_gb", memory.experts_gb, "GB",
        "of weights, gradients and optimizer state: the routed experts' share"),
    NUM("memory.capacity_gb", memory.capacity_gb, "GB", "device memory"),
    NUM("memory.host_offload_gb", memory.host_offload_gb, "GB",
        "activations offloaded to host memory, per device"),
    BOOL("memory.fits", memory.fits, "whether it fits"),

    {"suggestions", offsetof(struct model_report, suggestions), MEMBER_SIZE(suggestions),
     REPORT_SUGGESTIONS, "", "changes that would make it fit"},

    NUM("power.device_w", power.device_w, "W", "one device at the modelled utilization"),
    NUM("power.node_w", power.node_w, "W", "one node"),
    NUM("power.it_kw", power.it_kw, "kW", "IT power of the cluster"),
    NUM("power.facility_kw", power.facility_kw, "kW", "IT power times PUE"),
    NUM("power.pue", power.pue, "", "power usage effectiveness"),
    NUM("power.per_rack_kw", power.per_rack_kw, "kW", "power of the fullest rack"),
    NUM("power.rack_cooling_limit_kw", power.rack_cooling_limit_kw, "kW",
        "heat the cooling removes per rack"),
    NUM("power.cooling_headroom", power.cooling_headroom, "",
        "1 - rack power / limit (negative when over)"),
    BOOL("power.throttled", power.throttled, "whether devices throttle"),
    NUM("power.throttle_factor", power.throttle_factor, "", "clock share kept"),
    NUM("power.rack_temp_c", power.rack_temp_c, "C", "steady-state device temperature"),
    NUM("power.limit_w", power.limit_w, "W", "device power cap (the TDP when not set)"),
    NUM("power.clock_share", power.clock_share, "", "GEMM clock kept under the power cap"),
    NUM("power.clock_mhz", power.clock_mhz, "MHz", "that clock (0: boost clock unknown)"),
    NUM("power.min_clock_share", power.min_clock_share, "",
        "the device's lowest sustained clock, share of the boost clock"),
    BOOL("power.below_min_clock", power.below_min_clock,
         "whether the power cap or the cooling would hold the clocks below it (cannot run)"),
    NUM("power.full_rack_kw", power.full_rack_kw, "kW",
        "heat of the fullest rack at full clocks (what throttling cuts)"),
    NUM("power.energy_per_step_j", power.energy_per_step_j, "J", "facility energy per step"),
    NUM("power.energy_per_token_j", power.energy_per_token_j, "J", "facility energy per token"),

    NUM("cost.usd_per_hour", cost.usd_per_hour, "$/h", "devices and electricity per hour"),
    NUM("cost.days_to_train", cost.days_to_train, "d", "wall time for the token budget"),
    NUM("cost.energy_mwh", cost.energy_mwh, "MWh", "facility energy for the budget"),
    NUM("cost.usd_total", cost.usd_total, "$", "cost of the whole run"),
    NUM("cost.usd_energy", cost.usd_energy, "$", "electricity of the whole run"),
    NUM("cost.usd_devices", cost.usd_devices, "$", "device hours of the whole run"),

    NUM("reliability.interruptions_per_day", reliability.interruptions_per_day, "/d",
        "failures that stop the job"),
    NUM("reliability.mtbf_h", reliability.mtbf_h, "h", "mean time between job failures"),
    NUM("reliability.checkpoint_gb", reliability.checkpoint_gb, "GB", "one checkpoint"),
    NUM("reliability.checkpoint_write_s", reliability.checkpoint_write_s, "s", "time to write one"),
    NUM("reliability.checkpoint_interval_min", reliability.checkpoint_interval_min, "min",
        "time between checkpoints"),
    NUM("reliability.lost_fraction", reliability.lost_fraction, "",
        "re-done work, restarts and checkpoint stalls"),
    NUM("reliability.goodput", reliability.goodput, "", "useful share of wall time"),

    BOOL("checks.host_ram_ok", host_ram_ok, "host RAM at least the devices' memory"),
    BOOL("checks.pcie_lanes_ok", pcie_lanes_ok, "lanes enough for devices and NICs"),
    NUM("checks.pcie_lanes_needed", pcie_lanes_needed, "lanes", "x16 per device and per NIC"),
    NUM("checks.pcie_lanes_have", pcie_lanes_have, "lanes", "lanes of the node's CPUs"),
    ROW("checks.rack_power_ok", power.throttled, REPORT_NOT_BOOL, "", "racks within their cooling"),
};
const size_t report_field_count = sizeof report_fields / sizeof report_fields[0];

#define SUGGESTION_ROW(key, member, type, unit, help)                                              \
    {                                                                                              \
        key, offsetof(struct suggestion, member), sizeof(((struct suggestion *)0)->member), type,  \
            unit, help                                                                             \
    }
const struct report_field report_suggestion_fields[] = {
    SUGGESTION_ROW("text", text, REPORT_TEXT, "", "what to change"),
    SUGGESTION_ROW("changes", changes, REPORT_TEXT, "", "path=value pairs, applied in order"),
    SUGGESTION_ROW("saves_gb", saves_gb, REPORT_NUM, "GB", "memory saved per device"),
    SUGGESTION_ROW("per_device_gb", per_device_gb, REPORT_NUM, "GB", "memory after the change"),
    SUGGESTION_ROW("fits", fits, REPORT_BOOL, "", "whether it then fits"),
};
const size_t report_suggestion_field_count =
    sizeof report_suggestion_fields / sizeof report_suggestion_fields[0];

/* Keys indexed once (idindex): Lua's setup:eval("tokens_per_s", ...) looks
 * its keys up on every call. Built under pthread_once, read-only after. */
static struct idindex key_index;
static bool key_index_ok;
static pthread_once_t key_index_once = PTHREAD_ONCE_INIT;

static const char *key_at(const void *ctx, size_t i)
{
    (void)ctx;
    return report_fields[i].key;
}

static void build_key_index(void)
{
    key_index_ok = true;
    for (size_t i = 0; key_index_ok && i < report_field_count; i++)
        if (idindex_find(&key_index, report_fields[i].key, key_at, NULL) == (size_t)-1)
            key_index_ok = idindex_add(&key_index, i, key_at, NULL);
}

const struct report_field *report_field_find(const char *key)
{
    pthread_once(&key_index_once, build_key_index);
    if (key_index_ok) {
        size_t i = idindex_find(&key_index, key, key_at, NULL);
        return i == (size_t)-1 ? NULL : &report_fields[i];
    }
    for (size_t i = 0; i < report_field_count; i++) /* out of memory: scan */
        if (strcmp(report_fields[i].key, key) == 0)
            return &report_fields[i];
    return NULL;
}

bool report_field_is_words(const struct report_field *f)
{
    static const size_t words[] = {
        offsetof(struct model_report, why_not),
        offsetof(struct model_report, bottleneck_reason),
        offsetof(struct model_report, next_reason),
        offsetof(struct model_report, suggestions),
    };
    /* Only rows of report_fields: a suggestion's own fields are offsets
     * into struct suggestion. */
    uintptr_t at = (uintptr_t)f, first = (uintptr_t)report_fields;
    if (!f || at < first || at >= first + report_field_count * sizeof *f ||
        (f->type != REPORT_TEXT && f->type != REPORT_SUGGESTIONS))
        return false;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (f->offset == words[i])
            return true;
    return false;
}

double report_field_number(const struct report_field *f, const void *base)
{
    const char *p = (const char *)base + f->offset;
    switch (f->type) {
    case REPORT_NUM:
        return *(const double *)(const void *)p;
    case REPORT_INT:
    case REPORT_STAGE:
        return *(const int *)(const void *)p;
    case REPORT_BOOL:
        return *(const bool *)(const void *)p;
    case REPORT_NOT_BOOL:
        return !*(const bool *)(const void *)p;
    default:
        return 0.0;
    }
}

/* Zeroes the non-finite doubles of one table over one struct; returns the
 * first such field or NULL. Negative zero becomes zero. */
const struct report_field *report_clean_doubles(const struct report_field *t, size_t n, void *base)
{
    const struct report_field *bad = NULL;
    for (size_t i = 0; i < n; i++) {
        if (t[i].type != REPORT_NUM)
            continue;
        double *v = (double *)(void *)((char *)base + t[i].offset);
        if (!isfinite(*v)) {
            *v = 0.0;
            if (!bad)
                bad = &t[i];
        } else if (*v == 0.0) {
            *v = 0.0;
        }
    }
    return bad;
}

/* The NUM members of the report as runs of consecutive doubles, built once
 * from the table: the finite guard runs on every evaluation, and a loop
 * over a few runs costs a fraction of a walk over every row. */
enum { REPORT_ROWS = sizeof report_fields / sizeof report_fields[0] };
struct double_run {
    size_t offset, count;
};
static struct double_run num_runs[REPORT_ROWS];
static size_t num_run_count;
static pthread_once_t num_runs_once = PTHREAD_ONCE_INIT;

static void build_num_runs(void)
{
    size_t offsets[REPORT_ROWS], n = 0;
    for (size_t i = 0; i < REPORT_ROWS; i++) {
        if (report_fields[i].type != REPORT_NUM)
            continue;
        size_t off = report_fields[i].offset, j = n++;
        for (; j > 0 && offsets[j - 1] > off; j--) /* insertion sort */
            offsets[j] = offsets[j - 1];
        offsets[j] = off;
    }
    for (size_t i = 0; i < n; i++) {
        struct double_run *last = num_run_count ? &num_runs[num_run_count - 1] : NULL;
        if (last && offsets[i] < last->offset + last->count * sizeof(double))
            continue; /* the same member twice */
        if (last && offsets[i] == last->offset + last->count * sizeof(double))
            last->count++;
        else
            num_runs[num_run_count++] = (struct double_run){offsets[i], 1};
    }
}

/* Turns -0 into 0 in every NUM member; false when one is not finite (x - x
 * is 0 for every finite x and NaN otherwise). */
static bool all_finite(struct model_report *o)
{
    pthread_once(&num_runs_once, build_num_runs);
    double acc = 0.0;
    for (size_t r = 0; r < num_run_count; r++) {
        double *v = (double *)(void *)((char *)o + num_runs[r].offset);
        for (size_t i = 0; i < num_runs[r].count; i++) {
            double x = v[i];
            acc += x - x;
            v[i] = x + 0.0; /* -0 + 0 = +0 */
        }
    }
    return acc == 0.0;
}

const char *report_sanitize(struct model_report *o)
{
    const struct report_field *bad = NULL;
    if (!all_finite(o))
        bad = report_clean_doubles(report_fields, report_field_count, o);
    int n = o->n_suggestions < 0                ? 0
            : o->n_suggestions > SUGGESTION_MAX ? SUGGESTION_MAX
                                                : o->n_suggestions;
    o->n_suggestions = n;
    for (int i = 0; i < n; i++) {
        const struct report_field *b = report_clean_doubles(
            report_suggestion_fields, report_suggestion_field_count, &o->suggestions[i]);
        if (!bad && b)
            bad = b;
    }
    if (o->bottleneck < 0 || o->bottleneck >= STAGE_COUNT)
        o->bottleneck = STAGE_ACCELERATORS;
    if (o->next_bottleneck < -1 || o->next_bottleneck >= STAGE_COUNT)
        o->next_bottleneck = -1;
    return bad ? bad->key : NULL;
}
