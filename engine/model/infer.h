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
#include <stdint.h>

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

/* Serving over time: one replica plays out request by request (Poisson
 * arrivals at inference.arrival_rate over the whole deployment, continuous
 * batching, chunked prefill); latencies as percentiles and the share of
 * requests within both inference.ttft_slo_s and inference.tpot_slo_s. */
struct serve_report {
    bool ran; /* false: the deployment cannot serve (why_not) */
    char why_not[256];
    double duration_s; /* simulated time */
    double arrival_rate;
    double arrived, completed, turned_away; /* whole deployment */
    double steps;                           /* engine steps of one replica */
    double output_tokens_per_s;
    double requests_per_s;
    double ttft_p50_s, ttft_p99_s;
    double tpot_p50_s, tpot_p99_s;
    double latency_p50_s, latency_p99_s;
    double slo_attainment; /* completed requests within both SLOs, share */
    double mean_batch;     /* running sequences per step, mean */
    double mean_queue;     /* waiting requests per step, mean */
    bool overloaded;       /* the queue overflowed or grew without bound */
    bool stopped_early;    /* the step ceiling ended the run before its duration */
};
/* duration_s of simulated time (at most 1 day: longer runs are refused by
 * the callers), `seed` for the arrivals. Allocates its queues and
 * histograms and frees them; false with why_not only when out of memory. */
bool infer_serve(const struct setup *s, const struct resolved *r, double duration_s, uint64_t seed,
                 struct serve_report *out);
extern const struct report_field serve_report_fields[];
extern const size_t serve_report_field_count;
#define SERVE_DURATION_MAX_S 86400.0

/* Every member of struct infer_report described once (infer_fields.c). */
extern const struct report_field infer_report_fields[];
extern const size_t infer_report_field_count;
/* Zeroes non-finite numbers (turns -0 into 0); the first bad key or NULL. */
const char *infer_sanitize(struct infer_report *o);

/* Active parameters per token (routed top_k and shared experts only; all
 * parameters for a dense model). */
double model_params_active(const struct setup *s);

#endif
