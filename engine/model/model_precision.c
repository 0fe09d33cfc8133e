/* model_precision: the quantisation traffic of low-precision GEMMs as
 * Transformer Engine runs them (y2026). Every linear layer runs fprop,
 * dgrad and wgrad in the low format; attention, the output layer, norms
 * and element-wise work stay in BF16 (model_compute.c, model_output.c).
 * Before each GEMM its 16-bit input is quantised by a memory-bound kernel;
 * the bytes per element read and written depend on the recipe:
 *
 *  - FP8, delayed scaling (TE DelayedScaling): one fused cast + transpose
 *    reads 2 bytes and writes the row-wise and column-wise (transposed, for
 *    wgrad) 1-byte copies; the amax comes from the history: 4 bytes.
 *  - FP8, current scaling (TE Float8CurrentScaling): the same after an amax
 *    pass over the tensor (2 more bytes read): 6 bytes.
 *  - MXFP8 (TE MXFP8BlockScaling, OCP MX): one pass writes the row-wise and
 *    column-wise copies with an E8M0 scale per 32 elements along each:
 *    2 + 1 + 1 + 2/32 bytes.
 *  - NVFP4 (TE NVFP4BlockScaling; NVIDIA, "Pretraining Large Language
 *    Models with NVFP4", arXiv 2509.25149): an FP32 per-tensor scale needs
 *    an amax pass (2 bytes); the row-wise copy (0.5 byte per element plus an
 *    E4M3 scale per 16: 2 + 0.5625); the column-wise copy for wgrad goes
 *    through a 16 x 16 random Hadamard transform whose output has its own
 *    amax (2 + 2 + 0.5625): 9.125 bytes. Gradients take the same path with
 *    stochastic rounding (no extra traffic).
 *  - MXFP4 (OCP): as MXFP8 with half-byte elements.
 *
 * Layer inputs (QKV and fc1 inputs, the attention output, the fc2 input)
 * are quantised in the forward pass; the output gradients of every GEMM in
 * the backward pass. Formulas: docs/MODEL.md, section 12. */
#include "model_internal.h"

double model_quant_bytes_per_element(const struct setup *s)
{
    switch (s->training.precision) {
    case TRAIN_FP8:
        return s->training.fp8_scaling == FP8_SCALING_CURRENT ? 6.0 : 4.0;
    case TRAIN_MXFP8:
        return 2.0 + 1.0 + 1.0 + 2.0 / 32.0;
    case TRAIN_NVFP4:
        return 2.0 + (2.0 + 0.5 + 1.0 / 16.0) + (2.0 + 2.0 + 0.5 + 1.0 / 16.0);
    case TRAIN_FP4:
        return 2.0 + 0.5 + 0.5 + 2.0 / 32.0;
    default:
        return 0.0;
    }
}

/* The compute weights of linear layers. Stacks that keep them in the low
 * format (Megatron-Bridge's fp8_param_gather / fp4_param_gather) store
 * Transformer Engine's quantized tensors: per-tensor FP8 one byte, plus a
 * transposed copy for the data-gradient GEMM where the device's FP8 GEMMs
 * take only the TN layout (Hopper; Blackwell runs every layout, TE's
 * is_non_tn_fp8_gemm_supported, and is the generation with an FP4 path);
 * MXFP8 a row-wise and a column-wise copy with an E8M0 scale per 32 each;
 * NVFP4 two half-byte copies with an E4M3 scale per 16; MXFP4 two with a
 * scale per 32. Otherwise the 16-bit weight plus any cached FP8 copies. */
double model_linear_weight_bytes(const struct ctx *c)
{
    const struct setup *s = c->s;
    const struct software *sw = c->r->software;
    if (!is_low_precision(s->training.precision))
        return c->w_bytes;
    if (!sw->low_precision_params)
        return c->w_bytes + sw->fp8_weight_bytes;
    switch (s->training.precision) {
    case TRAIN_FP8:
        return c->r->accel->fp4_tflops > 0 ? 1.0 : 2.0;
    case TRAIN_MXFP8:
        return 2.0 * (1.0 + 1.0 / 32.0);
    case TRAIN_NVFP4:
        return 2.0 * (0.5 + 1.0 / 16.0);
    default: /* MXFP4 */
        return 2.0 * (0.5 + 1.0 / 32.0);
    }
}

/* Megatron-Core --fp8-param-gather: "perform the param all-gather in fp8";
 * the row-wise copy travels (1 byte, or half a byte in FP4); its scales are
 * left out (1/32 or 1/16 of a byte). */
double model_param_gather_bytes(const struct ctx *c)
{
    if (!is_low_precision(c->s->training.precision) || !c->r->software->low_precision_params)
        return c->w_bytes;
    return c->gemm_in_bytes;
}

void model_layer_quant_times(const struct ctx *c, bool moe, double M, double *fwd, double *bwd)
{
    *fwd = *bwd = 0.0;
    const struct setup *s = c->s;
    double q = model_quant_bytes_per_element(s);
    if (!(q > 0))
        return;
    double t = c->tp, h = s->model.hidden, q_dim, kv_dim;
    model_attention_dims(s, &q_dim, &kv_dim);
    double up = s->model.mlp == MLP_SWIGLU ? 2.0 : 1.0;
    /* Attention: QKV and output projections. */
    double x = h + q_dim / t, g = (q_dim + 2.0 * kv_dim) / t + h;
    if (!moe) {
        double f = setup_ffn_hidden(s);
        x += h + f / t;
        g += up * f / t + h;
    } else {
        /* Routed (at capacity when padded) and shared experts: k copies of
         * each token into fc1 and out of fc2 (model_moe.c). */
        double fe = setup_expert_ffn_hidden(s), et = c->etp;
        double cf = s->training.capacity_factor > 1.0 ? s->training.capacity_factor : 1.0;
        double routed = s->model.top_k * cf * et / t; /* M et / t tokens (model_parallel.c) */
        x += routed * (h + fe / et) + s->model.shared_experts * (h + fe / t);
        g += routed * (up * fe / et + h) + s->model.shared_experts * (up * fe / t + h);
    }
    *fwd = model_time_for(q * M * x, c->mem_bw);
    *bwd = model_time_for(q * M * g, c->mem_bw);
}
