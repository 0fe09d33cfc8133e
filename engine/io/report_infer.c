/* report_infer: the readable report of `mlviz infer`; its JSON and CSV
 * forms walk infer_report_fields through report.c's table writers. */
#include <string.h>

#include "report.h"

enum { TEXT_LEN = 4 * 256 + 1 };

static void infer_header(FILE *out, const struct setup *s, const struct resolved *r,
                         const struct infer_report *o)
{
    char text[TEXT_LEN], a[48], b[48];
    format_printable(text, sizeof text, s->name);
    fprintf(out, "%s%s (serving)\n", o->runnable ? "" : "CANNOT SERVE: ", text);
    format_printable(text, sizeof text, r->accel->head.name);
    fprintf(out, "  %d x %s  %d replica%s of TP %d x PP %d", o->devices, text, o->replicas,
            o->replicas == 1 ? "" : "s", o->tp, o->pp);
    if (o->weight_precision[0])
        fprintf(out, "  weights %s  KV cache %s", o->weight_precision, o->kv_precision);
    fputc('\n', out);
    format_si(a, sizeof a, o->params, "");
    format_si(b, sizeof b, o->params_active, "");
    format_printable(text, sizeof text, o->software);
    fprintf(out, "  %s  %s parameters (%s active)  prompt %d, output %d tokens  batch %d", text, a,
            b, s->inference.prompt_tokens, s->inference.output_tokens, o->batch);
    if (o->max_batch > 0)
        fprintf(out, " (fits %d)", o->max_batch);
    fputc('\n', out);
    if (!o->runnable) {
        format_printable(text, sizeof text, o->why_not);
        fprintf(out, "\n  CANNOT SERVE: %s\n", text);
    }
}

/* One pass's parts, each with its share. */
static void infer_pass(FILE *out, const char *title, const struct infer_breakdown *p, double total,
                       int stage, const char *reason)
{
    char a[48], b[48], text[TEXT_LEN];
    format_duration(a, sizeof a, total);
    fprintf(out, "\n%s %s\n", title, a);
    const struct {
        const char *name;
        double v;
    } parts[] = {{"gemm", p->gemm},       {"attention", p->attention}, {"other", p->other},
                 {"kernels", p->kernels}, {"tp_comm", p->tp_comm},     {"pp_p2p", p->pp_p2p},
                 {"host", p->host}};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        double v = output_number(parts[i].v);
        if (v <= 0)
            continue;
        format_duration(a, sizeof a, v);
        format_percent(b, sizeof b, total > 0 ? v / total : 0.0);
        fprintf(out, "  %-10s %10s %6s\n", parts[i].name, a, b);
    }
    format_printable(text, sizeof text, reason);
    if (stage >= 0 && stage < STAGE_COUNT)
        fprintf(out, "  bottleneck: %s - %s\n", stage_table[stage].name, text);
}

static void infer_memory(FILE *out, const struct infer_report *o)
{
    char a[48], b[48], c[48], d[48], e[48], f[48];
    format_fixed(a, sizeof a, o->per_device_gb, 1);
    format_fixed(b, sizeof b, o->capacity_gb, 0);
    fprintf(out, "\nmemory per device: %s GB of %s GB\n", a, b);
    format_fixed(a, sizeof a, o->weights_gb_per_device, 1);
    format_fixed(b, sizeof b, o->kv_cache_gb_per_device, 1);
    format_fixed(c, sizeof c, o->activations_gb_per_device, 1);
    format_fixed(d, sizeof d, o->reserved_gb_per_device, 1);
    fprintf(out, "  weights %s  KV cache %s  workspace %s  reserved %s GB\n", a, b, c, d);
    format_si(e, sizeof e, o->kv_bytes_per_token, "B");
    format_si(f, sizeof f, o->kv_capacity_tokens, "");
    fprintf(out, "  KV cache %s per token; room for %s tokens per replica\n", e, f);
}

