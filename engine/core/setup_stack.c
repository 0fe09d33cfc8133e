/* setup_stack: the rules of the training stack (issue 20): what the
 * software entry says it can run, each refusal quoting the rule's source
 * from the catalog. Shared by the loader and every planner candidate
 * through setup_check. */
#include <stdio.h>

#include "setup.h"
#include "setup_internal.h"

/* " (source: ...)" when the entry names one, else "". */
static const char *src_open(const char *src)
{
    return src[0] ? " (source: " : "";
}
static const char *src_close(const char *src)
{
    return src[0] ? ")" : "";
}

/* ZeRO against the stack: the stages it implements, and those it runs
 * beside a pipeline (DeepSpeed's pipeline engine takes ZeRO-1 only). */
static bool check_zero(const struct setup *s, const struct software *sw, char *err, size_t err_len,
                       const char *bad_path[2])
{
    const char *src = sw->zero_source;
    int zero = s->training.zero_stage, pp = s->training.pipeline_parallel;
    if (zero > sw->max_zero_stage)
        FAIL_AT("training.zero_stage", "training.software",
                "%s implements ZeRO stages up to %d, not %d%s%s%s", sw->head.id, sw->max_zero_stage,
                zero, src_open(src), src, src_close(src));
    if (pp > 1 && zero > sw->zero_stage_with_pp)
        FAIL_AT("training.zero_stage", "training.pipeline_parallel",
                "%s runs ZeRO stages up to %d beside pipeline parallelism, not %d with "
                "pipeline_parallel %d%s%s%s",
                sw->head.id, sw->zero_stage_with_pp, zero, pp, src_open(src), src, src_close(src));
    return true;
}

/* Micro-batches per step (0 when the layout does not divide: the layout
 * checks report that first). */
static long long micro_batches(const struct setup *s)
{
    long long dp = setup_data_parallel(s), mb = s->training.micro_batch;
    if (dp < 1 || mb < 1)
        return 0;
    return s->training.global_batch / (dp * mb);
}

/* The interleaved schedule: whether the stack has one, and how many
 * micro-batches it needs per step. */
static bool check_interleave(const struct setup *s, const struct software *sw, char *err,
                             size_t err_len, const char *bad_path[2])
{
    int v = s->training.virtual_stages, pp = s->training.pipeline_parallel;
    if (v <= 1 || pp <= 1)
        return true;
    const char *src = sw->interleave_source;
    long long m = micro_batches(s);
    if (sw->interleave == INTERLEAVE_NONE)
        FAIL_AT("training.virtual_stages", "training.software",
                "%s has no interleaved pipeline schedule (virtual_stages %d)%s%s%s", sw->head.id, v,
                src_open(src), src, src_close(src));
    if (sw->interleave == INTERLEAVE_MULTIPLE && m % pp != 0)
        FAIL_AT("training.virtual_stages", "training.global_batch",
                "%s's interleaved schedule (virtual_stages %d) needs the micro-batches per step "
                "(%lld) to be a multiple of pipeline_parallel %d%s%s%s",
                sw->head.id, v, m, pp, src_open(src), src, src_close(src));
    if (sw->interleave == INTERLEAVE_AT_LEAST && m < pp)
        FAIL_AT("training.virtual_stages", "training.global_batch",
                "%s's interleaved schedule (virtual_stages %d) needs at least pipeline_parallel "
                "%d micro-batches per step, here %lld%s%s%s",
                sw->head.id, v, pp, m, src_open(src), src, src_close(src));
    /* Micro-batches go through the chunks in groups of pipeline_parallel
     * (the default group size); a last group of 0 < m mod p < p micro-batches
     * would wait on its own ring, and the stack refuses it. */
    if (sw->interleave == INTERLEAVE_AT_LEAST && m % pp != 0)
        FAIL_AT("training.virtual_stages", "training.global_batch",
                "%s's interleaved schedule (virtual_stages %d) runs micro-batches in groups of "
                "pipeline_parallel %d; the last group would hold %lld of them (%lld per step), "
                "fewer than %d%s%s%s",
                sw->head.id, v, pp, m % pp, m, pp, src_open(src), src, src_close(src));
    return true;
}

bool setup_check_stack(const struct setup *s, const struct software *sw, char *err, size_t err_len,
                       const char *bad_path[2])
{
    if (!check_zero(s, sw, err, err_len, bad_path))
        return false;
    if (s->model.kind != MODEL_TRANSFORMER)
        return true;
    const char *src = sw->flash_attention_source;
    if (s->training.flash_attention && !sw->flash_attention)
        FAIL_AT("training.flash_attention", "training.software",
                "%s has no fused (flash) attention kernels; set training.flash_attention false "
                "or pick a stack that has them%s%s%s",
                sw->head.id, src_open(src), src, src_close(src));
    src = sw->sequence_parallel_source;
    if (s->training.sequence_parallel && s->training.tensor_parallel > 1 && !sw->sequence_parallel)
        FAIL_AT("training.sequence_parallel", "training.software",
                "%s does not implement sequence parallelism beside tensor parallelism%s%s%s",
                sw->head.id, src_open(src), src, src_close(src));
    src = sw->context_parallel_source;
    if (s->training.context_parallel > 1 && !sw->context_parallel)
        FAIL_AT("training.context_parallel", "training.software",
                "%s does not implement ring-attention context parallelism; use megatron-core, "
                "nemo, fsdp or maxtext%s%s%s",
                sw->head.id, src_open(src), src, src_close(src));
    return check_interleave(s, sw, err, err_len, bad_path);
}
