/* infer_overview: the overview in the inference mode (key i, --infer): the
 * same five boxes read for serving a model, requests arriving, batches
 * stepping onto the devices as a prefill burst then a decode trickle, the
 * tensor-parallel all-reduces, the serving verdict and a strip of the
 * figures `mlviz infer` prints. Everything from the view_ctx's
 * infer_report; a setup that cannot serve shows why and no figures. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "glyphs.h"
#include "infer_view.h"
#include "keys.h"
#include "pictures.h"
#include "theme.h"
#include "units.h"

enum {
    BOX_PAD = 2,          /* border + one space inside a box */
    BOX_SUMMARY_ROWS = 6, /* figures at the top of a box, the picture under them */
    BOX_PICTURE_MIN = 5,
    LABEL_W = 16,
    CYCLE_S = 3, /* wall seconds one request's prefill and decode take on screen */
    TRAIN = 4,   /* batches in a prefill burst */
};

static int bottleneck(const struct view_ctx *v)
{
    const struct infer_report *r = v->infer;
    if (!r->runnable)
        return -1;
    int d = r->decode_bottleneck;
    return d >= 0 && d < STAGE_COUNT ? d : STAGE_ACCELERATORS;
}

static struct rect box_frame(const struct view_ctx *v, struct view_out *out, int s)
{
    const struct glyphs *g = glyphs_active();
    struct rect b = v->lay->box[s];
    bool marked = bottleneck(v) == s;
    char title[96];
    int room = b.w - 4 - (marked && b.w > 30 ? draw_width(" BOTTLENECK ") + 2 : 0);
    for (int brief = 0; brief < 2; brief++) {
        snprintf(title, sizeof title, "%s%d %s%s%s", v->selected_box == s ? g->selector : "", s + 1,
                 brief ? stage_table[s].brief : stage_table[s].caps, marked ? " " : "",
                 marked ? g->bottleneck : "");
        if (draw_width(title) <= room)
            break;
    }
    draw_box(&b, marked ? ROLE_BOTTLENECK : ROLE_BORDER, marked || v->selected_box == s, title,
             marked ? ROLE_BOTTLENECK : ROLE_HEADING);
    if (marked && b.w > 30) {
        const char *word = " BOTTLENECK ";
        draw_text(b.y, b.x + b.w - draw_width(word) - 2, draw_width(word), ROLE_BOTTLENECK, word);
    }
    hit_add(out->hits, b.y, b.x, b.h, b.w, ACT_OPEN, s);
    return (struct rect){b.y + 1, b.x + BOX_PAD, b.h - 2, b.w - 2 * BOX_PAD};
}

/* Row i of a box: the first variant that fits, when the row exists. */
static void row(struct rect in, int i, enum theme_role role, const char *a, const char *b,
                const char *c)
{
    const char *const variants[] = {a, b, c};
    int n = c ? 3 : b ? 2 : 1;
    if (i < in.h)
        infer_fit(in.y + i, in.x, in.w, role, variants, n);
}

/* A bar with its percentage after it. */
static void bar_row(struct rect in, int i, double frac, enum theme_role role)
{
    if (i >= in.h)
        return;
    char pct[16];
    format_percent(pct, sizeof pct, frac);
    int pw = draw_width(pct) + 1;
    draw_bar(in.y + i, in.x, in.w - pw, frac, role, ROLE_DIM);
    draw_text(in.y + i, in.x + in.w - pw + 1, pw, ROLE_VALUE, pct);
}

