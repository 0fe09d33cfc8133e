/* infer_pics: each stage's picture read for serving (the inference mode's
 * stage views): the request stream, the scheduler's batch, the device's
 * memory and roofline with prefill and decode on it, the tensor-parallel
 * all-reduces, power and the price of a million tokens. Figures come from
 * the view_ctx's infer_report (docs/MODEL.md, section 12). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "glyphs.h"
#include "infer_view.h"
#include "pictures.h"
#include "theme.h"
#include "units.h"

enum {
    AXIS_W = 6,    /* peak label and the axis line */
    DECADES_X = 4, /* intensity: ridge / 100 ... ridge x 100 */
    DECADES_Y = 3, /* FLOP/s: peak / 1000 ... peak */
    ROOF_MIN_H = 7,
    ROOF_MAX_H = 14,
};

/* Lines of text from y while they fit; returns the row after them. */
static int line(int y, struct rect in, enum theme_role role, const char *const *variants, int n)
{
    if (y < in.y + in.h)
        infer_fit(y, in.x, in.w, role, variants, n);
    return y + 1;
}

static int line1(int y, struct rect in, enum theme_role role, const char *text)
{
    return line(y, in, role, &text, 1);
}

/* Why the setup cannot serve, wrapped under what it is; no figures. */
static void cannot_serve(const struct view_ctx *v, struct rect in, int y)
{
    const struct glyphs *g = glyphs_active();
    char text[400];
    snprintf(text, sizeof text, "%s cannot serve: %s", g->fail, v->infer->why_not);
    struct rect r = {y, in.x, in.y + in.h - y, in.w};
    if (r.h > 0)
        draw_wrap(&r, ROLE_FAILED, text, 0);
}

/* ---- 1 Data: the request stream ---- */

static void pic_requests(const struct view_ctx *v, struct rect in)
{
    const struct infer_report *r = v->infer;
    const struct setup *s = v->setup;
    char a[160], b[160], c[48], d[48], e[48];
    int y = line1(in.y, in, ROLE_HEADING, "requests and their tokens");
    snprintf(a, sizeof a, "each request: a %d-token prompt in, %d tokens out",
             s->inference.prompt_tokens, s->inference.output_tokens);
    snprintf(b, sizeof b, "%d tokens in, %d out", s->inference.prompt_tokens,
             s->inference.output_tokens);
    y = line(y, in, ROLE_TEXT, (const char *const[]){a, b}, 2);
    /* One request drawn to scale: the prompt, read at once, then the
     * answer, one token a step. */
    double total = (double)s->inference.prompt_tokens + s->inference.output_tokens;
    double parts[2] = {s->inference.prompt_tokens, s->inference.output_tokens};
    static const enum theme_role roles[2] = {ROLE_PART_COMPUTE, ROLE_PART_DATA};
    if (y < in.y + in.h) {
        draw_stacked(y, in.x, in.w, parts, roles, 2, total);
        y++;
    }
    static const char *const names[2] = {"prompt: one prefill pass",
                                         "answer: one decode step a token"};
    static const char *const brief[2] = {"prompt", "answer"};
    if (y < in.y + in.h) {
        bool full = draw_width(names[0]) + draw_width(names[1]) + 8 <= in.w;
        infer_legend(y++, in.x, in.w, full ? names : brief, roles, NULL, NULL, 2);
    }
    if (s->model.vocab > 0) {
        /* The tokenizer cuts text into pieces of this vocabulary; each
         * decode step picks the next one. */
        format_si(c, sizeof c, s->model.vocab, "");
        snprintf(a, sizeof a, "tokenizer: a %s-token vocabulary", c);
        snprintf(b, sizeof b, "vocabulary %s tokens", c);
        y = line(y, in, ROLE_DIM, (const char *const[]){a, b}, 2);
    }
    if (!r->runnable) {
        cannot_serve(v, in, y + 1);
        return;
    }
    y++;
    format_si(c, sizeof c, r->requests_per_s, "");
    format_si(d, sizeof d, r->prefill_tokens_per_s, "");
    format_si(e, sizeof e, r->output_tokens_per_s, "");
    snprintf(a, sizeof a, "%s requests/s over %d replica%s", c, r->replicas,
             r->replicas == 1 ? "" : "s");
    snprintf(b, sizeof b, "%s requests/s", c);
    y = line(y, in, ROLE_VALUE, (const char *const[]){a, b}, 2);
    snprintf(a, sizeof a, "prefill %s tokens/s, output %s tokens/s", d, e);
    snprintf(b, sizeof b, "prefill %s, output %s tokens/s", d, e);
    y = line(y, in, ROLE_TEXT, (const char *const[]){a, b}, 2);
    char ttft[32], tpot[32];
    format_duration(ttft, sizeof ttft, r->ttft_s);
    format_duration(tpot, sizeof tpot, r->tpot_s);
    snprintf(a, sizeof a, "first token after %s, then one every %s", ttft, tpot);
    snprintf(b, sizeof b, "TTFT %s, TPOT %s", ttft, tpot);
    line(y, in, ROLE_DIM, (const char *const[]){a, b}, 2);
}

