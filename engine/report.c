/* report: one walk over a model report, and the writers built on it. */
#include "report.h"

#include <math.h>
#include <string.h>

const char *const output_format_names[] = {"text", "csv", "json", NULL};

bool output_format_parse(const char *text, int *out)
{
    for (int i = 0; output_format_names[i]; i++) {
        if (strcmp(text, output_format_names[i]) == 0) {
            *out = i;
            return true;
        }
    }
    return false;
}

void report_visit(const struct setup *s, const struct resolved *r, const struct model_report *o,
                  const struct report_visitor *v)
{
    void *c = v->ctx;
    v->str(c, "name", s->name);
    v->boolean(c, "runnable", o->runnable);
    v->str(c, "why_not", o->why_not);
    v->num(c, "step_time_s", o->step_time_s);
    v->num(c, "device_step_s", o->device_step_s);
    v->num(c, "tokens_per_s", o->tokens_per_s);
    v->num(c, "samples_per_s", o->samples_per_s);
    v->num(c, "tflops_per_device", o->tflops_per_device);
    v->num(c, "mfu", o->mfu);
    v->num(c, "hfu", o->hfu);
    v->num(c, "peak_tflops", o->peak_tflops);
    v->num(c, "achieved_fraction", o->achieved_fraction);
    v->num(c, "starvation", o->starvation);
    v->num(c, "params", o->params);
    v->num(c, "flops_per_step", o->flops_per_step);
    v->num(c, "model_flops_per_step", o->model_flops_per_step);
    v->str(c, "bottleneck", stage_names[o->bottleneck]);
    v->str(c, "bottleneck_reason", o->bottleneck_reason);
    v->str(c, "next_bottleneck", o->next_bottleneck >= 0 ? stage_names[o->next_bottleneck] : "");
    v->str(c, "next_reason", o->next_reason);

    v->begin(c, "layout");
    v->str(c, "accelerator", r->accel->head.id);
    v->num(c, "devices", o->devices);
    v->num(c, "nodes", o->nodes);
    v->num(c, "racks", o->racks);
    v->num(c, "data_parallel", o->dp);
    v->num(c, "tensor_parallel", o->tp);
    v->num(c, "pipeline_parallel", o->pp);
    v->num(c, "context_parallel", o->cp);
    v->num(c, "expert_parallel", o->ep);
    v->num(c, "virtual_stages", s->training.virtual_stages);
    v->num(c, "micro_batches", o->micro_batches);
    v->num(c, "zero_stage", s->training.zero_stage);
    v->str(c, "recompute", recompute_names[s->training.recompute]);
    v->str(c, "precision", train_precision_names[s->training.precision]);
    v->str(c, "software", r->software->head.id);
    v->end(c);

    v->begin(c, "breakdown_s");
    for (int i = 0; i < BREAKDOWN_COUNT; i++)
        v->num(c, breakdown_names[i], breakdown_get(&o->breakdown, i));
    v->end(c);

    v->begin(c, "utilization");
    for (int i = 0; i < STAGE_COUNT; i++)
        v->num(c, stage_names[i], o->utilization[i]);
    v->end(c);

    const struct stage_times *st = &o->stages;
    v->begin(c, "stages");
    v->num(c, "read_s", st->read_s);
    v->num(c, "preprocess_s", st->preprocess_s);
    v->num(c, "host_to_device_s", st->h2d_s);
    v->num(c, "device_s", st->device_s);
    v->num(c, "forward_s", st->forward_s);
    v->num(c, "backward_s", st->backward_s);
    v->num(c, "dp_comm_s", st->dp_comm_s);
    v->num(c, "tp_comm_s", st->tp_comm_s);
    v->num(c, "storage_bw_gbs", st->storage_bw_gbs);
    v->num(c, "need_bw_gbs", st->need_bw_gbs);
    v->num(c, "cpu_cores_busy", st->cpu_cores_busy);
    v->num(c, "cpu_cores_total", st->cpu_cores_total);
    v->end(c);

    const struct memory_report *m = &o->memory;
    v->begin(c, "memory");
    v->num(c, "per_device_gb", m->per_device_gb);
    v->num(c, "params_gb", m->params_gb);
    v->num(c, "grads_gb", m->grads_gb);
    v->num(c, "optimizer_gb", m->optimizer_gb);
    v->num(c, "activations_gb", m->activations_gb);
    v->num(c, "logits_gb", m->logits_gb);
    v->num(c, "reserved_gb", m->reserved_gb);
    v->num(c, "experts_gb", m->experts_gb);
    v->num(c, "capacity_gb", m->capacity_gb);
    v->boolean(c, "fits", m->fits);
    v->end(c);

    v->begin_list(c, "suggestions");
    for (int i = 0; i < o->n_suggestions; i++) {
        const struct suggestion *g = &o->suggestions[i];
        v->begin(c, NULL);
        v->str(c, "text", g->text);
        v->str(c, "changes", g->changes);
        v->num(c, "saves_gb", g->saves_gb);
        v->num(c, "per_device_gb", g->per_device_gb);
        v->boolean(c, "fits", g->fits);
        v->end(c);
    }
    v->end_list(c);

    const struct power_report *p = &o->power;
    v->begin(c, "power");
    v->num(c, "device_w", p->device_w);
    v->num(c, "node_w", p->node_w);
    v->num(c, "it_kw", p->it_kw);
    v->num(c, "facility_kw", p->facility_kw);
    v->num(c, "pue", p->pue);
    v->num(c, "per_rack_kw", p->per_rack_kw);
    v->num(c, "rack_cooling_limit_kw", p->rack_cooling_limit_kw);
    v->num(c, "cooling_headroom", p->cooling_headroom);
    v->boolean(c, "throttled", p->throttled);
    v->num(c, "throttle_factor", p->throttle_factor);
    v->num(c, "rack_temp_c", p->rack_temp_c);
    v->num(c, "energy_per_step_j", p->energy_per_step_j);
    v->num(c, "energy_per_token_j", p->energy_per_token_j);
    v->end(c);

    const struct cost_report *k = &o->cost;
    v->begin(c, "cost");
    v->num(c, "usd_per_hour", k->usd_per_hour);
    v->num(c, "days_to_train", k->days_to_train);
    v->num(c, "energy_mwh", k->energy_mwh);
    v->num(c, "usd_total", k->usd_total);
    v->num(c, "usd_energy", k->usd_energy);
    v->num(c, "usd_devices", k->usd_devices);
    v->end(c);

    const struct reliability_report *y = &o->reliability;
    v->begin(c, "reliability");
    v->num(c, "interruptions_per_day", y->interruptions_per_day);
    v->num(c, "mtbf_h", y->mtbf_h);
    v->num(c, "checkpoint_gb", y->checkpoint_gb);
    v->num(c, "checkpoint_write_s", y->checkpoint_write_s);
    v->num(c, "checkpoint_interval_min", y->checkpoint_interval_min);
    v->num(c, "lost_fraction", y->lost_fraction);
    v->num(c, "goodput", y->goodput);
    v->end(c);

    v->begin(c, "checks");
    v->boolean(c, "host_ram_ok", o->host_ram_ok);
    v->boolean(c, "pcie_lanes_ok", o->pcie_lanes_ok);
    v->num(c, "pcie_lanes_needed", o->pcie_lanes_needed);
    v->num(c, "pcie_lanes_have", o->pcie_lanes_have);
    v->boolean(c, "rack_power_ok", !p->throttled);
    v->end(c);
}

