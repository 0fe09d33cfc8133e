/* report: one walk over a model report, and the writers built on it. */
#include "report.h"

#include <math.h>
#include <string.h>

#include "csv.h"
#include "io_internal.h"

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

/* ---- numbers and strings for output ------------------------------------------- */

void format_printable(char *buf, size_t len, const char *text)
{
    if (len == 0)
        return;
    size_t used = 0;
    const unsigned char *p = (const unsigned char *)(text ? text : "");
    while (*p) {
        unsigned long cp;
        int n = io_utf8_next(p, &cp);
        char piece[8];
        size_t k;
        if (n == 0) {
            piece[0] = '?';
            k = 1;
            n = 1;
        } else if (io_is_control(cp)) {
            k = (size_t)snprintf(piece, sizeof piece, "\\x%02lx", cp);
        } else {
            memcpy(piece, p, (size_t)n);
            k = (size_t)n;
        }
        if (used + k >= len)
            break;
        memcpy(buf + used, piece, k);
        used += k;
        p += n;
    }
    buf[used] = '\0';
}

/* ---- the walk ------------------------------------------------------------------ */

static void visit_field(const struct report_field *f, const char *key, const void *base,
                        const struct setup *s, const struct resolved *r,
                        const struct report_visitor *v)
{
    void *c = v->ctx;
    const char *p = (const char *)base + f->offset;
    switch (f->type) {
    case REPORT_NUM:
        v->num(c, key, output_number(report_field_number(f, base)));
        break;
    case REPORT_INT:
        v->num(c, key, report_field_number(f, base));
        break;
    case REPORT_BOOL:
    case REPORT_NOT_BOOL:
        v->boolean(c, key, report_field_number(f, base) != 0.0);
        break;
    case REPORT_TEXT:
        v->str(c, key, p);
        break;
    case REPORT_STAGE: {
        int i = (int)report_field_number(f, base);
        v->str(c, key, i >= 0 && i < STAGE_COUNT ? stage_table[i].name : "");
        break;
    }
    case REPORT_SETUP_NAME:
        v->str(c, key, s->name);
        break;
    case REPORT_ACCELERATOR_ID:
        v->str(c, key, r && r->accel ? r->accel->head.id : "");
        break;
    case REPORT_SUGGESTIONS: {
        const struct model_report *o = base;
        int n = o->n_suggestions < 0                ? 0
                : o->n_suggestions > SUGGESTION_MAX ? SUGGESTION_MAX
                                                    : o->n_suggestions;
        v->begin_list(c, key);
        for (int i = 0; i < n; i++) {
            v->begin(c, NULL);
            for (size_t j = 0; j < report_suggestion_field_count; j++)
                visit_field(&report_suggestion_fields[j], report_suggestion_fields[j].key,
                            &o->suggestions[i], s, r, v);
            v->end(c);
        }
        v->end_list(c);
        break;
    }
    default:
        break;
    }
}

void report_visit_field(const struct report_field *f, const struct setup *s,
                        const struct resolved *r, const struct model_report *o,
                        const struct report_visitor *v)
{
    const char *dot = strchr(f->key, '.');
    visit_field(f, dot ? dot + 1 : f->key, o, s, r, v);
}

void report_visit_table(const struct report_field *rows, size_t n, const void *base,
                        const struct setup *s, const struct resolved *r,
                        const struct report_visitor *v)
{
    char group[32] = ""; /* the object open now, "" at the top level */
    for (size_t i = 0; i < n; i++) {
        const struct report_field *f = &rows[i];
        const char *dot = strchr(f->key, '.');
        size_t glen = dot ? (size_t)(dot - f->key) : 0;
        if (strlen(group) != glen || strncmp(group, f->key, glen) != 0) {
            if (group[0])
                v->end(v->ctx);
            snprintf(group, sizeof group, "%.*s", (int)glen, f->key);
            if (group[0])
                v->begin(v->ctx, group);
        }
        visit_field(f, dot ? dot + 1 : f->key, base, s, r, v);
    }
    if (group[0])
        v->end(v->ctx);
}

void report_visit(const struct setup *s, const struct resolved *r, const struct model_report *o,
                  const struct report_visitor *v)
{
    report_visit_table(report_fields, report_field_count, o, s, r, v);
}

/* ---- JSON: the report through the one JSON writer ---------------------------- */

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

/* ---- a setup that cannot run ---------------------------------------------------- */

/* What only a run makes or costs: for a setup that cannot run these are no
 * numbers at all (JSON null, an empty CSV cell), not 0 tokens/s or $0. */
