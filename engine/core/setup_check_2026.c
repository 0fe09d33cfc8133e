/* setup_check_2026: the cross-checks of the fields the 2026 runs added
 * (power limit, gradient-reduction format, activation offloading, MoE
 * parallel folding, DeepEP, LoRA, multi-token prediction, the embedding and
 * loss in the pipeline split): a setup asking for what its device or stack
 * cannot do is refused, naming the field. */
#include <stdio.h>
#include <string.h>

#include "setup.h"
#include "setup_internal.h"

static bool check_power(const struct setup *s, const struct resolved *r, char *err, size_t err_len,
                        const char *bad_path[2])
{
    double limit = s->cluster.node.power_limit_w;
    const struct accelerator *a = r->accel;
    if (limit > 0 && (limit <= a->idle_w || limit > a->tdp_w))
        FAIL("cluster.node.power_limit_w",
             "cluster.node.power_limit_w %g W: %s takes a power limit above its idle %g W and "
             "at most its TDP %g W",
             limit, a->head.id, a->idle_w, a->tdp_w);
    if (s->training.grad_reduce_precision == GRAD_REDUCE_BF16 &&
        (s->training.precision == TRAIN_FP32 || s->training.precision == TRAIN_TF32))
        FAIL_AT("training.grad_reduce_precision", "training.precision",
                "training.grad_reduce_precision bf16 needs mixed precision (training.precision "
                "is %s)",
                train_precision_names[s->training.precision]);
    if (s->training.fp8_scaling == FP8_SCALING_CURRENT && s->training.precision != TRAIN_FP8)
        FAIL_AT("training.fp8_scaling", "training.precision",
                "training.fp8_scaling current applies to precision fp8 (here %s)",
                train_precision_names[s->training.precision]);
    return true;
}

static bool check_moe_2026(const struct setup *s, const struct resolved *r, char *err,
                           size_t err_len, const char *bad_path[2])
{
    const struct software *sw = r->software;
    int etp = s->training.expert_tensor_parallel, ep = s->training.expert_parallel;
    long long devices = setup_devices(s);
    long long ranks =
        devices / (s->training.pipeline_parallel > 0 ? s->training.pipeline_parallel : 1);
    if (etp > 0 && s->model.experts == 0)
        FAIL("training.expert_tensor_parallel",
             "training.expert_tensor_parallel %d needs a mixture-of-experts model (model.experts)",
             etp);
    if (etp > 0 && !sw->moe_folding)
        FAIL_AT("training.expert_tensor_parallel", "training.software",
                "%s does not implement MoE parallel folding (expert_tensor_parallel); use "
                "megatron-core or nemo",
                sw->head.id);
    long long fold = (long long)ep * setup_expert_tensor_parallel(s);
    if (s->model.experts > 0 && (fold > ranks || ranks % fold != 0))
        FAIL_AT(etp > 0 ? "training.expert_tensor_parallel" : "training.expert_parallel",
                "training.expert_parallel",
                "expert_parallel %d x expert_tensor_parallel %d = %lld must divide the %lld "
                "ranks of a pipeline stage (tensor x context x data parallel; Megatron-Core MoE "
                "parallel folding)",
                ep, setup_expert_tensor_parallel(s), fold, ranks);
    if (s->training.moe_dispatcher == MOE_DISPATCH_DEEPEP) {
        if (s->model.experts == 0 || ep < 2)
            FAIL_AT("training.moe_dispatcher", "training.expert_parallel",
                    "training.moe_dispatcher deepep needs expert_parallel above 1 on a "
                    "mixture-of-experts model");
        if (!sw->deepep)
            FAIL_AT("training.moe_dispatcher", "training.software",
                    "%s has no DeepEP dispatcher; use megatron-core or nemo", sw->head.id);
        if (strcmp(r->accel->head.vendor, "NVIDIA") != 0 || r->accel->kind != ACCEL_GPU)
            FAIL_AT("training.moe_dispatcher", "cluster.node.accelerator",
                    "DeepEP runs on NVIDIA GPUs (NVLink and NVSHMEM over RDMA), not on %s",
                    r->accel->head.id);
    }
    return true;
}

