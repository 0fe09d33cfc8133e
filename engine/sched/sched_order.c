/* sched_order: the order in which each stage issues its passes, for the
 * schedules with a fixed order (GPipe, 1F1B, interleaved 1F1B). Sources:
 * docs/MODEL.md, "The step schedule". */
#include "sched_internal.h"

int sched_passes_per_stage(const struct sim *sm)
{
    return 2 * sm->m * sm->v;
}

/* Warm-up forwards of stage s before its first backward. 1F1B: p - s - 1
 * (Narayanan et al. 2021). Interleaved: Megatron-Core runs 2 (p - s - 1)
 * plus (v - 1) groups of p micro-batches (get_pp_rank_microbatches in
 * megatron/core/pipeline_parallel/schedules.py, with
 * microbatch_group_size_per_vp_stage at its default, p), all m v chunk
 * forwards at most. */
int sched_warmup(const struct sim *sm, int s)
{
    long total = (long)sm->m * sm->v, w;
    if (sm->kind == SCHED_GPIPE)
        return (int)total;
    if (sm->kind == SCHED_INTERLEAVED)
        w = 2L * (sm->p - s - 1) + (long)(sm->v - 1) * sm->p;
    else
        w = sm->p - s - 1;
    return (int)(w < total ? w : total);
}

/* The i-th entry of Megatron-Core's schedule table (get_schedule_table):
 * micro-batches in groups of p, each group run through chunk 0, then chunk
 * 1, ...; the last group takes whatever is left. Backwards walk the same
 * table with the chunks reversed. */
static void table_entry(const struct sim *sm, int i, bool backward, int *chunk, int *mb)
{
    int g = sm->p, v = sm->v, m = sm->m;
    int full = (m - 1) / g; /* groups before the last */
    long in_full = (long)full * g * v;
    if (i < in_full) {
        int group = i / (g * v), r = i % (g * v);
        *chunk = r / g;
        *mb = group * g + r % g;
    } else {
        int r = (int)(i - in_full), size = m - full * g;
        *chunk = r / size;
        *mb = full * g + r % size;
    }
    if (backward)
        *chunk = v - 1 - *chunk;
}

/* Forwards 0..w-1, then pairs (forward w + i, backward i), then the
 * remaining backwards: GPipe (w = all), 1F1B and interleaved alike. */
void sched_fixed_pass(const struct sim *sm, int s, int k, struct pass *ps)
{
    int total = sm->m * sm->v, w = sched_warmup(sm, s);
    int idx;
    bool backward;
    if (k < w) {
        idx = k;
        backward = false;
    } else if (k - w < 2 * (total - w)) {
        int r = k - w;
        backward = r % 2 == 1;
        idx = backward ? r / 2 : w + r / 2;
    } else {
        backward = true;
        idx = total - w + (k - w - 2 * (total - w));
    }
    ps->kind = backward ? SCHED_OP_BACKWARD : SCHED_OP_FORWARD;
    if (sm->v == 1) {
        ps->chunk = 0;
        ps->mb = idx;
    } else {
        table_entry(sm, idx, backward, &ps->chunk, &ps->mb);
    }
}
