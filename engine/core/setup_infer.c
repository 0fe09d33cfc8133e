/* setup_infer: the inference section's number formats and cross-checks. */
#include <stdio.h>

#include "setup.h"
#include "setup_internal.h"

int setup_infer_format(const struct setup *s, const struct accelerator *a, int which)
{
    static const int train_of[INFER_PRECISION_COUNT] = {
        [INFER_AUTO] = TRAIN_BF16, [INFER_BF16] = TRAIN_BF16, [INFER_FP16] = TRAIN_FP16,
        [INFER_FP8] = TRAIN_FP8,   [INFER_INT8] = TRAIN_INT8, [INFER_FP4] = TRAIN_NVFP4,
    };
    int p = which == SETUP_INFER_KV ? s->inference.kv_precision : s->inference.weight_precision;
    if (p < 0 || p >= INFER_PRECISION_COUNT)
        p = INFER_AUTO;
    if (p != INFER_AUTO)
        return train_of[p];
    /* The device's 16-bit format: bf16 where it has one (A100 and later),
     * fp16 on V100-class devices, fp32 on devices with neither. */
    if (a->peak_tflops[PREC_BF16] > 0)
        return TRAIN_BF16;
    return a->peak_tflops[PREC_FP16] > 0 ? TRAIN_FP16 : TRAIN_FP32;
}

double setup_infer_format_bytes(int train_precision)
{
    switch (train_precision) {
    case TRAIN_FP32:
    case TRAIN_TF32:
        return 4.0;
    case TRAIN_FP8:
    case TRAIN_INT8:
    case TRAIN_MXFP8:
        return 1.0;
    case TRAIN_NVFP4:
        /* 4-bit values plus one FP8 scale per 16 of them (NVIDIA, "Introducing
         * NVFP4", 2025). */
        return 0.5 + 1.0 / 16.0;
    case TRAIN_FP4:
        return 0.5 + 1.0 / 32.0; /* OCP MX: one 8-bit scale per 32 values */
    default:
        return 2.0;
    }
}

/* The dense peak of a number format on a device (0: the device lacks it). */
static double format_peak(const struct accelerator *a, int train_precision)
{
    struct setup probe = {0}; /* only the precision is read */
    probe.training.precision = train_precision;
    return setup_gemm_peak_tflops(&probe, a);
}

bool setup_check_inference(const struct setup *s, const struct resolved *r, char *err,
                           size_t err_len, const char *bad_path[2])
{
    int64_t t = s->inference.tensor_parallel, p = s->inference.pipeline_parallel;
    int64_t devices = setup_devices(s);
    if (t * p > devices || devices % (t * p) != 0)
        FAIL("inference.tensor_parallel",
             "inference.tensor_parallel x inference.pipeline_parallel (%lld x %lld) must divide "
             "the %lld devices into whole replicas",
             (long long)t, (long long)p, (long long)devices);
    if (s->model.kind == MODEL_TRANSFORMER) {
        int heads = s->model.heads, kv = setup_kv_heads(s);
        if (heads % t != 0)
            FAIL("inference.tensor_parallel",
                 "inference.tensor_parallel %lld must divide the %d attention heads", (long long)t,
                 heads);
        /* Tensor ranks split the KV heads, or replicate them when there are
         * fewer heads than ranks (vLLM and TensorRT-LLM need one to divide
         * the other). */
        if (kv % t != 0 && t % kv != 0)
            FAIL("inference.tensor_parallel",
                 "inference.tensor_parallel %lld and the %d key/value heads must divide one "
                 "another",
                 (long long)t, kv);
        if (p > s->model.layers)
            FAIL("inference.pipeline_parallel",
                 "inference.pipeline_parallel %lld is more than the %d layers", (long long)p,
                 s->model.layers);
    }
    const struct accelerator *a = r->accel;
    int w = setup_infer_format(s, a, SETUP_INFER_WEIGHTS);
    if (!(format_peak(a, w) > 0))
        FAIL("inference.weight_precision",
             "inference.weight_precision: %s has no %s matrix path for the weights", a->head.name,
             infer_precision_names[s->inference.weight_precision]);
    int kv = setup_infer_format(s, a, SETUP_INFER_KV);
    /* The KV cache is read by the attention kernels in its own format (FP4)
     * or converted to 16 bits on the fly (FP8, INT8): FP4 needs the path. */
    if (kv == TRAIN_NVFP4 && !(format_peak(a, kv) > 0))
        FAIL("inference.kv_precision",
             "inference.kv_precision: %s has no fp4 path for the KV cache", a->head.name);
    return true;
}