/* ---- JSON ---------------------------------------------------------------- */

void json_write_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"':
            fputs("\\\"", out);
            break;
        case '\\':
            fputs("\\\\", out);
            break;
        case '\n':
            fputs("\\n", out);
            break;
        case '\t':
            fputs("\\t", out);
            break;
        case '\r':
            fputs("\\r", out);
            break;
        default:
            if (*p < 0x20)
                fprintf(out, "\\u%04x", *p);
            else
                fputc(*p, out);
        }
    }
    fputc('"', out);
}

static void json_sep(struct json_writer *w, const char *key)
{
    if (w->need_comma[w->depth])
        fputc(',', w->out);
    w->need_comma[w->depth] = true;
    if (w->pretty)
        fprintf(w->out, "\n%*s", 2 * w->depth, "");
    if (key) {
        json_write_string(w->out, key);
        fputs(w->pretty ? ": " : ":", w->out);
    }
}

void json_open(struct json_writer *w, const char *key, bool list)
{
    json_sep(w, key);
    fputc(list ? '[' : '{', w->out);
    if (w->depth < 63)
        w->depth++;
    w->need_comma[w->depth] = false;
}

void json_close(struct json_writer *w, bool list)
{
    bool had = w->need_comma[w->depth];
    if (w->depth > 0)
        w->depth--;
    if (w->pretty && had)
        fprintf(w->out, "\n%*s", 2 * w->depth, "");
    fputc(list ? ']' : '}', w->out);
}