void infer_write_text(FILE *out, const struct setup *s, const struct resolved *r,
                      const struct infer_report *o)
{
    char a[48], b[48], c[48], d[48], e[48];
    infer_header(out, s, r, o);
    if (o->runnable) {
        format_duration(a, sizeof a, o->ttft_s);
        format_duration(b, sizeof b, o->tpot_s);
        format_duration(c, sizeof c, o->latency_s);
        format_si(d, sizeof d, o->output_tokens_per_s, "");
        format_usd(e, sizeof e, o->usd_per_mtok);
        fprintf(out, "\nTTFT %s   TPOT %s   latency %s   %s output tokens/s   %s per million\n", a,
                b, c, d, e);
        format_si(a, sizeof a, o->prefill_tokens_per_s, "");
        format_fixed(b, sizeof b, o->decode_crossover_batch, 0);
        if (o->decode_crossover_batch > 0)
            fprintf(out, "  prefill %s tokens/s   decode turns compute-bound at batch %s\n", a, b);
        else
            fprintf(out, "  prefill %s tokens/s   decode stays memory-bound at any batch\n", a);
        infer_pass(out, "prefill of one prompt", &o->prefill, o->ttft_s, o->prefill_bottleneck,
                   o->prefill_reason);
        char title[64];
        snprintf(title, sizeof title, "decode step at batch %d", o->batch);
        infer_pass(out, title, &o->decode, o->tpot_s, o->decode_bottleneck, o->decode_reason);
    }
    infer_memory(out, o);
    if (!o->runnable)
        return;
    format_fixed(a, sizeof a, o->device_w, 0);
    format_fixed(b, sizeof b, o->it_kw, 1);
    format_fixed(c, sizeof c, o->facility_kw, 1);
    fprintf(out, "\npower: device %s W  IT %s kW  facility %s kW\n", a, b, c);
    format_usd(a, sizeof a, o->usd_per_hour);
    format_usd(b, sizeof b, o->usd_per_mtok);
    format_fixed(c, sizeof c, o->joules_per_token, 2);
    fprintf(out, "cost: %s/h  %s per million output tokens  %s J per token\n", a, b, c);
}

void serve_write_text(FILE *out, const struct setup *s, const struct serve_report *o)
{
    char a[48], b[48], c[48], d[48], text[TEXT_LEN];
    format_printable(text, sizeof text, s->name);
    format_duration(a, sizeof a, o->duration_s);
    format_fixed(b, sizeof b, o->arrival_rate, 2);
    fprintf(out, "%s%s: serving %s at %s requests/s (Poisson)\n",
            o->ran ? "" : "CANNOT SERVE: ", text, a, b);
    if (!o->ran) {
        format_printable(text, sizeof text, o->why_not);
        fprintf(out, "  %s\n", text);
        return;
    }
    format_si(a, sizeof a, o->completed, "");
    format_si(b, sizeof b, o->arrived, "");
    format_si(c, sizeof c, o->output_tokens_per_s, "");
    format_percent(d, sizeof d, o->slo_attainment);
    fprintf(out, "  %s of %s requests completed  %s output tokens/s  %s within the objectives\n", a,
            b, c, d);
    const struct {
        const char *name;
        double p50, p99;
    } rows[] = {{"TTFT", o->ttft_p50_s, o->ttft_p99_s},
                {"TPOT", o->tpot_p50_s, o->tpot_p99_s},
                {"latency", o->latency_p50_s, o->latency_p99_s}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        format_duration(a, sizeof a, rows[i].p50);
        format_duration(b, sizeof b, rows[i].p99);
        fprintf(out, "  %-8s p50 %9s   p99 %9s\n", rows[i].name, a, b);
    }
    format_fixed(a, sizeof a, o->mean_batch, 1);
    format_fixed(b, sizeof b, o->mean_queue, 1);
    fprintf(out, "  batch %s running, %s waiting on average%s%s\n", a, b,
            o->overloaded ? "; OVERLOADED: the queue keeps growing" : "",
            o->stopped_early ? "; stopped at the step ceiling" : "");
}