static void data_box(const struct view_ctx *v, struct view_out *out)
{
    const struct infer_report *r = v->infer;
    const struct setup *s = v->setup;
    struct rect in = box_frame(v, out, STAGE_DATA);
    char a[96], b[96], c[96], n[32], m[32];
    snprintf(a, sizeof a, "prompt %d tokens", s->inference.prompt_tokens);
    snprintf(b, sizeof b, "prompt %d", s->inference.prompt_tokens);
    row(in, 0, ROLE_TEXT, a, b, NULL);
    snprintf(a, sizeof a, "answer %d tokens", s->inference.output_tokens);
    snprintf(b, sizeof b, "answer %d", s->inference.output_tokens);
    row(in, 1, ROLE_TEXT, a, b, NULL);
    if (!r->runnable) {
        row(in, 2, ROLE_FAILED, "cannot serve", NULL, NULL);
        return;
    }
    format_si(n, sizeof n, r->requests_per_s, "");
    format_si(m, sizeof m, r->prefill_tokens_per_s, "");
    snprintf(a, sizeof a, "%s requests/s", n);
    snprintf(b, sizeof b, "%s req/s", n);
    row(in, 2, ROLE_VALUE, a, b, NULL);
    snprintf(a, sizeof a, "prefill %s tokens/s", m);
    snprintf(b, sizeof b, "prefill %s tok/s", m);
    snprintf(c, sizeof c, "in %s tok/s", m);
    row(in, 3, ROLE_DIM, a, b, c);
    format_si(n, sizeof n, r->output_tokens_per_s, "");
    snprintf(a, sizeof a, "output %s tokens/s", n);
    snprintf(b, sizeof b, "output %s tok/s", n);
    snprintf(c, sizeof c, "out %s tok/s", n);
    row(in, 4, ROLE_DIM, a, b, c);
}

static void cpu_box(const struct view_ctx *v, struct view_out *out)
{
    const struct infer_report *r = v->infer;
    struct rect in = box_frame(v, out, STAGE_CPUS);
    char a[96], b[96], t[32];
    snprintf(a, sizeof a, "batcher: %s", r->software);
    row(in, 0, ROLE_TEXT, a, r->software, NULL);
    snprintf(a, sizeof a, "batch %d of %d", r->batch, r->max_batch);
    snprintf(b, sizeof b, "batch %d/%d", r->batch, r->max_batch);
    row(in, 1, ROLE_TEXT, a, b, NULL);
    /* The batch against what the KV cache holds; over it, full and failed. */
    double fill = r->max_batch > 0 ? (double)r->batch / r->max_batch : 1;
    bar_row(in, 2, fill > 1 ? 1 : fill, fill > 1 ? ROLE_FAILED : ROLE_QUEUE);
    if (!r->runnable)
        return;
    format_duration(t, sizeof t, r->decode.host);
    snprintf(a, sizeof a, "host %s a step", t);
    snprintf(b, sizeof b, "host %s", t);
    row(in, 3, ROLE_DIM, a, b, NULL);
    row(in, 4, ROLE_DIM, "continuous batching", "continuous", NULL);
}

static void accel_box(const struct view_ctx *v, struct view_out *out)
{
    const struct infer_report *r = v->infer;
    struct rect in = box_frame(v, out, STAGE_ACCELERATORS);
    char a[160], b[160], c[96], name[96], t[32];
    view_short_name(v->res->accel ? v->res->accel->head.name : v->setup->cluster.node.accelerator,
                    name, sizeof name);
    snprintf(a, sizeof a, "%dx %s %s", r->devices, name, r->weight_precision);
    snprintf(b, sizeof b, "%dx %s", r->devices, name);
    row(in, 0, ROLE_TEXT, a, b, NULL);
    double parts[INFER_MEM_PARTS];
    double cap = infer_memory_parts(r, parts);
    /* The capacity as every screen writes it (85.5 GB for an H100). */
    char gb[16];
    format_significant(gb, sizeof gb, cap, 3);
    snprintf(a, sizeof a, "KV %.0f of %s GB", parts[1], gb);
    snprintf(b, sizeof b, "KV %.0f/%s GB", parts[1], gb);
    int used = 0;
    if (in.h > 1) {
        const char *const variants[] = {a, b};
        used = infer_fit(in.y + 1, in.x, in.w, ROLE_TEXT, variants, 2) + 1;
        if (in.w - used >= 4)
            draw_stacked(in.y + 1, in.x + used, in.w - used, parts, infer_mem_roles,
                         INFER_MEM_PARTS, cap);
    }
    if (!r->runnable) {
        row(in, 2, ROLE_FAILED, "cannot serve", NULL, NULL);
        return;
    }
    bool mem = strncmp(r->decode_reason, "memory", 6) == 0;
    format_duration(t, sizeof t, r->tpot_s);
    snprintf(a, sizeof a, "TPOT %s %s", t, mem ? "memory-bound" : "compute-bound");
    snprintf(b, sizeof b, "TPOT %s %s", t, mem ? "mem-bound" : "compute");
    snprintf(c, sizeof c, "TPOT %s", t);
    row(in, 2, ROLE_VALUE, a, b, c);
    format_duration(t, sizeof t, r->ttft_s);
    bool pre_mem = strncmp(r->prefill_reason, "memory", 6) == 0;
    snprintf(a, sizeof a, "TTFT %s %s", t, pre_mem ? "memory-bound" : "compute-bound");
    snprintf(b, sizeof b, "TTFT %s", t);
    row(in, 3, ROLE_VALUE, a, b, NULL);
    if (r->decode_crossover_batch > 0)
        snprintf(a, sizeof a, "compute-bound from batch %.0f", r->decode_crossover_batch);
    else
        snprintf(a, sizeof a, "memory-bound at any batch");
    snprintf(b, sizeof b, "%d %s", r->max_batch,
             r->max_batch == 1 ? "sequence fits" : "sequences fit");
    row(in, 4, ROLE_DIM, a, b, NULL);
}

