/* serve: serving over time (serve.h). One replica of the
 * deployment plays out request by request: Poisson arrivals, continuous
 * batching (a sequence joins the running batch as soon as the KV cache has
 * room for its full length, and leaves when its last token is out),
 * chunked prefill (each step carries every running decode and at most
 * prefill_chunk_tokens tokens in all, prompts first come first served),
 * and each step timed by the closed form's pieces (infer_stepper_time). The
 * replicas are alike and each gets an equal Poisson share of the traffic,
 * so one stands for all. Percentiles come from log-spaced histograms
 * (0.6% wide bins). Formulas: docs/MODEL.md, section 13. */
#include "serve.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

static double maxd(double a, double b)
{
    return a > b ? a : b;
}
static double mind(double a, double b)
{
    return a < b ? a : b;
}
/* a / b, 0 when b is 0. */
static double ratio(double a, double b)
{
    return b != 0 ? a / b : 0.0;
}

enum {
    HIST_BINS = 4000,      /* 1e-5 s .. 1e5 s */
    QUEUE_MAX = 1 << 18,   /* waiting requests; more are turned away */
    RUNNING_MAX = 1 << 20, /* concurrent sequences of one replica */
    STEPS_MAX = 100000000, /* a run stops here whatever its duration */
};
#define HIST_LO_S    1e-5
#define HIST_DECADES 10.0

struct hist {
    double n;
    double bins[HIST_BINS];
};

static void hist_add(struct hist *h, double x)
{
    double pos = (log10(maxd(x, HIST_LO_S)) - log10(HIST_LO_S)) / HIST_DECADES * HIST_BINS;
    int i = pos < 0 ? 0 : pos >= HIST_BINS ? HIST_BINS - 1 : (int)pos;
    h->bins[i] += 1.0;
    h->n += 1.0;
}

/* The q-quantile (0..1): the upper edge of the bin where it falls. */
static double hist_quantile(const struct hist *h, double q)
{
    if (!(h->n > 0))
        return 0.0;
    double want = q * h->n, seen = 0.0;
    for (int i = 0; i < HIST_BINS; i++) {
        seen += h->bins[i];
        if (seen >= want)
            return HIST_LO_S * pow(10.0, (i + 1.0) * HIST_DECADES / HIST_BINS);
    }
    return HIST_LO_S * pow(10.0, HIST_DECADES);
}

struct seq {
    double arrival, first_token;
    int prefilled, generated;
};

struct replica {
    const struct infer_stepper *stepper;
    int chunk_tokens; /* the engine's token budget per step */
    const struct setup *s;
    double t, next_arrival, rate;
    uint64_t rng[4];
    double *queue; /* arrival times, a ring */
    long q_head, q_len;
    struct seq *run;
    long n_run, run_cap;
    double kv_free, seq_tokens;
    struct hist *ttft, *tpot, *latency;
    struct serve_report *out;
    double batch_sum, queue_sum;
};

/* Moves every request that has arrived by time t into the queue. */
static void arrive(struct replica *x)
{
    while (x->next_arrival <= x->t) {
        x->out->arrived += 1.0;
        if (x->q_len < QUEUE_MAX) {
            x->queue[(x->q_head + x->q_len) % QUEUE_MAX] = x->next_arrival;
            x->q_len++;
        } else {
            x->out->turned_away += 1.0;
            x->out->overloaded = true;
        }
        x->next_arrival += rng_exp(x->rng, x->rate);
    }
}

/* First come, first served into the running batch while a whole sequence's
 * blocks are free and the batch has room (the engine's cap, or a fixed
 * batch). */
static void admit(struct replica *x)
{
    while (x->q_len > 0 && x->n_run < x->run_cap && x->kv_free >= x->seq_tokens) {
        struct seq *q = &x->run[x->n_run++];
        q->arrival = x->queue[x->q_head];
        q->first_token = 0.0;
        q->prefilled = 0;
        q->generated = 0;
        x->q_head = (x->q_head + 1) % QUEUE_MAX;
        x->q_len--;
        x->kv_free -= x->seq_tokens;
    }
}

/* The step's work: every decoding sequence, then prompt chunks in order
 * within the token budget. Writes each sequence's prefill share into
 * `chunk` (0 for decoders). */
static void plan_step(struct replica *x, int *chunk, struct serve_step *st)
{
    const struct setup *s = x->s;
    int prompt = s->inference.prompt_tokens;
    memset(st, 0, sizeof *st);
    double budget = x->chunk_tokens;
    for (long i = 0; i < x->n_run; i++) {
        if (x->run[i].prefilled == prompt) {
            st->decode_seqs += 1.0;
            st->decode_context += prompt + x->run[i].generated;
        }
    }
    budget -= st->decode_seqs;
    for (long i = 0; i < x->n_run; i++) {
        struct seq *q = &x->run[i];
        chunk[i] = 0;
        if (q->prefilled == prompt || budget < 1.0)
            continue;
        double k = mind(budget, prompt - q->prefilled);
        chunk[i] = (int)k;
        budget -= k;
        st->prefill_tokens += k;
        st->prefill_pairs += k * q->prefilled + k * (k + 1.0) / 2.0;
        if (q->prefilled + chunk[i] == prompt)
            st->rows += 1.0;
    }
    st->rows += st->decode_seqs;
}

