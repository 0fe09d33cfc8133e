/* model_data: the data path of a step: storage reads, loader workers on the
 * host CPUs, host-to-device copies and the PCIe lanes they need. See
 * docs/MODEL.md. */

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "model.h"
#include "model_internal.h"

/* ---- data path ------------------------------------------------------------------ */

void model_data_path(const struct ctx *c, double device_step_s, struct data_path *p)
{
    const struct setup *s = c->s;
    const struct resolved *r = c->r;
    memset(p, 0, sizeof *p);
    double samples = s->training.global_batch;
    double bytes = samples * s->data.sample_bytes * (1.0 - s->data.cache_hit);
    double bw;
    if (s->data.source == DATA_LOCAL && r->local_storage) {
        bw = r->local_storage->read_gbs * c->nodes;
    } else {
        bw = s->cluster.storage_bw_gbs > 0 ? s->cluster.storage_bw_gbs : r->storage->read_gbs;
        if (r->storage->scope == STORAGE_LOCAL)
            bw *= c->nodes; /* a "shared" tier that is really per-node drives */
    }
    p->bw_gbs = bw;
    p->read_s = time_for(bytes, bw * 1e9) + r->storage->latency_us * 1e-6;
    /* Loader workers run on the cores left after the training processes. */
    double cores = (double)s->cluster.node.cpu_sockets * r->cpu->cores;
    double free_cores = maxd(1.0, cores - c->per_node * r->software->loader_reserved_cores);
    double workers = (double)s->data.loader_workers_per_device * c->per_node;
    double eff_workers = workers > 0 ? mind(workers, free_cores) : c->per_node;
    p->preprocess_s =
        time_for(samples * s->data.preprocess_us_per_sample * 1e-6, c->nodes * eff_workers);
    p->cores_total = cores;
    p->workers = eff_workers;
    p->cores_busy = device_step_s > 0
                        ? mind(eff_workers, eff_workers * ratio(p->preprocess_s, device_step_s))
                        : 0.0;
    /* Host-to-device copies: each device of the first stage receives its
     * share of the batch over its own host link. When the CPUs have fewer
     * PCIe lanes than the devices and NICs need, the links are shared. */
    double per_device = samples / c->dp * s->data.sample_bytes;
    /* With PCIe switches the CPUs see one x16 uplink per switch, and the
     * devices behind a switch share it (GPUDirect traffic to the NICs stays
     * under the switch); without, every device and NIC needs its own x16. */
    double endpoints = (r->accel->kind == ACCEL_CPU ? 0 : c->per_node) + /* a CPU needs no slot */
                       s->cluster.node.nics_per_node;
    int switches = s->cluster.node.pcie_switches;
    p->lanes_need = 16.0 * (switches > 0 ? mind(switches, endpoints) : endpoints);
    p->lanes_have = (double)r->cpu->pcie_lanes * s->cluster.node.cpu_sockets;
    double share = mind(1.0, ratio(p->lanes_have, p->lanes_need));
    if (switches > 0 && switches < c->per_node)
        share *= 1.0 / ceil((double)c->per_node / switches);
    p->h2d_s = time_for(per_device, model_link_bw(r->host_link) * share * 1e9) +
               r->host_link->latency_us * 1e-6;
    p->serial = s->data.prefetch_batches == 0 || s->data.loader_workers_per_device == 0;
}
