/* collective: alpha-beta time of ring, tree and hierarchical collectives. */
#include "collective.h"

#include <math.h>
#include <stddef.h>

const char *const collective_op_names[] = {"all-reduce", "all-gather", "reduce-scatter",
                                           "broadcast",  "all-to-all", NULL};
const char *const allreduce_names[] = {"auto", "ring", "tree", "hierarchical", "nvls", NULL};

/* Volume factor of a ring: the share of the buffer each device sends.
 * All-reduce = reduce-scatter + all-gather, 2(n-1)/n (Patarasuk & Yuan 2009);
 * all-gather and reduce-scatter (n-1)/n; a pipelined broadcast 1. */
static double ring_volume(enum collective_op op, int n)
{
    double f = n > 1 ? (double)(n - 1) / n : 0.0;
    switch (op) {
    case COLL_ALL_REDUCE:
        return 2.0 * f;
    case COLL_BROADCAST:
        return 1.0;
    default:
        return f;
    }
}

/* Latency steps of a ring: all-reduce makes 2(n-1) hops, the others n-1. */
static double ring_steps(enum collective_op op, int n)
{
    return op == COLL_ALL_REDUCE ? 2.0 * (n - 1) : (double)(n - 1);
}

double collective_bus_factor(enum collective_op op, int devices)
{
    if (devices <= 1)
        return 1.0;
    /* nccl-tests PERFORMANCE.md: busbw = algbw * 2(n-1)/n for all-reduce,
     * (n-1)/n for all-gather and reduce-scatter, 1 for broadcast. */
    return ring_volume(op, devices);
}

/* Never NaN or infinite: a zero or denormal bandwidth gives the ceiling. */
static double capped(double t)
{
    return t >= 0 && t < COLLECTIVE_TIME_CEILING_S ? t : t < 0 ? 0.0 : COLLECTIVE_TIME_CEILING_S;
}

static double ring_time(enum collective_op op, double bytes, int n, double bw_bytes_s, double lat_s)
{
    if (n <= 1 || !(bytes > 0))
        return 0.0;
    double transfer =
        bw_bytes_s > 0 ? ring_volume(op, n) * bytes / bw_bytes_s : COLLECTIVE_TIME_CEILING_S;
    return capped(ring_steps(op, n) * lat_s + capped(transfer));
}

/* The bandwidth a flat ring sees: every hop that crosses nodes shares the
 * node's NICs among the group's members in that node, so the group gets
 * per_node times the per-participant share; hops inside a node use the
 * device link. */
static void flat_link(const struct collective_net *net, double *bw, double *lat)
{
    if (net->per_node >= net->devices) {
        *bw = net->intra_bw_gbs * 1e9;
        *lat = net->intra_lat_s;
        return;
    }
    double inter = net->inter_bw_gbs * 1e9 * net->per_node;
    double intra = net->intra_bw_gbs * 1e9;
    *bw = inter < intra ? inter : intra;
    *lat = net->inter_lat_s > net->intra_lat_s ? net->inter_lat_s : net->intra_lat_s;
}

static double tree_time(enum collective_op op, double bytes, const struct collective_net *net)
{
    int n = net->devices;
    double bw, lat;
    flat_link(net, &bw, &lat);
    if (op == COLL_ALL_GATHER || op == COLL_REDUCE_SCATTER)
        return ring_time(op, bytes, n, bw, lat); /* NCCL has no tree for these */
    /* Double binary tree: each device sends and receives about the whole
     * buffer once per phase (reduce, then broadcast), pipelined in chunks,
     * and pays log2(n) hops per phase. */
    double depth = ceil(log2((double)n));
    int per_node = net->per_node > 0 ? net->per_node : 1;
    int nodes = (int)(((long long)n + per_node - 1) / per_node);
    if (nodes == 1) {
        /* NCCL's trees span nodes; inside one node the tree is a chain
         * through every device (NCCL 2.4 release notes, "tree within a node
         * is a chain"), so its latency is that of a ring. */
        double phases1 = op == COLL_ALL_REDUCE ? 2.0 : 1.0;
        double move = bw > 0 ? phases1 * bytes / bw : COLLECTIVE_TIME_CEILING_S;
        return capped(phases1 * ((n - 1) * lat) + capped(move));
    }
    double chain = net->per_node > 1 && nodes > 1 ? (net->per_node - 1) * net->intra_lat_s : 0.0;
    if (nodes > 1)
        depth = ceil(log2((double)nodes));
    double phases = op == COLL_ALL_REDUCE ? 2.0 : 1.0;
    double transfer = bw > 0 ? phases * bytes / bw : COLLECTIVE_TIME_CEILING_S;
    return capped(phases * (depth * lat + chain) + capped(transfer));
}