/* ---- 2 CPUs: the scheduler and batcher ---- */

static void pic_batcher(const struct view_ctx *v, struct rect in)
{
    const struct infer_report *r = v->infer;
    char a[200], b[160], t[32];
    snprintf(a, sizeof a, "scheduler and batcher (%s)", r->software);
    int y = line(in.y, in, ROLE_HEADING, (const char *const[]){a, "scheduler and batcher"}, 2);
    char noun[16];
    snprintf(a, sizeof a, "batch %d of the %d %s the KV cache holds", r->batch, r->max_batch,
             format_noun(r->max_batch, "sequences", noun, sizeof noun));
    snprintf(b, sizeof b, "batch %d of %d", r->batch, r->max_batch);
    y = line(y, in, ROLE_TEXT, (const char *const[]){a, b}, 2);
    int rows = in.y + in.h - y - 3;
    if (rows > 0 && r->max_batch > 0) {
        int per = 1;
        int filled = r->batch < r->max_batch ? r->batch : r->max_batch;
        y += pic_cells(y, in.x, in.w, rows, r->max_batch, filled, 0, ROLE_PART_COMPUTE, &per);
        if (per > 1 && y < in.y + in.h) {
            snprintf(a, sizeof a, "each cell: %d sequences", per);
            y = line1(y, in, ROLE_DIM, a);
        }
    }
    if (!r->runnable) {
        cannot_serve(v, in, y);
        return;
    }
    format_duration(t, sizeof t, r->decode.host);
    double share = r->tpot_s > 0 ? r->decode.host / r->tpot_s : 0;
    char pct[16];
    format_percent(pct, sizeof pct, share);
    snprintf(a, sizeof a, "engine host time %s a step, %s of a decode step", t, pct);
    snprintf(b, sizeof b, "host %s a step (%s)", t, pct);
    y = line(y, in, ROLE_TEXT, (const char *const[]){a, b}, 2);
    line1(y, in, ROLE_DIM,
          "a finished sequence's place goes to a waiting request at the next step");
}

/* ---- 3 Accelerators: memory and the roofline ---- */

/* The device's dense peak in the served weights' format (FLOP/s). */
static double served_peak(const struct view_ctx *v)
{
    const struct accelerator *a = v->res->accel;
    if (!a)
        return 0;
    const char *w = v->infer->weight_precision;
    double p = a->peak_tflops[PREC_BF16];
    if ((strcmp(w, "fp8") == 0 || strcmp(w, "fp4") == 0) && a->peak_tflops[PREC_FP8] > 0)
        p = a->peak_tflops[PREC_FP8];
    if (!(p > 0) || p == FIELD_ABSENT)
        p = a->peak_tflops[PREC_FP32];
    return p > 0 ? p * 1e12 : 0;
}

/* Prefill and decode as points: FLOP per byte of memory read and FLOP/s
 * achieved, from the report's weights and KV read per device and pass
 * times (2 FLOPs per active parameter and token, the GEMMs' share). */
