/* view_stage: one stage opened: its explanation (assets/stages.yaml), its
 * knobs (from the setup field table), a picture of its own, the matching
 * catalog table and a strip of live metrics. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "glyphs.h"
#include "keys.h"
#include "pictures.h"
#include "schedule.h"
#include "theme.h"
#include "units.h"
#include "views.h"

enum {
    KNOB_VALUE_MIN = 8, /* knob value column, arrows included */
    KNOB_ARROWS_W = 4,  /* the two arrows and their spaces */
    PIC_PAD = 2,
    LIVE_LABEL_W = 27, /* "Infrastructure busy ~100.0%" (settling) */
};

static struct rect inner(const struct rect *r)
{
    struct rect in = {r->y + 1, r->x + PIC_PAD, r->h - 2, r->w - 2 * PIC_PAD};
    return in;
}

/* ---- explanation ---- */

/* The explanation in r (its panel, or the whole body with `e`), scrolled
 * by text_scroll, with where it is on the bottom border ("2/5"). */
static void draw_text_panel(const struct view_ctx *v, struct view_out *out, struct rect r)
{
    const struct glyphs *g = glyphs_active();
    const struct stage_text *t = &v->texts->stage[v->stage];
    for (int y = r.y; y < r.y + r.h; y++)
        draw_repeat(y, r.x, r.w, ROLE_TEXT, " ");
    draw_box(&r, ROLE_BORDER, false, t->title, ROLE_HEADING);
    char back[32];
    snprintf(back, sizeof back, " %s back ", g->arrow_left);
    int bw = draw_width(back);
    draw_text(r.y, r.x + r.w - bw - 1, bw, ROLE_KEY, back);
    hit_add(out->hits, r.y, r.x + r.w - bw - 1, 1, bw, ACT_BACK, 0);
    struct rect in = inner(&r);
    int used = 0;
    if (t->tagline[0] && in.h > 2) {
        struct rect tl = in;
        used = draw_wrap(&tl, ROLE_DIM, t->tagline, 0);
        used++;
    }
    struct rect body = {in.y + used, in.x, in.h - used, in.w};
    if (body.h <= 0)
        return;
    struct rect none = {0, 0, 0, body.w};
    int total = draw_wrap(&none, ROLE_TEXT, t->text, 0);
    int max_scroll = total > body.h ? total - body.h : 0;
    int scroll = v->text_scroll > max_scroll ? max_scroll : v->text_scroll;
    out->text_scroll = scroll;
    out->text_page = body.h;
    draw_wrap(&body, ROLE_TEXT, t->text, scroll);
    hit_add_wheel(out->hits, body.y, body.x, body.h, body.w, ACT_NONE, 2, ACT_TEXT_UP,
                  ACT_TEXT_DOWN);
    if (max_scroll > 0) {
        int pages = (total + body.h - 1) / body.h;
        int page = scroll >= max_scroll ? pages : scroll / body.h + 1;
        char where[48];
        snprintf(where, sizeof where, " PgDn %d/%d ", page, pages);
        int ww = draw_width(where);
        draw_text(r.y + r.h - 1, r.x + r.w - ww - 1, ww, ROLE_KEY, where);
    }
}

/* ---- knobs ---- */

void view_knob_value(const struct field *f, const struct setup *s, char *shown, size_t len)
{
    char val[64];
    fields_format(f, s, val, sizeof val);
    /* Large numbers with SI prefixes ("130 M bytes"), small ones in digits
     * ("0.00002"): never "1.3e+08". */
    char *end;
    double x = strtod(val, &end);
    if (strpbrk(val, "eE") && end != val && *end == '\0' && isfinite(x)) {
        if (fabs(x) >= 1)
            format_si(val, sizeof val, x, "");
        else
            format_short(val, sizeof val, x, 3);
    }
    char noun[32];
    if (f->unit && f->unit[0] && strcmp(val, "auto") != 0 && f->type != FIELD_ENUM &&
        f->type != FIELD_REF && f->type != FIELD_BOOL)
        snprintf(shown, len, "%s %s", val, /* "1 sample", "2 samples" */
                 format_noun(fields_get_number(f, s), f->unit, noun, sizeof noun));
    else if (!val[0] && f->type == FIELD_REF && f->ref_kind == CATALOG_LINK &&
             strstr(f->path, "intra"))
        snprintf(shown, len, "device's own"); /* empty: the accelerator's own link */
    else
        snprintf(shown, len, "%s", val[0] ? val : "none");
}