static const char *const run_only_keys[] = {
    "tokens_per_s",      "samples_per_s",     "tflops_per_device",  "mfu",          "hfu",
    "achieved_fraction", "energy_per_step_j", "energy_per_token_j", "usd_per_hour", "days_to_train",
    "energy_mwh",        "usd_total",         "usd_energy",         "usd_devices"};

struct cannot_run {
    const struct report_visitor *inner;
};

static void cr_begin(void *c, const char *key)
{
    const struct report_visitor *v = ((struct cannot_run *)c)->inner;
    v->begin(v->ctx, key);
}
static void cr_end(void *c)
{
    const struct report_visitor *v = ((struct cannot_run *)c)->inner;
    v->end(v->ctx);
}
static void cr_begin_list(void *c, const char *key)
{
    const struct report_visitor *v = ((struct cannot_run *)c)->inner;
    v->begin_list(v->ctx, key);
}
static void cr_end_list(void *c)
{
    const struct report_visitor *v = ((struct cannot_run *)c)->inner;
    v->end_list(v->ctx);
}
static void cr_num(void *c, const char *key, double x)
{
    const struct report_visitor *v = ((struct cannot_run *)c)->inner;
    for (size_t i = 0; key && i < sizeof run_only_keys / sizeof run_only_keys[0]; i++)
        if (strcmp(key, run_only_keys[i]) == 0)
            x = NAN;
    v->num(v->ctx, key, x);
}
static void cr_str(void *c, const char *key, const char *x)
{
    const struct report_visitor *v = ((struct cannot_run *)c)->inner;
    v->str(v->ctx, key, x);
}
static void cr_bool(void *c, const char *key, bool x)
{
    const struct report_visitor *v = ((struct cannot_run *)c)->inner;
    v->boolean(v->ctx, key, x);
}

/* report_visit_table, with the run-only figures of a model report blanked
 * when the setup cannot run. */
static void visit_output(const struct report_field *rows, size_t n, const void *base,
                         const struct setup *s, const struct resolved *r,
                         const struct report_visitor *v)
{
    struct cannot_run c = {v};
    struct report_visitor blank = {&c,          cr_begin, cr_end, cr_begin_list,
                                   cr_end_list, cr_num,   cr_str, cr_bool};
    bool blanked = rows == report_fields && !((const struct model_report *)base)->runnable;
    report_visit_table(rows, n, base, s, r, blanked ? &blank : v);
}

void report_write_json_table(FILE *out, const struct report_field *rows, size_t n, const void *base,
                             const struct setup *s, const struct resolved *r)
{
    struct json_writer w;
    struct report_visitor v;
    json_begin(&w, out, true);
    json_visitor(&w, &v);
    visit_output(rows, n, base, s, r, &v);
    json_finish(&w);
}

void report_write_json(FILE *out, const struct setup *s, const struct resolved *r,
                       const struct model_report *o)
{
    report_write_json_table(out, report_fields, report_field_count, o, s, r);
}

/* ---- CSV: flattened keys, lists left out ------------------------------------- */

struct csv_ctx {
    struct csv_row row;
    bool header;
    int in_list;
    char prefix[128];
};