void json_key_num(struct json_writer *w, const char *key, double v)
{
    json_sep(w, key);
    if (!isfinite(v))
        fputs("null", w->out);
    else if (v == floor(v) && fabs(v) < 1e15)
        fprintf(w->out, "%.0f", v);
    else
        fprintf(w->out, "%.10g", v);
}

void json_key_str(struct json_writer *w, const char *key, const char *s)
{
    json_sep(w, key);
    json_write_string(w->out, s ? s : "");
}

void json_key_bool(struct json_writer *w, const char *key, bool b)
{
    json_sep(w, key);
    fputs(b ? "true" : "false", w->out);
}

static void jv_begin(void *c, const char *key)
{
    json_open(c, key, false);
}
static void jv_end(void *c)
{
    json_close(c, false);
}
static void jv_begin_list(void *c, const char *key)
{
    json_open(c, key, true);
}
static void jv_end_list(void *c)
{
    json_close(c, true);
}
static void jv_num(void *c, const char *key, double v)
{
    json_key_num(c, key, v);
}
static void jv_str(void *c, const char *key, const char *s)
{
    json_key_str(c, key, s);
}
static void jv_bool(void *c, const char *key, bool b)
{
    json_key_bool(c, key, b);
}

void json_visitor(struct json_writer *w, struct report_visitor *v)
{
    v->ctx = w;
    v->begin = jv_begin;
    v->end = jv_end;
    v->begin_list = jv_begin_list;
    v->end_list = jv_end_list;
    v->num = jv_num;
    v->str = jv_str;
    v->boolean = jv_bool;
}

void json_begin(struct json_writer *w, FILE *out, bool pretty)
{
    memset(w, 0, sizeof *w);
    w->out = out;
    w->pretty = pretty;
    fputc('{', out);
    w->depth = 1;
}

void json_finish(struct json_writer *w)
{
    while (w->depth > 0)
        json_close(w, false);
    fputc('\n', w->out);
}

void report_write_json(FILE *out, const struct setup *s, const struct resolved *r,
                       const struct model_report *o)
{
    struct json_writer w;
    struct report_visitor v;
    json_begin(&w, out, true);
    json_visitor(&w, &v);
    report_visit(s, r, o, &v);
    json_finish(&w);
}

/* ---- CSV: flattened keys, lists left out ------------------------------------- */

struct csv_ctx {
    FILE *out;
    bool header;
    bool first;
    int in_list;
    char prefix[128];
};

static void csv_field(struct csv_ctx *x, const char *key, const char *value)
{
    if (x->in_list)
        return;
    if (!x->first)
        fputc(',', x->out);
    x->first = false;
    if (x->header) {
        fprintf(x->out, "%s%s%s", x->prefix, x->prefix[0] ? "." : "", key);
        return;
    }
    bool quote = strpbrk(value, ",\"\n") != NULL;
    if (!quote) {
        fputs(value, x->out);
        return;
    }
    fputc('"', x->out);
    for (const char *p = value; *p; p++) {
        if (*p == '"')
            fputc('"', x->out);
        fputc(*p, x->out);
    }
    fputc('"', x->out);
}

static void cv_begin(void *c, const char *key)
{
    struct csv_ctx *x = c;
    if (x->in_list || !key)
        return;
    size_t n = strlen(x->prefix);
    snprintf(x->prefix + n, sizeof x->prefix - n, "%s%s", n ? "." : "", key);
}
static void cv_end(void *c)
{
    struct csv_ctx *x = c;
    if (x->in_list)
        return;
    char *dot = strrchr(x->prefix, '.');
    if (dot)
        *dot = '\0';
    else
        x->prefix[0] = '\0';
}
static void cv_begin_list(void *c, const char *key)
{
    (void)key;
    ((struct csv_ctx *)c)->in_list++;
}
static void cv_end_list(void *c)
{
    ((struct csv_ctx *)c)->in_list--;
}
static void cv_num(void *c, const char *key, double v)
{
    char buf[64];
    if (isfinite(v))
        snprintf(buf, sizeof buf, "%.10g", v);
    else
        buf[0] = '\0';
    csv_field(c, key, buf);
}
static void cv_str(void *c, const char *key, const char *s)
{
    csv_field(c, key, s ? s : "");
}
static void cv_bool(void *c, const char *key, bool b)
{
    csv_field(c, key, b ? "true" : "false");
}

