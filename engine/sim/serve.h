/* serve: serving over time (`mlviz infer --serve`). One replica of the
 * deployment plays out request by request: Poisson arrivals at
 * inference.arrival_rate over the whole deployment (auto: 80% of what it
 * completes at full batch), continuous batching, chunked prefill, each step
 * timed by the serving model (infer.h). Latencies come out as percentiles
 * with the share of requests within both inference.ttft_slo_s and
 * inference.tpot_slo_s. Formulas: docs/MODEL.md, section 13. */
#ifndef MLVIZ_SERVE_H
#define MLVIZ_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "infer.h"
#include "report_fields.h"

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
    double slo_attainment; /* completed requests within both objectives, share */
    double mean_batch;     /* running sequences per step, mean */
    double mean_queue;     /* waiting requests per step, mean */
    bool overloaded;       /* the queue overflowed or grew without bound */
    bool stopped_early;    /* the step ceiling ended the run before its duration */
};

/* The longest run callers accept. */
#define SERVE_DURATION_MAX_S 86400.0

/* duration_s of simulated time, `seed` for the arrivals. Allocates its
 * queues and histograms and frees them; false with why_not only when out
 * of memory. A deployment that cannot serve returns true with ran false. */
bool infer_serve(const struct setup *s, const struct resolved *r, double duration_s, uint64_t seed,
                 struct serve_report *out);

/* Every member of struct serve_report described once. */
extern const struct report_field serve_report_fields[];
extern const size_t serve_report_field_count;

#endif