static void draw_knobs(const struct view_ctx *v, struct view_out *out)
{
    const struct glyphs *g = glyphs_active();
    const struct ui_knobs *k = &v->knobs[v->stage];
    struct rect r = v->lay->knobs;
    draw_box(&r, ROLE_BORDER_SEL, false, "knobs", ROLE_HEADING);
    struct rect in = {r.y + 1, r.x + 1, r.h - 2, r.w - 2};
    if (k->count == 0 || in.h <= 0)
        return;
    int sel = v->knob_sel[v->stage];
    if (sel >= k->count)
        sel = 0; /* input keeps it in range; never trust it blindly */
    /* One line for the selected knob's help when there is room. */
    int help_rows = in.h > 3 ? (in.h > k->count + 2 ? 2 : 1) : 0;
    int rows = in.h - help_rows;
    int first = 0;
    if (sel >= rows)
        first = sel - rows + 1;
    const struct setup *s = v->setup;
    /* The value column is as wide as the widest visible value. */
    int vw = KNOB_VALUE_MIN;
    for (int i = first; i < k->count && i - first < rows; i++) {
        char shown[96];
        view_knob_value(k->field[i], s, shown, sizeof shown);
        if (draw_width(shown) + KNOB_ARROWS_W > vw)
            vw = draw_width(shown) + KNOB_ARROWS_W;
    }
    if (vw > in.w / 2)
        vw = in.w / 2;
    for (int i = first; i < k->count && i - first < rows; i++) {
        const struct field *f = k->field[i];
        int y = in.y + i - first;
        bool on = i == sel;
        char label[64], shown[96];
        knobs_label(f, label, sizeof label);
        view_knob_value(f, s, shown, sizeof shown);
        if (on)
            draw_repeat(y, in.x, in.w, ROLE_KNOB_SEL, " ");
        enum theme_role role = on ? ROLE_KNOB_SEL : ROLE_TEXT;
        draw_text(y, in.x, 1, role, on ? g->selector : " ");
        draw_text(y, in.x + 2, in.w - vw - 3, role, label);
        int vx = in.x + in.w - vw;
        draw_text(y, vx, 1, on ? ROLE_KNOB_SEL : ROLE_KEY, g->dec);
        draw_center(y, vx + 1, vw - 2, on ? ROLE_KNOB_SEL : ROLE_VALUE, shown);
        draw_text(y, vx + vw - 1, 1, on ? ROLE_KNOB_SEL : ROLE_KEY, g->inc);
        /* Mouse: the line selects, the wheel turns, the arrows step. */
        hit_add_wheel(out->hits, y, in.x, 1, in.w, ACT_KNOB_PICK, i + 1, ACT_KNOB_INC,
                      ACT_KNOB_DEC);
        hit_add_wheel(out->hits, y, vx, 1, 1, ACT_KNOB_DEC, i + 1, ACT_KNOB_INC, ACT_KNOB_DEC);
        hit_add_wheel(out->hits, y, vx + vw - 1, 1, 1, ACT_KNOB_INC, i + 1, ACT_KNOB_INC,
                      ACT_KNOB_DEC);
    }
    if (help_rows) {
        const struct field *f = k->field[sel];
        char desc[64], help[320];
        fields_describe_type(f, desc, sizeof desc);
        snprintf(help, sizeof help, "%s (%s)", f->help, f->path);
        struct rect hr = {in.y + in.h - help_rows, in.x + 1, help_rows, in.w - 2};
        draw_wrap(&hr, ROLE_DIM, help, 0);
    }
}

