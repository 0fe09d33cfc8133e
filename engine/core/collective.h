/* collective: time of NCCL-style collectives (ring, tree, hierarchical)
 * from link bandwidth and latency. Used by the analytic model, the
 * interconnect stage view and `mlviz collective`.
 *
 * Ring all-reduce sends 2(n-1)/n of the buffer through every device's link
 * (Patarasuk & Yuan 2009); a double binary tree (NCCL 2.4, Sanders et al.
 * 2009) moves about the same volume but pays log2(n) latency steps instead
 * of 2(n-1); the hierarchical form reduce-scatters inside a node, all-reduces
 * across nodes on each device's share of the NICs, then all-gathers inside
 * the node. */
#ifndef MLVIZ_COLLECTIVE_H
#define MLVIZ_COLLECTIVE_H

enum collective_op {
    COLL_ALL_REDUCE,
    COLL_ALL_GATHER,
    COLL_REDUCE_SCATTER,
    COLL_BROADCAST,
    COLL_ALL_TO_ALL
};
extern const char *const collective_op_names[]; /* "all-reduce", ... */

/* Algorithms of an all-reduce (the setup's training.allreduce). AUTO picks
 * the fastest; the others force one, as NCCL_ALGO does. */
enum allreduce_algo {
    ALLREDUCE_AUTO,
    ALLREDUCE_RING,
    ALLREDUCE_TREE,
    ALLREDUCE_HIERARCHICAL,
    ALLREDUCE_NVLS
};
extern const char *const allreduce_names[]; /* "auto", "ring", ... */

struct collective_net {
    int devices;         /* participants */
    int per_node;        /* participants per node (1..devices) */
    double intra_bw_gbs; /* effective per-direction bandwidth inside a node */
    double intra_lat_s;
    double inter_bw_gbs; /* effective per-participant bandwidth between nodes */
    double inter_lat_s;
    double nvls_bw_gbs; /* in-switch all-reduce algbw inside one domain; 0 = none */
    double nvls_setup_s;
};

/* Longest time a collective reports: with a bandwidth of zero (or one so
 * small that the time would not be finite) the time is this ceiling. */
#define COLLECTIVE_TIME_CEILING_S 1e15

/* Time of one collective of `bytes` (the full buffer) with one algorithm.
 * ALLREDUCE_AUTO returns the fastest and writes its choice to *used. Always
 * finite, at most COLLECTIVE_TIME_CEILING_S. */
double collective_time(enum collective_op op, int algo, double bytes,
                       const struct collective_net *net, int *used);
/* nccl-tests bus bandwidth factor: busbw = algbw * factor. */
double collective_bus_factor(enum collective_op op, int devices);

#endif
