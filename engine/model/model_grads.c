/* model_grads: two issue-20 mechanisms of the device step. The memory
 * traffic of accumulating weight gradients over the micro-batches of a
 * step, per the stack's data-parallel gradient handling; and the slowdown
 * of compute that runs beside overlapped communication. Formulas and
 * sources: docs/MODEL.md, "Gradient accumulation" and "Overlap is not
 * free". Nothing here allocates. */
#include "model_internal.h"

/* Compute slows by this share while a collective runs beside it: NCCL
 * kernels hold SMs and HBM bandwidth. Measured on A100, H100, MI250 and
 * MI210 training GPT and Llama models: overlapped compute ran 18.9% slower
 * on average (40% at most) than compute alone ("Characterizing
 * Compute-Communication Overlap in GPU-Accelerated Distributed Deep
 * Learning: Performance and Power Implications", arXiv 2507.03114, 2025). */
#define MODEL_OVERLAP_SLOWDOWN 0.189

double model_overlap_interference(const struct ctx *c, double hidden_s, double compute_s)
{
    /* The measurement is of GPU collectives running as kernels on the SMs;
     * TPUs move ICI traffic with their own DMA engines: not charged. */
    if (c->r->accel->kind != ACCEL_GPU || !(hidden_s > 0.0) || !(compute_s > 0.0))
        return 0.0;
    /* Only compute that really ran beside the traffic slows down. */
    return MODEL_OVERLAP_SLOWDOWN * (hidden_s < compute_s ? hidden_s : compute_s);
}

double model_grad_accum_time(const struct ctx *c, double params)
{
    const struct setup *s = c->s;
    const struct software *sw = c->r->software;
    /* The accumulator is kept in the stack's gradient format (fp32 main
     * gradients in Megatron-LM, FSDP's fp32 reduce_dtype; 16-bit in
     * DeepSpeed's fp16/bf16 ZeRO): each micro-batch reads and writes it
     * once per parameter held, whatever the ZeRO stage. */
    double g = c->grad_bytes;
    double whole = params * 2.0 * g;
    if (s->training.zero_stage >= 2 && sw->reduce_per_microbatch) {
        /* ZeRO-2/3 and FSDP reduce-scatter every micro-batch: the backward
         * writes the whole gradient, the reduce-scatter reads it, and this
         * rank's shard is added into its fp32 partition (read + write 4
         * bytes): never less traffic than keeping the gradient whole. */
        double shard = params / ((double)c->dp * c->cp);
        return time_for(whole + shard * 8.0, c->mem_bw);
    }
    return time_for(whole, c->mem_bw);
}