static void draw_picture(const struct view_ctx *v, struct view_out *out)
{
    struct rect r = v->lay->picture;
    static const char *const titles[STAGE_COUNT] = {
        "storage and prefetch", "host CPUs", "devices and memory", "collectives and pipeline",
        "racks, heat and failures"};
    static const char *const serving[STAGE_COUNT] = {
        "serving: requests", "serving: the batcher", "serving: memory and roofline",
        "serving: all-reduces", "serving: power and cost"};
    draw_box(&r, ROLE_BORDER, false, (v->infer_mode ? serving : titles)[v->stage], ROLE_HEADING);
    struct rect in = inner(&r);
    if (in.h <= 0 || in.w <= 0)
        return;
    if (v->infer_mode)
        view_infer_picture(v, out, v->stage, in);
    else
        view_stage_picture(v, out, v->stage, in);
}

/* ---- catalog table ---- */

struct column {
    const char *head;
    int width;
};

static void table_row(int y, int x, int w, enum theme_role role, const char *const *cells,
                      const struct column *cols, int n)
{
    int cx = x;
    for (int i = 0; i < n && cx < x + w; i++) {
        char cell[64];
        if (i == 0)
            snprintf(cell, sizeof cell, "%-*.*s", cols[i].width, cols[i].width, cells[i]);
        else
            snprintf(cell, sizeof cell, "%*.*s", cols[i].width, cols[i].width, cells[i]);
        cx += draw_text(y, cx, x + w - cx, role, cell);
        cx += draw_text(y, cx, x + w - cx, role, " ");
    }
}

static void num_cell(char *buf, size_t len, double v, int decimals)
{
    if (v == FIELD_ABSENT || !isfinite(v) || v < 0)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.*f", decimals, v);
}

/* One catalog entry's cells of the compare table (c[0], its id, is set). */
static void compare_cells(enum catalog_kind kind, const void *e, char c[6][FIELD_STR_LEN + 8])
{
    static const char *const scopes[] = {"local", "shared", "memory"};
    static const char *const link_kinds[] = {"nvlink",   "pcie", "infiniband",
                                             "ethernet", "ici",  "other"};
    switch (kind) {
    case CATALOG_STORAGE: {
        const struct storage *st = e;
        snprintf(c[1], sizeof c[1], "%s",
                 st->scope >= 0 && st->scope < 3 ? scopes[st->scope] : "?");
        num_cell(c[2], sizeof c[2], st->read_gbs, 1);
        num_cell(c[3], sizeof c[3], st->write_gbs, 1);
        num_cell(c[4], sizeof c[4], st->latency_us, 0);
        break;
    }
    case CATALOG_CPU: {
        const struct cpu *cp = e;
        snprintf(c[1], sizeof c[1], "%d", cp->cores);
        snprintf(c[2], sizeof c[2], "%d", cp->mem_channels);
        num_cell(c[3], sizeof c[3], cp->mem_bw_gbs, 0);
        snprintf(c[4], sizeof c[4], "%d", cp->pcie_lanes);
        num_cell(c[5], sizeof c[5], cp->tdp_w, 0);
        break;
    }
    case CATALOG_ACCELERATOR: {
        const struct accelerator *a = e;
        format_significant(c[1], sizeof c[1], a->mem_gb, 3); /* GB, as every memory figure */
        num_cell(c[2], sizeof c[2], a->mem_bw_gbs, 0);
        num_cell(c[3], sizeof c[3], a->peak_tflops[PREC_BF16], 0);
        num_cell(c[4], sizeof c[4], a->peak_tflops[PREC_FP8], 0);
        num_cell(c[5], sizeof c[5], a->tdp_w, 0);
        break;
    }
    case CATALOG_LINK: {
        const struct link *l = e;
        snprintf(c[1], sizeof c[1], "%s", l->kind >= 0 && l->kind < 6 ? link_kinds[l->kind] : "?");
        num_cell(c[2], sizeof c[2], l->bw_gbs, 1);
        num_cell(c[3], sizeof c[3], l->latency_us, 1);
        break;
    }
    default: {
        const struct cooling *co = e;
        num_cell(c[1], sizeof c[1], co->rack_kw_max, 0);
        num_cell(c[2], sizeof c[2], co->pue, 2);
        num_cell(c[3], sizeof c[3], co->inlet_c, 0);
        num_cell(c[4], sizeof c[4], co->limit_c, 0);
        break;
    }
    }
}