static void net_box(const struct view_ctx *v, struct view_out *out)
{
    const struct infer_report *r = v->infer;
    const struct link *l = v->res->intra_link;
    struct rect in = box_frame(v, out, STAGE_INTERCONNECT);
    char a[200], b[96], bw[32], t[32];
    format_si(bw, sizeof bw, l ? l->bw_gbs * 1e9 : 0, "B/s");
    snprintf(a, sizeof a, "%s %s/dir", l ? l->head.id : "-", bw);
    row(in, 0, ROLE_TEXT, a, l ? l->head.id : "-", NULL);
    snprintf(a, sizeof a, "TP%d PP%d, %d replica%s", r->tp, r->pp, r->replicas,
             r->replicas == 1 ? "" : "s");
    snprintf(b, sizeof b, "TP%d PP%d", r->tp, r->pp);
    row(in, 1, ROLE_DIM, a, b, NULL);
    if (!r->runnable)
        return;
    format_duration(t, sizeof t, r->decode.tp_comm);
    snprintf(a, sizeof a, "all-reduce %s/step", t);
    snprintf(b, sizeof b, "AR %s/step", t);
    row(in, 2, ROLE_TEXT, r->tp > 1 ? a : "no all-reduces", r->tp > 1 ? b : "none", NULL);
    bar_row(in, 3, r->tpot_s > 0 ? (r->decode.tp_comm + r->decode.pp_p2p) / r->tpot_s : 0,
            ROLE_PART_COMM);
    if (r->pp > 1) {
        format_duration(t, sizeof t, r->decode.pp_p2p);
        snprintf(a, sizeof a, "hand-offs %s/step", t);
        snprintf(b, sizeof b, "PP %s/step", t); /* the figure whole where the words are not */
        row(in, 4, ROLE_DIM, a, b, NULL);
    } else {
        row(in, 4, ROLE_DIM, r->tp > 1 ? "latency-bound" : "one device a replica",
            r->tp > 1 ? "latency-bound" : "TP 1", NULL);
    }
}

static void infra_box(const struct view_ctx *v, struct view_out *out)
{
    const struct infer_report *r = v->infer;
    struct rect in = box_frame(v, out, STAGE_INFRASTRUCTURE);
    char a[128], b[96], c[96], it[32], fac[32], usd[32], mt[32], j[32];
    if (!r->runnable) {
        row(in, 0, ROLE_FAILED, "cannot serve: no power or cost figures", "cannot serve", NULL);
        return;
    }
    format_si(it, sizeof it, r->it_kw * 1e3, "W");
    format_si(fac, sizeof fac, r->facility_kw * 1e3, "W");
    snprintf(a, sizeof a, "IT %s  facility %s  device %.0f W", it, fac, r->device_w);
    snprintf(b, sizeof b, "IT %s  facility %s", it, fac);
    snprintf(c, sizeof c, "IT %s", it);
    row(in, 0, ROLE_TEXT, a, b, c);
    format_usd(mt, sizeof mt, r->usd_per_mtok);
    format_usd(usd, sizeof usd, r->usd_per_hour);
    snprintf(a, sizeof a, "%s per million tokens  %s/h", mt, usd);
    snprintf(b, sizeof b, "%s/Mtok  %s/h", mt, usd);
    snprintf(c, sizeof c, "%s/Mtok", mt);
    row(in, 1, ROLE_VALUE, a, b, c);
    format_si(j, sizeof j, r->joules_per_token, "J");
    snprintf(a, sizeof a, "%s of facility energy an output token", j);
    snprintf(b, sizeof b, "%s a token", j);
    row(in, 2, ROLE_DIM, a, b, NULL);
    const struct accelerator *acc = v->res->accel;
    if (acc && acc->tdp_w > 0 && in.h > 3) {
        int used = draw_text(in.y + 3, in.x, in.w, ROLE_DIM, "power of TDP ");
        struct rect rest = {in.y + 3, in.x + used, 1, in.w - used};
        bar_row(rest, 0, r->device_w / acc->tdp_w, ROLE_PART_COMPUTE);
    }
}