struct op_point {
    double intensity, flops;
};

static void op_points(const struct infer_report *r, int prompt, struct op_point *pre,
                      struct op_point *dec)
{
    double split = (double)(r->tp > 0 ? r->tp : 1) * (r->pp > 0 ? r->pp : 1);
    double w_bytes = r->decode_weight_gb * 1e9, kv_bytes = r->decode_kv_gb * 1e9;
    double f_pre = 2.0 * r->params_active * prompt / split;
    double f_dec = 2.0 * r->params_active * r->batch / split;
    pre->intensity = w_bytes > 0 ? f_pre / w_bytes : 0;
    pre->flops = r->ttft_s > 0 ? f_pre / r->ttft_s : 0;
    dec->intensity = w_bytes + kv_bytes > 0 ? f_dec / (w_bytes + kv_bytes) : 0;
    dec->flops = r->tpot_s > 0 ? f_dec / r->tpot_s : 0;
}

static int col_of(double intensity, double ridge, int pw)
{
    double f = intensity > 0 ? log10(intensity / (ridge / 100)) / DECADES_X : 0;
    f = !isfinite(f) || f < 0 ? 0 : f > 1 ? 1 : f;
    return (int)lround(f * (pw - 1));
}

static int row_of(double flops, double peak, int ph)
{
    double f = flops > 0 ? log10(flops / (peak / 1000)) / DECADES_Y : 0;
    f = !isfinite(f) || f < 0 ? 0 : f > 1 ? 1 : f;
    return (int)lround((1 - f) * (ph - 1));
}

static void roof_plot(struct rect p, double peak, double bw, const struct op_point *pre,
                      const struct op_point *dec)
{
    const struct glyphs *g = glyphs_active();
    double ridge = peak / bw;
    for (int y = 0; y < p.h; y++)
        draw_text(p.y + y, p.x - 1, 1, ROLE_BORDER, g->v);
    int ridge_col = col_of(ridge, ridge, p.w);
    for (int c = 0; c < p.w; c++) {
        double i = ridge / 100 * pow(10, (double)DECADES_X * c / (p.w - 1));
        double f = i * bw < peak ? i * bw : peak;
        bool mem = c < ridge_col;
        draw_text(p.y + row_of(f, peak, p.h), p.x + c, 1, mem ? ROLE_PART_DATA : ROLE_PART_COMPUTE,
                  mem ? "/" : g->h);
    }
    if (pre->intensity > 0 && pre->flops > 0)
        draw_text(p.y + row_of(pre->flops, peak, p.h), p.x + col_of(pre->intensity, ridge, p.w), 1,
                  ROLE_PART_COMPUTE, g->bullet);
    if (dec->intensity > 0 && dec->flops > 0)
        draw_text(p.y + row_of(dec->flops, peak, p.h), p.x + col_of(dec->intensity, ridge, p.w), 1,
                  ROLE_BOTTLENECK, g->batch);
    char top[16];
    format_fixed(top, sizeof top, peak / 1e12, 0);
    draw_text(p.y, p.x - AXIS_W, AXIS_W - 1, ROLE_DIM, top);
}

/* Where prefill and decode sit, and the batch where decode turns
 * compute-bound; returns the row after. */
