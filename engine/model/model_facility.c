/* model_facility: power, cooling and throttling, reliability (checkpoints
 * and failures) and cost. See docs/MODEL.md. */

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "model.h"
#include "model_internal.h"

/* ---- power and cooling ------------------------------------------------------------ */

/* Rack power over cooling capacity, 1 when there is no capacity. */
double model_rack_load(const struct power_report *pw)
{
    if (!(pw->rack_cooling_limit_kw > 0))
        return 1.0;
    return ratio(pw->per_rack_kw, pw->rack_cooling_limit_kw);
}

/* Nodes in the fullest rack. */
double model_nodes_in_rack(const struct ctx *c)
{
    int64_t per_rack = at_least_one(c->s->facility.nodes_per_rack);
    return (double)(c->nodes < per_rack ? c->nodes : per_rack);
}

double model_node_rest_w(const struct ctx *c, double cpu_util)
{
    const struct setup *s = c->s;
    const struct resolved *r = c->r;
    double cpu_w = s->cluster.node.cpu_sockets *
                   (r->cpu->idle_w + (r->cpu->tdp_w - r->cpu->idle_w) * cpu_util);
    double nic_w = r->nic ? r->nic->power_w * s->cluster.node.nics_per_node : 0.0;
    return cpu_w + nic_w + s->cluster.node.other_w;
}

double model_cpu_util(const struct data_path *p)
{
    return mind(1.0, ratio(p->cores_busy, maxd(p->cores_total, 1.0)));
}

void model_power(const struct ctx *c, double busy, double cpu_util, struct power_report *pw)
{
    const struct setup *s = c->s;
    const struct resolved *r = c->r;
    const struct accelerator *a = r->accel;
    /* y2026: a busy device draws up to its power limit (model_power.c). */
    pw->device_w = a->idle_w + (model_power_limit_w(s, a) - a->idle_w) * busy;
    pw->node_w = pw->device_w * c->per_node + model_node_rest_w(c, cpu_util);
    pw->it_kw = pw->node_w * c->nodes / 1000.0;
    pw->pue = s->facility.pue > 0 ? s->facility.pue : r->cooling->pue;
    pw->facility_kw = pw->it_kw * pw->pue;
    double in_rack = model_nodes_in_rack(c);
    pw->per_rack_kw = pw->node_w * in_rack / 1000.0;
    pw->rack_cooling_limit_kw = r->cooling->rack_kw_max;
    /* No cooling at all: everything is over (the throttle finds it cannot run). */
    pw->cooling_headroom =
        pw->rack_cooling_limit_kw > 0 ? 1.0 - pw->per_rack_kw / pw->rack_cooling_limit_kw : -1.0;
    pw->throttle_factor = 1.0;
    pw->throttled = false;
    pw->limit_w = model_power_limit_w(s, a);
    pw->clock_share = c->clock_share;
    pw->clock_mhz = a->boost_clock_mhz * c->clock_share;
    pw->min_clock_share = c->min_clock_share;
    pw->below_min_clock = c->power_floored;
    /* First-order thermal steady state: temperature rises linearly from the
     * inlet to the limit as heat approaches the cooling capacity. */
    double span = r->cooling->limit_c - r->cooling->inlet_c;
    pw->rack_temp_c = r->cooling->inlet_c + span * mind(1.0, model_rack_load(pw));
}

/* ---- reliability -------------------------------------------------------------------- */

/* A failure rate beyond this (an MTBF of a few picoseconds) is as good as
 * "always failing"; capping it keeps the figures finite. */
#define MAX_FAILURES_PER_HOUR 1e15

static double failures_per_hour(int64_t count, double mtbf_h)
{
    double rate = ratio((double)count, mtbf_h);
    return mtbf_h > 0 && rate > 0 ? mind(rate, MAX_FAILURES_PER_HOUR) : MAX_FAILURES_PER_HOUR;
}