/* ---- the lanes: requests arrive, batches step, all-reduces ---- */

/* The track of a lane: dim line, arrow head, and glyphs at the cells set. */
static void track(int y, int x, int n, const bool *cells, int ncells)
{
    const struct glyphs *g = glyphs_active();
    if (n < 2)
        return;
    draw_repeat(y, x, n - 1, ROLE_DIM, g->track);
    draw_text(y, x + n - 1, 1, ROLE_FLOW, g->arrow_right);
    for (int k = 0; k < n - 1 && k < ncells; k++)
        if (cells[k])
            draw_text(y, x + k, 1, ROLE_FLOW, g->batch);
}

/* Where one request is in its life on screen (0..1), and how much of it is
 * prefill: at least a fifth, so the burst shows. -1 when nothing moves. */
static double life(const struct view_ctx *v, double *prefill_share)
{
    const struct infer_report *r = v->infer;
    double f = r->latency_s > 0 ? r->ttft_s / r->latency_s : 0;
    *prefill_share = f < 0.2 ? 0.2 : f > 0.5 ? 0.5 : f;
    if (v->paused || !r->runnable || !isfinite(v->wall_s))
        return -1;
    return fmod(v->wall_s / CYCLE_S, 1.0);
}

static void lane(const struct view_ctx *v, int a, const char *w1, const char *w2, bool burst)
{
    struct rect r = v->lay->arrow[a];
    int w = r.w - 2, x = r.x + 1, y = r.y + 1;
    draw_center(y, x, w, ROLE_DIM, w1);
    draw_center(y + 1, x, w, ROLE_DIM, w2);
    enum { CELLS_MAX = 64 };
    bool cells[CELLS_MAX] = {false};
    int len = w - 1 < CELLS_MAX ? w - 1 : CELLS_MAX;
    double share, p = life(v, &share);
    if (p >= 0 && len > 0) {
        if (!burst) {
            /* Requests arrive one by one, three on the lane. */
            for (int k = 0; k < 3; k++)
                cells[(int)(fmod(p * 3 + k / 3.0, 1.0) * len) % len] = true;
        } else if (p < share) {
            /* Prefill: the whole prompt goes at once, a train of batches. */
            int head = (int)(p / share * (len + TRAIN));
            for (int k = 0; k < TRAIN; k++)
                if (head - k >= 0 && head - k < len)
                    cells[head - k] = true;
        } else {
            /* Decode: one token a step, a trickle. */
            double q = (p - share) / (1 - share);
            int step = len / 2 > 1 ? len / 2 : 1;
            for (int k = 0; k < len; k += step)
                cells[(k + (int)(q * 4 * len)) % len] = true;
        }
    }
    track(y + 2, x, w, cells, len);
    if (burst && r.h > 4 && v->infer->runnable)
        draw_center(y + 3, x, w, ROLE_DIM, p < 0 ? "" : p < share ? "prefill" : "decode");
}

static void sync_lane(const struct view_ctx *v)
{
    const struct glyphs *g = glyphs_active();
    const struct infer_report *r = v->infer;
    struct rect a = v->lay->arrow[ARROW_GRADIENT_SYNC];
    bool on = r->runnable && r->tp > 1 && !v->paused;
    int k = on ? (int)fmod(v->wall_s * 6, 2) : -1;
    char text[96];
    snprintf(text, sizeof text, "%s%s %s %s%s", g->arrow_down, k == 0 ? g->batch : " ",
             r->tp > 1 ? "TP all-reduce" : "no all-reduce", k == 1 ? g->batch : " ", g->arrow_up);
    draw_center(a.y + (a.h - 1) / 2, a.x, a.w, on ? ROLE_FLOW : ROLE_DIM, text);
    struct rect s = v->lay->support;
    for (int b = 0; b < 2; b++) {
        struct rect box = v->lay->box[b];
        snprintf(text, sizeof text, "%s system support %s", g->arrow_up, g->arrow_up);
        draw_center(s.y + (s.h - 1) / 2, box.x, box.w, ROLE_DIM, text);
    }
    struct rect h = v->lay->arrow[ARROW_SYSTEM_SUPPORT];
    draw_center(h.y + 1, h.x + 1, h.w - 2, ROLE_DIM, "heat to");
    draw_center(h.y + 2, h.x + 1, h.w - 2, ROLE_DIM, "cooling");
}

