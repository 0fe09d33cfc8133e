/* model: the analytic model of one training step. See docs/MODEL.md for
 * every formula with its source. Nothing here allocates. */
#include "model.h"

#include <string.h>

#include "model_internal.h"
#include "report_fields.h"

/* Share of its dynamic power (TDP - idle) a device draws while it waits on
 * communication or sits in a pipeline bubble at full clocks. An estimate,
 * checked against the measured node power of GPT-3 175B FP8 training on
 * 8 x H100 nodes (MLPerf power logs, Latif et al., arXiv 2412.08602: ~7.0 kW
 * median, 8.4 kW peak): with it the NeMo GPT-3 175B FP8 setup draws
 * ~7.2 kW per node and a fully busy node stays below 8.4 kW. */
#define DEVICE_WAIT_DYNAMIC_SHARE 0.5

/* ---- context ---------------------------------------------------------------- */

void model_make_ctx(const struct setup *s, const struct resolved *r, struct ctx *c)
{
    memset(c, 0, sizeof *c);
    c->s = s;
    c->r = r;
    c->per_node = at_least_one(s->cluster.node.accelerators_per_node);
    c->nodes = at_least_one(s->cluster.nodes);
    c->devices = c->per_node * c->nodes;
    c->domain = at_least_one(setup_scaleup_domain(s));
    c->tp = at_least_one(s->training.tensor_parallel);
    c->pp = at_least_one(s->training.pipeline_parallel);
    c->cp = at_least_one(s->training.context_parallel);
    c->ep = at_least_one(s->training.expert_parallel);
    c->dp = at_least_one(c->devices / (c->tp * c->pp * c->cp));
    c->mb = at_least_one(s->training.micro_batch);
    c->m = at_least_one(s->training.global_batch / (c->dp * c->mb));
    const struct accelerator *a = r->accel;
    double peak = setup_gemm_peak_tflops(s, a);
    c->peak_flops = (peak > 0 ? peak : 1e-3) * 1e12;
    double vector = setup_vector_peak_tflops(s, a);
    c->vector_peak_flops = (vector > 0 ? vector : 1e-3) * 1e12;
    c->gemm_eff = a->gemm_efficiency;
    c->mem_bw = a->mem_bw_gbs * a->mem_bw_efficiency * 1e9;
    c->kernel_s = a->kernel_overhead_us * 1e-6;
    bool mixed = is_mixed(s->training.precision);
    const struct software *sw = r->software;
    c->act_bytes = mixed ? 2.0 : 4.0;
    c->gemm_in_bytes = s->training.precision == TRAIN_FP4 || s->training.precision == TRAIN_NVFP4
                           ? 0.5
                       : is_low_precision(s->training.precision) ? 1.0
                                                                 : c->act_bytes;
    /* Bytes per parameter from the software entry in mixed precision
     * (weights, gradients, fp32 master); fp32 training keeps 4 + 4 and no
     * separate master. Optimizer state: Adam m and v (8), SGD momentum (4),
     * Adafactor's factored moments (~0). Mixed-precision Adam in the ZeRO
     * paper's convention is 2 + 2 + 12. */
    c->w_bytes = mixed ? sw->weight_bytes : 4.0;
    c->grad_bytes = mixed ? sw->grad_bytes : 4.0;
    double state = s->training.optimizer == OPT_ADAM  ? 8.0
                   : s->training.optimizer == OPT_SGD ? 4.0
                                                      : 0.0;
    c->opt_bytes = (mixed ? sw->master_bytes : 0.0) + state;
    /* y2026: gradient buffers and their reduction in fp32 or bf16
     * (Megatron-Core --grad-reduce-in-bf16; auto: the stack's). */
    int gr = s->training.grad_reduce_precision;
    if (mixed && gr != GRAD_REDUCE_AUTO)
        c->grad_bytes = gr == GRAD_REDUCE_BF16 ? 2.0 : 4.0;
    /* No device runs below its lowest clock: a limit that would hold it
     * there leaves the setup unable to run (eval_step_and_power), timed at
     * the floor. */
    c->min_clock_share = model_min_clock_share(a);
    double share = model_clock_share(s, a);
    c->power_floored = share < c->min_clock_share;
    c->clock_share = c->power_floored ? c->min_clock_share : share;
    c->throttle = c->clock_share;
    c->etp = at_least_one(setup_expert_tensor_parallel(s));
    c->lora = s->training.lora_rank > 0;
    if (s->model.kind == MODEL_TRANSFORMER) {
        struct layer_params_split d, m;
        model_layer_params(s, false, &d);
        c->lp.dense_dense = d.dense;
        bool full =
            s->training.recompute == RECOMPUTE_FULL || s->training.recompute == RECOMPUTE_OP;
        c->act_dense = model_layer_activation_bytes(c, false, s->training.recompute);
        c->act_full_dense = full ? model_layer_activation_bytes(c, false, RECOMPUTE_NONE) : 0.0;
        if (s->model.experts > 0) {
            model_layer_params(s, true, &m);
            c->lp.moe_dense = m.dense;
            c->lp.moe_experts = m.experts;
            c->act_moe = model_layer_activation_bytes(c, true, s->training.recompute);
            c->act_full_moe = full ? model_layer_activation_bytes(c, true, RECOMPUTE_NONE) : 0.0;
        }
    }
}