static void draw_compare(const struct view_ctx *v, struct view_out *out)
{
    (void)out;
    const struct glyphs *g = glyphs_active();
    struct rect r = v->lay->compare;
    enum catalog_kind kind = stage_table[v->stage].kind;
    char title[64];
    snprintf(title, sizeof title, "compare: %s", catalog_kind_names[kind]);
    draw_box(&r, ROLE_BORDER, false, title, ROLE_HEADING);
    struct rect in = {r.y + 1, r.x + 1, r.h - 2, r.w - 2};
    if (in.h < 2)
        return;
    static const struct column cols[STAGE_COUNT][6] = {
        {{"storage", 12}, {"scope", 7}, {"read GB/s", 9}, {"write", 7}, {"lat us", 7}, {"", 0}},
        {{"cpu", 12}, {"cores", 5}, {"mem ch", 6}, {"mem GB/s", 8}, {"lanes", 5}, {"TDP W", 6}},
        {{"device", 14}, {"mem GB", 6}, {"GB/s", 6}, {"bf16", 6}, {"fp8", 6}, {"TDP W", 6}},
        {{"link", 14}, {"kind", 10}, {"GB/s/dir", 8}, {"lat us", 6}, {"", 0}, {"", 0}},
        {{"cooling", 13}, {"rack kW", 7}, {"PUE", 5}, {"inlet C", 7}, {"limit C", 7}, {"", 0}},
    };
    int ncols = 0;
    while (ncols < 6 && cols[v->stage][ncols].width > 0)
        ncols++;
    const char *heads[6];
    for (int i = 0; i < ncols; i++)
        heads[i] = cols[v->stage][i].head;
    table_row(in.y, in.x + 2, in.w - 2, ROLE_HEADING, heads, cols[v->stage], ncols);
    size_t n = catalog_count(v->cat, kind);
    const struct setup *s = v->setup;
    const char *cur[2] = {NULL, NULL};
    switch (v->stage) {
    case STAGE_DATA:
        cur[0] = s->cluster.storage;
        cur[1] = s->cluster.node.local_storage;
        break;
    case STAGE_CPUS:
        cur[0] = s->cluster.node.cpu;
        break;
    case STAGE_ACCELERATORS:
        cur[0] = s->cluster.node.accelerator;
        break;
    case STAGE_INTERCONNECT:
        cur[0] = v->res->intra_link ? v->res->intra_link->head.id : "";
        cur[1] = s->cluster.node.nic;
        break;
    default:
        cur[0] = s->facility.cooling;
        break;
    }
    int rows = in.h - 1;
    size_t first = 0, cur_i = 0;
    for (size_t i = 0; i < n; i++) {
        const struct catalog_head *h = catalog_entry(v->cat, kind, i);
        if (cur[0] && strcmp(h->id, cur[0]) == 0)
            cur_i = i;
    }
    if (rows > 0 && cur_i >= (size_t)rows)
        first = cur_i - (size_t)rows / 2;
    for (size_t i = first; i < n && (int)(i - first) < rows; i++) {
        const void *e = catalog_entry(v->cat, kind, i);
        const struct catalog_head *h = e;
        char c[6][FIELD_STR_LEN + 8];
        const char *cells[6] = {c[0], c[1], c[2], c[3], c[4], c[5]};
        snprintf(c[0], sizeof c[0], "%s", h->id);
        compare_cells(kind, e, c);
        bool mine =
            (cur[0] && strcmp(h->id, cur[0]) == 0) || (cur[1] && strcmp(h->id, cur[1]) == 0);
        int y = in.y + 1 + (int)(i - first);
        draw_text(y, in.x, 1, ROLE_VALUE, mine ? g->selector : " ");
        table_row(y, in.x + 2, in.w - 2, mine ? ROLE_VALUE : ROLE_DIM, cells, cols[v->stage],
                  ncols);
    }
}

/* ---- live strip ---- */