/* ---- the strip under the boxes ---- */

static void breakdown_row(int y, int x, int w, const char *label, double total,
                          const struct infer_breakdown *b)
{
    char t[32];
    format_duration(t, sizeof t, total);
    char text[sizeof t + 64]; /* a label of up to 63 characters, a space, the time */
    snprintf(text, sizeof text, "%s %s", label, t);
    draw_text(y, x, LABEL_W, ROLE_TEXT, text);
    double parts[INFER_PARTS];
    infer_parts(b, parts);
    draw_stacked(y, x + LABEL_W, w - LABEL_W, parts, infer_part_roles, INFER_PARTS, total);
}

static void metrics(const struct view_ctx *v)
{
    const struct infer_report *r = v->infer;
    const struct glyphs *g = glyphs_active();
    struct rect m = v->lay->metrics;
    int x = m.x + 1, w = m.w - 2, y = m.y, end = m.y + m.h;
    if (!r->runnable) {
        char text[400];
        snprintf(text, sizeof text,
                 "%s cannot serve: %s. No latency, throughput or cost until it can.", g->fail,
                 r->why_not);
        struct rect t = {y, x, m.h, w};
        draw_wrap(&t, ROLE_FAILED, text, 0);
        return;
    }
    view_infer_headline(v, y++, x, w);
    if (y < end) {
        char lbl[48];
        snprintf(lbl, sizeof lbl, "prefill");
        breakdown_row(y++, x, w, lbl, r->ttft_s, &r->prefill);
    }
    if (y < end)
        breakdown_row(y++, x, w, "decode", r->tpot_s, &r->decode);
    if (y < end && v->status[0])
        draw_textf(y++, x, w, ROLE_WARN, "%s %s", g->bullet, v->status);
    else if (y < end)
        infer_legend(y++, x + LABEL_W, w - LABEL_W, infer_part_names, infer_part_roles, NULL, NULL,
                     INFER_PARTS);
    double parts[INFER_MEM_PARTS];
    double cap = infer_memory_parts(r, parts);
    if (y < end) {
        char gb[16];
        format_significant(gb, sizeof gb, cap, 3);
        int used = draw_textf(y, x, LABEL_W, ROLE_TEXT, "memory %s GB", gb);
        (void)used;
        draw_stacked(y++, x + LABEL_W, w - LABEL_W, parts, infer_mem_roles, INFER_MEM_PARTS, cap);
    }
    if (y < end)
        infer_legend(y++, x + LABEL_W, w - LABEL_W, infer_mem_names, infer_mem_roles, parts, " GB",
                     INFER_MEM_PARTS);
}

void view_infer_overview_draw(const struct view_ctx *v, struct view_out *out)
{
    view_draw_title(v, out, "serving");
    data_box(v, out);
    cpu_box(v, out);
    accel_box(v, out);
    net_box(v, out);
    infra_box(v, out);
    view_draw_box_pictures(v, out, view_infer_picture);
    lane(v, ARROW_BATCH_LOADING, "prompts", "arrive", false);
    lane(v, ARROW_TASK_DISTRIBUTION, "batch", "steps", true);
    sync_lane(v);
    /* A verdict on more rows than one takes the metrics' first rows. */
    struct rect vr = v->lay->verdict;
    struct layout lay = *v->lay;
    struct view_ctx below = *v;
    below.lay = &lay;
    /* Up to three rows where the metrics have rows to spare (they use six). */
    int spare = lay.metrics.h - 6, rows = spare >= 2 ? 3 : lay.metrics.h > 2 ? 2 : 1;
    int extra = infer_verdict_row(v, vr.y, vr.x + 1, vr.w - 2, true, rows) - 1;
    lay.metrics.y += extra;
    lay.metrics.h -= extra;
    metrics(&below);
    view_draw_footer(v, out, v->tour ? KEYCTX_TOUR : KEYCTX_OVERVIEW);
}