void model_reliability(const struct ctx *c, double storage_write_scale, double params,
                       struct reliability_report *rr)
{
    const struct setup *s = c->s;
    double per_hour = mind(failures_per_hour(c->devices, s->reliability.device_mtbf_h) +
                               failures_per_hour(c->nodes, s->reliability.node_mtbf_h),
                           MAX_FAILURES_PER_HOUR);
    rr->interruptions_per_day = per_hour * 24.0;
    rr->mtbf_h = ratio(1.0, per_hour);
    /* A checkpoint holds the weights and the optimizer state (fp32 master
     * and moments), written in parallel by the shards to the shared tier. */
    double bytes = params * (c->w_bytes + c->opt_bytes);
    rr->checkpoint_gb = bytes / GB;
    double write_gbs = c->r->storage->write_gbs * storage_write_scale;
    if (c->r->storage->scope == STORAGE_LOCAL)
        write_gbs *= c->nodes;
    rr->checkpoint_write_s = time_for(bytes, write_gbs * 1e9);
    double mtbf_s = rr->mtbf_h * SECONDS_PER_HOUR;
    double delta = rr->checkpoint_write_s;
    double tau = s->reliability.checkpoint_interval_min > 0
                     ? s->reliability.checkpoint_interval_min * 60.0
                     : sqrt(2.0 * delta * mtbf_s); /* Young 1974 */
    if (tau < delta)
        tau = delta;
    rr->checkpoint_interval_min = tau / 60.0;
    /* First-order waste (Daly 2006): the checkpoint stall per interval, plus
     * per failure half an interval of lost work and the restart. */
    double stall = s->reliability.checkpoint_async ? 0.0 : ratio(delta, tau);
    /* No failures at all (mtbf 0 from a zero rate) lose nothing. */
    double lost = ratio(tau / 2.0 + s->reliability.restart_min * 60.0, mtbf_s);
    rr->lost_fraction = stall + lost;
    rr->goodput = maxd(0.0, 1.0 - rr->lost_fraction);
}

/* At the balance point of throttling the rack draws exactly its cooling
 * capacity; the devices shed the whole excess (CPUs, NICs and the rest of
 * the node keep their draw). */
void model_power_at_balance(const struct ctx *c, double busy, double cpu_util,
                            struct power_report *pw)
{
    double keep = pw->throttle_factor, full_kw = pw->full_rack_kw;
    model_power(c, busy, cpu_util, pw);
    pw->full_rack_kw = full_kw;
    pw->throttled = true;
    pw->throttle_factor = keep;
    double rack_nodes = model_nodes_in_rack(c);
    double rest_w = pw->node_w - pw->device_w * c->per_node;
    pw->per_rack_kw = pw->rack_cooling_limit_kw;
    pw->node_w = pw->per_rack_kw * 1000.0 / rack_nodes;
    pw->device_w = (pw->node_w - rest_w) / (double)c->per_node;
    pw->it_kw = pw->node_w * c->nodes / 1000.0;
    pw->facility_kw = pw->it_kw * pw->pue;
    pw->cooling_headroom = 0.0;
    pw->rack_temp_c = c->r->cooling->limit_c;
}

/* ---- energy and cost ------------------------------------------------------------ */

/* Energy per step and token, reliability, and the cost of the whole run. */
void model_energy_and_cost(const struct ctx *c, struct model_report *o)
{
    const struct setup *s = c->s;
    const struct resolved *r = c->r;
    double tokens_per_sample = s->model.kind == MODEL_TRANSFORMER ? s->model.seq_len : 1.0;
    o->power.energy_per_step_j = o->power.facility_kw * 1000.0 * o->step_time_s;
    o->power.energy_per_token_j =
        ratio(o->power.energy_per_step_j, s->training.global_batch * tokens_per_sample);
    double write_scale = s->cluster.storage_bw_gbs > 0 && r->storage->read_gbs > 0
                             ? s->cluster.storage_bw_gbs / r->storage->read_gbs
                             : 1.0;
    model_reliability(c, write_scale, o->params, &o->reliability);
    if (o->reliability.goodput <= 0.0)
        model_cannot_run(o,
                         "failures every %.2g h leave no time to make progress between "
                         "checkpoints (%.0f s each)",
                         o->reliability.mtbf_h, o->reliability.checkpoint_write_s);
    double per_hour = s->facility.device_usd_per_hour >= 0 ? s->facility.device_usd_per_hour
                                                           : r->accel->usd_per_hour;
    struct cost_report *cost = &o->cost;
    cost->usd_per_hour =
        c->devices * per_hour + o->power.facility_kw * s->facility.electricity_usd_per_kwh;
    double useful_rate = o->samples_per_s * tokens_per_sample * maxd(o->reliability.goodput, 1e-9);
    double seconds = time_for(s->training.tokens, useful_rate);
    cost->days_to_train = seconds / SECONDS_PER_DAY;
    double hours = seconds / SECONDS_PER_HOUR;
    cost->energy_mwh = o->power.facility_kw * hours / 1000.0;
    cost->usd_energy = cost->energy_mwh * 1000.0 * s->facility.electricity_usd_per_kwh;
    cost->usd_devices = c->devices * per_hour * hours;
    cost->usd_total = cost->usd_energy + cost->usd_devices;
}