/* ---- the whole report ------------------------------------------------------------- */

/* The resolved layout and sizes, echoed (eval text and JSON). */
static void eval_layout(const struct ctx *c, struct model_report *o)
{
    const struct setup *s = c->s;
    const struct resolved *r = c->r;
    o->devices = report_int(c->devices);
    o->nodes = report_int(c->nodes);
    o->racks = report_int(setup_racks(s));
    o->dp = report_int(c->dp);
    o->tp = report_int(c->tp);
    o->pp = report_int(c->pp);
    o->cp = report_int(c->cp);
    o->ep = report_int(c->ep);
    o->micro_batches = report_int(c->m);
    /* The resolved layout, echoed (eval text and JSON). */
    o->vp = s->model.kind == MODEL_TRANSFORMER ? s->training.virtual_stages : 1;
    o->zero_stage = s->training.zero_stage;
    copy_text(o->recompute, sizeof o->recompute, recompute_names[s->training.recompute]);
    copy_text(o->precision, sizeof o->precision, train_precision_names[s->training.precision]);
    copy_text(o->software, sizeof o->software, r->software->head.id);
    o->params = model_params(s);
    o->params_active = model_params_active(s);
    o->peak_tflops = c->peak_flops / 1e12;
    o->runnable = true;
}

/* The share of the step the devices run: the rest they wait, at idle, for
 * a data path slower than the step (all of it on a serial path). */
double model_device_step_share(const struct device_step *d, const struct data_path *p)
{
    double wait = p->serial
                      ? p->read_s + p->preprocess_s + p->h2d_s
                      : maxd(0.0, maxd(p->read_s, maxd(p->preprocess_s, p->h2d_s)) - d->total);
    return d->total > 0 ? ratio(d->total, d->total + wait) : 1.0;
}

/* The setup cannot run where a power limit would hold the clocks below the
 * device's lowest one, or where the racks' cooling cannot carry the devices
 * computing at that lowest clock (docs/MODEL.md, section 6). */
static void clock_floor_cannot_run(const struct ctx *c, double floor_kw, struct model_report *o)
{
    const struct accelerator *a = c->r->accel;
    double floor_pct = 100.0 * c->min_clock_share;
    const char *whose = a->min_clock_mhz > 0 ? "its lowest DVFS state"
                                             : "the floor for a device that publishes none";
    if (c->power_floored)
        model_cannot_run(o,
                         "a power limit of %.0f W would hold %s's clocks below its minimum "
                         "sustained clock, %.1f%% of rated (%s): raise power_limit_w",
                         model_power_limit_w(c->s, a), a->head.id, floor_pct, whose);
    else
        model_cannot_run(o,
                         "%s removes %.1f kW per rack, but the racks make %.1f kW with %s "
                         "computing at its minimum sustained clock, %.1f%% of rated (%s), and the "
                         "loader CPUs busy: fewer nodes per rack or better cooling",
                         c->r->cooling->head.name, o->power.rack_cooling_limit_kw, floor_kw,
                         a->head.id, floor_pct, whose);
}