static int roof_notes(const struct view_ctx *v, struct rect in, int y, double ridge,
                      const struct op_point *pre, const struct op_point *dec)
{
    const struct glyphs *g = glyphs_active();
    const struct infer_report *r = v->infer;
    char a[200], b[120], c[80], pi[32], di[32];
    format_si(pi, sizeof pi, pre->intensity, "");
    format_si(di, sizeof di, dec->intensity, "");
    if (y < in.y + in.h) {
        int used = draw_text(y, in.x, in.w, ROLE_PART_COMPUTE, g->bullet);
        snprintf(a, sizeof a, " prefill %s FLOP/B, %s the ridge (%.0f): %s", pi,
                 pre->intensity >= ridge ? "over" : "under", ridge,
                 pre->intensity >= ridge ? "compute-bound" : "memory-bound");
        snprintf(b, sizeof b, " prefill %s FLOP/B: %s", pi,
                 pre->intensity >= ridge ? "compute-bound" : "memory-bound");
        snprintf(c, sizeof c, " prefill %s",
                 pre->intensity >= ridge ? "compute-bound" : "memory-bound");
        infer_fit(y++, in.x + used, in.w - used, ROLE_TEXT, (const char *const[]){a, b, c}, 3);
    }
    if (y < in.y + in.h) {
        int used = draw_text(y, in.x, in.w, ROLE_BOTTLENECK, g->batch);
        snprintf(a, sizeof a, " decode at batch %d: %s FLOP/B, %s", r->batch, di,
                 dec->intensity >= ridge ? "compute-bound" : "memory-bound");
        snprintf(b, sizeof b, " decode %s FLOP/B: %s", di,
                 dec->intensity >= ridge ? "compute-bound" : "memory-bound");
        snprintf(c, sizeof c, " decode %s",
                 dec->intensity >= ridge ? "compute-bound" : "memory-bound");
        infer_fit(y++, in.x + used, in.w - used, ROLE_TEXT, (const char *const[]){a, b, c}, 3);
    }
    if (r->decode_crossover_batch > 0)
        snprintf(a, sizeof a, "decode turns compute-bound from batch %.0f",
                 r->decode_crossover_batch);
    else
        snprintf(a, sizeof a, "decode stays memory-bound at any batch");
    snprintf(b, sizeof b, "crossover batch %.0f", r->decode_crossover_batch);
    return line(y, in, ROLE_DIM, (const char *const[]){a, r->decode_crossover_batch > 0 ? b : a},
                2);
}

static void roofline(const struct view_ctx *v, struct rect in, int y)
{
    const struct infer_report *r = v->infer;
    double peak = served_peak(v), bw = r->decode_mem_bw_gbs * 1e9;
    if (!(peak > 0) || !(bw > 0) || y >= in.y + in.h)
        return;
    struct op_point pre, dec;
    op_points(r, v->setup->inference.prompt_tokens, &pre, &dec);
    double ridge = peak / bw;
    int left = in.y + in.h - y;
    /* Rows: heading (tall pictures), the plot, its axis, two notes and the
     * crossover (tall pictures); the plot needs three. */
    int head = left >= 10, cross = left >= 11;
    int plot_h = left - 3 - head - cross;
    if (plot_h >= 3 && in.w >= 30) {
        if (plot_h > ROOF_MAX_H)
            plot_h = ROOF_MAX_H;
        char bws[32], a[160];
        format_si(bws, sizeof bws, bw, "B/s");
        snprintf(a, sizeof a, "roofline: TFLOP/s against FLOP per byte (log), memory at %s", bws);
        if (head)
            y = line(y, in, ROLE_HEADING, (const char *const[]){a, "roofline (log scales)"}, 2);
        struct rect p = {y, in.x + AXIS_W, plot_h, in.w - AXIS_W};
        roof_plot(p, peak, bw, &pre, &dec);
        y += plot_h;
        draw_center(y++, p.x, p.w, ROLE_DIM, "memory-bound | compute-bound");
    }
    roof_notes(v, in, y, ridge, &pre, &dec);
}