/* The live strip's first row: the stage's busy share and the throughput,
 * each with its sparkline, by the figures every view shows. */
static void draw_live_figures(const struct view_ctx *v, struct view_out *out)
{
    /* The CPUs' gauge is the feed's share of the step (pic_cpus). */
    static const char *const short_names[STAGE_COUNT] = {"Data", "Feeding", "Accelerators",
                                                         "Network", "Infrastructure"};
    struct rect l = v->lay->live;
    int half = l.w / 2, x = l.x + 1;
    char pct[16], tp[32];
    double util = view_live_stage_util(v, v->stage);
    view_live_text(v, util, "%", pct, sizeof pct);
    if (view_warming(v))
        draw_textf(l.y, x, LIVE_LABEL_W, ROLE_DIM, "%s warming", short_names[v->stage]);
    else
        draw_textf(l.y, x, LIVE_LABEL_W, ROLE_VALUE, "%s busy %s", short_names[v->stage], pct);
    size_t n = view_stage_util_series(v, out, v->stage, (size_t)(half - LIVE_LABEL_W - 2));
    draw_spark(l.y, x + LIVE_LABEL_W, half - LIVE_LABEL_W - 2, 1, out->series, n, 1,
               theme_role_for_util(util));
    double tps;
    n = view_live_throughput(v, out, (size_t)(l.w - half - LIVE_LABEL_W - 1), &tps);
    view_live_text(v, tps, "", tp, sizeof tp);
    draw_textf(l.y, half, LIVE_LABEL_W, ROLE_VALUE, "%s %s",
               v->setup->model.kind == MODEL_GENERIC ? "samples/s" : "tokens/s", tp);
    draw_spark(l.y, half + LIVE_LABEL_W, l.w - half - LIVE_LABEL_W - 1, 1, out->series, n,
               view_spark_top(out->series, n, v->report->tokens_per_s), ROLE_SPARK_TPUT);
}

/* The Interconnect strip's summary: the data-parallel traffic and the
 * pipeline bubble as eval and the pipeline picture give it (none at PP = 1:
 * waiting for the slowest device is not a bubble). */
static void draw_net_summary(const struct view_ctx *v, int y, int x, int w)
{
    const struct model_report *r = v->report;
    char a[32], b[32], c[32], share[16];
    format_duration(a, sizeof a, r->stages.dp_comm_s);
    format_duration(b, sizeof b, r->breakdown.dp_comm_exposed);
    if (r->pp <= 1) {
        draw_textf(y, x, w, ROLE_TEXT, "%s %s (%s exposed)   no pipeline",
                   view_dp_traffic_label(v, false), a, b);
        return;
    }
    format_duration(c, sizeof c, sched_bubble_s(r));
    format_percent(share, sizeof share, sched_bubble_share(r));
    draw_textf(y, x, w, ROLE_TEXT, "%s %s (%s exposed)   pipeline bubble %s (%s)",
               view_dp_traffic_label(v, false), a, b, c, share);
}