/* The device step and the data path, and the power they draw. Pass 1 at
 * full clocks gives utilization, hence power; if the racks overheat, pass 2
 * reruns the step at the throttled clocks. Returns false when the setup
 * makes no progress: the racks cannot be cooled at all, or the power limit
 * or the cooling would hold the clocks below the device's lowest (the step
 * is then timed at that lowest clock). */
static bool eval_step_and_power(struct ctx *c, struct model_report *o, struct device_step *d,
                                struct data_path *dpth)
{
    model_device_step(c, d);
    model_data_path(c, d->total, dpth);
    /* Waiting for offloaded activations the device waits, as on traffic. */
    double busy =
        ratio(d->compute - d->offload_wait + d->recompute + d->optimizer, maxd(d->total, 1e-12));
    /* A device waiting on communication or in a pipeline bubble keeps its
     * clocks up and runs NCCL kernels: it draws DEVICE_WAIT_DYNAMIC_SHARE of
     * its dynamic power, not idle. */
    busy = mind(1.0, busy) + DEVICE_WAIT_DYNAMIC_SHARE * (1.0 - mind(1.0, busy));
    /* Waiting for data the devices idle: power is the step's average. */
    busy *= model_device_step_share(d, dpth);
    double cpu_util = model_cpu_util(dpth);
    model_power(c, mind(1.0, busy), cpu_util, &o->power);
    o->power.full_rack_kw = o->power.per_rack_kw;
    if (c->power_floored) {
        clock_floor_cannot_run(c, 0.0, o);
        return false;
    }
    double f = model_throttle_balanced(c, &o->power, DEVICE_WAIT_DYNAMIC_SHARE); /* i20 */
    if (f <= 0.0) {
        /* No clock balances the heat: the power stays what the racks
         * would draw (no balance point, so no negative device power). */
        o->power.throttled = true;
        o->power.throttle_factor = 0.0;
        model_cannot_run(o,
                         "racks make %.1f kW of heat but %s removes %.1f kW per rack: even "
                         "idle devices overheat (fewer nodes per rack or better cooling)",
                         o->power.per_rack_kw, c->r->cooling->head.name,
                         o->power.rack_cooling_limit_kw);
        return false;
    }
    /* No clock below the lowest: racks that cannot carry the devices
     * computing there cannot run the setup, whatever its step (timed at
     * that clock); where they can, any balance lies at or above it. */
    double floor_f = mind(1.0, c->min_clock_share / c->clock_share);
    double cool_kw = o->power.rack_cooling_limit_kw, floor_kw = 0.0;
    bool floored = cool_kw > 0 && model_rack_kw_at_floor(c, false) > cool_kw &&
                   (floor_kw = model_rack_kw_at_floor(c, true)) > cool_kw;
    if (floored) {
        clock_floor_cannot_run(c, floor_kw, o);
        f = floor_f;
    }
    if (f < 1.0) {
        f = maxd(f, floor_f);
        o->power.throttled = true;
        o->power.throttle_factor = f;
        c->throttle = f * c->clock_share;
        model_device_step(c, d);
        model_data_path(c, d->total, dpth);
        /* the CPUs prepare the same batch over the longer step */
        model_power_at_balance(c, mind(1.0, busy), model_cpu_util(dpth), &o->power);
        o->power.full_rack_kw = o->power.per_rack_kw > 0 ? o->power.full_rack_kw : 0;
    }
    o->power.below_min_clock = floored;
    return !floored;
}