static void pic_devices(const struct view_ctx *v, struct rect in)
{
    const struct infer_report *r = v->infer;
    char name[96], a[200], b[120];
    view_short_name(v->res->accel ? v->res->accel->head.name : v->setup->cluster.node.accelerator,
                    name, sizeof name);
    snprintf(a, sizeof a, "%d x %s, weights %s, KV cache %s", r->devices, name, r->weight_precision,
             r->kv_precision);
    snprintf(b, sizeof b, "%d x %s", r->devices, name);
    int y = line(in.y, in, ROLE_HEADING, (const char *const[]){a, b}, 2);
    double parts[INFER_MEM_PARTS];
    double cap = infer_memory_parts(r, parts);
    if (y < in.y + in.h) {
        char use_gb[16], cap_gb[16];
        format_significant(use_gb, sizeof use_gb, cap - parts[4], 3);
        format_significant(cap_gb, sizeof cap_gb, r->capacity_gb, 3);
        int used = draw_textf(y, in.x, in.w, ROLE_TEXT, "memory %s/%s GB ", use_gb, cap_gb);
        draw_stacked(y++, in.x + used, in.w - used, parts, infer_mem_roles, INFER_MEM_PARTS, cap);
    }
    /* The legend gives way to the roofline on short pictures. */
    if (in.y + in.h - y - 2 >= 6)
        infer_legend(y++, in.x, in.w, infer_mem_names, infer_mem_roles, parts, " GB",
                     INFER_MEM_PARTS);
    if (!r->runnable) {
        cannot_serve(v, in, y);
        return;
    }
    char kv[32], tok[32];
    format_si(kv, sizeof kv, r->kv_bytes_per_token, "B");
    format_si(tok, sizeof tok, r->kv_capacity_tokens, "");
    snprintf(a, sizeof a, "KV cache: %s a token, room for %s tokens: %d %s", kv, tok, r->max_batch,
             r->max_batch == 1 ? "sequence" : "sequences");
    snprintf(b, sizeof b, "KV %s/token, %d %s", kv, r->max_batch,
             r->max_batch == 1 ? "sequence fits" : "sequences fit");
    y = line(y, in, ROLE_TEXT, (const char *const[]){a, b}, 2);
    roofline(v, in, y + (in.y + in.h - y > ROOF_MIN_H + 2 ? 1 : 0));
}

/* ---- 4 Interconnect: the all-reduces of tensor parallelism ---- */

static void pic_allreduce(const struct view_ctx *v, struct rect in)
{
    const struct infer_report *r = v->infer;
    const struct link *l = v->res->intra_link;
    char a[200], b[120], bw[32], t1[32], t2[32], t3[32], sz[32];
    snprintf(a, sizeof a, "TP %d x PP %d: %d replica%s of %d device%s", r->tp, r->pp, r->replicas,
             r->replicas == 1 ? "" : "s", r->tp * r->pp, r->tp * r->pp == 1 ? "" : "s");
    snprintf(b, sizeof b, "TP %d x PP %d", r->tp, r->pp);
    int y = line(in.y, in, ROLE_HEADING, (const char *const[]){a, b}, 2);
    if (l) {
        format_si(bw, sizeof bw, l->bw_gbs * 1e9, "B/s");
        snprintf(a, sizeof a, "%s %s a direction, %.1f us latency", l->head.id, bw, l->latency_us);
        snprintf(b, sizeof b, "%s %s", l->head.id, bw);
        y = line(y, in, ROLE_TEXT, (const char *const[]){a, b}, 2);
    }
    int rows = in.y + in.h - y - 4;
    if (rows > 0 && r->devices > 0) {
        int per = 1;
        y += pic_cells(y, in.x, in.w, rows > 4 ? 4 : rows, r->devices, r->devices, 0,
                       r->tp > 1 ? ROLE_PART_COMM : ROLE_DIM, &per);
    }
    if (!r->runnable) {
        cannot_serve(v, in, y);
        return;
    }
    if (r->tp <= 1 && r->pp <= 1) {
        line1(y, in, ROLE_DIM, "one device a replica: no all-reduces, no hand-offs");
        return;
    }
    int layers = v->setup->model.layers;
    format_duration(t1, sizeof t1, r->decode.tp_comm);
    format_duration(t2, sizeof t2, r->prefill.tp_comm);
    format_duration(t3, sizeof t3, r->decode.pp_p2p);
    /* Each decode all-reduce carries one hidden vector a sequence. */
    format_si(sz, sizeof sz, (double)r->batch * v->setup->model.hidden * 2.0, "B");
    if (r->tp > 1) {
        snprintf(a, sizeof a, "decode step: %d all-reduces of %s, %s in all: latency-bound",
                 2 * (layers > 0 ? layers : 0) / (r->pp > 0 ? r->pp : 1), sz, t1);
        snprintf(b, sizeof b, "decode all-reduces %s", t1);
        y = line(y, in, ROLE_TEXT, (const char *const[]){a, b}, 2);
        snprintf(a, sizeof a, "prefill of one prompt: %s of all-reduces", t2);
        snprintf(b, sizeof b, "prefill all-reduces %s", t2);
        y = line(y, in, ROLE_TEXT, (const char *const[]){a, b}, 2);
    }
    if (r->pp > 1) {
        snprintf(a, sizeof a, "pipeline hand-offs: %s a decode step", t3);
        y = line1(y, in, ROLE_TEXT, a);
    }
    char pct[16];
    format_percent(pct, sizeof pct,
                   r->tpot_s > 0 ? (r->decode.tp_comm + r->decode.pp_p2p) / r->tpot_s : 0);
    snprintf(a, sizeof a, "%s of a decode step waits on the links", pct);
    line1(y, in, ROLE_DIM, a);
}