static void draw_live(const struct view_ctx *v, struct view_out *out)
{
    const struct glyphs *g = glyphs_active();
    const struct model_report *r = v->report;
    struct rect l = v->lay->live;
    int x = l.x + 1;
    if (v->infer_mode) {
        view_infer_live(v, out);
        return;
    }
    draw_live_figures(v, out);
    /* The verdict always shows whole; a long one takes the summary's row
     * too (above it) rather than being cut. A status message (a knob's
     * change, a scenario's mark) then takes the throughput's half of the
     * figures' row while it is up; the stage's own figure stays. */
    if (!view_verdict_fits(v, l.w - 2)) {
        if (v->status[0]) {
            int half = l.w / 2;
            draw_repeat(l.y, half, l.w - half, ROLE_TEXT, " ");
            draw_textf(l.y, half, l.w - half - 1, ROLE_WARN, "%s %s", g->bullet, v->status);
        }
        view_draw_verdict(v, l.y + 1, x, l.w - 2, 2, false);
        return;
    }
    view_draw_verdict(v, l.y + 2, x, l.w - 2, 1, false);
    /* A status message takes the summary's row, never the verdict's. */
    if (v->status[0]) {
        draw_textf(l.y + 1, x, l.w - 2, ROLE_WARN, "%s %s", g->bullet, v->status);
        return;
    }
    /* Stage summary line. */
    char a[32], b[32], c[32];
    switch (v->stage) {
    case STAGE_DATA:
        format_duration(a, sizeof a, r->stages.read_s);
        format_percent(b, sizeof b, r->starvation);
        draw_textf(l.y + 1, x, l.w - 2, ROLE_TEXT, "read one global batch %s   devices starved %s",
                   a, b);
        break;
    case STAGE_CPUS:
        format_duration(a, sizeof a, r->stages.preprocess_s);
        format_duration(b, sizeof b, r->stages.h2d_s);
        draw_textf(l.y + 1, x, l.w - 2, ROLE_TEXT,
                   "preprocess one global batch %s   host-to-device copies %s", a, b);
        break;
    case STAGE_ACCELERATORS:
        format_percent(a, sizeof a, view_live_util(v, r->achieved_fraction));
        format_duration(b, sizeof b, r->breakdown.compute);
        format_percent(c, sizeof c, view_live_util(v, r->mfu));
        if (!r->runnable) {
            draw_textf(l.y + 1, x, l.w - 2, ROLE_FAILED, "cannot run: %s", r->why_not);
            break;
        }
        draw_textf(
            l.y + 1, x, l.w - 2, ROLE_TEXT,
            "achieved %.0f TFLOP/s per device (%s of %.0f peak)   MFU %s   compute %s per step",
            view_live_util(v, r->tflops_per_device), a, r->peak_tflops, c, b);
        break;
    case STAGE_INTERCONNECT:
        draw_net_summary(v, l.y + 1, x, l.w - 2);
        break;
    default: {
        char it[32], fac[32];
        format_si(it, sizeof it, view_live_it_kw(v) * 1e3, "W");
        format_si(fac, sizeof fac,
                  view_live_sample(v, SERIES_FACILITY_KW, r->power.facility_kw) * 1e3, "W");
        view_cost_per_hour(v, a, sizeof a);
        format_percent(b, sizeof b, r->reliability.goodput);
        draw_textf(l.y + 1, x, l.w - 2, ROLE_TEXT, "IT %s  facility %s  PUE %.2f  %s  goodput %s",
                   it, fac, isfinite(r->power.pue) ? r->power.pue : 0, a, b);
        break;
    }
    }
}

void view_stage_draw(const struct view_ctx *v, struct view_out *out)
{
    /* The stage table's brief form: the setup's name shares the title line. */
    char where[48];
    snprintf(where, sizeof where, "%d %s", v->stage + 1, stage_table[v->stage].brief);
    view_draw_title(v, out, where);
    if (v->text_full) {
        /* Everything between the title and the caption or footer, but
         * the bottleneck line under it. */
        int bottom = v->lay->caption.h > 0 ? v->lay->caption.y : v->lay->footer.y;
        int vrows = v->infer_mode ? view_infer_verdict_rows(v, v->lay->cols - 2, 2)
                    : view_verdict_fits(v, v->lay->cols - 2) ? 1
                                                             : 2;
        draw_text_panel(v, out, (struct rect){1, 0, bottom - 1 - vrows, v->lay->cols});
        for (int k = 1; k <= vrows; k++)
            draw_repeat(bottom - k, 0, v->lay->cols, ROLE_TEXT, " ");
        if (v->infer_mode)
            view_infer_verdict(v, bottom - vrows, 1, v->lay->cols - 2, vrows);
        else
            view_draw_verdict(v, bottom - vrows, 1, v->lay->cols - 2, vrows, false);
        view_draw_footer(v, out, v->tour ? KEYCTX_TOUR : KEYCTX_STAGE);
        return;
    }
    draw_text_panel(v, out, v->lay->text);
    draw_knobs(v, out);
    draw_picture(v, out);
    draw_compare(v, out);
    draw_live(v, out);
    view_draw_footer(v, out, v->tour ? KEYCTX_TOUR : KEYCTX_STAGE);
}