static bool check_training_2026(const struct setup *s, const struct resolved *r, char *err,
                                size_t err_len, const char *bad_path[2])
{
    const struct software *sw = r->software;
    bool transformer = s->model.kind == MODEL_TRANSFORMER;
    int pp = s->training.pipeline_parallel;
    if (s->training.lora_rank > 0 && !transformer)
        FAIL("training.lora_rank", "training.lora_rank needs a transformer model");
    if (s->training.lora_rank > s->model.hidden)
        FAIL("training.lora_rank", "training.lora_rank %d exceeds model.hidden %d",
             s->training.lora_rank, s->model.hidden);
    if (s->model.mtp_layers > 0 && !transformer)
        FAIL("model.mtp_layers", "model.mtp_layers needs a transformer model");
    int off = s->training.activation_offload_layers;
    if (off > 0 && (!transformer || !sw->activation_offload))
        FAIL_AT("training.activation_offload_layers", "training.software",
                "training.activation_offload_layers: %s does not offload activations to host "
                "memory; use megatron-core or nemo",
                sw->head.id);
    /* Megatron-Core's TransformerConfig refuses --cpu-offloading with
     * pipeline parallelism and with any activation recomputation. */
    if (off > 0 && pp > 1)
        FAIL_AT("training.activation_offload_layers", "training.pipeline_parallel",
                "training.activation_offload_layers: %s offloads activations only without "
                "pipeline parallelism (pipeline_parallel is %d; Megatron-Core)",
                sw->head.id, pp);
    if (off > 0 && s->training.recompute != RECOMPUTE_NONE)
        FAIL_AT("training.activation_offload_layers", "training.recompute",
                "training.activation_offload_layers: %s does not offload activations while it "
                "recomputes them (training.recompute is %s; Megatron-Core)",
                sw->head.id, recompute_names[s->training.recompute]);
    for (int stage = 0; off > 0 && stage < pp && stage < 4096; stage++)
        if (setup_stage_layers(s, stage) <= off)
            FAIL("training.activation_offload_layers",
                 "training.activation_offload_layers %d: pipeline stage %d holds %d layers; "
                 "at least one must stay on the device",
                 off, stage, setup_stage_layers(s, stage));
    int emb = s->training.account_for_embedding_in_pipeline_split;
    int loss = s->training.account_for_loss_in_pipeline_split;
    int v = s->training.virtual_stages;
    /* Megatron-Core's TransformerConfig refuses the two ways of shaping the
     * end stages together (num_layers_in_first/last_pipeline_stage with
     * account_for_*_in_pipeline_split); mixed, the split lost layers. */
    if ((emb || loss) && (s->training.first_stage_layers > 0 || s->training.last_stage_layers > 0))
        FAIL(emb ? "training.account_for_embedding_in_pipeline_split"
                 : "training.account_for_loss_in_pipeline_split",
             "%s cannot be set with training.first_stage_layers or last_stage_layers "
             "(Megatron-Core: one way to shape the end stages at a time)",
             emb ? "training.account_for_embedding_in_pipeline_split"
                 : "training.account_for_loss_in_pipeline_split");
    if ((emb || loss) && transformer && pp > 1 && (s->model.layers + emb + loss) % (pp * v) != 0)
        FAIL(emb ? "training.account_for_embedding_in_pipeline_split"
                 : "training.account_for_loss_in_pipeline_split",
             "%s: model.layers %d plus the embedding and loss counted as layers (%d) must split "
             "evenly over pipeline_parallel %d x virtual_stages %d (Megatron-Core)",
             emb ? "training.account_for_embedding_in_pipeline_split"
                 : "training.account_for_loss_in_pipeline_split",
             s->model.layers, s->model.layers + emb + loss, pp, v);
    return true;
}

/* Issue 21: CUDA graphs are a CUDA feature of the stack (Megatron-Core
 * --cuda-graph-impl; Transformer Engine make_graphed_callables). */
static bool check_host_2026(const struct setup *s, const struct resolved *r, char *err,
                            size_t err_len, const char *bad_path[2])
{
    if (!s->training.cuda_graphs)
        return true;
    if (!r->software->cuda_graphs)
        FAIL_AT("training.cuda_graphs", "training.software",
                "training.cuda_graphs: %s does not capture layers in CUDA graphs; use "
                "megatron-core or nemo",
                r->software->head.id);
    if (strcmp(r->accel->head.vendor, "NVIDIA") != 0 || r->accel->kind != ACCEL_GPU)
        FAIL_AT("training.cuda_graphs", "cluster.node.accelerator",
                "training.cuda_graphs: CUDA graphs run on NVIDIA GPUs, not on %s",
                r->accel->head.id);
    return true;
}

bool setup_check_2026(const struct setup *s, const struct resolved *r, char *err, size_t err_len,
                      const char *bad_path[2])
{
    return check_power(s, r, err, err_len, bad_path) &&
           check_moe_2026(s, r, err, err_len, bad_path) &&
           check_training_2026(s, r, err, err_len, bad_path) &&
           check_host_2026(s, r, err, err_len, bad_path);
}