/* ---- 5 Infrastructure: power and cost ---- */

static void pic_power_cost(const struct view_ctx *v, struct rect in)
{
    const struct infer_report *r = v->infer;
    const struct accelerator *acc = v->res->accel;
    char a[200], b[120], it[32], fac[32], usd[32], mt[32], j[32];
    int y = line1(in.y, in, ROLE_HEADING, "power and the price of tokens");
    format_si(it, sizeof it, r->it_kw * 1e3, "W");
    format_si(fac, sizeof fac, r->facility_kw * 1e3, "W");
    snprintf(a, sizeof a, "%d %s at %.0f W: IT %s, facility %s", r->devices,
             r->devices == 1 ? "device" : "devices", r->device_w, it, fac);
    snprintf(b, sizeof b, "IT %s, facility %s", it, fac);
    y = line(y, in, ROLE_TEXT, (const char *const[]){a, b}, 2);
    if (acc && acc->tdp_w > 0 && y < in.y + in.h) {
        int used = draw_textf(y, in.x, in.w, ROLE_DIM, "device power of TDP %.0f W ", acc->tdp_w);
        draw_bar(y++, in.x + used, in.w - used, r->device_w / acc->tdp_w, ROLE_PART_COMPUTE,
                 ROLE_DIM);
    }
    if (!r->runnable) {
        cannot_serve(v, in, y);
        return;
    }
    y++;
    format_usd(usd, sizeof usd, r->usd_per_hour);
    format_usd(mt, sizeof mt, r->usd_per_mtok);
    format_si(j, sizeof j, r->joules_per_token, "J");
    snprintf(a, sizeof a, "%s per million output tokens", mt);
    snprintf(b, sizeof b, "%s/Mtok", mt);
    y = line(y, in, ROLE_VALUE, (const char *const[]){a, b}, 2);
    snprintf(a, sizeof a, "%s an hour for devices and electricity", usd);
    snprintf(b, sizeof b, "%s/h", usd);
    y = line(y, in, ROLE_TEXT, (const char *const[]){a, b}, 2);
    snprintf(a, sizeof a, "%s of facility energy a token", j);
    snprintf(b, sizeof b, "%s a token", j);
    y = line(y, in, ROLE_TEXT, (const char *const[]){a, b}, 2);
    line1(y, in, ROLE_DIM, "a bigger batch shares each step's power among more tokens");
}

void view_infer_picture(const struct view_ctx *v, struct view_out *out, int stage, struct rect in)
{
    (void)out;
    if (in.h <= 0 || in.w <= 0)
        return;
    draw_clip(&in);
    switch (stage) {
    case STAGE_DATA:
        pic_requests(v, in);
        break;
    case STAGE_CPUS:
        pic_batcher(v, in);
        break;
    case STAGE_ACCELERATORS:
        pic_devices(v, in);
        break;
    case STAGE_INTERCONNECT:
        pic_allreduce(v, in);
        break;
    default:
        pic_power_cost(v, in);
        break;
    }
    draw_clip_reset();
}