static void finish(struct replica *x, const struct seq *q)
{
    const struct setup *s = x->s;
    double ttft = q->first_token - q->arrival;
    double tpot = s->inference.output_tokens > 1
                      ? (x->t - q->first_token) / (s->inference.output_tokens - 1.0)
                      : 0.0;
    hist_add(x->ttft, ttft);
    hist_add(x->tpot, tpot);
    hist_add(x->latency, x->t - q->arrival);
    x->out->completed += 1.0;
    if (ttft <= s->inference.ttft_slo_s && tpot <= s->inference.tpot_slo_s)
        x->out->slo_attainment += 1.0;
}

/* After a step of `chunk` shares ending at x->t: prompts advance, first
 * tokens come out, decoders add a token, finished sequences leave. */
static void complete_step(struct replica *x, const int *chunk)
{
    const struct setup *s = x->s;
    int prompt = s->inference.prompt_tokens, out = s->inference.output_tokens;
    long kept = 0;
    for (long i = 0; i < x->n_run; i++) {
        struct seq q = x->run[i];
        if (q.prefilled == prompt) {
            q.generated++;
        } else if (chunk[i] > 0) {
            q.prefilled += chunk[i];
            if (q.prefilled == prompt) {
                q.first_token = x->t;
                q.generated = 1;
            }
        }
        if (q.generated >= out) {
            finish(x, &q);
            x->kv_free += x->seq_tokens;
        } else {
            x->run[kept++] = q;
        }
    }
    x->n_run = kept;
}

static void run_replica(struct replica *x, double duration_s, int *chunk)
{
    struct serve_step st;
    while (x->t < duration_s && x->out->steps < STEPS_MAX) {
        arrive(x);
        admit(x);
        if (x->n_run == 0) {
            x->t = x->next_arrival; /* idle until the next request */
            continue;
        }
        plan_step(x, chunk, &st);
        double dt = infer_stepper_time(x->stepper, &st);
        x->t += maxd(dt, 1e-9);
        x->out->steps += 1.0;
        x->batch_sum += x->n_run;
        x->queue_sum += x->q_len;
        complete_step(x, chunk);
    }
    x->out->stopped_early = x->t < duration_s;
}

static void summarize(struct replica *x, double replicas, double elapsed)
{
    struct serve_report *o = x->out;
    int out = x->s->inference.output_tokens;
    double per_replica_done = o->completed;
    o->slo_attainment = ratio(o->slo_attainment, per_replica_done);
    o->ttft_p50_s = hist_quantile(x->ttft, 0.50);
    o->ttft_p99_s = hist_quantile(x->ttft, 0.99);
    o->tpot_p50_s = hist_quantile(x->tpot, 0.50);
    o->tpot_p99_s = hist_quantile(x->tpot, 0.99);
    o->latency_p50_s = hist_quantile(x->latency, 0.50);
    o->latency_p99_s = hist_quantile(x->latency, 0.99);
    o->mean_batch = ratio(x->batch_sum, o->steps);
    o->mean_queue = ratio(x->queue_sum, o->steps);
    /* A queue that still holds more than a second of arrivals at the end
     * was growing: more traffic than the replica serves. */
    if (x->q_len > maxd(1.0, x->rate))
        o->overloaded = true;
    o->requests_per_s = ratio(per_replica_done * replicas, elapsed);
    o->output_tokens_per_s = o->requests_per_s * out;
    o->arrived *= replicas;
    o->completed *= replicas;
    o->turned_away *= replicas;
}

bool infer_serve(const struct setup *s, const struct resolved *r, double duration_s, uint64_t seed,
                 struct serve_report *out)
{
    memset(out, 0, sizeof *out);
    struct infer_report closed;
    infer_eval(s, r, &closed);
    out->duration_s = mind(maxd(duration_s, 0.0), SERVE_DURATION_MAX_S);
    out->arrival_rate =
        s->inference.arrival_rate > 0 ? s->inference.arrival_rate : 0.8 * closed.requests_per_s;
    if (!closed.runnable) {
        snprintf(out->why_not, sizeof out->why_not, "%s", closed.why_not);
        return true;
    }
    struct replica x = {.s = s, .out = out, .chunk_tokens = r->serving->prefill_chunk_tokens};
    struct infer_room room;
    x.stepper = infer_stepper_new(s, r);
    if (x.stepper) {
        infer_stepper_room(x.stepper, closed.batch, &room);
        x.kv_free = room.tokens;
        x.seq_tokens = room.seq_tokens;
    }
    x.rate = out->arrival_rate / maxd(1.0, closed.replicas);
    x.run_cap = closed.batch < RUNNING_MAX ? closed.batch : RUNNING_MAX;
    x.queue = malloc(sizeof *x.queue * QUEUE_MAX);
    x.run = malloc(sizeof *x.run * (size_t)x.run_cap);
    int *chunk = malloc(sizeof *chunk * (size_t)x.run_cap);
    x.ttft = calloc(3, sizeof *x.ttft);
    bool ok = x.stepper && x.queue && x.run && chunk && x.ttft && x.rate > 0;
    if (ok) {
        x.tpot = x.ttft + 1;
        x.latency = x.ttft + 2;
        rng_seed(x.rng, seed);
        x.next_arrival = rng_exp(x.rng, x.rate);
        run_replica(&x, out->duration_s, chunk);
        summarize(&x, maxd(1.0, closed.replicas), mind(x.t, out->duration_s));
        out->ran = true;
    } else {
        snprintf(out->why_not, sizeof out->why_not, "%s",
                 x.rate > 0 ? "out of memory for the serving run" : "no traffic to serve");
    }
    infer_stepper_free((struct infer_stepper *)x.stepper);
    free(x.queue);
    free(x.run);
    free(chunk);
    free(x.ttft);
    return ok || !(x.rate > 0);
}