/* Combines the device step and the data path into the step time. */
static void eval_step_time(const struct device_step *d, const struct data_path *dpth,
                           struct model_report *o)
{
    double data_period = maxd(dpth->read_s, maxd(dpth->preprocess_s, dpth->h2d_s));
    struct step_breakdown *k = &o->breakdown;
    k->compute = d->compute;
    k->recompute = d->recompute;
    k->tp_comm = d->tp_comm;
    k->cp_comm = d->cp_comm;
    k->ep_comm = d->ep_comm;
    k->pp_bubble = d->bubble;
    k->pp_p2p = d->p2p;
    k->dp_comm_exposed = d->dp_exposed;
    k->optimizer = d->optimizer;
    k->straggler = d->straggler;
    k->overhead = d->overhead;
    o->device_step_s = d->total;
    if (dpth->serial) {
        /* Without workers or prefetch the step waits for every part. */
        k->data_read = dpth->read_s;
        k->preprocess = dpth->preprocess_s;
        k->host_to_device = dpth->h2d_s;
        o->step_time_s = d->total + dpth->read_s + dpth->preprocess_s + dpth->h2d_s;
    } else {
        /* Prefetch overlaps the data path with compute; only the excess of
         * its slowest stage shows, as starvation. */
        double excess = maxd(0.0, data_period - d->total);
        if (dpth->read_s >= dpth->preprocess_s && dpth->read_s >= dpth->h2d_s)
            k->data_read = excess;
        else if (dpth->preprocess_s >= dpth->h2d_s)
            k->preprocess = excess;
        else
            k->host_to_device = excess;
        o->step_time_s = d->total + excess;
    }
    o->starvation = ratio(o->step_time_s - d->total, o->step_time_s);
}

/* The times and rates of each stage of the pipeline, and the host checks. */
static void eval_stages(const struct ctx *c, const struct device_step *d,
                        const struct data_path *dpth, struct model_report *o)
{
    const struct setup *s = c->s;
    struct stage_times *st = &o->stages;
    st->read_s = dpth->read_s;
    st->preprocess_s = dpth->preprocess_s;
    st->h2d_s = dpth->h2d_s;
    st->device_s = d->total;
    st->forward_s = d->forward;
    st->backward_s = d->backward;
    st->dp_comm_s = d->dp_total;
    st->tp_comm_s = d->tp_comm;
    st->storage_bw_gbs = dpth->bw_gbs;
    double bytes = s->training.global_batch * s->data.sample_bytes * (1.0 - s->data.cache_hit);
    st->need_bw_gbs = ratio(bytes, d->total) / 1e9;
    st->cpu_cores_total = dpth->cores_total;
    st->ep_comm_s = d->ep_total;
    /* Each worker prepares for preprocess_s of every step: averaged over the
     * step, workers x that share are busy (all of them when the loaders set
     * the pace), the same share the CPUs' utilization counts. */
    st->cpu_cores_busy = mind(dpth->cores_total,
                              dpth->workers * mind(1.0, ratio(dpth->preprocess_s, o->step_time_s)));
    o->pcie_lanes_needed = dpth->lanes_need;
    o->pcie_lanes_have = dpth->lanes_have;
    o->pcie_lanes_ok = dpth->lanes_have >= dpth->lanes_need;
    /* A CPU as the device: its memory is the host RAM, nothing to compare. */
    o->host_ram_ok = c->r->accel->kind == ACCEL_CPU ||
                     s->cluster.node.host_ram_gb >= c->r->accel->mem_gb * c->per_node;
}

/* Throughput, efficiency and the utilization of each stage. */
static void eval_throughput(const struct ctx *c, const struct device_step *d,
                            const struct data_path *dpth, struct model_report *o)
{
    const struct setup *s = c->s;
    double tokens_per_sample = s->model.kind == MODEL_TRANSFORMER ? s->model.seq_len : 1.0;
    o->samples_per_s = ratio(s->training.global_batch, o->step_time_s);
    o->tokens_per_s = o->samples_per_s * tokens_per_sample;
    o->flops_per_step = d->executed_flops;
    o->model_flops_per_step = d->model_flops;
    double peak_all = c->peak_flops * c->devices;
    o->tflops_per_device = ratio(d->executed_flops, o->step_time_s * c->devices) / 1e12;
    o->mfu = ratio(d->model_flops, o->step_time_s * peak_all);
    /* i20: HFU is what the hardware executed (recomputation in, masked
     * attention blocks out when a fused kernel skips them), so it never
     * exceeds the executed rate; MFU is bounded by HFU counted in its own
     * convention. */
    o->hfu = ratio(d->executed_flops, o->step_time_s * peak_all);
    o->hfu_model_convention = ratio(d->hardware_flops, o->step_time_s * peak_all);
    copy_text(o->flops_convention, sizeof o->flops_convention,
              s->model.kind == MODEL_TRANSFORMER
                  ? "megatron: 3 x forward, full s x s attention, logits, no recomputation"
                  : "flops_per_sample x samples (the user's count)");
    double compute_time = d->compute + d->recompute;
    o->achieved_fraction = compute_time > 0
                               ? ratio(d->executed_flops, c->devices * compute_time * c->peak_flops)
                               : 0.0;

    o->utilization[STAGE_DATA] = mind(1.0, ratio(dpth->read_s, o->step_time_s));
    o->utilization[STAGE_CPUS] =
        mind(1.0, ratio(maxd(dpth->preprocess_s, dpth->h2d_s), o->step_time_s));
    o->utilization[STAGE_ACCELERATORS] = mind(1.0, ratio(model_devices_busy_s(o), o->step_time_s));
    o->utilization[STAGE_INTERCONNECT] = mind(1.0, ratio(model_links_busy_s(o), o->step_time_s));
    o->utilization[STAGE_INFRASTRUCTURE] = mind(1.0, model_rack_load(&o->power));
}