static double hierarchical_time(enum collective_op op, double bytes,
                                const struct collective_net *net)
{
    int n = net->devices, p = net->per_node;
    if (p <= 1 || p >= n) {
        double bw, lat;
        flat_link(net, &bw, &lat);
        return ring_time(op, bytes, n, bw, lat);
    }
    int nodes = (int)(((long long)n + p - 1) / p);
    double intra_bw = net->intra_bw_gbs * 1e9, inter_bw = net->inter_bw_gbs * 1e9;
    double shard = bytes / p;
    switch (op) {
    case COLL_ALL_REDUCE:
        return capped(ring_time(COLL_REDUCE_SCATTER, bytes, p, intra_bw, net->intra_lat_s) +
                      ring_time(COLL_ALL_REDUCE, shard, nodes, inter_bw, net->inter_lat_s) +
                      ring_time(COLL_ALL_GATHER, bytes, p, intra_bw, net->intra_lat_s));
    case COLL_ALL_GATHER:
        return capped(ring_time(COLL_ALL_GATHER, shard, nodes, inter_bw, net->inter_lat_s) +
                      ring_time(COLL_ALL_GATHER, bytes, p, intra_bw, net->intra_lat_s));
    case COLL_REDUCE_SCATTER:
        return capped(ring_time(COLL_REDUCE_SCATTER, bytes, p, intra_bw, net->intra_lat_s) +
                      ring_time(COLL_REDUCE_SCATTER, shard, nodes, inter_bw, net->inter_lat_s));
    default:
        return capped(ring_time(COLL_BROADCAST, bytes, nodes, inter_bw * p, net->inter_lat_s) +
                      ring_time(COLL_BROADCAST, bytes, p, intra_bw, net->intra_lat_s));
    }
}

/* All-to-all (nccl-tests alltoall_perf: every rank sends bytes/n to each
 * rank, busbw = algbw (n-1)/n): all pairwise sends run at once, so the time
 * is that of the busier path out of a device: the share bound for ranks on
 * its own fabric over the intra link, the rest over its share of the NICs,
 * plus one latency of the slowest path (Thakur et al. 2005, pairwise
 * exchange posted at once). */
static double alltoall_time(double bytes, const struct collective_net *net)
{
    int n = net->devices, g = net->per_node > 0 ? net->per_node : 1;
    double intra_bw = net->intra_bw_gbs * 1e9, inter_bw = net->inter_bw_gbs * 1e9;
    double intra =
        g > 1 ? (intra_bw > 0 ? (double)(g - 1) / n * bytes / intra_bw : COLLECTIVE_TIME_CEILING_S)
              : 0.0;
    double inter =
        g < n ? (inter_bw > 0 ? (double)(n - g) / n * bytes / inter_bw : COLLECTIVE_TIME_CEILING_S)
              : 0.0;
    double lat = g < n ? net->inter_lat_s : net->intra_lat_s;
    return capped(capped(intra > inter ? intra : inter) + (n - 1) * lat);
}

/* NVLink SHARP (NVLS): the switch reduces, so each device sends its buffer
 * once and receives the result once, at the in-switch algorithm bandwidth,
 * after a fixed pipeline fill; only inside one switched domain. Both figures
 * come from the link's nccl-tests microbenchmark. */
static double nvls_time(double bytes, const struct collective_net *net)
{
    if (!(net->nvls_bw_gbs > 0) || net->per_node < net->devices)
        return -1.0;
    return capped(net->nvls_setup_s + bytes / (net->nvls_bw_gbs * 1e9));
}

double collective_time(enum collective_op op, int algo, double bytes,
                       const struct collective_net *net, int *used)
{
    if (net->devices <= 1 || bytes <= 0) {
        if (used)
            *used = algo == ALLREDUCE_AUTO ? ALLREDUCE_RING : algo;
        return 0.0;
    }
    if (op == COLL_ALL_TO_ALL) {
        if (used)
            *used = algo == ALLREDUCE_AUTO ? ALLREDUCE_RING : algo;
        return alltoall_time(bytes, net);
    }
    double bw, lat;
    flat_link(net, &bw, &lat);
    double t_ring = ring_time(op, bytes, net->devices, bw, lat);
    if (algo == ALLREDUCE_RING) {
        if (used)
            *used = ALLREDUCE_RING;
        return t_ring;
    }
    double t_tree = tree_time(op, bytes, net);
    if (algo == ALLREDUCE_TREE) {
        if (used)
            *used = ALLREDUCE_TREE;
        return t_tree;
    }
    double t_hier = hierarchical_time(op, bytes, net);
    if (algo == ALLREDUCE_HIERARCHICAL) {
        if (used)
            *used = ALLREDUCE_HIERARCHICAL;
        return t_hier;
    }
    double t_nvls = op == COLL_ALL_REDUCE ? nvls_time(bytes, net) : -1.0;
    if (algo == ALLREDUCE_NVLS) {
        if (used)
            *used = t_nvls >= 0 ? ALLREDUCE_NVLS : ALLREDUCE_RING;
        return t_nvls >= 0 ? t_nvls : t_ring; /* no NVLS here: NCCL falls back to a ring */
    }
    int best = ALLREDUCE_RING;
    double t = t_ring;
    if (t_tree < t) {
        t = t_tree;
        best = ALLREDUCE_TREE;
    }
    if (t_hier < t) {
        t = t_hier;
        best = ALLREDUCE_HIERARCHICAL;
    }
    if (t_nvls >= 0 && t_nvls < t) {
        t = t_nvls;
        best = ALLREDUCE_NVLS;
    }
    if (used)
        *used = best;
    return t;
}