static void csv_field(struct csv_ctx *x, const char *key, const char *value)
{
    if (x->in_list)
        return;
    if (x->header) {
        char name[256];
        snprintf(name, sizeof name, "%s%s%s", x->prefix, x->prefix[0] ? "." : "", key);
        csv_row_field(&x->row, name);
    } else {
        csv_row_field(&x->row, value);
    }
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
    char buf[48] = "";
    if (!isnan(v)) /* no figure: an empty cell */
        output_format_number(buf, sizeof buf, v, 10);
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

void report_write_csv_table(FILE *out, const struct report_field *rows, size_t n, const void *base,
                            const struct setup *s, const struct resolved *r, bool header)
{
    struct csv_ctx x = {.header = header};
    struct report_visitor v = {&x,          cv_begin, cv_end, cv_begin_list,
                               cv_end_list, cv_num,   cv_str, cv_bool};
    if (header) {
        csv_row_begin(&x.row, out);
        visit_output(rows, n, base, s, r, &v);
        csv_row_end(&x.row);
        x.header = false;
    }
    csv_row_begin(&x.row, out);
    visit_output(rows, n, base, s, r, &v);
    csv_row_end(&x.row);
}

void report_write_csv(FILE *out, const struct setup *s, const struct resolved *r,
                      const struct model_report *o, bool header)
{
    report_write_csv_table(out, report_fields, report_field_count, o, s, r, header);
}

/* ---- text ------------------------------------------------------------------------ */

/* Letters of the breakdown bar, one per part, in table order. */
static const char breakdown_letters[] = "RPHCrTXEBpDOSo";
static const char breakdown_group[] = "breakdown_s.";

/* The breakdown rows of report_fields[], in order; returns how many. */
static size_t breakdown_fields(const struct report_field **rows, size_t max)
{
    size_t n = 0, glen = strlen(breakdown_group);
    for (size_t i = 0; i < report_field_count && n < max; i++)
        if (strncmp(report_fields[i].key, breakdown_group, glen) == 0)
            rows[n++] = &report_fields[i];
    return n;
}

enum { BREAKDOWN_ROWS_MAX = sizeof breakdown_letters - 1 };

static void breakdown_bar(FILE *out, const struct model_report *o, int width)
{
    const struct report_field *rows[BREAKDOWN_ROWS_MAX];
    size_t n = breakdown_fields(rows, BREAKDOWN_ROWS_MAX);
    double total = o->step_time_s > 0 ? o->step_time_s : 1.0;
    int used = 0;
    fputc('[', out);
    for (size_t i = 0; i < n; i++) {
        double share = output_number(report_field_number(rows[i], o) / total);
        int k = share > 0 ? (int)lround(fmin(share, 1.0) * width) : 0;
        if (used + k > width)
            k = width - used;
        for (int j = 0; j < k; j++)
            fputc(breakdown_letters[i], out);
        used += k;
    }
    for (; used < width; used++)
        fputc('.', out);
    fputs("]\n", out);
}

int report_write_checks(FILE *out, const struct setup *s, const struct resolved *r,
                        const struct model_report *o)
{
    int warnings = 0;
    char a[48], b[48], cool[FIELD_STR_LEN * 4];
    format_printable(cool, sizeof cool, r->cooling->head.id);
    format_fixed(a, sizeof a, s->cluster.node.host_ram_gb, 0);
    format_fixed(b, sizeof b, r->accel->mem_gb * s->cluster.node.accelerators_per_node, 0);
    if (r->accel->kind == ACCEL_CPU)
        fprintf(out, "  %-5s host RAM against device memory: the CPU is the device\n", "skip");
    else
        fprintf(out, "  %-5s host RAM %s GB per node %s device memory %s GB per node%s\n",
                o->host_ram_ok ? "ok" : "WARN", a, o->host_ram_ok ? ">=" : "<", b,
                o->host_ram_ok ? "" : " (host RAM should be at least the devices' memory)");
    warnings += !o->host_ram_ok;
    format_fixed(a, sizeof a, o->pcie_lanes_have, 0);
    format_fixed(b, sizeof b, o->pcie_lanes_needed, 0);
    fprintf(out,
            "  %-5s PCIe lanes %s available, %s needed (x16 per device and NIC, or per PCIe "
            "switch)%s\n",
            o->pcie_lanes_ok ? "ok" : "WARN", a, b,
            o->pcie_lanes_ok ? "" : ": devices share lanes, host copies slow down");
    warnings += !o->pcie_lanes_ok;
    bool rack_ok = !o->power.throttled;
    format_fixed(a, sizeof a, o->power.per_rack_kw, 1);
    format_fixed(b, sizeof b, o->power.rack_cooling_limit_kw, 0);
    fprintf(out, "  %-5s rack power %s kW %s %s limit %s kW%s\n", rack_ok ? "ok" : "WARN", a,
            rack_ok ? "within" : "over", cool, b, rack_ok ? "" : ": devices throttle");
    warnings += !rack_ok;
    format_fixed(a, sizeof a, o->memory.per_device_gb, 1);
    format_fixed(b, sizeof b, o->memory.capacity_gb, o->memory.capacity_gb < 100 ? 1 : 0);
    fprintf(out, "  %-5s memory %s GB per device of %s GB\n", o->memory.fits ? "ok" : "WARN", a, b);
    warnings += !o->memory.fits;
    return warnings;
}

/* Room for a user string with every byte escaped as \xNN. */
enum { PRINTABLE_LEN = 4 * 256 + 1 };

/* A parameter count as model cards write it: "70.6 B", "124 M". */
static void format_params(char *buf, size_t len, double n)
{
    static const struct {
        double scale;
        const char *unit;
    } units[] = {{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "K"}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (n >= units[i].scale) {
            char v[32];
            double x = n / units[i].scale;
            format_fixed(v, sizeof v, x, x >= 100 ? 0 : x >= 10 ? 1 : 2);
            snprintf(buf, len, "%s %s", v, units[i].unit);
            return;
        }
    format_fixed(buf, len, n, 0);
}

/* The setup's name and shape, and why it cannot run. */
static void text_header(FILE *out, const struct setup *s, const struct resolved *r,
                        const struct model_report *o)
{
    char text[PRINTABLE_LEN];
    format_printable(text, sizeof text, s->name);
    /* The first line says so when the setup cannot run, for scripts that
     * read one line (`mlviz eval --strict` exits 3 as well). */
    fprintf(out, "%s%s\n", o->runnable ? "" : "CANNOT RUN: ", text);
    format_printable(text, sizeof text, r->accel->head.name);
    fprintf(out,
            "  %d x %s (%d node%s, %d rack%s)  TP %d  CP %d  PP %d  VP %d  EP %d  DP %d  "
            "micro-batches %d\n",
            o->devices, text, o->nodes, o->nodes == 1 ? "" : "s", o->racks,
            o->racks == 1 ? "" : "s", o->tp, o->cp, o->pp, o->vp, o->ep, o->dp, o->micro_batches);
    format_printable(text, sizeof text, o->software);
    fprintf(out, "  ZeRO %d  recompute %s  %s  %s\n", o->zero_stage, o->recompute, o->precision,
            text);
    char all[48], active[48];
    format_params(all, sizeof all, o->params);
    format_params(active, sizeof active, o->params_active);
    if (s->model.kind == MODEL_TRANSFORMER && s->model.experts > 0)
        fprintf(out, "  params %s, %s active per token (%d of %d experts)\n", all, active,
                s->model.top_k, s->model.experts);
    else
        fprintf(out, "  params %s\n", all);
    if (!o->runnable) {
        format_printable(text, sizeof text, o->why_not);
        fprintf(out,
                "\n  CANNOT RUN: %s\n  (no throughput, MFU, energy or cost: below are the times "
                "one step would take, memory and power)\n",
                text);
    }
}

/* The step: its time, throughput, breakdown and bottleneck. */
static void text_step(FILE *out, const struct setup *s, const struct model_report *o)
{
    char a[48], b[48], c[48], d[48], e[48], text[PRINTABLE_LEN];
    format_duration(a, sizeof a, o->step_time_s);
    /* A generic model has samples, not tokens. */
    bool generic = s->model.kind == MODEL_GENERIC;
    format_si(b, sizeof b, generic ? o->samples_per_s : o->tokens_per_s, "");
    /* A CPU does well under 1 TFLOP/s: digits enough to show it. */
    format_fixed(c, sizeof c, o->tflops_per_device, o->tflops_per_device >= 1 ? 0 : 2);
    format_percent(d, sizeof d, o->mfu);
    format_percent(e, sizeof e, o->hfu);
    if (o->runnable)
        fprintf(out, "\nstep %s   %s %s   %s TFLOP/s per device   MFU %s   HFU %s\n", a, b,
                generic ? "samples/s" : "tokens/s", c, d, e);
    else
        fprintf(out, "\nstep %s if it could run\n", a);
    fputs("  ", out);
    breakdown_bar(out, o, 60);
    const struct report_field *rows[BREAKDOWN_ROWS_MAX];
    size_t n = breakdown_fields(rows, BREAKDOWN_ROWS_MAX);
    for (size_t i = 0; i < n; i++) {
        double v = output_number(report_field_number(rows[i], o));
        if (v <= 0)
            continue;
        format_duration(a, sizeof a, v);
        format_percent(b, sizeof b, o->step_time_s > 0 ? v / o->step_time_s : 0.0);
        fprintf(out, "  %c %-16s %10s %6s\n", breakdown_letters[i],
                rows[i]->key + sizeof breakdown_group - 1, a, b);
    }
    int first = o->bottleneck >= 0 && o->bottleneck < STAGE_COUNT ? o->bottleneck : 0;
    format_printable(text, sizeof text, o->bottleneck_reason);
    fprintf(out, "\nbottleneck: %s - %s\n", stage_table[first].title, text);
    if (o->next_bottleneck >= 0 && o->next_bottleneck < STAGE_COUNT) {
        format_printable(text, sizeof text, o->next_reason);
        fprintf(out, "next:       %s - %s\n", stage_table[o->next_bottleneck].title, text);
    }
}

/* Memory per device, its parts and the suggestions that would make it fit. */
static void text_memory(FILE *out, const struct model_report *o)
{
    char a[48], b[48], text[PRINTABLE_LEN], text2[PRINTABLE_LEN];
    const struct memory_report *m = &o->memory;
    format_fixed(a, sizeof a, m->per_device_gb, 1);
    /* GB (1e9 bytes) with three digits, as on screen: "85.5", not "86". */
    format_fixed(b, sizeof b, m->capacity_gb, m->capacity_gb < 100 ? 1 : 0);
    fprintf(out, "\nmemory per device: %s GB of %s GB %s\n", a, b,
            m->fits ? "(fits)" : "(DOES NOT FIT)");
    const double parts[] = {m->params_gb,      m->grads_gb,  m->optimizer_gb,
                            m->activations_gb, m->logits_gb, m->reserved_gb};
    static const char *const part_names[] = {"weights",     "grads",  "optimizer",
                                             "activations", "logits", "reserved"};
    fputs(" ", out);
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        format_fixed(a, sizeof a, parts[i], 1);
        fprintf(out, " %s%s %s", i ? " " : "", part_names[i], a);
    }
    fputs(" GB\n", out);
    if (m->experts_gb > 0) {
        format_fixed(a, sizeof a, m->experts_gb, 1);
        fprintf(out, "  of which expert weights, grads and optimizer state %s GB\n", a);
    }
    for (int i = 0; i < o->n_suggestions && i < SUGGESTION_MAX; i++) {
        const struct suggestion *g = &o->suggestions[i];
        format_fixed(a, sizeof a, g->per_device_gb, 1);
        format_printable(text, sizeof text, g->text);
        format_printable(text2, sizeof text2, g->changes);
        fprintf(out, "  try: %s -> %s GB%s (%s)\n", text, a, g->fits ? ", fits" : "", text2);
    }
}

/* Power and the rack's cooling. */
static void text_power(FILE *out, const struct resolved *r, const struct model_report *o)
{
    char a[48], b[48], c[48], d[48], text[PRINTABLE_LEN];
    const struct power_report *p = &o->power;
    format_fixed(a, sizeof a, p->device_w, 0);
    format_fixed(b, sizeof b, p->it_kw, 1);
    format_fixed(c, sizeof c, p->facility_kw, 1);
    format_fixed(d, sizeof d, p->pue, 2);
    fprintf(out, "\npower: device %s W  IT %s kW  facility %s kW (PUE %s)\n", a, b, c, d);
    format_fixed(a, sizeof a, p->per_rack_kw, 1);
    format_fixed(b, sizeof b, p->rack_cooling_limit_kw, 0);
    format_fixed(c, sizeof c, p->rack_temp_c, 0);
    format_printable(text, sizeof text, r->cooling->head.id);
    fprintf(out, "  rack %s kW of %s kW (%s)  %s C  %s\n", a, b, text, c,
            p->throttled ? "THROTTLED" : "no throttling");
    if (p->throttled) {
        format_percent(a, sizeof a, p->throttle_factor);
        fprintf(out, "  clocks kept: %s\n", a);
    }
}

/* Cost of the whole run and its reliability. */
static void text_cost(FILE *out, const struct setup *s, const struct model_report *o)
{
    char a[48], b[48], c[48], d[48], e[48];
    const struct cost_report *k = &o->cost;
    bool generic = s->model.kind == MODEL_GENERIC;
    format_usd(a, sizeof a, k->usd_per_hour);
    format_fixed(b, sizeof b, k->days_to_train, 1);
    format_si(c, sizeof c, s->training.tokens, "");
    format_fixed(d, sizeof d, k->energy_mwh, 1);
    format_usd(e, sizeof e, k->usd_total);
    /* training.tokens counts samples for a generic model (setup.h). A
     * setup that cannot run has no cost of a run. */
    if (o->runnable)
        fprintf(out, "\ncost: %s/h  %s days for %s %s  %s MWh  %s in all\n", a, b, c,
                generic ? "samples" : "tokens", d, e);
    else
        fputs("\n", out);
    const struct reliability_report *y = &o->reliability;
    format_fixed(a, sizeof a, y->interruptions_per_day, 2);
    format_fixed(b, sizeof b, y->checkpoint_gb, 0);
    format_duration(c, sizeof c, y->checkpoint_write_s);
    format_fixed(d, sizeof d, y->checkpoint_interval_min, 0);
    format_percent(e, sizeof e, y->goodput);
    fprintf(out,
            "reliability: %s interruptions/day  checkpoint %s GB (%s) every %s min  "
            "goodput %s\n",
            a, b, c, d, e);
}

void report_write_text(FILE *out, const struct setup *s, const struct resolved *r,
                       const struct model_report *o)
{
    text_header(out, s, r, o);
    text_step(out, s, o);
    text_memory(out, o);
    text_power(out, r, o);
    text_cost(out, s, o);
}
