/* model_infer_internal: what the serving model's files share
 * (model_infer.c, the closed form, and model_serve.c, serving over time).
 * Not part of the engine's public face. */
#ifndef MLVIZ_MODEL_INFER_INTERNAL_H
#define MLVIZ_MODEL_INFER_INTERNAL_H

#include "infer.h"
#include "model_internal.h"

/* What one evaluation shares between prefill and decode. */
struct serve {
    struct setup t; /* the setup with the serving layout in its training fields */
    struct ctx c;
    const struct serving *sw;
    double tp, pp;
    double layers_stage; /* layers of the busiest pipeline stage */
    double moe_share;    /* mixture-of-experts layers over all layers */
    double w_bytes;      /* bytes per served weight */
    double kv_bytes;     /* bytes per cached K or V value */
    double kv_heads_local, heads_local, head_dim;
    double kvpt_device;    /* KV bytes per token on one device (its layers, its heads) */
    double kv_read_factor; /* decode KV reads over the cache's size (1 with GQA sharing) */
    double launch_s;       /* cost of one kernel in this pass */
};

void serve_init(const struct setup *s, const struct resolved *r, struct serve *v);

/* Bytes of weights on one device, and the prefill workspace for `seqs`
 * sampled rows. */
double serve_weight_bytes(const struct serve *v);
double serve_workspace_bytes(const struct serve *v, double seqs);

/* The KV pool of one replica. */
struct kv_room {
    double free_bytes; /* device memory the KV cache may take */
    double tokens;     /* per replica, whole blocks */
    double seq_tokens; /* one full-length sequence, whole blocks */
    int max_batch;
};
void serve_kv_room(const struct serve *v, double weights, double workspace, struct kv_room *k);

/* One engine step of continuous batching: decode_seqs sequences generate
 * a token each over decode_context cached tokens in all; prefill_tokens
 * prompt tokens of chunks whose attention covers prefill_pairs query-key
 * pairs; rows sampled by the output layer. */
struct serve_step {
    double decode_seqs, decode_context;
    double prefill_tokens, prefill_pairs;
    double rows;
};
/* Seconds of that step (the kernel cost of the pass set in v->launch_s and
 * v->c.kernel_s). */
double serve_step_time(const struct serve *v, const struct serve_step *st);

#endif