void report_write_csv(FILE *out, const struct setup *s, const struct resolved *r,
                      const struct model_report *o, bool header)
{
    struct csv_ctx x = {.out = out, .first = true};
    struct report_visitor v = {&x, cv_begin, cv_end, cv_begin_list, cv_end_list,
                               cv_num, cv_str,   cv_bool};
    if (header) {
        x.header = true;
        report_visit(s, r, o, &v);
        fputc('\n', out);
        x.header = false;
        x.first = true;
    }
    report_visit(s, r, o, &v);
    fputc('\n', out);
}

/* ---- text ------------------------------------------------------------------------ */

void format_si(char *buf, size_t len, double v, const char *unit)
{
    static const char *const prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
    int i = 0;
    double a = fabs(v);
    while (a >= 1000.0 && i < 6) {
        a /= 1000.0;
        v /= 1000.0;
        i++;
    }
    if (!isfinite(v))
        snprintf(buf, len, "-");
    else if (a >= 100 || a == 0)
        snprintf(buf, len, "%.0f %s%s", v, prefixes[i], unit);
    else if (a >= 10)
        snprintf(buf, len, "%.1f %s%s", v, prefixes[i], unit);
    else
        snprintf(buf, len, "%.2f %s%s", v, prefixes[i], unit);
}

void format_duration(char *buf, size_t len, double t)
{
    if (!isfinite(t) || t < 0)
        snprintf(buf, len, "-");
    else if (t < 1e-3)
        snprintf(buf, len, "%.0f us", t * 1e6);
    else if (t < 1.0)
        snprintf(buf, len, "%.1f ms", t * 1e3);
    else if (t < 120.0)
        snprintf(buf, len, "%.2f s", t);
    else if (t < 7200.0)
        snprintf(buf, len, "%.0f min", t / 60.0);
    else if (t < 2 * 86400.0)
        snprintf(buf, len, "%.1f h", t / 3600.0);
    else
        snprintf(buf, len, "%.1f d", t / 86400.0);
}

/* Letters of the breakdown bar, one per part, in breakdown order. */
static const char breakdown_letters[] = "RPHCrTXEBpDOSo"; /* one per breakdown part */

static void breakdown_bar(FILE *out, const struct model_report *o, int width)
{
    double total = o->step_time_s > 0 ? o->step_time_s : 1.0;
    int used = 0;
    fputc('[', out);
    for (int i = 0; i < BREAKDOWN_COUNT; i++) {
        double share = breakdown_get(&o->breakdown, i) / total;
        int n = (int)lround(share * width);
        if (used + n > width)
            n = width - used;
        for (int j = 0; j < n; j++)
            fputc(breakdown_letters[i], out);
        used += n;
    }
    for (; used < width; used++)
        fputc('.', out);
    fputs("]\n", out);
}

int report_write_checks(FILE *out, const struct setup *s, const struct resolved *r,
                        const struct model_report *o)
{
    int warnings = 0;
    double dev_mem = r->accel->mem_gb * s->cluster.node.accelerators_per_node;
    fprintf(out, "  %-5s host RAM %.0f GB per node %s device memory %.0f GB per node%s\n",
            o->host_ram_ok ? "ok" : "WARN", s->cluster.node.host_ram_gb,
            o->host_ram_ok ? ">=" : "<", dev_mem,
            o->host_ram_ok ? "" : " (host RAM should be at least the devices' memory)");
    warnings += !o->host_ram_ok;
    fprintf(out, "  %-5s PCIe lanes %.0f available, %.0f needed (x16 per device and NIC, or per PCIe switch)%s\n",
            o->pcie_lanes_ok ? "ok" : "WARN", o->pcie_lanes_have, o->pcie_lanes_needed,
            o->pcie_lanes_ok ? "" : ": devices share lanes, host copies slow down");
    warnings += !o->pcie_lanes_ok;
    bool rack_ok = !o->power.throttled;
    fprintf(out, "  %-5s rack power %.1f kW %s %s limit %.0f kW%s\n", rack_ok ? "ok" : "WARN",
            o->power.throttled ? o->power.per_rack_kw / 1.0 : o->power.per_rack_kw,
            rack_ok ? "within" : "over", r->cooling->head.id, o->power.rack_cooling_limit_kw,
            rack_ok ? "" : ": devices throttle");
    warnings += !rack_ok;
    fprintf(out, "  %-5s memory %.1f GB per device of %.0f GB\n", o->memory.fits ? "ok" : "WARN",
            o->memory.per_device_gb, o->memory.capacity_gb);
    warnings += !o->memory.fits;
    return warnings;
}