double model_devices_busy_s(const struct model_report *r)
{
    const struct step_breakdown *b = &r->breakdown;
    return b->compute + b->recompute + b->optimizer;
}

double model_links_busy_s(const struct model_report *r)
{
    const struct step_breakdown *b = &r->breakdown;
    return b->tp_comm + b->cp_comm + b->ep_comm + b->pp_p2p + r->stages.dp_comm_s;
}

/* What cannot run says so: no progress without cooling, no cost without
 * progress, no step beyond the time ceiling, no number that is not finite. */
static void eval_limits(bool cooled, struct model_report *o)
{
    struct cost_report *cost = &o->cost;
    if (!cooled) {
        /* Racks that cannot be cooled, or clocks held below the device's
         * lowest, make no progress at all. A setup that
         * only fails to fit keeps its would-be throughput (flagged by
         * runnable = false and why_not) so that it can be compared. */
        o->tokens_per_s = o->samples_per_s = o->tflops_per_device = 0.0;
        o->mfu = o->hfu = o->hfu_model_convention = 0.0;
    }
    if (!cooled || o->reliability.goodput <= 0.0) {
        cost->days_to_train = cost->energy_mwh = cost->usd_total = 0.0;
        cost->usd_energy = cost->usd_devices = 0.0;
    }

    if (o->step_time_s >= MODEL_TIME_CEILING_S)
        model_cannot_run(o,
                         "%s: a capacity of the setup or catalog is zero or too small to model "
                         "(a step would take longer than %.0g years)",
                         model_stalled_part(o), MODEL_TIME_CEILING_S / (365.25 * SECONDS_PER_DAY));

    /* Every number finite, whatever the input; one that is not shows that
     * the input is outside what the model can describe. */
    const char *bad = report_sanitize(o);
    if (bad)
        model_cannot_run(o,
                         "the model gives no finite %s for this setup (an input is outside what "
                         "it can describe)",
                         bad);
}

/* words: the verdict's sentences (why the bottleneck, what would make it
 * fit) as well as the numbers. */
static void eval_all(const struct setup *s, const struct resolved *r, struct model_report *o,
                     bool words, const struct model_split *split)
{
    memset(o, 0, sizeof *o);
    struct ctx c;
    model_make_ctx(s, r, &c);
    c.split = split;
    eval_layout(&c, o);
    model_memory_model(&c, &o->memory);
    struct device_step d;
    struct data_path dpth;
    bool cooled = eval_step_and_power(&c, o, &d, &dpth);
    eval_step_time(&d, &dpth, o);
    eval_stages(&c, &d, &dpth, o);
    eval_throughput(&c, &d, &dpth, o);
    model_energy_and_cost(&c, o);
    if (!o->memory.fits && words)
        model_not_fit(s, r, o);
    else if (!o->memory.fits)
        o->runnable = false;
    model_name_bottleneck(&c, o, words);
    eval_limits(cooled, o);
}

void model_eval(const struct setup *s, const struct resolved *r, struct model_report *o)
{
    eval_all(s, r, o, true, NULL);
}

void model_eval_numbers(const struct setup *s, const struct resolved *r, struct model_report *o)
{
    eval_all(s, r, o, false, NULL);
}

void model_eval_numbers_split(const struct setup *s, const struct resolved *r,
                              const struct model_split *split, struct model_report *o)
{
    eval_all(s, r, o, false, split);
}
