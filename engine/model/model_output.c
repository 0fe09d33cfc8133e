/* model_output: the output layer (logits GEMM) and the cross-entropy loss
 * on the last pipeline stage. Formulas and sources: docs/MODEL.md, section
 * 2. Nothing here allocates. */
#include "model_internal.h"

void model_output_layer(const struct ctx *c, double tokens, double *fwd, double *bwd)
{
    const struct setup *s = c->s;
    double vocab_local = (double)s->model.vocab / c->tp;
    /* Low-precision recipes leave the output layer in 16 bits: Megatron-Core
     * builds it as tensor_parallel.ColumnParallelLinear, not a Transformer
     * Engine module, so fp8_autocast does not reach it; torchtitan's float8
     * conversion skips the "output" module. The GEMM runs at the 16-bit
     * rate and reads 16-bit inputs. */
    struct ctx c16 = *c;
    if (c->gemm_in_bytes < c->act_bytes) {
        c16.peak_flops = c->vector_peak_flops;
        c16.gemm_in_bytes = c->act_bytes;
    }
    double gemm = model_gemm_time(&c16, 1, tokens, vocab_local, s->model.hidden);
    /* The loss is memory-bound; the software entry counts its bytes per
     * logit (Megatron-Core's unfused vocab-parallel cross entropy: 52,
     * counted in software.yaml). Half is charged to each pass. */
    double loss =
        model_time_for(c->r->software->loss_bytes_per_logit * tokens * vocab_local, c->mem_bw);
    *fwd = gemm + loss / 2.0;
    /* LoRA freezes the output layer: its backward is the input gradient
     * alone (model_lora.c). */
    *bwd = (c->lora ? 1.0 : 2.0) * gemm + loss / 2.0;
}

double model_mtp_projection(const struct ctx *c, double tokens)
{
    /* A multi-token prediction module projects the two normalised
     * h-vectors of each token to h (DeepSeek-V3, 2.2), column-parallel over
     * the tensor group; LoRA leaves it frozen (its backward is the input
     * gradient alone). */
    double h = c->s->model.hidden;
    return model_gemm_time(c, 1, tokens, h / c->tp, 2.0 * h);
}