void report_write_text(FILE *out, const struct setup *s, const struct resolved *r,
                       const struct model_report *o)
{
    char a[32], b[32], c[32];
    fprintf(out, "%s\n", s->name);
    fprintf(out, "  %d x %s (%d nodes, %d racks)  TP %d  CP %d  PP %d  VP %d  EP %d  DP %d  "
                 "micro-batches %d\n",
            o->devices, r->accel->head.name, o->nodes, o->racks, o->tp, o->cp, o->pp,
            s->training.virtual_stages, o->ep, o->dp, o->micro_batches);
    fprintf(out, "  ZeRO %d  recompute %s  %s  %s\n", s->training.zero_stage,
            recompute_names[s->training.recompute], train_precision_names[s->training.precision],
            r->software->head.id);
    if (!o->runnable)
        fprintf(out, "\n  CANNOT RUN: %s\n  (the figures below are what it would do if it could)\n",
                o->why_not);
    format_duration(a, sizeof a, o->step_time_s);
    format_si(b, sizeof b, o->tokens_per_s, "");
    fprintf(out, "\nstep %s   %s tokens/s   %.0f TFLOP/s per device   MFU %.1f%%   HFU %.1f%%\n",
            a, b, o->tflops_per_device, 100 * o->mfu, 100 * o->hfu);
    fputs("  ", out);
    breakdown_bar(out, o, 60);
    for (int i = 0; i < BREAKDOWN_COUNT; i++) {
        double v = breakdown_get(&o->breakdown, i);
        if (v <= 0)
            continue;
        format_duration(a, sizeof a, v);
        fprintf(out, "  %c %-16s %10s %5.1f%%\n", breakdown_letters[i], breakdown_names[i], a,
                100 * v / o->step_time_s);
    }
    fprintf(out, "\nbottleneck: %s - %s\n", stage_titles[o->bottleneck], o->bottleneck_reason);
    if (o->next_bottleneck >= 0)
        fprintf(out, "next:       %s - %s\n", stage_titles[o->next_bottleneck], o->next_reason);

    const struct memory_report *m = &o->memory;
    fprintf(out, "\nmemory per device: %.1f GB of %.0f GB %s\n", m->per_device_gb,
            m->capacity_gb, m->fits ? "(fits)" : "(DOES NOT FIT)");
    fprintf(out, "  weights %.1f  grads %.1f  optimizer %.1f  activations %.1f  logits %.1f  "
                 "reserved %.1f GB\n",
            m->params_gb, m->grads_gb, m->optimizer_gb, m->activations_gb, m->logits_gb,
            m->reserved_gb);
    if (m->experts_gb > 0)
        fprintf(out, "  of which expert weights, grads and optimizer state %.1f GB\n",
                m->experts_gb);
    for (int i = 0; i < o->n_suggestions; i++)
        fprintf(out, "  try: %s -> %.1f GB%s (%s)\n", o->suggestions[i].text,
                o->suggestions[i].per_device_gb, o->suggestions[i].fits ? ", fits" : "",
                o->suggestions[i].changes);

    const struct power_report *p = &o->power;
    fprintf(out, "\npower: device %.0f W  IT %.1f kW  facility %.1f kW (PUE %.2f)\n", p->device_w,
            p->it_kw, p->facility_kw, p->pue);
    fprintf(out, "  rack %.1f kW of %.0f kW (%s)  %.0f C  %s\n", p->per_rack_kw,
            p->rack_cooling_limit_kw, r->cooling->head.id, p->rack_temp_c,
            p->throttled ? "THROTTLED" : "no throttling");
    if (p->throttled)
        fprintf(out, "  clocks kept: %.0f%%\n", 100 * p->throttle_factor);

    const struct cost_report *k = &o->cost;
    format_si(a, sizeof a, k->usd_total, "");
    format_si(b, sizeof b, s->training.tokens, "");
    fprintf(out, "\ncost: $%.0f/h  %.1f days for %s tokens  %.1f MWh  $%s in all\n",
            k->usd_per_hour, k->days_to_train, b, k->energy_mwh, a);
    const struct reliability_report *y = &o->reliability;
    format_duration(c, sizeof c, y->checkpoint_write_s);
    fprintf(out, "reliability: %.2f interruptions/day  checkpoint %.0f GB (%s) every %.0f min  "
                 "goodput %.1f%%\n",
            y->interruptions_per_day, y->checkpoint_gb, c, y->checkpoint_interval_min,
            100 * y->goodput);
}
