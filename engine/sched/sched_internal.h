/* sched_internal: what the files of the schedule simulator share. Only
 * sched*.c include it. */
#ifndef MLVIZ_SCHED_INTERNAL_H
#define MLVIZ_SCHED_INTERNAL_H

#include "schedule.h"

/* One pass as the schedule names it. */
struct pass {
    int kind, chunk, mb;
};

/* A stage of the simulation. */
struct stage_state {
    double t_free; /* its compute stream is free from here */
    double key;    /* when it next decides (heap key); INFINITY: waiting */
    int done;      /* passes issued (fixed orders), or forwards issued (ZB) */
    int nb, nw;    /* backwards and weight passes issued (ZB) */
    int last_kind; /* of the pass issued last (ZB) */
    int inflight;  /* chunk activations held */
    int heap_at;   /* position in the heap, -1 when out */
    /* Interleaved: the gradient sync may start once the last micro-batch's
     * first backward (chunk v - 1) starts; the waits after that, in which
     * it runs on (sched_loop). */
    bool synced;
    double sync_idle;
};

struct sim {
    int p, v, m, kind;
    const struct model_stage_cost *cost;
    double send_s, block_s;
    double *fwd_ready, *bwd_ready; /* [(stage * v + chunk) * m + mb]: output's end, or -1 */
    struct stage_state *st;
    struct sched_result *out;
    size_t ops_cap;
};

/* sched_order.c: the k-th pass of stage s in a fixed-order schedule, and
 * how many passes each stage runs. */
int sched_passes_per_stage(const struct sim *sm);
void sched_fixed_pass(const struct sim *sm, int s, int k, struct pass *ps);
int sched_warmup(const struct sim *sm, int s);

/* sched_run.c: the event loop; false if a stage never finished. */
bool sched_loop(struct sim *sm);

#endif
