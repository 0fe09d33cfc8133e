/* infer: the analytic model of serving a model (mlviz infer).
 *
 * One setup in (its cluster, model, facility and inference sections), one
 * report out: time to first token, time per output token, throughput of
 * the whole deployment, KV-cache size and how many sequences fit, the
 * bottleneck of prefill and of decode, power and the price of a million
 * output tokens. The cluster is cut into replicas of inference.tensor_
 * parallel x inference.pipeline_parallel devices, each serving `batch`
 * sequences at a time. Formulas and sources: docs/MODEL.md, section
 * "Inference". Nothing here allocates. */
#ifndef MLVIZ_INFER_H
#define MLVIZ_INFER_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"
#include "report_fields.h"
#include "setup.h"

/* Seconds of one pass (a prefill, or one decode step), by part; they add
 * up to the pass. */
struct infer_breakdown {
    double gemm;      /* weight GEMMs (projections, MLP or experts, output layer) */
    double attention; /* attention over the prompt, or reading the KV cache */
    double other;     /* norms, activations, rotary embedding (memory traffic) */
    double kernels;   /* kernel launch or graph-replay cost beyond the GEMMs' */
    double tp_comm;   /* two tensor-parallel all-reduces per layer */
    double pp_p2p;    /* activations handed between pipeline stages */
    double host;      /* engine host time per step the devices wait for */
};

struct infer_report {
    bool runnable;
    char why_not[256];
    double ttft_s;               /* one request's prompt, prefilled alone */
    double tpot_s;               /* one decode step at `batch` sequences */
    double latency_s;            /* ttft + (output_tokens - 1) x tpot */
    double output_tokens_per_s;  /* whole deployment, prefill time included */
    double prefill_tokens_per_s; /* whole deployment, prompts only */
    double requests_per_s;
    double kv_bytes_per_token;     /* K and V of one token over every layer */
    double kv_cache_gb_per_device; /* `batch` full-length sequences */
    double weights_gb_per_device;
    double activations_gb_per_device; /* the prefill chunk's workspace */
    double reserved_gb_per_device;
    double per_device_gb;
    double capacity_gb;
    double kv_capacity_tokens; /* per replica, in whole blocks */
    int max_batch;             /* full-length sequences the KV cache holds */
    int batch;                 /* concurrent sequences per replica, as evaluated */
    int replicas, tp, pp, devices;
    double decode_crossover_batch; /* decode turns compute-bound; 0: never */
    double decode_weight_gb;       /* weights one decode step reads per device */
    double decode_kv_gb;           /* KV cache one decode step reads per device */
    double decode_mem_bw_gbs;      /* achievable device memory bandwidth */
    double params, params_active;
    int prefill_bottleneck, decode_bottleneck; /* enum stage_id */
    char prefill_reason[256];
    char decode_reason[256];
    struct infer_breakdown prefill;
    struct infer_breakdown decode;
    double device_w, it_kw, facility_kw;
    double usd_per_hour;
    double usd_per_mtok;       /* per million output tokens */
    double joules_per_token;   /* facility energy per output token */
    char weight_precision[16]; /* as resolved ("auto" named) */
    char kv_precision[16];
    char software[64];
};

/* Evaluate a resolved setup. Never allocates; every number finite. A
 * setup that cannot be served (weights or one sequence do not fit, a
 * generic model) is reported with runnable = false and a reason, and its
 * rates are 0. */
void infer_eval(const struct setup *s, const struct resolved *r, struct infer_report *out);

/* Engine steps for serving over time (engine/sim/serve.c). A stepper
 * holds what one evaluation of the setup derives once; it is allocated
 * (infer_stepper_new, NULL when out of memory) and freed by the caller. */
struct infer_stepper;
struct infer_stepper *infer_stepper_new(const struct setup *s, const struct resolved *r);
void infer_stepper_free(struct infer_stepper *st);
/* One engine step of continuous batching: decode_seqs sequences generate a
 * token each over decode_context cached tokens in all; prefill_tokens
 * prompt tokens of chunks whose attention covers prefill_pairs query-key
 * pairs; rows sampled by the output layer. Its time in seconds. */
struct serve_step {
    double decode_seqs, decode_context;
    double prefill_tokens, prefill_pairs;
    double rows;
};
double infer_stepper_time(const struct infer_stepper *st, const struct serve_step *step);
/* The KV pool of one replica serving up to `batch` sequences: tokens it
 * holds (whole blocks) and the tokens one full-length sequence takes. */
struct infer_room {
    double tokens, seq_tokens;
};
void infer_stepper_room(const struct infer_stepper *st, int batch, struct infer_room *room);

/* Every member of struct infer_report described once (infer_fields.c). */
extern const struct report_field infer_report_fields[];
extern const size_t infer_report_field_count;
/* Zeroes non-finite numbers (turns -0 into 0); the first bad key or NULL. */
const char *infer_sanitize(struct infer_report *o);

#endif
